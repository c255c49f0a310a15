"""The number checks both front ends share (costcalc.values)."""

from __future__ import annotations

import pytest

from costcalc import values
from costcalc.errors import CostcalcError


def test_numbers_read_the_way_people_write_them() -> None:
    assert values.number("$2,200", "price") == 2200
    assert values.number("  ", "price") is None
    assert values.optional_positive("", "hours") is None
    assert values.share("90%", "PSU efficiency") == pytest.approx(0.9)
    assert values.utilisation("15 %") == pytest.approx(0.15)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: values.non_negative("-1", "price"), "price cannot be negative"),
        (lambda: values.positive("0", "hours"), "hours must be greater than 0"),
        (lambda: values.positive("", "hours"), "hours is needed"),
        (lambda: values.number("inf", "price"), "finite"),
        (lambda: values.number("cheap", "price"), "price must be a number"),
        (lambda: values.share("1.5", "PSU efficiency"), "(0, 1]"),
        (lambda: values.utilisation("15"), "did you mean 15%?"),
        (lambda: values.utilisation("lots"), "a share like 0.15 or 15%"),
    ],
)
def test_bad_numbers_say_what_a_good_one_looks_like(call: object, needle: str) -> None:
    with pytest.raises(CostcalcError) as caught:
        call()  # type: ignore[operator]
    assert needle in str(caught.value)
