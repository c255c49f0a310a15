"""With a run set, the offers table answers per run, as `quick --run-hours` does: $ a run leads
the columns and the order, and `s` sorts by it first."""

from __future__ import annotations

import pytest

from costcalc.present import columns as cols
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import MakeApp
from tests.tui.helpers import wait_until


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_a_run_sorts_and_shows_by_cost_per_run(
    app_factory: MakeApp, size: tuple[int, int]
) -> None:
    app = app_factory(Settings(gpu="rtx3090", run_hours=12))
    async with app.run_test(size=size) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await wait_until(app, lambda: main.calc is not None)
        table = main.query_one(OffersTable)
        shown = [c.key for c in table.fitted.columns]
        assert "run_usd" in shown
        if "usd_per_year" in shown:
            assert shown.index("run_usd") < shown.index("usd_per_year")
        assert "$/run" in str(table.border_subtitle)
        # best first: within a section, cheapest per run first (the first section, the
        # cheapest of each provider, puts the offers that can do the job before scale-out)
        sections: dict[str, list[float]] = {}
        title = ""
        for row in table.view.rows:
            if row.kind == "section":
                title = row.title
            elif row.result is not None and row.result.offer.guaranteed:
                sections.setdefault(title, []).append(cols.sort_key(row.result, "run_usd"))
        comparable = sections["can do your desktop's job"]
        assert len(comparable) > 5 and comparable == sorted(comparable)
        await pilot.press("s")
        assert table.sort_column == "run_usd"
        await pilot.press("1" if shown[0] == "run_usd" else str(shown.index("run_usd") + 1))
        assert table.sort_column == "run_usd"


async def test_without_a_run_year_figures_lead(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx3090"))
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await wait_until(app, lambda: main.calc is not None)
        await pilot.press("s")
        assert main.query_one(OffersTable).sort_column == "usd_per_year"
