"""Owning costs more than the sticker: a loan's interest, cards that fail, and a resale that
follows the market by the card's age.

- **Financing**: the whole price borrowed at an APR over a term, repaid in level monthly
  payments (costcalc.core.engine's loan arithmetic). The verdict compares what each way pays
  out within the horizon, undiscounted: the payments made in it, the balance left at its end
  (paid then, from the resale or cash), electricity and repairs, less the resale; so the loan
  adds its interest within the horizon to the price, and break-even follows from that sum.
- **Repairs**: a yearly allowance of failure rate x cards x the card's price (a failed card
  replaced at what it costs today), the rate the card class's sourced figure
  (costcalc/data/ownership.yaml) or the user's. A running cost, as electricity is.
- **Resale by age**: the card class's used prices against their launch prices, by the card
  model's age when read (the catalog's dated used prices), fitted as ln(used / launch) =
  -k x age: the share a card keeps a year, exp(-k). A card resells after the horizon at its
  used price today (or its launch price aged to today) x exp(-k x horizon); the base system
  around the cards has no sourced depreciation, so it counts nothing.

Rule kept here: pure. The catalog and the failure rates arrive as arguments.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Annotated, Literal

from msgspec import Struct

from costcalc.core import engine
from costcalc.core.catalog import CardPrice, GpuCatalog, card_price
from costcalc.core.models import GpuSpec, Segment
from costcalc.core.records import Meta, Record

MIN_FIT_POINTS = 5
"""Cards a class needs with a dated used price and a launch price before its depreciation is
fitted: fewer say too little about a class."""
MAX_RESALE_SHARE = 0.99
"""The resale share's ceiling (the break-even needs the desktop to cost something)."""


# --------------------------------------------------------------------------- failures


class FailureRate(Record, frozen=True, kw_only=True):
    """The share of one class's cards that fail a year, and the published figure it rests on."""

    segment: Segment
    per_year: Annotated[float, Meta(gt=0, lt=1)]
    figure: Annotated[str, Meta(min_length=1)]
    """The published numbers and the arithmetic that makes them a yearly share."""
    source: Annotated[str, Meta(min_length=1)]
    url: Annotated[str, Meta(pattern=r"^https://")]
    observed: date
    """The day the figure was published."""
    caveat: str
    """How the figure differs from a desktop's yearly failure rate."""


class OwnershipFile(Record, frozen=True, kw_only=True):
    """costcalc/data/ownership.yaml: published GPU failure rates by card class."""

    schema_version: Literal[1] = 1
    as_of: date
    source: str
    failure_rates: tuple[FailureRate, ...]
    missing: dict[str, str]
    """Card classes with no published rate, and why."""

    def rate_for(self, segment: str) -> FailureRate | None:
        return next((r for r in self.failure_rates if r.segment == segment), None)


class Repairs(Struct, frozen=True):
    """The repairs allowance: failure rate x cards x the card's price, a year."""

    per_year: float
    """The failure rate used."""
    card_usd: float
    cards: int
    usd_per_year: float
    rate: FailureRate | None
    """The sourced figure; None when the user gave the rate."""


def repairs(
    spec: GpuSpec, cards: int, failure_rate: float | None, data: OwnershipFile | None
) -> Repairs | str:
    """The allowance for `cards` of `spec`, at the user's rate or the class's sourced one;
    the reason there is none (no rate for the class, or no card price) as a string."""
    rate = None
    if failure_rate is None:
        rate = data.rate_for(spec.segment) if data is not None else None
        if rate is None:
            why = data.missing.get(spec.segment, "") if data is not None else ""
            return f"no published failure rate for {spec.segment} cards{': ' + why if why else ''}"
    card = card_price(spec)
    if card is None:
        return f"no price for the {spec.short_name}, so no repairs allowance"
    per_year = failure_rate if failure_rate is not None else rate.per_year  # type: ignore[union-attr]
    return Repairs(per_year, card.usd, cards, per_year * cards * card.usd, rate)


# --------------------------------------------------------------------------- financing


class Loan(Struct, frozen=True):
    """The desktop bought with a loan of its whole price, over the horizon."""

    principal_usd: float
    apr: float
    term_years: float
    months: int
    monthly_payment_usd: float
    payments_within: int
    """Payments made within the horizon."""
    paid_within_usd: float
    balance_at_horizon_usd: float
    """Owed when the horizon ends (0 when the term ends within it)."""
    interest_within_usd: float

    @property
    def interest_share(self) -> float:
        return self.interest_within_usd / self.principal_usd if self.principal_usd else 0.0


def loan(principal_usd: float, apr: float, term_years: float, horizon_years: float) -> Loan:
    """The loan's payments and interest within the horizon (engine's amortisation)."""
    months = engine.loan_months(term_years)
    payment = engine.monthly_payment_usd(principal_usd, apr, months)
    within = min(months, math.floor(horizon_years * engine.MONTHS_PER_YEAR + 1e-9))
    return Loan(
        principal_usd=principal_usd,
        apr=apr,
        term_years=term_years,
        months=months,
        monthly_payment_usd=payment,
        payments_within=within,
        paid_within_usd=payment * within,
        balance_at_horizon_usd=engine.loan_balance_usd(principal_usd, apr, months, within),
        interest_within_usd=engine.interest_within_usd(
            principal_usd, apr, term_years, horizon_years
        ),
    )


def interest_share(apr: float, term_years: float, horizon_years: float) -> float:
    """The interest within the horizon per dollar borrowed (a loan of the whole price, so the
    same share at any price)."""
    return engine.interest_within_usd(1.0, apr, term_years, horizon_years)


# --------------------------------------------------------------------------- resale by age


class AgePoint(Struct, frozen=True):
    """One card of the class: its dated used price against its launch price."""

    gpu: str
    age_years: float
    """From the middle of its release year to the day the used price was read."""
    kept: float
    """Used price / launch price."""
    used_usd: float
    launch_usd: float
    observed: date


class Depreciation(Struct, frozen=True):
    """A class's depreciation by age: ln(used / launch) = -k x age, fitted by least squares."""

    segment: str
    rate_per_year: float
    """k: the log-share lost a year."""
    points: tuple[AgePoint, ...]

    @property
    def kept_per_year(self) -> float:
        """The share of its value a card keeps a year, exp(-k)."""
        return math.exp(-self.rate_per_year)


def release_day(spec: GpuSpec) -> date:
    """The catalog gives a release year: its middle stands for the day."""
    return date(spec.release_year, 7, 1)


def age_points(catalog: GpuCatalog, segment: str) -> list[AgePoint]:
    """Every card of `segment` with a launch price and a dated used price."""
    points = []
    for spec in catalog:
        if spec.segment != segment or spec.launch_price_usd is None:
            continue
        used = card_price(spec, used=True)
        if used is None or used.observed is None:
            continue
        age = (used.observed - release_day(spec)).days / 365.25
        if age <= 0:
            continue
        points.append(
            AgePoint(
                spec.key,
                age,
                used.usd / spec.launch_price_usd,
                used.usd,
                spec.launch_price_usd,
                used.observed,
            )
        )
    return points


def depreciation(catalog: GpuCatalog, segment: str) -> Depreciation | None:
    """The class's fitted depreciation; None with fewer than MIN_FIT_POINTS cards to fit."""
    points = age_points(catalog, segment)
    if len(points) < MIN_FIT_POINTS:
        return None
    lost = -sum(p.age_years * math.log(p.kept) for p in points)
    rate = lost / sum(p.age_years**2 for p in points)
    return Depreciation(segment, rate, tuple(points))


class ResaleByAge(Struct, frozen=True):
    """What the desktop's cards sell for after the horizon, by their class's depreciation."""

    fit: Depreciation
    card_now_usd: float
    """One card's used value today: its dated used price, or its launch price aged to today."""
    card_now_from: str
    card_then_usd: float
    """One card after the horizon: today's value x exp(-k x horizon)."""
    cards: int
    resale_usd: float
    share: float
    """resale / the desktop's price (at most MAX_RESALE_SHARE)."""
    horizon_years: float


def resale_by_age(
    spec: GpuSpec,
    cards: int,
    price_usd: float,
    horizon_years: float,
    catalog: GpuCatalog,
    today: date,
) -> ResaleByAge | str:
    """The cards' resale after the horizon; the reason there is none as a string."""
    fit = depreciation(catalog, spec.segment)
    if fit is None:
        return (
            f"no depreciation by age for {spec.segment} cards (fewer than {MIN_FIT_POINTS} "
            "with a dated used price and a launch price)"
        )
    now = _card_now(spec, fit, today)
    if now is None:
        return f"no used or launch price for the {spec.short_name}"
    card_now, card_from = now
    card_then = card_now * math.exp(-fit.rate_per_year * horizon_years)
    resale = card_then * cards
    share = min(resale / price_usd, MAX_RESALE_SHARE) if price_usd > 0 else 0.0
    return ResaleByAge(fit, card_now, card_from, card_then, cards, resale, share, horizon_years)


def _card_now(spec: GpuSpec, fit: Depreciation, today: date) -> tuple[float, str] | None:
    used: CardPrice | None = card_price(spec, used=True)
    if used is not None and used.observed is not None:
        return used.usd, f"its used price of {used.observed}"
    if spec.launch_price_usd is None:
        return None
    age = max((today - release_day(spec)).days / 365.25, 0.0)
    value = spec.launch_price_usd * math.exp(-fit.rate_per_year * age)
    return value, f"its launch price ${spec.launch_price_usd:,.0f} aged {age:.1f} years"
