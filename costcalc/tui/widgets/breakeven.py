"""The break-even plots: cumulative cost over days, and break-even days against utilisation.

The curves come from `costcalc.tui.curves` (engine and compare); costcalc.tui.widgets.plots
draws them; this module places them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from costcalc.loaders import AppData
from costcalc.models import OfferResult
from costcalc.tui.calc import Calculation


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
        from costcalc.tui.widgets.plots import CumulativePlot, UtilisationPlot

        utilisation = UtilisationPlot(id="utilisation-plot")
        utilisation.display = self._show_utilisation
        await self.query_one("#plots-placeholder").remove()
        await self.mount(CumulativePlot(id="cumulative-plot"), utilisation)
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
        self.query_one(CumulativePlot).draw(calc, offers)
        self.query_one(UtilisationPlot).draw(calc, offers)
