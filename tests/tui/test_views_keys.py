"""Keys in every view as people press them, one by one and in one burst: a view's key, Escape
back, and the key after it acting on the main screen; j / k; the sort digits; the filter
selects' keys."""

from __future__ import annotations

import pytest
from textual.widgets import Select, TabbedContent

from costcalc.store.settings import Settings
from costcalc.tui.app import CostcalcApp
from costcalc.tui.screens.help import HelpScreen
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import MakeApp
from tests.tui.helpers import burst, wait_until


async def started(app: CostcalcApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await wait_until(app, lambda: screen.calc is not None and screen.is_mounted)
    return screen


async def idle(pilot: object) -> None:
    for _ in range(4):
        await pilot.pause()  # type: ignore[attr-defined]


VIEWS = ["e", "question_mark", "D"]
"""Break-even, help, desktop builds: the views a key opens over the main screen."""


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("escape", ["escape", "alt"])
@pytest.mark.parametrize("how", ["one by one", "burst"])
async def test_a_view_then_escape_then_a_key(
    app_factory: MakeApp, view: str, escape: str, how: str
) -> None:
    """Seen: `e Escape w` sent together left the break-even view open. A terminal sends Escape
    and a key in one write as Alt+key ('alt' here); both spellings must close the view and then
    switch the main screen to 'why this number'."""
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        main = await started(app)
        keys = [view, "escape", "w"] if escape == "escape" else [view, "alt+w"]
        if how == "burst":
            burst(app, *keys)
        else:
            for key in keys:
                await pilot.press(key)
                await idle(pilot)
        await idle(pilot)
        assert app.screen is main
        assert main.query_one(TabbedContent).active == "why-pane"


@pytest.mark.parametrize("how", ["one by one", "burst"])
async def test_j_and_k_move_like_down_and_up(app_factory: MakeApp, how: str) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        main = await started(app)
        table = main.query_one(OffersTable)
        start = table.cursor
        keys = ("j", "j", "j", "k")
        if how == "burst":
            burst(app, *keys)
        else:
            await pilot.press(*keys)
        await idle(pilot)
        moved = table.cursor
        await pilot.press("k", "k", "down", "down", "up")
        after_arrows = table.cursor
        assert moved > start
        assert after_arrows == moved - 1
        # j then k lands where Down then Up does
        await pilot.press("down", "up")
        assert table.cursor == after_arrows


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_each_digit_sorts_by_the_column_it_names(
    app_factory: MakeApp, size: tuple[int, int]
) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        main = await started(app)
        table = main.query_one(OffersTable)
        shown = [c.key for c in table.fitted.columns]
        assert len(shown) >= 4
        for n, key in enumerate(shown[:9], start=1):
            await pilot.press(str(n))
            assert (table.sort_column, table.sort_reverse) == (key, False)
            await pilot.press(str(n))
            assert (table.sort_column, table.sort_reverse) == (key, True)
        await pilot.press("0")
        assert table.sort_column is None
        # the help says which digit is which column, in the screen's words
        await pilot.press("question_mark")
        await idle(pilot)
        assert isinstance(app.screen, HelpScreen)
        titles = [c.title_in(table.ctx) for c in table.fitted.columns][:9]
        assert app.screen.sort_keys == tuple((str(n), t) for n, t in enumerate(titles, start=1))


@pytest.mark.parametrize(
    ("key", "select", "choose"),
    [("f", "provider", "runpod"), ("F", "offer_kind", "spot"), ("G", "region", None)],
)
@pytest.mark.parametrize("how", ["one by one", "burst"])
async def test_the_filter_selects_have_keys(
    app_factory: MakeApp, key: str, select: str, choose: str | None, how: str
) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        main = await started(app)
        # The select's key lands in a burst; its menu then takes keys as Textual's Select does.
        if how == "burst":
            burst(app, "j", "k", key)
        else:
            await pilot.press("j", "k", key)
        await idle(pilot)
        await pilot.press("enter", "down", "enter")  # open, the next choice, take it
        await idle(pilot)
        widget = main.query_one(f"#{select}", Select)
        assert main.focused is widget
        assert widget.value != "all"
        if choose == "runpod":
            assert main.settings.providers != ()
        elif choose == "spot":
            assert main.settings.offer_kind == "spot"
        else:
            assert main.settings.cloud_regions != ()
        await pilot.press("escape")
        assert isinstance(main.focused, OffersTable)


async def test_the_electricity_price_key_moved_to_L(app_factory: MakeApp) -> None:
    """`k` moves up the table now; the electricity price is `L`, beside `l` (location)."""
    app = app_factory(Settings(gpu="rtx3090"))
    async with app.run_test(size=(140, 45)) as pilot:
        main = await started(app)
        await pilot.press("L", "0", ".", "3", "enter")
        await idle(pilot)
        assert main.settings.usd_per_kwh == pytest.approx(0.3)
