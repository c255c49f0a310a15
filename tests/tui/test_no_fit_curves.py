"""A desktop that cannot hold the job has no break-even: the curves say so and draw none."""

from __future__ import annotations

from costcalc.store.settings import Settings
from costcalc.tui.screens.breakeven import BreakEvenScreen
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.plots import CumulativeFigure, CumulativePlot, UtilisationPlot
from tests.tui.conftest import MakeApp
from tests.tui.helpers import wait_until


async def test_no_break_even_for_a_desktop_that_cannot_hold_the_job(app_factory: MakeApp) -> None:
    """Seen: with a job needing 40 GB on a 24 GB RTX 3090, the chart still drew the desktop's
    line and a break-even day against the cheapest offer."""
    app = app_factory(Settings(gpu="rtx3090", memory_gb=40))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await wait_until(app, lambda: main.calc is not None)
        assert main.calc is not None and main.calc.comparison.desktop_fits is False
        await pilot.press("e")
        await wait_until(app, lambda: isinstance(app.screen, BreakEvenScreen))
        screen = app.screen
        await wait_until(app, lambda: screen.query(CumulativePlot))  # mounted after its frame
        plot = screen.query_one(CumulativePlot)
        await wait_until(app, lambda: plot.figure is not None)
        figure = plot.figure
        assert isinstance(figure, CumulativeFigure)
        assert figure.offers == () and figure.note and "cannot hold" in figure.note
        other = screen.query_one(UtilisationPlot)
        await wait_until(app, lambda: other.figure is not None)
        assert other.figure.offers == ()  # type: ignore[attr-defined]
        summary = str(screen.query_one("#breakeven-summary").render())
        assert "no break-even" in summary and "cannot hold" in summary


async def test_a_desktop_that_holds_the_job_keeps_its_curves(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx3090", memory_gb=20))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await wait_until(app, lambda: main.calc is not None)
        await pilot.press("e")
        await wait_until(app, lambda: isinstance(app.screen, BreakEvenScreen))
        await wait_until(app, lambda: app.screen.query(CumulativePlot))  # mounted after its frame
        plot = app.screen.query_one(CumulativePlot)
        await wait_until(app, lambda: plot.figure is not None)
        assert isinstance(plot.figure, CumulativeFigure)
        assert plot.figure.offers and plot.figure.note is None
