"""`costcalc prices` as a comparison: where is a GPU cheapest, per GPU-hour, on-demand and spot
side by side.

Rule kept here: one row per provider x offer x GPU x count. Its regions fold into the row (the
cheapest named, the others counted), and a spot price sits beside the on-demand one when the
same offer is sold both ways (AWS's spot and on-demand feeds, a provider's '(spot)' variant), so
no two rows look alike. Prices per GPU-hour compare an 8-GPU node with a single card.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from costcalc.core.catalog import GpuCatalog
from costcalc.core.models import CloudOffer
from costcalc.core.offers import age_days
from costcalc.core.staleness import is_stale

Offers = Literal["all", "on-demand", "spot"]
SortKey = Literal["gpu-hour", "hour", "memory", "age", "provider"]
SORT_KEYS: tuple[SortKey, ...] = ("gpu-hour", "hour", "memory", "age", "provider")

SPOT_SUFFIX = " (spot)"


@dataclass
class PriceRow:
    """One offer of one provider, its regions folded: the cheapest on-demand and spot readings."""

    provider: str
    """The provider family ('aws' for aws-spot and aws-ondemand)."""
    name: str
    gpu: str
    gpu_count: int
    on_demand: CloudOffer | None = None
    spot: CloudOffer | None = None
    regions: set[str] = field(default_factory=set)

    @property
    def best(self) -> CloudOffer:
        """The cheaper of the two readings (the row's place in the table)."""
        found = [o for o in (self.on_demand, self.spot) if o is not None]
        return min(found, key=lambda o: o.usd_per_hour)

    def per_gpu_hour(self, offer: CloudOffer | None) -> float | None:
        return None if offer is None else offer.usd_per_hour / self.gpu_count


def family(provider: str) -> str:
    """aws-spot and aws-ondemand are one provider's two ways of selling the same instance."""
    for suffix in ("-spot", "-ondemand"):
        if provider.endswith(suffix):
            return provider.removesuffix(suffix)
    return provider


def fold(offers: Iterable[CloudOffer], which: Offers = "all") -> list[PriceRow]:
    """Offers folded into rows: the cheapest region's reading of each way an offer is sold."""
    rows: dict[tuple[str, str, str, int], PriceRow] = {}
    for offer in offers:
        if (which == "spot" and not offer.spot) or (which == "on-demand" and offer.spot):
            continue
        name = offer.name.removesuffix(SPOT_SUFFIX) if offer.spot else offer.name
        key = (family(offer.provider), name.casefold(), offer.gpu, offer.gpu_count)
        row = rows.setdefault(key, PriceRow(key[0], name, offer.gpu, offer.gpu_count))
        row.regions.add(offer.region)
        held = row.spot if offer.spot else row.on_demand
        if held is None or offer.usd_per_hour < held.usd_per_hour:
            if offer.spot:
                row.spot = offer
            else:
                row.on_demand = offer
    return list(rows.values())


def sort_rows(rows: list[PriceRow], by: SortKey, catalog: GpuCatalog, now: datetime) -> None:
    """Cheapest per GPU-hour first by default; ties keep a stable, readable order."""
    keys: dict[str, Callable[[PriceRow], float | str]] = {
        "gpu-hour": lambda r: r.best.usd_per_hour / r.gpu_count,
        "hour": lambda r: r.best.usd_per_hour,
        "memory": lambda r: -catalog.get(r.gpu).memory_gb * r.gpu_count,
        "age": lambda r: age_days(r.best.fetched_at, now),
        "provider": lambda r: r.provider,
    }
    primary = keys[by]
    rows.sort(key=lambda r: (primary(r), r.best.usd_per_hour / r.gpu_count, r.provider, r.name))


def money(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:,.3f}" if value < 10 else f"{value:,.2f}"


def cells(
    row: PriceRow,
    catalog: GpuCatalog,
    labels: Mapping[str, str],
    now: datetime,
    gpu_label: str,
    age: str,
) -> dict[str, str]:
    """The row as the table shows it (`gpu_label` and `age` come formatted by the caller's
    display helpers, so the words match the rest of costcalc)."""
    best = row.best
    others = len(row.regions) - 1
    kind = best.price_kind + (f", {best.tier}" if best.tier else "")
    return {
        "gpu_hour": money(row.per_gpu_hour(row.on_demand)),
        "spot": money(row.per_gpu_hour(row.spot)),
        "hour": money(best.usd_per_hour),
        "gpu": gpu_label,
        "mem": f"{catalog.get(row.gpu).memory_gb:g}",
        "provider": labels.get(row.provider, row.provider),
        "name": row.name,
        "region": best.region + (f" +{others}" if others > 0 else ""),
        "kind": kind,
        "fee": f"{best.monthly_fee_usd:g}" if best.monthly_fee_usd else "-",
        "age": age + (" stale" if is_stale(best, now) else ""),
    }
