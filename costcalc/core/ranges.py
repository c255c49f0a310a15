"""How far the verdict's price can be trusted: every reading of the offer it rests on, as a
low-median-high range, and whether the verdict holds across it.

Rules kept here:
- pure: the readings arrive as arguments (the price book's rows, the user's refresh history
  read by costcalc.store.history), nothing is read here;
- one offer, many readings: rows of the same provider, GPU, GPU count, region, tier and
  spot-or-not whose names differ only in a parenthesised label (a marketplace's 20th
  percentile and median, "(Vast.ai's quoted rate)"), and every recorded price of them;
  another region, tier or instance type is another offer, not a reading;
- the verdict across the range is the thresholds' rule (costcalc.core.thresholds): a reading
  flips it when it lies across the deciding offer's price threshold and the threshold flips
  the verdict.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime, time, timezone
from typing import Annotated, Literal

from msgspec import Struct

from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.models import CloudOffer, OfferResult
from costcalc.core.records import Meta, Record
from costcalc.core.thresholds import Thresholds

_LABEL = r"\s*\([^()]*\)\s*$"  # compiled by `re` when first used

Origin = Literal["prices", "history", "cross-check"]
Point = tuple[str, datetime, float, Origin]
"""A reading from outside the price book: (offer name, when, $/h, where it comes from)."""
ReadingsOf = Callable[[CloudOffer], Iterable[Point]]
"""The readings of an offer's price from outside the prices in use, as the caller reads them
(costcalc.store.readings.recorded_points: other dated sources, the user's refresh history):
`scenario.evaluate` asks for those of the verdict's offer alone, known once it is chosen."""


class CrossReading(Record, frozen=True, kw_only=True):
    """Another dated source's figure for a bundled offer's price (prices/readings.yaml)."""

    provider: str
    name: str
    region: str
    gpu: str
    gpu_count: Annotated[int, Meta(ge=1)] = 1
    usd_per_hour: Annotated[float, Meta(gt=0)]
    observed: date
    """The date the figure was true."""
    source: str


class ReadingsFile(Record, frozen=True, kw_only=True):
    """prices/readings.yaml: other dated readings of the bundled offers' prices."""

    schema_version: Literal[1] = 1
    source: str
    as_of: date
    readings: tuple[CrossReading, ...]


def cross_points(offer: CloudOffer, found: Iterable[CrossReading]) -> list[Point]:
    """The cross-check readings of `offer` (its provider, GPUs and region), as points."""
    return [
        (
            r.name,
            datetime.combine(r.observed, time(), tzinfo=timezone.utc),
            r.usd_per_hour,
            "cross-check",
        )
        for r in found
        if (r.provider, r.gpu, r.gpu_count, r.region)
        == (offer.provider, offer.gpu, offer.gpu_count, offer.region)
    ]


class Reading(Struct, frozen=True):
    """One dated price of the offer."""

    usd_per_hour: float
    observed: datetime
    what: str
    """What the figure is: 'median of verified offers', 'quoted rate', 'list price', ..."""
    origin: Origin = "prices"
    """prices: a row of the prices in use; history: the user's refresh history; cross-check:
    another dated source of the same price (prices/readings.yaml)."""

    @property
    def recorded(self) -> bool:
        return self.origin == "history"


class PriceRange(Struct, frozen=True):
    readings: tuple[Reading, ...]
    """Oldest first; one per distinct (date, price)."""
    low: float
    median: float
    high: float
    first: datetime
    last: datetime
    flips_at: tuple[Reading, ...]
    """The readings at which the verdict would be the other answer (none: it holds)."""

    @property
    def count(self) -> int:
        return len(self.readings)

    @property
    def holds(self) -> bool:
        return not self.flips_at


def family_name(name: str) -> str:
    """'1x RTX 4090 (median)' -> '1x RTX 4090': the name without its trailing label."""
    return re.sub(_LABEL, "", name).strip() or name


def same_offer(a: CloudOffer, b: CloudOffer) -> bool:
    """Readings of one offer: the same provider, GPUs, region, tier and kind, and the same name
    up to a parenthesised label."""
    return (
        a.provider == b.provider
        and a.gpu == b.gpu
        and a.gpu_count == b.gpu_count
        and a.region == b.region
        and a.tier == b.tier
        and a.spot == b.spot
        and family_name(a.name) == family_name(b.name)
    )


def what_price(offer: CloudOffer) -> str:
    """What the figure is, in one set of words wherever it is shown: a marketplace's summary
    figure by its statistic, else the price's kind."""
    text = f"{offer.summary or ''} {offer.name}".casefold()
    for words, label in (
        ("quoted rate", "quoted rate"),
        ("percentile", "20th percentile of verified offers"),
        ("minimum bid", "median minimum bid"),
        ("median", "median of verified offers"),
        ("from price", "cheapest listing"),
        ("low end", "low end of quoted rates"),
    ):
        if words in text:
            if label.startswith("20th"):
                found = re.search(r"(\d+)(st|nd|rd|th) percentile", text)
                return f"{found.group(0)} of verified offers" if found else label
            return label
    return {"observed": "observed price", "list": "list price", "estimate": "estimate"}[
        offer.price_kind
    ]


def readings_of(
    offer: CloudOffer, book: Iterable[CloudOffer], points: Iterable[Point] = ()
) -> tuple[Reading, ...]:
    """Every reading of `offer`: the rows of the prices in use that are the same offer, and
    the `points` (the user's history, other sources) whose name is one of theirs."""
    rows = [o for o in book if same_offer(o, offer)]
    if not any(o is offer for o in rows):
        rows.append(offer)
    found: dict[tuple[datetime, float], Reading] = {}
    for o in rows:
        found[(o.fetched_at, o.usd_per_hour)] = Reading(o.usd_per_hour, o.fetched_at, what_price(o))
    kinds = {o.name: what_price(o) for o in rows}
    for name, when, usd, origin in points:
        if name in kinds and (when, usd) not in found:
            found[(when, usd)] = Reading(usd, when, kinds[name], origin)
    return tuple(sorted(found.values(), key=lambda r: (r.observed, r.usd_per_hour)))


def price_range(readings: Sequence[Reading], t: Thresholds) -> PriceRange | None:
    """The readings' low, median and high, and those at which the verdict would flip."""
    if not readings:
        return None
    prices = [r.usd_per_hour for r in readings]
    return PriceRange(
        readings=tuple(readings),
        low=min(prices),
        median=median(prices),
        high=max(prices),
        first=min(r.observed for r in readings),
        last=max(r.observed for r in readings),
        flips_at=tuple(r for r in readings if flips_at(r.usd_per_hour, t)),
    )


def verdict_range(
    best: OfferResult | None,
    book: Iterable[CloudOffer],
    t: Thresholds,
    recorded: ReadingsOf | None = None,
) -> PriceRange | None:
    """The range of the verdict offer's readings (the rows of the prices in use, `book`, and
    what `recorded` reads); None without a verdict offer or for the user's own price, whose
    only reading is itself."""
    if best is None or best.offer.provider == CUSTOM_PROVIDER:
        return None
    points = recorded(best.offer) if recorded is not None else ()
    return price_range(readings_of(best.offer, book, points), t)


def median(values: Sequence[float]) -> float:
    """`statistics.median` (the middle value, or the mean of the two middle ones), without
    importing statistics, which brings fractions, decimal and random (a twentieth of
    `costcalc quick`'s start-up) for one sort."""
    data = sorted(values)
    n = len(data)
    if n == 0:
        raise ValueError("no median for empty data")
    if n % 2 == 1:
        return data[n // 2]
    i = n // 2
    return (data[i - 1] + data[i]) / 2


def flips_at(usd_per_hour: float, t: Thresholds) -> bool:
    """Whether the verdict would be the other answer with the deciding offer at this price."""
    if t.offer is None or t.offer.usd_per_hour is None:
        return False
    if t.decision == "buy":
        return usd_per_hour < t.offer.usd_per_hour
    if t.decision == "rent":
        return t.offer_flips_verdict and usd_per_hour > t.offer.usd_per_hour
    return False
