"""Snapshot tests of the break-even plots: two offers and the desktop, at both sizes, and in
another currency. Fixed offers and a fixed clock (tests/tui/conftest.py).

Update after an intended change with `pytest tests/tui --snapshot-update` and look at the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable

from costcalc.core.records import validated
from costcalc.store.settings import Settings
from tests.tui.conftest import MakeApp
from tests.tui.helpers import started

SnapCompare = Callable[..., bool]

SECOND_OFFER = ["t", "down", "down"]
"""Select the row below the verdict's and the desktop's own (a run is set), so both plots
carry two offers and the desktop."""


def settings(**more: object) -> Settings:
    return validated(Settings, {"gpu": "rtx3090", "run_hours": 10, **more})


def test_two_offers_at_80x24(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(settings()),
        press=["w", "w", *SECOND_OFFER],
        terminal_size=(80, 24),
        run_before=started,
    )


def test_two_offers_in_the_break_even_view(
    snap_compare: SnapCompare, fixed_app_factory: MakeApp
) -> None:
    assert snap_compare(
        fixed_app_factory(settings()),
        press=[*SECOND_OFFER, "e"],
        terminal_size=(140, 45),
        run_before=started,
    )


def test_money_axis_in_euros(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(settings(currency="EUR")),
        press=["e"],
        terminal_size=(140, 45),
        run_before=started,
    )
