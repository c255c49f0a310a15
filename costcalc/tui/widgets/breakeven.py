"""The break-even plots: cumulative cost over days, and break-even days against utilisation.

The curves come from `costcalc.tui.curves` (engine and compare); this module only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual_plotext import PlotextPlot

from costcalc import engine
from costcalc import format as fmt
from costcalc.loaders import AppData
from costcalc.models import OfferResult
from costcalc.tui import curves
from costcalc.tui.calc import Calculation


def short_label(result: OfferResult) -> str:
    return f"{result.offer.provider} {result.offer.name}"


class CumulativePlot(PlotextPlot):
    """Money spent after d days: the desktop's line starts at its price, the cloud's at zero."""

    def draw(self, calc: Calculation, offers: Sequence[OfferResult]) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title("Cumulative cost ($) over days")
        plt.xlabel("days")
        first = curves.cumulative(calc, offers[0]) if offers else None
        if first is None:
            self.refresh()
            return
        plt.plot(first.days, first.desktop_usd, label="desktop", marker="braille")
        for result in offers:
            curve = curves.cumulative(calc, result)
            days = [d for d in curve.days if d <= first.days[-1]]
            plt.plot(
                days, curve.cloud_usd[: len(days)], label=short_label(result), marker="braille"
            )
        crossing, at_usd = first.crossing_day, first.crossing_usd
        if crossing is not None and at_usd is not None and crossing <= first.days[-1]:
            plt.vline(crossing)
            plt.scatter([crossing], [at_usd], marker="x")
            plt.text(f" break-even {crossing:,.0f} d", crossing, at_usd, alignment="left")
        self.refresh()


class UtilisationPlot(PlotextPlot):
    """Break-even days at every utilisation; the user's utilisation and horizon marked."""

    def draw(self, calc: Calculation, offers: Sequence[OfferResult]) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title("Break-even days against utilisation (%)")
        plt.xlabel("utilisation %")
        horizon_days = calc.assumptions.horizon_years * engine.DAYS_PER_YEAR
        cap = horizon_days * 3
        for result in offers:
            curve = curves.by_utilisation(calc, result)
            points = [
                (u * 100, min(d, cap))
                for u, d in zip(curve.utilisation, curve.break_even_days, strict=True)
                if d is not None
            ]
            if points:
                xs, ys = zip(*points, strict=True)
                plt.plot(list(xs), list(ys), label=short_label(result), marker="braille")
        plt.hline(horizon_days)
        plt.text(
            f"horizon {calc.assumptions.horizon_years:g} y", 60, horizon_days, alignment="left"
        )
        u_pct = calc.assumptions.utilisation * 100
        plt.vline(u_pct)
        current = offers[0].break_even_days if offers else None
        if current is not None:
            plt.scatter([u_pct], [min(current, cap)], marker="x")
        plt.text(
            f" you: {fmt.percent(calc.assumptions.utilisation)}",
            u_pct,
            cap * 0.95,
            alignment="left",
        )
        plt.xlim(0, 100)
        plt.ylim(0, cap)
        self.refresh()


class BreakEvenView(Horizontal):
    """Both plots side by side, for the selected offer and the cheapest one."""

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self._drawn: tuple[Calculation, OfferResult | None] | None = None

    def compose(self) -> ComposeResult:
        yield CumulativePlot(id="cumulative-plot")
        yield UtilisationPlot(id="utilisation-plot")

    def draw(self, calc: Calculation, selected: OfferResult | None) -> None:
        if self._drawn is not None and self._drawn[0] is calc and self._drawn[1] is selected:
            return  # cursor events repeat the same selection while the table is rebuilt
        self._drawn = (calc, selected)
        best = calc.comparison.best
        offers = [r for r in (selected, best) if r is not None]
        if len(offers) == 2 and offers[0] is offers[1]:
            offers.pop()
        self.query_one(CumulativePlot).draw(calc, offers)
        self.query_one(UtilisationPlot).draw(calc, offers)
