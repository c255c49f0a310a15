"""The break-even curves the plots draw, as plain lists of numbers.

Rule kept here: no textual and no arithmetic of its own: cumulative costs come from
`engine.horizon_cost_usd`, break-even days at each utilisation from the engine calls `compare`
makes, so the curve passes exactly through the figure in the table (a test checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

from costcalc import engine
from costcalc.compare import cloud_year, desktop_result
from costcalc.models import OfferResult
from costcalc.scenario import Calculation

UTILISATION_STEPS = tuple(step / 100 for step in range(1, 101))
"""1 % to 100 %: utilisation must be above zero for the engine."""


@dataclass(frozen=True)
class Cumulative:
    """Money spent after each day, buying versus renting."""

    days: tuple[float, ...]
    desktop_usd: tuple[float, ...]
    cloud_usd: tuple[float, ...]
    crossing_day: float | None
    crossing_usd: float | None


def cumulative(calc: Calculation, offer: OfferResult, points: int = 60) -> Cumulative:
    """Both costs from day 0 to past the crossing (or to the horizon when there is none)."""
    horizon_days = calc.assumptions.horizon_years * engine.DAYS_PER_YEAR
    crossing = offer.break_even_days
    end = horizon_days if crossing is None else max(min(crossing * 1.5, 20 * 365), 30.0)
    days = tuple(end * i / (points - 1) for i in range(points))
    electricity = calc.comparison.desktop.electricity_usd_per_year
    desktop = tuple(
        engine.horizon_cost_usd(calc.desktop.price_usd, electricity, d / engine.DAYS_PER_YEAR)
        for d in days
    )
    cloud = tuple(
        engine.horizon_cost_usd(0.0, offer.usd_per_year, d / engine.DAYS_PER_YEAR) for d in days
    )
    crossing_usd = (
        None
        if crossing is None
        else engine.horizon_cost_usd(
            calc.desktop.price_usd, electricity, crossing / engine.DAYS_PER_YEAR
        )
    )
    return Cumulative(days, desktop, cloud, crossing, crossing_usd)


@dataclass(frozen=True)
class ByUtilisation:
    """Break-even days of one offer at each utilisation; None where buying never pays back."""

    utilisation: tuple[float, ...]
    break_even_days: tuple[float | None, ...]


def by_utilisation(calc: Calculation, offer: OfferResult) -> ByUtilisation:
    """compare's break-even at each utilisation, from the same engine calls in the same order.

    The offer's relative speed does not depend on utilisation, so only the desktop's
    electricity and the cloud's yearly bill are recomputed (compare would also bisect for the
    break-even utilisation at every step, which the curve does not need).
    """
    o = offer.offer
    days: list[float | None] = []
    for u in UTILISATION_STEPS:
        assumptions = calc.assumptions.model_copy(update={"utilisation": u})
        desktop, _ = desktop_result(calc.desktop, assumptions)
        _, usd_year = cloud_year(
            o, u * engine.HOURS_PER_YEAR, offer.effective_speed, calc.assumptions.horizon_years
        )
        days.append(
            engine.break_even_days(
                calc.desktop.price_usd,
                usd_year / engine.DAYS_PER_YEAR,
                desktop.electricity_usd_per_year / engine.DAYS_PER_YEAR,
            )
        )
    return ByUtilisation(UTILISATION_STEPS, tuple(days))
