"""The app's offers table as the CLI's (issue 37): the verdict's offer is the first row (★) with
or without a run, a stale price the verdict set aside carries † and the table's title says what
† means, and a GPU typed as 'a100' is the card `quick --gpu a100` means."""

from __future__ import annotations

from costcalc.core.models import OfferResult
from costcalc.core.scenario import Calculation
from costcalc.store.settings import Settings
from costcalc.tui.rows import DESKTOP_KEY
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import MakeApp
from tests.tui.helpers import wait_until


def first_set_aside(calc: Calculation) -> OfferResult:
    assert calc.comparison.set_aside, "the bundled Vast.ai listings are stale on FIXED_NOW"
    return calc.comparison.set_aside[0]


async def test_a_set_aside_price_carries_a_dagger_and_the_title_says_why(
    app_factory: MakeApp,
) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(app, lambda: screen.calc is not None)
        await pilot.pause()
        table = screen.query_one(OffersTable)
        assert screen.calc is not None
        aside = first_set_aside(screen.calc)
        lines = [table.render_line(y).text for y in range(table.size.height)]
        assert lines[1].startswith("★")  # the verdict's row, under the header
        marked = [line for line in lines if line.startswith("†")]
        assert marked and aside.offer.name[:10] in marked[0]
        assert table.border_title == "Offers · † left out as stale"
        assert sum(line.startswith("★") for line in lines) == 1


async def test_with_a_run_the_verdicts_row_is_first_and_the_desktop_under_it(
    app_factory: MakeApp,
) -> None:
    app = app_factory(Settings(gpu="rtx3090", run_hours=10, items_per_run=1e6))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(app, lambda: screen.calc is not None)
        await pilot.pause()
        table = screen.query_one(OffersTable)
        assert screen.calc is not None
        pinned = table.view.pinned
        assert pinned[0].result is screen.calc.comparison.best
        assert pinned[1].key == DESKTOP_KEY
        lines = [table.render_line(y).text for y in range(3)]
        assert lines[1].startswith("★") and lines[2].startswith("⌂")
        assert table.cursor == 0  # the cursor starts on the verdict
        # $/run of a 1M-item run is $ per 1M items: one column, not two alike
        titles = [c.title_in(table.ctx) for c in table.candidates]
        assert "$/run" in titles and not any("items" in t for t in titles)


async def test_a100_typed_in_the_app_is_the_card_quick_means(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("g", *"a100", "enter")
        await wait_until(app, lambda: screen.settings.gpu != "rtx3090")
        assert screen.settings.gpu == "a100_pcie_40gb"
        await pilot.press("g", *"A100 SXM4", "enter")
        await wait_until(app, lambda: screen.settings.gpu != "a100_pcie_40gb")
        assert screen.settings.gpu == "a100_sxm4_40gb"
