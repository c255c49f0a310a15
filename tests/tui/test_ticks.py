"""Axis ticks, tick labels, labels beside a line and the legend: pure functions, no app."""

from __future__ import annotations

import itertools

import pytest

from costcalc.tui.ticks import (
    beside,
    column_of,
    nice_ticks,
    shorten,
    spaced_ticks,
    tick_labels,
    x_of,
)
from costcalc.tui.widgets.breakeven import legend
from costcalc.tui.widgets.looks import DESKTOP, OFFERS


@pytest.mark.parametrize(
    ("low", "high", "most", "expected"),
    [
        (0, 6738.7, 5, (0, 2000, 4000, 6000)),  # not 1684.7, 3369.4, ...
        (0, 7002.4, 4, (0, 2000, 4000, 6000)),
        (0, 7002.4, 3, (0, 5000)),
        (0, 3285, 4, (0, 1000, 2000, 3000)),
        (0, 100, 6, (0, 20, 40, 60, 80, 100)),
        (0, 100, 4, (0, 50, 100)),
        (0, 0.37, 4, (0, 0.1, 0.2, 0.3)),
        (0, 12_345_678, 6, (0, 5_000_000, 10_000_000)),
        (-50, 50, 5, (-40, -20, 0, 20, 40)),
        (0, 0.0025, 4, (0, 0.001, 0.002)),
    ],
)
def test_ticks_are_round_and_inside_the_axis(
    low: float, high: float, most: int, expected: tuple[float, ...]
) -> None:
    assert nice_ticks(low, high, most) == pytest.approx(expected)


@pytest.mark.parametrize("high", [0.003, 0.9, 7.5, 42, 999, 1684.7, 6738.7, 123_456, 9e9])
@pytest.mark.parametrize("most", [3, 4, 6, 7])
def test_ticks_step_by_one_two_or_five_and_never_crowd(high: float, most: int) -> None:
    found = nice_ticks(0.0, high, most)
    assert 2 <= len(found) <= most
    assert found[0] == 0 and found[-1] <= high
    steps = {round(b - a, 9) for a, b in itertools.pairwise(found)}
    assert len(steps) == 1
    (step,) = steps
    assert f"{step:.0e}"[0] in "125", step  # the first digit of 2e+03, 5e-01, 1e-03


def test_a_flat_or_broken_range_still_gives_an_axis() -> None:
    assert len(nice_ticks(5.0, 5.0)) >= 2
    assert len(nice_ticks(0.0, float("nan"))) >= 2


def test_money_labels_have_the_symbol_and_thousands_separators() -> None:
    assert tick_labels((0, 2000, 4000), prefix="$") == ["$0", "$2,000", "$4,000"]
    assert tick_labels((0, 5_000_000), prefix="€") == ["€0", "€5,000,000"]
    assert tick_labels((-50, 0, 50), prefix="£") == ["-£50", "£0", "£50"]


def test_labels_carry_the_decimals_their_step_needs() -> None:
    assert tick_labels((0, 0.5, 1.0)) == ["0.0", "0.5", "1.0"]
    assert tick_labels((0, 0.001, 0.002)) == ["0.000", "0.001", "0.002"]
    assert tick_labels((0, 50, 100), suffix="%") == ["0%", "50%", "100%"]


def test_columns_match_plotext_and_invert() -> None:
    assert column_of(0, 0, 100, 51) == 0
    assert column_of(100, 0, 100, 51) == 50
    assert column_of(50, 0, 100, 51) == 25
    for column in range(40):
        assert column_of(x_of(column, 0, 6000, 40), 0, 6000, 40) == column


LABEL, SHORT = "break-even 4,492 d", "4,492 d"


def test_a_label_goes_right_of_its_line_when_it_fits() -> None:
    text, start, side = beside(LABEL, SHORT, 1000, 0, 10000, 60)
    assert (text, side) == (LABEL, "left")
    assert start == column_of(1000, 0, 10000, 60) + 2  # one free column beside the line
    assert start + len(text) <= 60


def test_a_label_goes_left_of_its_line_near_the_right_edge() -> None:
    """At 80 columns the crossing sits two thirds across: 'break-even 4,4' was cut there."""
    line = column_of(4492, 0, 6738, 45)
    text, end, side = beside(LABEL, SHORT, 4492, 0, 6738, 45)
    assert (text, side) == (LABEL, "right")
    assert end == line - 2 and end - len(text) + 1 >= 0


def test_a_label_is_shortened_when_neither_side_has_room() -> None:
    assert beside(LABEL, SHORT, 50, 0, 100, 20)[0] == SHORT
    cramped = beside(LABEL, SHORT, 50, 0, 100, 8)[0]
    assert cramped == "4,…"  # three columns left of the line


@pytest.mark.parametrize("columns", range(3, 90))
@pytest.mark.parametrize("share", [0.0, 0.1, 0.5, 0.66, 0.9, 1.0])
def test_a_label_never_runs_off_the_canvas_nor_onto_its_line(columns: int, share: float) -> None:
    x = 6000 * share
    line = column_of(x, 0, 6000, columns)
    text, anchor, side = beside(LABEL, SHORT, x, 0, 6000, columns)
    first, last = (
        (anchor, anchor + len(text) - 1) if side == "left" else (anchor - len(text) + 1, anchor)
    )
    if text:
        assert first >= 0 and last <= columns - 1
        assert not first <= line <= last


def test_shorten_keeps_what_fits() -> None:
    assert shorten("RunPod 1x RTX 4090", 30) == "RunPod 1x RTX 4090"
    assert shorten("RunPod 1x RTX 4090", 8) == "RunPod …"
    assert shorten("RunPod", 0) == ""


# --------------------------------------------------------------------------- legend

ENTRIES = (
    (DESKTOP, "desktop", ""),
    (OFFERS[0], "Paperspace A100-80G", "selected"),
    (OFFERS[1], "AWS spot g5.xlarge", "cheapest"),
)


def test_the_legend_names_each_line_with_its_role_when_wide() -> None:
    text = legend(ENTRIES, 100).plain
    assert text == (
        "⠒⠒ desktop   ▄▄ Paperspace A100-80G (selected)   •• AWS spot g5.xlarge (cheapest)"
    )


@pytest.mark.parametrize("width", [40, 48, 60, 70])
def test_the_legend_fits_a_narrow_pane_and_stars_the_cheapest(width: int) -> None:
    text = legend(ENTRIES, width).plain
    assert len(text) <= width, text
    assert text.startswith("⠒⠒ desktop") and "▄▄ " in text and "•• ★ " in text


def test_each_line_has_its_own_glyph_and_colour() -> None:
    looks = (DESKTOP, *OFFERS)
    assert len({look.marker for look in looks}) == 3
    assert len({look.rgb for look in looks}) == 3
    assert len({look.sample for look in looks}) == 3


def test_y_ticks_leave_a_free_row_between_labels() -> None:
    """11 rows up to $5,500: 0, 1,000, ... 5,000 would put labels on neighbouring rows."""
    found = spaced_ticks(0, 5500, 11, lambda t: [1] * len(t), most=6)
    assert found == pytest.approx((0, 2000, 4000))
    rows = [column_of(t, 0, 5500, 11) for t in found]
    assert all(b - a >= 2 for a, b in itertools.pairwise(rows))


def test_x_ticks_fit_their_labels_side_by_side() -> None:
    def widths(found: tuple[float, ...]) -> list[int]:
        return [len(label) for label in tick_labels(found)]

    for columns in (20, 31, 40, 47, 80):
        found = spaced_ticks(0, 12_345, columns, widths, most=7)
        at = [column_of(t, 0, 12_345, columns) for t in found]
        sizes = widths(found)
        for a, b, size_a, size_b in zip(at, at[1:], sizes, sizes[1:], strict=False):
            assert (b - size_b // 2) - (a - size_a // 2 + size_a) >= 1, (columns, found)
