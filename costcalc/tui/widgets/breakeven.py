"""The break-even plots: cumulative cost over days, and break-even days against utilisation.

The curves come from `costcalc.tui.curves` (engine and compare); costcalc.tui.widgets.plots
draws them; this module places them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from costcalc.models import OfferResult
from costcalc.scenario import AppData, Calculation


def short_label(result: OfferResult) -> str:
    return f"{result.offer.provider} {result.offer.name}"


class BreakEvenView(Horizontal):
    """Both plots side by side, for the selected offer and the cheapest one.

    The plots are mounted right after the first frame (see costcalc.tui.widgets.plots), so the
    offers and the verdict with its break-even figure paint first; a drawing asked for before
    then is kept and made as soon as the plots exist.
    """

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self._drawn: tuple[Calculation, OfferResult | None] | None = None
        self._plots_mounted = False
        self._show_utilisation = True

    def compose(self) -> ComposeResult:
        yield Static("drawing the break-even curves...", id="plots-placeholder")

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_plots)

    async def _mount_plots(self) -> None:
        """Swap the placeholder for the plots, unless the app is closing meanwhile: a user who
        quits right after start must not see a traceback from a plot mounting into nothing."""
        from textual.css.query import NoMatches
        from textual.widget import MountError

        from costcalc.tui.widgets.plots import CumulativePlot, UtilisationPlot

        if not self.is_attached or getattr(self.app, "_exit", False) or not self.app.is_running:
            return
        utilisation = UtilisationPlot(id="utilisation-plot")
        utilisation.display = self._show_utilisation
        try:
            await self.query_one("#plots-placeholder").remove()
            await self.mount(CumulativePlot(id="cumulative-plot"), utilisation)
        except (MountError, NoMatches):
            return  # the view went away while the plots were mounting
        if not self.is_attached:
            return
        self._plots_mounted = True
        if self._drawn is not None:
            calc, selected = self._drawn
            self._drawn = None
            self.draw(calc, selected)

    def show_utilisation(self, show: bool) -> None:
        """The second plot needs width: the 80-column layout shows the cumulative one only."""
        self._show_utilisation = show
        if self._plots_mounted:
            self.query_one("#utilisation-plot").display = show

    def draw(self, calc: Calculation, selected: OfferResult | None) -> None:
        if self._drawn is not None and self._drawn[0] is calc and self._drawn[1] is selected:
            return  # cursor events repeat the same selection while the table is rebuilt
        self._drawn = (calc, selected)
        if not self._plots_mounted:
            return
        from costcalc.tui.widgets.plots import CumulativePlot, UtilisationPlot

        best = calc.comparison.best
        offers = [r for r in (selected, best) if r is not None]
        if len(offers) == 2 and offers[0] is offers[1]:
            offers.pop()
        for plot in self.query(CumulativePlot):  # none when the view is being torn down
            plot.draw(calc, offers)
        for other in self.query(UtilisationPlot):
            other.draw(calc, offers)
