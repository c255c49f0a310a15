"""The break-even curves the plots draw, as plain lists of numbers.

Rules kept here: no textual and no arithmetic of its own: cumulative costs come from
`engine.horizon_cost_usd` with the resale in it, break-even days at each utilisation from
`compare.desktop_break_even_days`, the function behind the table's figure and the verdict, so
the curve passes exactly through the figure in the table (tests/tui/test_curves.py checks
it). Each curve is cached on the values it is made from (prices, electricity, speed, horizon,
the desktop and the offer), never on object identity, so a keypress that recomputes the
calculation without changing them costs a dictionary look-up.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core import engine
from costcalc.core.compare import (
    cloud_year,
    desktop_break_even_days,
    desktop_result,
    net_share,
    repairs_per_year,
)
from costcalc.core.models import Assumptions, CloudOffer, DesktopBuild, OfferResult
from costcalc.core.scenario import Calculation

if TYPE_CHECKING:
    from costcalc.core.rent_extras import RentExtras

UTILISATION_STEPS = tuple(step / 100 for step in range(1, 101))
"""1 % to 100 %: utilisation must be above zero for the engine."""

POINTS = 2
"""Points along a cumulative curve: both costs grow by the same amount every day (price plus
electricity, or the yearly bill, spread evenly), so two ends are the whole line, and a line
of two points is a third of the drawing's cost of one of sixty."""

CACHED = 64
"""Curves kept: the selected and the cheapest offer for the last few dozen inputs."""


class Cumulative(Struct, frozen=True):
    """Money spent after each day, buying (net of what the desktop sells for after the
    horizon) versus renting."""

    days: tuple[float, ...]
    desktop_usd: tuple[float, ...]
    cloud_usd: tuple[float, ...]
    crossing_day: float | None
    crossing_usd: float | None


def cumulative_end_days(crossing_day: float | None, horizon_years: float) -> float:
    """How far the cumulative plot should reach: past the crossing (half as far again), or to
    the horizon when there is none; at least a month, at most twenty years."""
    if crossing_day is None:
        return horizon_years * engine.DAYS_PER_YEAR
    return max(min(crossing_day * 1.5, 20 * 365), 30.0)


def desktop_outlay_usd(calc: Calculation) -> float | None:
    """What buying the desktop costs net of its resale: where its cumulative line starts, so
    the lines cross on the break-even day. None when its price is not known."""
    price = calc.desktop.price_usd
    if price is None:
        return None
    return price * net_share(calc.assumptions)


def cumulative(
    calc: Calculation, offer: OfferResult, end_days: float | None = None
) -> Cumulative | None:
    """Both costs from day 0 to `end_days` (by default `cumulative_end_days`); None when the
    desktop's price is not known."""
    crossing = offer.break_even_days
    outlay = desktop_outlay_usd(calc)
    if outlay is None:
        return None
    return cumulative_curve(
        outlay,
        calc.comparison.desktop.electricity_usd_per_year + repairs_per_year(calc.assumptions),
        offer.usd_per_year,
        crossing,
        cumulative_end_days(crossing, calc.assumptions.horizon_years)
        if end_days is None
        else end_days,
    )


@lru_cache(maxsize=CACHED)
def cumulative_curve(
    outlay_usd: float,
    electricity_usd_per_year: float,
    cloud_usd_per_year: float,
    crossing_day: float | None,
    end_days: float,
) -> Cumulative:
    """`cumulative` from the values it depends on (`outlay_usd`: `desktop_outlay_usd`)."""
    days = tuple(end_days * i / (POINTS - 1) for i in range(POINTS))
    desktop = tuple(
        engine.horizon_cost_usd(outlay_usd, electricity_usd_per_year, d / engine.DAYS_PER_YEAR)
        for d in days
    )
    cloud = tuple(
        engine.horizon_cost_usd(0.0, cloud_usd_per_year, d / engine.DAYS_PER_YEAR) for d in days
    )
    crossing_usd = (
        None
        if crossing_day is None
        else engine.horizon_cost_usd(
            outlay_usd, electricity_usd_per_year, crossing_day / engine.DAYS_PER_YEAR
        )
    )
    return Cumulative(days, desktop, cloud, crossing_day, crossing_usd)


class ByUtilisation(Struct, frozen=True):
    """Break-even days of one offer at each utilisation; None where buying never pays back."""

    utilisation: tuple[float, ...]
    break_even_days: tuple[float | None, ...]


def by_utilisation(calc: Calculation, offer: OfferResult) -> ByUtilisation:
    """compare's break-even at each utilisation, from the same function in the same order.

    The offer's relative speed does not depend on utilisation, so only the desktop's
    electricity and the cloud's yearly bill are recomputed (compare would also bisect for the
    break-even utilisation at every step, which the curve does not need). The user's own
    utilisation is not part of the curve, so moving it alone finds the curve in the cache.
    """
    any_utilisation = replace(calc.assumptions, **{"utilisation": 1.0})
    extras = calc.comparison.rules.extras
    if extras is not None:  # its rate table is no cache key: computed each time
        return utilisation_days(
            calc.desktop, any_utilisation, offer.offer, offer.effective_speed, extras
        )
    return utilisation_curve(calc.desktop, any_utilisation, offer.offer, offer.effective_speed)


@lru_cache(maxsize=CACHED)
def utilisation_curve(
    desktop: DesktopBuild, assumptions: Assumptions, offer: CloudOffer, speed: float
) -> ByUtilisation:
    """`by_utilisation` from the values it depends on (`assumptions.utilisation` is ignored)."""
    return utilisation_days(desktop, assumptions, offer, speed)


def utilisation_days(
    desktop: DesktopBuild,
    assumptions: Assumptions,
    offer: CloudOffer,
    speed: float,
    extras: RentExtras | None = None,
) -> ByUtilisation:
    """`utilisation_curve`, with what renting adds beyond the GPU-hours (`extras`)."""
    days: list[float | None] = []
    for u in UTILISATION_STEPS:
        at_u = replace(assumptions, **{"utilisation": u})
        desktop_at_u, _ = desktop_result(desktop, at_u)
        _, usd_year = cloud_year(
            offer, u * engine.HOURS_PER_YEAR, speed, assumptions.horizon_years, extras
        )
        days.append(
            desktop_break_even_days(
                desktop.price_usd, at_u, usd_year, desktop_at_u.electricity_usd_per_year
            )
        )
    return ByUtilisation(UTILISATION_STEPS, tuple(days))
