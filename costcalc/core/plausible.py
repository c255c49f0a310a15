"""Is a price believable for its GPU? Checked per GPU, not per feed, before a price is stored or
reaches a verdict.

Rules kept here (pure: the catalog and the other readings are passed in):
- the catalog's class of the GPU bounds its price per GPU-hour: a card is never rented for so
  much that a few days of rent would buy it, nor so little that renting it out would take
  decades to pay it back; a GPU without a purchase price is bounded by its segment;
- the other readings of the same GPU (other providers, the last snapshot), of the same count
  when there are enough of them, bound it again: a price ten times off their median is a feed
  that changed units or broke, not a bargain;
- an offer of more GPUs than any machine holds is refused whatever its price.
A price that fails is held back with a reason that names the figure and the range expected.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.models import CloudOffer, GpuSpec

MAX_GPUS_PER_OFFER = 64
"""No rentable machine holds more (an HGX node has 8, an NVL72 rack 72 as 18 nodes of 4); the
bundled snapshots' largest is 8."""

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


def doubt(
    gpu: str,
    gpu_count: int,
    usd_per_hour: float,
    catalog: GpuCatalog,
    readings: Readings = NO_READINGS,
) -> str | None:
    """Why this price is not believable, or None when it is. A GPU the catalog does not know is
    someone else's check (it is left out with its own line)."""
    if gpu_count > MAX_GPUS_PER_OFFER:
        return f"{gpu_count:,} GPUs in one offer (at most {MAX_GPUS_PER_OFFER})"
    if gpu not in catalog or usd_per_hour <= 0:
        return None
    per_gpu = usd_per_hour / gpu_count
    low, high = class_range(catalog.get(gpu))
    if not low <= per_gpu <= high:
        return _outside(per_gpu, low, high, "for its class")
    found = readings.median(gpu, gpu_count)
    if found is None:
        return None
    median, count = found
    low, high = median / SPREAD, median * SPREAD
    if not low <= per_gpu <= high:
        return _outside(per_gpu, low, high, f"from {count} other readings")
    return None


def _outside(per_gpu: float, low: float, high: float, basis: str) -> str:
    return f"${per_gpu:,.4g} per GPU-hour, expected ${low:,.3g}-{high:,.3g} {basis}"


def believable(
    offers: Iterable[CloudOffer], catalog: GpuCatalog
) -> tuple[list[CloudOffer], list[str]]:
    """The offers whose price passes the class check, and one short note per offer left out
    (for snapshots stored before these checks, or edited by hand)."""
    kept: list[CloudOffer] = []
    notes: list[str] = []
    for offer in offers:
        why = doubt(offer.gpu, offer.gpu_count, offer.usd_per_hour, catalog)
        if why is None:
            kept.append(offer)
        else:
            notes.append(f"{offer.name} in {offer.region}: {why}")
    return kept, notes
