"""When a price is stale: one age limit per kind of price, and the one line that says so.

Rule kept here: pure, and the only place a staleness limit is written. How fast a price goes out
of date depends on what kind of figure it is, not on who publishes it: a marketplace median or a
spot reading moves within days, a derived estimate rests on inputs that move within weeks, a
published list price (or an on-demand price read from a price page or API) holds for months, and
a desktop card's street price for half a year. Every front end (the CLI's tables and verdict,
`--json`'s `stale`, the app, `prices --ages`, docs/quick.md) reads this table, and every place that
says "stale" prints LEGEND (or its part that applies) beside it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from msgspec import Struct

from costcalc.core.models import CloudOffer, OfferResult
from costcalc.core.offers import age_days

StaleKind = Literal["market", "estimate", "list", "street"]


class StaleRule(Struct, frozen=True):
    kind: StaleKind
    what: str
    """How the legend names the prices it covers."""
    max_age_days: float
    """Older than this, the price is stale."""


RULES: tuple[StaleRule, ...] = (
    StaleRule("market", "observed spot/marketplace prices", 7.0),
    StaleRule("estimate", "estimates", 30.0),
    StaleRule("list", "list prices", 90.0),
    StaleRule("street", "desktop card prices", 180.0),
)
"""Each kind's age limit. 'list' covers every published price: list, committed-use and
on-demand prices read from a price page or API (Azure's retail API, Paperspace's page, Colab's
burn rates), whoever publishes them."""

MAX_AGE_DAYS: dict[StaleKind, float] = {rule.kind: rule.max_age_days for rule in RULES}
WHAT: dict[StaleKind, str] = {rule.kind: rule.what for rule in RULES}

LEGEND = "stale: " + ", ".join(f"{r.what} over {r.max_age_days:g} d" for r in RULES)
"""The one-line legend printed wherever 'stale' appears."""

CLOUD_LEGEND = "stale: " + ", ".join(
    f"{r.what} over {r.max_age_days:g} d" for r in RULES if r.kind != "street"
)
"""The legend where only cloud prices are shown (a table of offers)."""


def stale_kind(offer: CloudOffer) -> StaleKind:
    """Which rule an offer's price falls under: an estimate is an estimate whatever it
    estimates; an observed spot or marketplace price moves with the market; every other price
    was published by its provider."""
    if offer.price_kind == "estimate":
        return "estimate"
    if offer.price_kind == "observed" and (offer.spot or offer.tier == "marketplace"):
        return "market"
    return "list"


def max_age_days(offer: CloudOffer) -> float:
    return MAX_AGE_DAYS[stale_kind(offer)]


def is_stale(offer: CloudOffer, now: datetime) -> bool:
    """Older than the limit for its kind of price (RULES)."""
    return age_days(offer.fetched_at, now) > max_age_days(offer)


def is_stale_result(result: OfferResult) -> bool:
    """The same rule for a costed offer, at the age the comparison computed for its clock."""
    return result.price_age_days > max_age_days(result.offer)
