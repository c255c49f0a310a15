"""What would flip the verdict: the price of the offer it rests on, the utilisation, the
desktop's price and the electricity price at which buying and renting trade places.

Rules kept here:
- pure, and the verdict's own rule: every threshold is where `engine.pays_back` on
  `compare.desktop_break_even_days` changes its answer. The offer's price is bisected on that
  rule through `compare.cloud_year` (so monthly billing, setup fees and spot overhead count as
  the verdict counts them); the desktop and electricity prices, which enter break-even
  linearly, are solved in closed form from the same equation; the utilisation is the
  comparison's break-even utilisation (itself a bisection of the rule);
- each threshold moves one input, all the others as they are;
- the verdict, not one offer: when the deciding offer's price rises past its threshold, another
  comparable offer may keep renting cheaper. `holders` lists them, and the offer's price then
  flips the verdict only when there are none.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core import commitment, engine
from costcalc.core.compare import (
    Comparison,
    candidates,
    cloud_year,
    desktop_break_even_days,
    net_share,
    repairs_per_year,
)
from costcalc.core.decision import NO_BUY, Decision
from costcalc.core.models import Assumptions, OfferResult

if TYPE_CHECKING:
    from costcalc.core.rent_extras import RentExtras

PRICE_CEILING_USD_PER_HOUR = 1e6
"""Above this an offer's price is not a threshold anyone will meet: 'no price flips it'."""


class OfferThreshold(Struct, frozen=True):
    """Where the desktop pays back against one offer exactly, as that offer's $/h."""

    result: OfferResult
    usd_per_hour: float | None
    """Rent: the price above which the desktop pays back against this offer; Buy: the price
    below which it no longer does. None: no price does (a monthly fee alone exceeds it, or the
    desktop's price is unknown)."""


class Thresholds(Struct, frozen=True):
    """The values, one input at a time, at which the verdict flips."""

    decision: Decision | None
    """The calculation's decision (costcalc.core.decision); None: no verdict (no desktop
    price, or no comparable offer)."""
    offer: OfferThreshold | None
    """The deciding offer's price threshold."""
    holders: tuple[OfferResult, ...]
    """Rent only: the other comparable offers the desktop does not pay back against either,
    cheapest first. While any is left, the deciding offer's price alone cannot flip the
    verdict: above its threshold the next of these decides, still Rent."""
    next_holder: OfferThreshold | None
    cloud_usd_per_year: float | None
    """The yearly cloud cost at which the desktop pays back exactly (any offer)."""
    utilisation: float | None
    """The break-even utilisation against the deciding offer (Comparison's); None when none
    pays back within the horizon."""
    desktop_price_usd: float | None
    """Rent: the desktop price below which it pays back; Buy: above which it no longer does.
    None: no price does (the cloud costs no more a year than the electricity)."""
    usd_per_kwh: float | None
    """Rent: the electricity price below which the desktop pays back; Buy: above which it no
    longer does. None: no electricity price does (even free electricity leaves it short)."""

    @property
    def offer_flips_verdict(self) -> bool:
        return self.offer is not None and self.offer.usd_per_hour is not None and not self.holders


def thresholds(comparison: Comparison, a: Assumptions, found: Decision | None) -> Thresholds:
    """Every threshold of the verdict of `comparison` (made with assumptions `a`), whose
    decision is `found` (Calculation.decision). Without Buy (cannot_fit, cannot_build) there is
    none: no price or utilisation makes a desktop that cannot be had the answer."""
    best = comparison.best
    price = comparison.desktop.price_usd
    electricity = comparison.desktop.electricity_usd_per_year
    if found is None and best is not None and comparison.desktop_fits:
        # No desktop price: what it may cost and still pay back is the one threshold.
        at_most = desktop_price_threshold(best.usd_per_year, electricity, a)
        return Thresholds(None, None, (), None, None, None, at_most, None)
    if found is None or found in NO_BUY or best is None or price is None:
        return Thresholds(found, None, (), None, None, None, None, None)
    extras = comparison.rules.extras
    holders: list[OfferResult] = []
    if found == "rent":
        holders = [
            r
            for r in candidates(comparison.offers, comparison.rules, a.horizon_years)
            if r is not best and not engine.pays_back(r.break_even_days, a.horizon_years)
        ]
        holders.sort(key=lambda r: r.usd_per_year)
    return Thresholds(
        decision=found,
        offer=offer_threshold(best, price, a, electricity, extras),
        holders=tuple(holders),
        next_holder=offer_threshold(holders[0], price, a, electricity, extras) if holders else None,
        cloud_usd_per_year=electricity
        + repairs_per_year(a)
        + price * net_share(a) / a.horizon_years,
        utilisation=comparison.break_even_utilisation,
        desktop_price_usd=desktop_price_threshold(best.usd_per_year, electricity, a),
        usd_per_kwh=kwh_price_threshold(best.usd_per_year, price, comparison, a),
    )


def year_at_price(
    result: OfferResult, a: Assumptions, extras: RentExtras | None = None
) -> Callable[[float], float]:
    """The offer's cloud cost a year as a function of its $/h: `compare.cloud_year`'s bill
    with the hours (and so the billed hours) fixed, which is all a price changes (storage and
    transfer, `extras`, do not change with it). Checked against `cloud_year` at the offer's own
    price; should the two ever differ, every price is costed through `cloud_year` itself
    (slower: a copy of the offer each time)."""
    offer = result.offer
    busy = a.utilisation * engine.HOURS_PER_YEAR
    hours = engine.cloud_hours_for(busy, result.effective_speed)
    fixed = 0.0
    if extras is not None:
        hours += extras.setup_hours(busy)
        fixed = extras.extra_usd(offer.provider, busy)
    billed = engine.billed_hours_per_year(hours, offer.billing_increment_s)
    setup = offer.setup_fee_usd / a.horizon_years if offer.setup_fee_usd else 0.0

    def fast(p: float) -> float:
        if offer.term_years is not None:  # paid for every hour of the term, used or not
            bill = commitment.committed_usd_per_year(p, hours, offer.term_years, a.horizon_years)
        else:
            bill = engine.cloud_usd_for_hours(
                billed, p, offer.monthly_fee_usd, offer.included_usd_per_month
            )
        return bill + setup + fixed

    def exact(p: float) -> float:
        priced = replace(offer, **{"usd_per_hour": p})
        return cloud_year(priced, busy, result.effective_speed, a.horizon_years, extras)[1]

    now = offer.usd_per_hour
    same = math.isclose(fast(now), exact(now), rel_tol=1e-12, abs_tol=1e-9)
    return fast if same else exact


def pays_back_against(
    result: OfferResult,
    usd_per_hour: float,
    price_usd: float,
    a: Assumptions,
    electricity: float,
    extras: RentExtras | None = None,
) -> bool:
    """The verdict's rule against `result`'s offer priced at `usd_per_hour`."""
    usd_year = year_at_price(result, a, extras)(usd_per_hour)
    days = desktop_break_even_days(price_usd, a, usd_year, electricity)
    return engine.pays_back(days, a.horizon_years)


def offer_threshold(
    result: OfferResult,
    price_usd: float,
    a: Assumptions,
    electricity: float,
    extras: RentExtras | None = None,
) -> OfferThreshold:
    """The offer's $/h at which the rule's answer against it changes, by bisection: the cloud
    cost grows with the price (whole months, fees and all), so the answer changes once."""

    year = year_at_price(result, a, extras)

    def wins(p: float) -> bool:  # the verdict's rule against the offer at p
        days = desktop_break_even_days(price_usd, a, year(p), electricity)
        return engine.pays_back(days, a.horizon_years)

    now = result.offer.usd_per_hour
    if wins(now):  # Buy: search down for the price below which renting wins
        if wins(0.0):
            return OfferThreshold(result, None)
        lo, hi = 0.0, now
    else:  # Rent: search up for the price above which the desktop pays back
        lo, hi = now, max(now, 0.01) * 2
        while not wins(hi):
            if hi > PRICE_CEILING_USD_PER_HOUR:
                return OfferThreshold(result, None)
            lo, hi = hi, hi * 2
    for _ in range(60):  # invariant: renting wins at lo, the desktop at hi
        mid = (lo + hi) / 2
        if wins(mid):
            hi = mid
        else:
            lo = mid
    return OfferThreshold(result, hi)


def desktop_price_threshold(
    cloud_usd_per_year: float, electricity_usd_per_year: float, a: Assumptions
) -> float | None:
    """The desktop price at which break-even lands on the horizon exactly: from
    price x (1 - resale + interest) = (cloud - electricity - repairs) / 365 x horizon days
    (engine.break_even_days).
    None when the cloud costs no more than the electricity: no price pays back."""
    saving = cloud_usd_per_year - electricity_usd_per_year - repairs_per_year(a)
    if saving <= 0:
        return None
    return saving * a.horizon_years / net_share(a)


def kwh_price_threshold(
    cloud_usd_per_year: float, price_usd: float, comparison: Comparison, a: Assumptions
) -> float | None:
    """The electricity price at which break-even lands on the horizon exactly (the same
    equation, solved for $/kWh); None when even free electricity leaves the desktop short."""
    kwh = comparison.desktop.kwh_per_year
    room = cloud_usd_per_year - repairs_per_year(a) - price_usd * net_share(a) / a.horizon_years
    if kwh <= 0 or room <= 0:
        return None
    return room / kwh
