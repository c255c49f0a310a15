"""The app prices and checks a desktop as `quick` and `desktops` do (issue 24 item 5): the base
system it is priced on can be chosen, and a build that does not work is said on the desktop line."""

from __future__ import annotations

from textual.widgets import Select

from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import MakeApp
from tests.tui.helpers import started


async def test_a_build_over_its_wall_circuit_is_said_in_the_verdict(
    app_factory: MakeApp,
) -> None:
    """Since issue 37 a build that does not work has no Buy: the verdict line says why, the
    desktop line names the nearest builds that do."""
    app = app_factory(Settings(gpu="rtx4090", gpu_count=4, utilisation=0.4))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.pause()
        verdict = " ".join(str(screen.query_one("#verdict-line").render()).split())
        assert verdict.startswith("Rent (no Buy): 4x RTX 4090 needs 12 slots")
        assert "more than one 120 V/15 A circuit" in verdict
        line = " ".join(str(screen.query_one("#desktop-line").render()).split())
        assert "Nearest builds that work:" in line and "2x RTX 4090 on your 120 V/15 A" in line
        screen.change({"gpu_count": 1})
        await pilot.pause()
        verdict = " ".join(str(screen.query_one("#verdict-line").render()).split())
        line = " ".join(str(screen.query_one("#desktop-line").render()).split())
        assert "no Buy" not in verdict and "Nearest" not in line


async def test_the_base_system_select_prices_the_desktop(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx3090", utilisation=0.15))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await started(pilot)
        calc = screen.calc
        assert calc is not None and calc.base is not None and calc.base.tier == "lean"
        lean = calc.desktop.price_usd
        assert lean is not None
        select: Select[str] = screen.query_one("#base", Select)
        assert select.value == ""  # "by GPU count"
        select.value = "workstation"
        await pilot.pause()
        assert screen.settings.base == "workstation"
        calc = screen.calc
        assert calc is not None and calc.base is not None and calc.base.tier == "workstation"
        assert calc.desktop.price_usd == lean - 1050 + calc.base.system.usd
        await pilot.press("q")
