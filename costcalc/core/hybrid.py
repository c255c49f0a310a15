"""Own a baseline, rent the bursts: how many desktops to own, and what to rent above them.

The work is a profile of busy desktop-hours for each month of a year (the hours one desktop
like yours would be busy; more than a month's 730 hours means more than one desktop's work):
typed as 'jan:400,feb:300,...', or the utilisation the same every month (a measured
utilisation included). Owning n desktops serves up to n x 730 hours a month; the hours above
that are rented at the cheapest comparable offer paid by the hour. Over the horizon, n desktops cost

    n x (price x (1 - resale + interest) + repairs a year x years)
    + years x sum over months of (electricity of the owned busy hours
                                  + rent of the hours above n x 730 at $/h / speed)

and the plan is the n from 0 to the most weighed with the least cost (the fewer desktops on a
tie). The cost is worked out one desktop at a time: the k-th desktop serves the hours of each
month between (k - 1) x 730 and k x 730, so owning it trades those hours' rent for their
electricity and its price.

Rule kept here: pure. The comparison's offers, the desktop and the assumptions arrive as
arguments; the profile as twelve months of hours.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from msgspec import Struct

from costcalc.core import engine
from costcalc.core.compare import Comparison, candidates, net_share, repairs_per_year
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.models import Assumptions, DesktopBuild, OfferResult
from costcalc.core.usage import MonthlyUse

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_HOURS = engine.HOURS_PER_MONTH
"""A month's hours, 8,760 / 12 = 730: the utilisation's year, in twelve equal parts."""
MAX_OWNED = 64
"""The most desktops a plan weighs."""
MAX_MONTH_HOURS = MONTH_HOURS * MAX_OWNED


class Profile(Struct, frozen=True):
    """Busy desktop-hours in each month, January first, and where they come from."""

    hours: tuple[float, ...]
    source: str
    """'your profile', 'the utilisation, 30% every month'."""


class HybridRow(Struct, frozen=True):
    """Owning `owned` desktops and renting the rest, over the horizon."""

    owned: int
    gpus: int
    owned_hours_per_year: float
    """Busy hours a year the owned desktops serve."""
    rented_hours_per_year: float
    """Desktop-hours of work a year rented above them."""
    own_usd: float
    """The desktops' price net of resale, with a loan's interest and the repairs, over the
    horizon."""
    electricity_usd: float
    rent_usd: float

    @property
    def total_usd(self) -> float:
        return self.own_usd + self.electricity_usd + self.rent_usd


class HybridPlan(Struct, frozen=True):
    """Every owned count weighed, and the cheapest."""

    profile: Profile
    rows: tuple[HybridRow, ...]
    best: int
    """The owned count with the least cost over the horizon."""
    offer: OfferResult
    """The offer the hours above the owned desktops are rented at."""
    usd_per_desktop_hour: float
    """What an hour of the desktop's work costs there: $/h / effective speed."""
    unit_price_usd: float
    """One desktop's price."""
    unit_own_usd: float
    """One desktop over the horizon: price x (1 - resale + interest) + repairs x years."""
    electricity_usd_per_hour: float
    """One busy desktop-hour's electricity."""
    horizon_years: float
    peak_owned: int
    """Desktops the busiest month needs."""

    @property
    def chosen(self) -> HybridRow:
        return self.rows[self.best]


def parse_profile(text: str) -> tuple[float, ...]:
    """'jan:400,feb:300' (month names of three letters or more, hours of one desktop's work;
    a month left out has none) -> twelve hours, January first; CostcalcError saying what a
    profile looks like otherwise."""
    hours = [0.0] * 12
    seen: set[int] = set()
    parts = [p for p in re.split(r"[,;\s]+", text.strip().lower()) if p]
    if not parts:
        raise CostcalcError(_profile_help(text))
    for part in parts:
        found = re.fullmatch(r"([a-z]{3,9}):([0-9][0-9_,.]*)", part)
        if found is None:
            raise CostcalcError(_profile_help(text))
        month = _month(found[1], text)
        if month in seen:
            raise CostcalcError(f"profile: {MONTHS[month]} is given twice in {quoted(text)}")
        seen.add(month)
        try:
            value = float(found[2].replace("_", ""))
        except ValueError:
            raise CostcalcError(_profile_help(text)) from None
        if not 0 <= value <= MAX_MONTH_HOURS:
            raise CostcalcError(
                f"profile: {MONTHS[month]} has {value:g} hours; a month holds at most "
                f"{MAX_MONTH_HOURS:,.0f} (730 hours x {MAX_OWNED} desktops)"
            )
        hours[month] = value
    return tuple(hours)


def _month(name: str, text: str) -> int:
    for number, short in enumerate(MONTHS):
        if name.startswith(short):
            return number
    raise CostcalcError(f"profile: {quoted(name)} is not a month ({_profile_help(text)})")


def _profile_help(text: str) -> str:
    return (
        "profile: write busy hours per month as jan:400,feb:300,... (months left out have "
        f"none), or measured (the monitor's history); got {quoted(text)}"
    )


MEASURED_PROFILE = "measured"
"""`--profile measured`: the busy share of each of the last twelve months in the history."""


def is_measured_profile(text: str | None) -> bool:
    return text is not None and text.strip().lower() == MEASURED_PROFILE


def measured_profile(use: MonthlyUse) -> Profile:
    """Each month's measured busy share x 730 hours; a month without samples at the mean of
    those with them, which the profile's source says."""
    known = [s for s in use.shares if s is not None]
    if not known:
        raise CostcalcError("profile 'measured': no month has GPU samples")
    mean = sum(known) / len(known)
    hours = tuple((mean if s is None else s) * MONTH_HOURS for s in use.shares)
    sampled = [MONTHS[i] for i, s in enumerate(use.shares) if s is not None]
    gpus = f"{use.gpus} GPUs'" if use.gpus > 1 else "the GPU's"
    source = (
        f"measured: {gpus} busy share each month from {use.start:%Y-%m} to {use.end:%Y-%m-%d} "
        "(costcalc monitor)"
    )
    if len(known) < 12:
        source += (
            f"; samples in {len(known)} of the 12 months ({', '.join(sampled)}), the other "
            f"{12 - len(known)} at their mean, {mean * 100:.3g}% busy"
        )
    return Profile(hours, source)


def flat_profile(utilisation: float) -> Profile:
    """The utilisation every month."""
    hours = utilisation * MONTH_HOURS
    return Profile(tuple([hours] * 12), f"the utilisation, {utilisation * 100:.3g}% every month")


def burst_offer(comparison: Comparison, horizon_years: float) -> OfferResult | None:
    """The cheapest comparable offer to rent hours from, per hour of the desktop's work: paid
    by the hour (no commitment, plan fee or monthly billing, which do not follow the hours)."""
    pool = [
        r
        for r in candidates(comparison.offers, comparison.rules, horizon_years)
        if r.offer.term_years is None
        and not r.offer.monthly_fee_usd
        and not r.offer.included_usd_per_month
        and r.offer.billing_increment_s < 86_400
    ]
    return min(pool, key=lambda r: r.offer.usd_per_hour / r.effective_speed, default=None)


def plan(
    profile: Profile,
    comparison: Comparison,
    desktop: DesktopBuild,
    a: Assumptions,
    max_owned: int | None = None,
) -> HybridPlan | str:
    """The plan for `profile`: every owned count from 0 to `max_owned` (default: the busiest
    month's need) and the cheapest; the reason there is none as a string."""
    price = desktop.price_usd
    if price is None:
        return "no desktop price is known, so no owned count can be weighed"
    offer = burst_offer(comparison, a.horizon_years)
    if offer is None:
        return "no comparable offer is paid by the hour to rent the bursts from"
    years = a.horizon_years
    peak = max(math.ceil(max(profile.hours) / MONTH_HOURS - 1e-9), 0)
    most = min(max(peak, 1) if max_owned is None else max_owned, MAX_OWNED)
    rent_rate = offer.offer.usd_per_hour / offer.effective_speed
    power_rate = comparison.desktop.load_w / 1000 * a.usd_per_kwh
    idle_rate = desktop.idle_watts / 1000 * a.usd_per_kwh if a.always_on else 0.0
    unit_own = price * net_share(a) + repairs_per_year(a) * years
    left = sum(profile.hours)  # rented a year with none owned
    served = own = power = 0.0
    rows = [HybridRow(0, 0, 0.0, left, 0.0, 0.0, left * rent_rate * years)]
    for k in range(1, most + 1):
        layer = sum(min(max(h - (k - 1) * MONTH_HOURS, 0.0), MONTH_HOURS) for h in profile.hours)
        served += layer
        left -= layer
        own += unit_own
        power += (layer * power_rate + (engine.HOURS_PER_YEAR - layer) * idle_rate) * years
        rows.append(
            HybridRow(
                k,
                k * desktop.gpu_count,
                served,
                max(left, 0.0),
                own,
                power,
                max(left, 0.0) * rent_rate * years,
            )
        )
    best = min(range(len(rows)), key=lambda i: (rows[i].total_usd, i))
    return HybridPlan(
        profile=profile,
        rows=tuple(rows),
        best=best,
        offer=offer,
        usd_per_desktop_hour=rent_rate,
        unit_price_usd=price,
        unit_own_usd=unit_own,
        electricity_usd_per_hour=power_rate,
        horizon_years=years,
        peak_owned=peak,
    )


def months_text(hours: Sequence[float]) -> str:
    """'jan 400, feb 300, ... (8 busy months)': the profile as people typed it."""
    shown = ", ".join(f"{m} {h:,.0f}" for m, h in zip(MONTHS, hours, strict=True) if h)
    busy = sum(1 for h in hours if h)
    return f"{shown or 'no busy hours'} ({busy} busy month{'s' if busy != 1 else ''})"
