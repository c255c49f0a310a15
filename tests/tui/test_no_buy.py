"""The app recommends only what can be done (issue 37, part 1), as `quick` does: no Buy for a
build that does not work as a desktop or a GPU that cannot hold the job; the verdict says why
and gives the rent answer, the nearest builds that work are named, and the empty cost chart
says why it is empty.

Seen on main: 4x RTX 4090 at 90 % read "Buy: ... pays for itself after ~810 days" in the
verdict panel; with a 40 GB job on an RTX 3090 the cost chart was an empty frame with no word
(its reason sat in the title, which plotext leaves out when it is wider than the plot)."""

from __future__ import annotations

import pytest

from costcalc.present import display
from costcalc.present.report import verdict_lines
from costcalc.providers.registry import labels
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from costcalc.tui.widgets.plots import CumulativePlot, UtilisationPlot
from tests.tui.conftest import MakeApp
from tests.tui.helpers import started, wait_until

CASES = {
    "4x RTX 4090": (
        Settings(gpu="rtx4090", gpu_count=4, utilisation=0.9),
        "4x RTX 4090 needs 12 slots (the board has 7)",
    ),
    "passive A100 PCIe": (
        Settings(gpu="a100_pcie_80gb", utilisation=0.9),
        "the A100 PCIe 80GB needs a server's ducted airflow",
    ),
    "4x RTX 6000 Ada on 120 V": (
        Settings(gpu="rtx6000_ada", gpu_count=4, utilisation=0.9),
        "4x RTX 6000 Ada needs a 1,750 W PSU",
    ),
    "a 40 GB job on an RTX 3090": (
        Settings(gpu="rtx3090", memory_gb=40),
        "your RTX 3090 (24 GB) cannot hold this job (40 GB per GPU)",
    ),
}


def words(text: object) -> str:
    return " ".join(str(text).split())


def drawn(plot: CumulativePlot | UtilisationPlot) -> str:
    """What the plot shows on screen, its lines inside the frame joined into words."""
    lines = (plot.render_line(y).text.strip(" │") for y in range(plot.size.height))
    return words(" ".join(lines))


@pytest.mark.parametrize("case", list(CASES))
async def test_the_verdict_panel_says_no_buy_why_and_what_would_work(
    case: str, app_factory: MakeApp
) -> None:
    settings, why = CASES[case]
    app = app_factory(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await started(pilot)
        calc = screen.calc
        assert calc is not None
        verdict = words(screen.query_one("#verdict-line").render())
        assert verdict.startswith("Rent") and why in verdict and "Buy:" not in verdict
        assert calc.comparison.best is not None and calc.comparison.best.offer.name in verdict
        desktop = words(screen.query_one("#desktop-line").render())
        assert "Nearest build" in desktop
        assert calc.decision in ("cannot_fit", "cannot_build")
        # the CLI's verdict line, word for word
        assert verdict == words(verdict_lines(calc, labels())[0])
        nearest = display.alternatives_text(calc.alternatives, calc.money)
        assert nearest is not None and words(nearest) in desktop
        assert "Flips to Buy" not in desktop and "beats the cheapest" not in desktop
        table = screen.query_one(OffersTable)
        shown = [
            table.cell_text_all(row)["break_even_days"]
            for row in table.rows
            if row.result is not None
        ]
        assert shown and set(shown) == {"-"}  # no day to pay back by: there is no Buy
        await wait_until(app, lambda: screen.query(CumulativePlot))  # mounted after its frame
        cost = screen.query_one(CumulativePlot)
        await wait_until(app, lambda: cost.drawn is not None)
        assert f"No Buy, so no break-even: {why}" in drawn(cost)


async def test_the_empty_cost_chart_says_why_at_80_columns(app_factory: MakeApp) -> None:
    """At 80 x 24 the break-even view's plots are 40 columns wide: the reason is wrapped inside
    each plot, where it fits, not put in a title that plotext would drop."""
    app = app_factory(CASES["a 40 GB job on an RTX 3090"][0])
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await pilot.press("e")
        await wait_until(app, lambda: type(app.screen).__name__ == "BreakEvenScreen")
        screen = app.screen
        await wait_until(app, lambda: screen.query(UtilisationPlot))
        for plot in (screen.query_one(CumulativePlot), screen.query_one(UtilisationPlot)):
            await wait_until(app, lambda plot=plot: plot.drawn is not None)  # type: ignore[misc]
            assert plot.size.width <= 40
            assert "No Buy, so no break-even: your RTX 3090 (24 GB) cannot hold this job" in (
                drawn(plot)
            )
        summary = words(screen.query_one("#breakeven-summary").render())
        assert summary.startswith("no break-even (no Buy): your RTX 3090 (24 GB) cannot hold")


async def test_a_build_that_works_keeps_its_buy_and_its_curves(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx4090", gpu_count=2, utilisation=0.9))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await started(pilot)
        assert screen.calc is not None and screen.calc.decision == "buy"
        assert screen.calc.alternatives == ()
        assert words(screen.query_one("#verdict-line").render()).startswith("Buy: at 90%")
        await wait_until(app, lambda: screen.query(CumulativePlot))
        cost = screen.query_one(CumulativePlot)
        await wait_until(app, lambda: cost.drawn is not None)
        assert "No Buy" not in drawn(cost) and "break-even" in drawn(cost)
