"""The two break-even plots (textual-plotext). Imported only once the first frame is painted.

plotext builds its documentation at import and its figures take a few frames' worth of time to
render, so the break-even view mounts these after the offers and the verdict are on screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual_plotext import PlotextPlot

from costcalc import display as fmt
from costcalc import engine
from costcalc.models import OfferResult
from costcalc.scenario import Calculation
from costcalc.tui import curves
from costcalc.tui.widgets.breakeven import short_label


class CumulativePlot(PlotextPlot):
    """Money spent after d days: the desktop's line starts at its price, the cloud's at zero."""

    def draw(self, calc: Calculation, offers: Sequence[OfferResult]) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title(f"Cumulative cost ({calc.money.code}) over days")
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
