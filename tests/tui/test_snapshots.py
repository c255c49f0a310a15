"""Snapshot tests: the screens as SVG at fixed sizes, with fixed offers and a fixed clock.

Update after an intended change with `pytest tests/tui --snapshot-update` and review the SVGs.
Each picture is of the app once started (helpers.started: the setup panel and the filters are
filled right after the first frame), its keys pressed after that.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input

from costcalc.store.settings import Settings
from tests.tui.conftest import MakeApp
from tests.tui.helpers import no_blink, started, steady, wait_until

SnapCompare = Callable[..., bool]


def settings() -> Settings:
    return Settings(gpu="rtx3090", run_hours=10, memory_gb=16)


def plain() -> Settings:
    return Settings(gpu="rtx3090")


def test_main_screen_80x24(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(fixed_app_factory(plain()), terminal_size=(80, 24), run_before=started)


def test_main_screen_140x45(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(fixed_app_factory(plain()), terminal_size=(140, 45), run_before=started)


def test_expanded_80x24(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(plain()), press=["a"], terminal_size=(80, 24), run_before=started
    )


def test_expanded_140x45(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(plain()), press=["a"], terminal_size=(140, 45), run_before=started
    )


def test_run_cost_80x24(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(fixed_app_factory(settings()), terminal_size=(80, 24), run_before=started)


def test_run_cost_140x45(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(fixed_app_factory(settings()), terminal_size=(140, 45), run_before=started)


def test_main_screen_after_u_60(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(plain()),
        press=["u", "6", "0", "enter"],
        terminal_size=(140, 45),
        run_before=started,
    )


def test_setup_field_at_80x24(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    """At 80 columns the setup panel opens while a field is being typed in."""

    async def type_in_a_field(pilot: Pilot[None]) -> None:
        app = pilot.app
        await no_blink(pilot)  # the cursor after the 4 is drawn, whenever the picture is taken
        await pilot.press("u", "4")
        field = app.query_one("#utilisation", Input)
        await wait_until(app, lambda: app.focused is field and field.value == "4")
        # the panel scrolls to the field after the refresh that gave it a size: wait for it
        await wait_until(app, lambda: app.screen.region.contains_region(field.region))
        await steady(pilot)

    assert snap_compare(
        fixed_app_factory(plain()), run_before=type_in_a_field, terminal_size=(80, 24)
    )


def test_break_even_view(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(settings()), press=["e"], terminal_size=(140, 45), run_before=started
    )


def test_why_this_number(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(settings()), press=["w"], terminal_size=(140, 45), run_before=started
    )


def test_help(snap_compare: SnapCompare, fixed_app_factory: MakeApp) -> None:
    assert snap_compare(
        fixed_app_factory(settings()),
        press=["question_mark"],
        terminal_size=(80, 24),
        run_before=started,
    )
