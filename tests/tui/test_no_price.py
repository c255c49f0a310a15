"""A desktop GPU with no price on file (the RTX A4500) in the app: every view
opens, what needs no price is shown, and break-even is asked for, not drawn as 'never'."""

from __future__ import annotations

from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import MakeApp
from tests.tui.helpers import started


async def test_a_desktop_without_a_price_opens_every_view(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx_a4500", utilisation=0.4))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await started(pilot)
        calc = screen.calc
        assert calc is not None and calc.desktop.price_usd is None
        verdict = str(screen.query_one("#verdict-line").render())
        assert verdict.startswith("No verdict: no desktop price is known for the RTX A4500")
        desktop = str(screen.query_one("#desktop-line").render())
        assert "price not known" in desktop and "electricity" in desktop
        assert screen.query_one("#desktop_price_usd").value == ""  # the user's to give
        table = screen.query_one(OffersTable)
        shown = [
            table.cell_text_all(row)["break_even_days"]
            for row in table.rows
            if row.result is not None
        ]
        assert shown and set(shown) == {"-"}  # unknown, never "never"
        await pilot.press("e")
        await pilot.pause()
        assert type(app.screen).__name__ == "BreakEvenScreen"
        summary = str(app.screen.query_one("#breakeven-summary").render())
        assert summary.startswith("no desktop price is known for the RTX A4500")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("q")
    assert app.return_code == 0


async def test_giving_the_price_brings_the_verdict_back(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx_a4500", utilisation=0.4))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.change({"desktop_price_usd": 9000.0})
        await pilot.pause()
        assert screen.calc is not None and screen.calc.desktop.price_usd == 9000.0
        verdict = str(screen.query_one("#verdict-line").render())
        assert verdict.startswith(("Buy:", "Rent:"))
