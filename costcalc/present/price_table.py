"""`costcalc prices` as a comparison: where is a GPU cheapest, per GPU-hour, on-demand, spot and
committed (1- and 3-year terms) side by side.

Rule kept here: one row per provider x offer x GPU x count. Its regions fold into the row (the
cheapest named, the others counted), and a spot or committed price sits beside the on-demand
one when the same offer is sold several ways (AWS's spot, on-demand and reserved feeds, a
provider's '(spot)' or '(1-yr reserved)' variant), so no two rows look alike. A committed price
is owed for every hour of its term: it sits beside the others, it never orders the rows. Prices
per GPU-hour compare an 8-GPU node with a single card.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Literal

from msgspec import Struct, field

from costcalc.core.catalog import GpuCatalog
from costcalc.core.models import CloudOffer
from costcalc.core.offers import age_days
from costcalc.core.staleness import is_stale

Offers = Literal["all", "on-demand", "spot", "committed"]
SortKey = Literal["gpu-hour", "hour", "memory", "age", "provider"]
SORT_KEYS: tuple[SortKey, ...] = ("gpu-hour", "hour", "memory", "age", "provider")

SPOT_SUFFIX = " (spot)"
_TERM_SUFFIX = re.compile(r" \(\d+-yr reserved\)$")
TERMS = (1, 3)
"""The commitment terms the table has a column for."""


class PriceRow(Struct):
    """One offer of one provider, its regions folded: the cheapest on-demand and spot readings."""

    provider: str
    """The provider family ('aws' for aws-spot and aws-ondemand)."""
    name: str
    gpu: str
    gpu_count: int
    on_demand: CloudOffer | None = None
    spot: CloudOffer | None = None
    committed: dict[int, CloudOffer] = field(default_factory=dict)
    """The cheapest reading of each term, by years."""
    regions: set[str] = field(default_factory=set)

    @property
    def best(self) -> CloudOffer:
        """The cheaper of on-demand and spot (the row's place in the table); the shortest term
        when the offer is sold only committed."""
        found = [o for o in (self.on_demand, self.spot) if o is not None]
        if not found:
            return self.committed[min(self.committed)]
        return min(found, key=lambda o: o.usd_per_hour)

    def per_gpu_hour(self, offer: CloudOffer | None) -> float | None:
        return None if offer is None else offer.usd_per_hour / self.gpu_count


def family(provider: str) -> str:
    """aws-spot, aws-ondemand and aws-reserved are one provider's ways of selling an instance."""
    for suffix in ("-spot", "-ondemand", "-reserved"):
        if provider.endswith(suffix):
            return provider.removesuffix(suffix)
    return provider


def fold(offers: Iterable[CloudOffer], which: Offers = "all") -> list[PriceRow]:
    """Offers folded into rows: the cheapest region's reading of each way an offer is sold."""
    rows: dict[tuple[str, str, str, int], PriceRow] = {}
    for offer in offers:
        way = offer.way
        if which != "all" and way != which:
            continue
        name = _TERM_SUFFIX.sub("", offer.name.removesuffix(SPOT_SUFFIX))
        key = (family(offer.provider), name.casefold(), offer.gpu, offer.gpu_count)
        row = rows.setdefault(key, PriceRow(key[0], name, offer.gpu, offer.gpu_count))
        row.regions.add(offer.region)
        if offer.term_years is not None:
            held = row.committed.get(offer.term_years)
            if held is None or offer.usd_per_hour < held.usd_per_hour:
                row.committed[offer.term_years] = offer
            continue
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
        **{f"term{t}": money(row.per_gpu_hour(row.committed.get(t))) for t in TERMS},
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
