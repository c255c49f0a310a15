"""Is a price believable for its GPU? Checked per GPU, not per feed, before a price is stored or
reaches a verdict.

Rules kept here (pure: the catalog, the shipped prices and the other readings are passed in):
- the catalog's class of the GPU bounds its price per GPU-hour: a card is never rented for so
  much that a few days of rent would buy it, nor so little that renting it out would take
  decades to pay it back; a GPU without a purchase price is bounded by its segment;
- what ships bounds it with one reading, each bound one sentence (ShippedPrices,
  shipped_limits): no host rents a card out for less than would earn back its dated street or
  used price in three years around the clock; no price lies further below the cheapest, or
  above the dearest, shipped reading of its GPU than two shipped readings of one offer have
  ever lain apart; nor, for a card with no dated price of its own, per GB/s of memory
  bandwidth further below the cheapest shipped GPU of its segment and architecture;
- the other readings of the same GPU (other providers, the last snapshot), of the same count
  when there are enough of them, bound it again: a price ten times off their median is a feed
  that changed units or broke, not a bargain;
- an offer of more GPUs than any machine holds is refused whatever its price;
- a whole feed far from its last good snapshot, offer by offer, is held back whole (feed_shift).
A price that fails is held back with a reason that names the figure, the bound and its ground.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Literal, TypeVar

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog, card_price
from costcalc.core.constants import MAX_GPUS_PER_OFFER
from costcalc.core.models import CloudOffer, GpuSpec

if TYPE_CHECKING:
    from costcalc.core.ranges import CrossReading

PAYBACK_HOURS = (150.0, 150_000.0)
"""Hours of rent that buy one card at its street (else launch) price. The bundled offers span
1,300-27,000 h (2026-11); under 150 h (a week) or over 17 years of rent is a wrong figure."""

SEGMENT_USD_PER_GPU_HOUR = {
    "consumer": (0.02, 10.0),
    "workstation": (0.03, 20.0),
    "datacenter": (0.03, 80.0),
}
"""Bounds for a GPU with no purchase price: the bundled offers span $0.19-12.29 per GPU-hour
(datacenter, T4 spot to H100 on demand) and $0.34-2.50 (consumer and workstation), 2026-11."""

SPREAD = 10.0
"""How far from the median of the other readings a price may be: the bundled offers of one GPU
lie within 7.1x of their median (V100 spot against on demand), 2026-11."""

MIN_READINGS = 3
"""Fewer other readings than this give no median worth judging by."""

SHIPPED_SPREAD = 3.5
"""How far below the cheapest, or above the dearest, shipped reading of a GPU (per GPU-hour; per
GB/s of bandwidth for its class) a fresh price may lie: the widest that two shipped dated
readings of one offer lie apart is 3.46x (Vast.ai's 1x RTX 5090: $0.3296 on 2026-08-08, $1.141
on 2026-06-30; next its H100 SXM median at 2.56x, $6.15 on 2026-10-07 and $2.4024 on
2026-10-19), prices/vast.yaml and prices/readings.yaml, 2026-11;
tests/data/test_plausible_shipped.py recomputes it."""

RENT_OUT_HOURS = 3 * 8_760
"""Hours of rent, around the clock, that must not earn back more than a card costs to buy today
(its dated street or used price): three years, 26,280 h. A host's card also idles between
renters, so it earns back slower still; the shipped offers' longest is about 18,400 h (Colab
Pro's RTX PRO 6000 at $0.87 against its $16,000 street price of 2026-08-12), and a Vast.ai
RTX 3090 at its cheapest listing, $0.1296 (2026-10-04), earns back its $1,207 used price
(2026-09-30) in 9,300 h. A launch price is not used: an old card's says nothing of what a host
paid (a V100 SXM2's $11,500 of 2017 against AWS spot's $0.43 is 27,000 h)."""

PEER_TIERS = frozenset({"marketplace", "community"})
"""Offers of independent hosts competing on price, the cheapest way to rent a GPU. A floor from
what ships rests on a GPU (or class) of which one such price ships: list prices alone (Lambda's
A10 at $1.29, OCI's MI300X at $6.00, Lambda's and Paperspace's Turing Quadros) say what those
providers charge, not how low a marketplace goes."""

MIN_PROVIDERS = 2
"""A ceiling from what ships rests on a GPU that two providers or more ship: one provider's
dearest price (RunPod's RTX 6000 Ada at $0.84) says nothing of what a hyperscaler charges."""

FEED_RATIO = (0.5, 2.0)
"""The median ratio, offer by offer, of a fresh feed's prices to its last good snapshot's that a
feed may show and still be stored: the offers that ship at two dates moved by a median of 1.0x
at RunPod (9 offers, 2025-06 to 2026-10; the most, its A40 Secure Cloud, 1.23x) and 0.78x on
Vast.ai's marketplace (6 offers, 2026-05 to 2026-10), prices/runpod.yaml, prices/vast.yaml and
prices/readings.yaml; a whole feed at half or twice its last prices changed units or broke.
`--force` accepts it when the provider really did."""

MIN_COMPARED = 3
"""Fewer offers found in both the fresh feed and its last good snapshot give no median ratio
worth judging a whole feed by."""


class Readings(Struct, frozen=True):
    """Prices per GPU-hour seen elsewhere, by GPU and by (GPU, count)."""

    by_gpu: dict[str, list[float]]
    by_gpu_and_count: dict[tuple[str, int], list[float]]

    @classmethod
    def of(cls, offers: Iterable[CloudOffer]) -> Readings:
        by_gpu: dict[str, list[float]] = defaultdict(list)
        by_count: dict[tuple[str, int], list[float]] = defaultdict(list)
        for offer in offers:
            if offer.usd_per_hour > 0 and not offer.monthly_fee_usd:
                by_gpu[offer.gpu].append(offer.usd_per_gpu_hour)
                by_count[(offer.gpu, offer.gpu_count)].append(offer.usd_per_gpu_hour)
        return cls(dict(by_gpu), dict(by_count))

    def median(self, gpu: str, count: int) -> tuple[float, int] | None:
        """The median price per GPU-hour and how many readings it rests on: those of the same
        count when there are enough, else of every count."""
        for found in (self.by_gpu_and_count.get((gpu, count), []), self.by_gpu.get(gpu, [])):
            if len(found) >= MIN_READINGS:
                import statistics  # a refresh's check: `quick` starts without it (and fractions)

                return statistics.median(found), len(found)
        return None


NO_READINGS = Readings({}, {})


def class_range(spec: GpuSpec) -> tuple[float, float]:
    """The believable price per GPU-hour for this GPU's class."""
    card_usd = spec.desktop_price_usd
    if card_usd:
        shortest_h, longest_h = PAYBACK_HOURS
        return card_usd / longest_h, card_usd / shortest_h
    return SEGMENT_USD_PER_GPU_HOUR[spec.segment]


class Span(Struct, frozen=True):
    """The cheapest and the dearest shipped price of a GPU (per GPU-hour) or of a class of GPUs
    (per GB/s of memory bandwidth), what each one is, how many providers ship the prices and
    whether one of them
    is a marketplace's or community host's (PEER_TIERS)."""

    low: float
    low_what: str
    high: float
    high_what: str
    providers: int
    peer: bool


class ShippedPrices(Struct, frozen=True):
    """What the bundled snapshots and their cross-checks (prices/readings.yaml) say each GPU
    and each class of GPUs (segment and architecture) costs: the ground a fresh price is judged
    on when it is the only reading of its GPU."""

    by_gpu: dict[str, Span]
    by_class: dict[tuple[str, str], Span]
    """(segment, architecture) -> prices per hour per GB/s of memory bandwidth, the best single
    predictor of deep-learning speed between two GPUs with tensor cores, so a slower card of the
    class is allowed a lower price."""

    @classmethod
    def of(
        cls,
        offers: Iterable[CloudOffer],
        readings: Iterable[CrossReading],
        catalog: GpuCatalog,
    ) -> ShippedPrices:
        points = [
            (
                o.provider,
                o.gpu,
                o.usd_per_gpu_hour,
                f"{o.provider} {o.name}, {o.fetched_at:%Y-%m-%d}",
                o.tier in PEER_TIERS,
            )
            for o in offers
            if o.usd_per_hour > 0 and o.gpu in catalog
        ]
        points += [  # another date of a shipped offer: its tier counted there already
            (
                r.provider,
                r.gpu,
                r.usd_per_hour / r.gpu_count,
                f"{r.provider} {r.name}, {r.observed}",
                False,
            )
            for r in readings
            if r.gpu in catalog
        ]
        by_gpu = _spans(
            (gpu, usd, what, provider, peer) for provider, gpu, usd, what, peer in points
        )
        by_class: dict[tuple[str, str], Span] = _spans(
            (
                (str(spec.segment), spec.architecture),
                usd / spec.bandwidth_gbs,
                f"{spec.short_name} at ${usd:,.4g} per GPU-hour, {what}",
                provider,
                peer,
            )
            for provider, gpu, usd, what, peer in points
            for spec in (catalog.get(gpu),)
        )
        return cls(by_gpu, by_class)


K = TypeVar("K", bound=Hashable)


def _spans(points: Iterable[tuple[K, float, str, str, bool]]) -> dict[K, Span]:
    """(key, price, what it is, provider, a peer tier's) -> the span of each key's prices."""
    found: dict[K, list[tuple[float, str, str, bool]]] = defaultdict(list)
    for key, usd, what, provider, peer in points:
        found[key].append((usd, what, provider, peer))
    spans = {}
    for key, prices in found.items():
        low = min(prices, key=lambda p: p[0])
        high = max(prices, key=lambda p: p[0])
        providers = len({p[2] for p in prices})
        spans[key] = Span(low[0], low[1], high[0], high[1], providers, any(p[3] for p in prices))
    return spans


Bound = Literal["count", "class", "street price", "shipped prices", "shipped class", "readings"]
"""Which rule a price broke: more GPUs than a machine holds, its catalog class (class_range),
its card's street price, the shipped prices of its GPU, of its class, or the other readings."""


class Limit(Struct, frozen=True):
    """A floor or a ceiling on the price per GPU-hour, the rule it comes from and its ground in
    words ('its $1,207 used price of 2026-09-30 earned back in 3 years ...')."""

    usd_per_gpu_hour: float
    bound: Bound
    ground: str


class Doubt(Struct, frozen=True):
    """Why a price is not believable: the rule it broke and one line that names the figure,
    the range expected and its ground."""

    bound: Bound
    reason: str


def street_floor(spec: GpuSpec) -> Limit | None:
    """No host rents a card out for less than would earn back what it costs to buy today (its
    dated street or used price, the lower) in three years of renting around the clock."""
    dated = [
        found
        for found in (card_price(spec), card_price(spec, used=True))
        if found is not None and found.observed is not None
    ]
    if not dated:
        return None
    cheapest = min(dated, key=lambda found: found.usd)
    years = RENT_OUT_HOURS / 8_760
    ground = (
        f"its ${cheapest.usd:,.0f} {cheapest.condition} price of {cheapest.observed} earned back "
        f"in {years:g} years of renting around the clock"
    )
    return Limit(cheapest.usd / RENT_OUT_HOURS, "street price", ground)


def gpu_floor(spec: GpuSpec, shipped: ShippedPrices) -> Limit | None:
    """No price lies further below the cheapest shipped price of its GPU than two shipped
    readings of one offer have lain apart (when a marketplace or community price of it ships)."""
    span = shipped.by_gpu.get(spec.key)
    if span is None or not span.peer:
        return None
    ground = (
        f"1/{SHIPPED_SPREAD:g} of the cheapest shipped {spec.short_name} price, "
        f"${span.low:,.4g} ({span.low_what})"
    )
    return Limit(span.low / SHIPPED_SPREAD, "shipped prices", ground)


def gpu_ceiling(spec: GpuSpec, shipped: ShippedPrices) -> Limit | None:
    """No price lies further above the dearest shipped price of its GPU than two shipped
    readings of one offer have lain apart (when two providers or more ship the GPU)."""
    span = shipped.by_gpu.get(spec.key)
    if span is None or span.providers < MIN_PROVIDERS:
        return None
    ground = (
        f"{SHIPPED_SPREAD:g}x the dearest shipped {spec.short_name} price, "
        f"${span.high:,.4g} ({span.high_what})"
    )
    return Limit(span.high * SHIPPED_SPREAD, "shipped prices", ground)


def class_floor(spec: GpuSpec, shipped: ShippedPrices) -> Limit | None:
    """For a card with no dated street or used price, per GB/s of memory bandwidth no price
    lies further below the cheapest shipped GPU of the same segment and architecture than two
    shipped readings of one offer have lain apart (when a marketplace or community price of
    that class ships). A card with a dated price of its own is judged by it (street_floor)."""
    span = shipped.by_class.get((spec.segment, spec.architecture))
    if span is None or not span.peer or street_floor(spec) is not None:
        return None
    ground = (
        f"{spec.bandwidth_gbs:,.0f} GB/s at 1/{SHIPPED_SPREAD:g} of the cheapest shipped "
        f"{spec.segment} {spec.architecture} GPU per GB/s, ${span.low * 1000:,.3g} per "
        f"1,000 GB/s ({span.low_what})"
    )
    return Limit(span.low / SHIPPED_SPREAD * spec.bandwidth_gbs, "shipped class", ground)


def shipped_limits(spec: GpuSpec, shipped: ShippedPrices) -> tuple[Limit | None, Limit | None]:
    """The highest floor and the lowest ceiling what ships sets on this GPU's price per
    GPU-hour (None where no bound applies)."""
    floors = [
        f for f in (street_floor(spec), gpu_floor(spec, shipped), class_floor(spec, shipped)) if f
    ]
    ceiling = gpu_ceiling(spec, shipped)
    return max(floors, key=lambda f: f.usd_per_gpu_hour, default=None), ceiling


def judge(
    gpu: str,
    gpu_count: int,
    usd_per_hour: float,
    catalog: GpuCatalog,
    readings: Readings = NO_READINGS,
    shipped: ShippedPrices | None = None,
) -> Doubt | None:
    """Why this price is not believable, or None when it is. A GPU the catalog does not know is
    someone else's check (it is left out with its own line)."""
    if gpu_count > MAX_GPUS_PER_OFFER:
        return Doubt("count", f"{gpu_count:,} GPUs in one offer (at most {MAX_GPUS_PER_OFFER})")
    if gpu not in catalog or usd_per_hour <= 0:
        return None
    per_gpu = usd_per_hour / gpu_count
    spec = catalog.get(gpu)
    low, high = class_range(spec)
    if not low <= per_gpu <= high:
        return Doubt("class", _outside(per_gpu, low, high, "for its class"))
    if shipped is not None:
        floor, ceiling = shipped_limits(spec, shipped)
        if floor is not None and per_gpu < floor.usd_per_gpu_hour:
            return Doubt(floor.bound, _beyond(per_gpu, floor, "at least"))
        if ceiling is not None and per_gpu > ceiling.usd_per_gpu_hour:
            return Doubt(ceiling.bound, _beyond(per_gpu, ceiling, "at most"))
    found = readings.median(gpu, gpu_count)
    if found is None:
        return None
    median, count = found
    low, high = median / SPREAD, median * SPREAD
    if not low <= per_gpu <= high:
        return Doubt("readings", _outside(per_gpu, low, high, f"from {count} other readings"))
    return None


def doubt(
    gpu: str,
    gpu_count: int,
    usd_per_hour: float,
    catalog: GpuCatalog,
    readings: Readings = NO_READINGS,
    shipped: ShippedPrices | None = None,
) -> str | None:
    """judge's reason alone."""
    found = judge(gpu, gpu_count, usd_per_hour, catalog, readings, shipped)
    return None if found is None else found.reason


def _outside(per_gpu: float, low: float, high: float, basis: str) -> str:
    return f"${per_gpu:,.4g} per GPU-hour, expected ${low:,.3g}-{high:,.3g} {basis}"


def _beyond(per_gpu: float, limit: Limit, side: str) -> str:
    expected = f"expected {side} ${limit.usd_per_gpu_hour:,.3g}"
    return f"${per_gpu:,.4g} per GPU-hour, {expected}: {limit.ground}"


def believable(
    offers: Iterable[CloudOffer], catalog: GpuCatalog, shipped: ShippedPrices | None = None
) -> tuple[list[CloudOffer], list[str]]:
    """The offers whose price passes the class check and, given what ships, its bounds; and
    one short note per offer left out (for snapshots stored before these checks, or edited by
    hand)."""
    kept: list[CloudOffer] = []
    notes: list[str] = []
    for offer in offers:
        why = doubt(offer.gpu, offer.gpu_count, offer.usd_per_hour, catalog, shipped=shipped)
        if why is None:
            kept.append(offer)
        else:
            notes.append(f"{offer.name} in {offer.region}: {why}")
    return kept, notes


class FeedShift(Struct, frozen=True):
    """How a fresh feed's prices compare with its last good snapshot's, offer by offer."""

    ratio: float
    """The median of fresh / last over the offers found in both."""
    compared: int

    @property
    def held_back(self) -> bool:
        low, high = FEED_RATIO
        return not low <= self.ratio <= high


def feed_shift(fresh: Mapping[K, float], last: Mapping[K, float]) -> FeedShift | None:
    """The median ratio of the prices of the offers (same key) in both, or None when too few
    are (another region set, a renamed tier: nothing to judge the feed by)."""
    ratios = [
        fresh[k] / last[k] for k in fresh.keys() & last.keys() if fresh[k] > 0 and last[k] > 0
    ]
    if len(ratios) < MIN_COMPARED:
        return None
    import statistics  # a refresh's check: `quick` starts without it

    return FeedShift(statistics.median(ratios), len(ratios))
