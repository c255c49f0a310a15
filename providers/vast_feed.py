"""Vast.ai's feed: the offer search, its summary per GPU model and count, and the refresh
(providers/vast.py describes the provider; this module is imported only when `costcalc refresh`
runs it)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from costcalc.core.models import OfferRow, PriceSnapshot

from .base import Fetched, Progress
from .common import FeedError, Parsed, expect, load_json, named, price
from .gpu_names import GpuNames
from .vast import GPU_NAMES, KEY_ENVS, NAME, URL_ENV

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

API_HOST = "vast.ai"
DEFAULT_URL = "https://console.vast.ai/api/v0/bundles/"
MAX_BYTES = 64 * 1024 * 1024
"""Largest answer read: the query's limit of 5,000 offers at about 2 kB each (the recorded
offers) is about 10 MB."""

RELIABILITY_FLOOR = 0.95
STORAGE_GB = 50
"""Disk priced into every offer: enough for a dataset shard, a container and checkpoints."""
HOURS_PER_MONTH = 30 * 24
GPU_COUNTS = (1, 2, 4, 8)
MIN_OFFERS = 3
LOW_PERCENTILE = 20

QUERY: dict[str, Any] = {
    "verified": {"eq": True},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "external": {"eq": False},
    "reliability2": {"gte": RELIABILITY_FLOOR},
    "num_gpus": {"in": list(GPU_COUNTS)},
    "type": "on-demand",
    "order": [["score", "desc"]],
    "limit": 5000,
}
MARKETPLACE_LIMITS = "marketplace: independent hosts set their own prices; this summarises them"
BID_LIMITS = "interruptible: you bid at least the host's minimum; a higher bid stops your instance"


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def api_key() -> str | None:
    return next((os.environ[n] for n in KEY_ENVS if os.environ.get(n)), None)


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default) of sorted `values`."""
    position = (len(values) - 1) * pct / 100
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


class _Group(Struct):
    """The verified, reliable offers of one GPU model and count."""

    shown: str
    per_gpu: list[float] = field(default_factory=list)
    bid_per_gpu: list[float] = field(default_factory=list)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _trusted(offer: dict[str, Any]) -> bool:
    verified = offer.get("verification") == "verified" or offer.get("verified") is True
    reliability = _number(offer.get("reliability2"))
    return (
        verified
        and reliability is not None
        and reliability >= RELIABILITY_FLOOR
        and offer.get("rentable") is not False
        and offer.get("rented") is not True
        and _number(offer.get("gpu_frac")) in (None, 1.0)
    )


def _storage_usd_per_hour(offer: dict[str, Any]) -> float:
    rate = _number(offer.get("storage_cost"))
    return rate * STORAGE_GB / HOURS_PER_MONTH if rate is not None and rate > 0 else 0.0


def _collect(offers: list[Any], names: GpuNames) -> dict[tuple[str, int], _Group]:
    groups: dict[tuple[str, int], _Group] = {}
    seen: set[object] = set()
    for offer in offers:
        if not isinstance(offer, dict) or not isinstance(offer.get("gpu_name"), str):
            continue
        ident = offer.get("id")
        if isinstance(ident, (int, str)) and not isinstance(ident, bool):
            if ident in seen:  # one machine listed twice is one offer, not two in the median
                continue
            seen.add(ident)
        count = offer.get("num_gpus")
        if not isinstance(count, int) or isinstance(count, bool) or count not in GPU_COUNTS:
            continue
        ram_mib = _number(offer.get("gpu_ram"))
        key = names.key(offer["gpu_name"], ram_mib / 1024 if ram_mib else None)
        base = price(offer.get("dph_base"))
        if key is None or base is None or not _trusted(offer):
            continue
        storage = _storage_usd_per_hour(offer)
        group = groups.setdefault((key, count), _Group(" ".join(offer["gpu_name"].split())))
        group.per_gpu.append((base + storage) / count)
        bid = price(offer.get("min_bid"))
        if bid is not None:
            group.bid_per_gpu.append((bid + storage) / count)
    return groups


def _row(
    key: str, count: int, shown: str, label: str, per_gpu: float, summary: str, spot: bool
) -> OfferRow:
    return OfferRow(
        name=f"{count}x {shown} ({label})",
        region="global",
        gpu=key,
        gpu_count=count,
        usd_per_hour=round(per_gpu * count, 4),
        spot=spot,
        tier="marketplace",
        summary=summary,
        limits=BID_LIMITS if spot else MARKETPLACE_LIMITS,
    )


def _rows(key: str, count: int, group: _Group, day: date) -> list[OfferRow]:
    rows = []
    when = f"{STORAGE_GB} GB disk included, {day.isoformat()}"
    n = len(group.per_gpu)
    if n >= MIN_OFFERS:
        ranked = sorted(group.per_gpu)
        trust = f"{n} verified offers (reliability >= {RELIABILITY_FLOOR:g})"
        low = f"{LOW_PERCENTILE}th percentile"
        p_low, median = percentile(ranked, LOW_PERCENTILE), percentile(ranked, 50)
        rows.append(_row(key, count, group.shown, low, p_low, f"{low} of {trust}, {when}", False))
        rows.append(
            _row(key, count, group.shown, "median", median, f"median of {trust}, {when}", False)
        )
    bids = sorted(group.bid_per_gpu)
    if len(bids) >= MIN_OFFERS:
        summary = f"median minimum bid of {len(bids)} verified offers, {when}"
        rows.append(
            _row(key, count, group.shown, "interruptible", percentile(bids, 50), summary, True)
        )
    return rows


def parse(payload: bytes | str, day: date) -> Parsed:
    """The summary offers of one bundles answer, and the GPU names no table maps."""
    doc = expect(load_json(payload), dict, "the document")
    offers = expect(doc.get("offers"), list, "offers")
    names = GpuNames(GPU_NAMES)
    groups = _collect(offers, names)
    rows = [row for (key, count), g in sorted(groups.items()) for row in _rows(key, count, g, day)]
    if not rows:
        raise FeedError(
            f"no GPU model with {MIN_OFFERS} verified, reliable offers in the answer "
            f"({len(offers)} offers)"
        )
    return Parsed(rows, names.unknown)


def _headers(address: str, progress: Progress) -> dict[str, str]:
    """The key as a bearer header, only over https to Vast's own host; otherwise none."""
    from costcalc.edge.net import credential_refusal

    key = api_key()
    if key is None:
        return {}
    refusal = credential_refusal(address, API_HOST)
    if refusal is not None:
        progress(f"{refusal}: the Vast.ai API key was not sent; asking without it")
        return {}
    return {"Authorization": f"Bearer {key}"}


def refresh(client: HttpClient, now: datetime, progress: Progress) -> Fetched:
    address = url()
    headers = _headers(address, progress)
    progress(f"searching {address} for verified offers")
    found = named(
        address,
        lambda: parse(
            client.post_json(
                address, QUERY, headers=headers, own_hosts=(API_HOST,), max_bytes=MAX_BYTES
            ),
            now.date(),
        ),
    )
    snapshot = PriceSnapshot(
        provider=NAME,
        source="Vast.ai offer search (bundles API), verified offers with reliability >= "
        f"{RELIABILITY_FLOOR:g}, summarised by costcalc refresh",
        source_url=address,
        licence="Vast.ai marketplace data; fetched for the user's own use",
        fetched_at=now,
        billing_increment_s=1,
        price_kind="observed",
        notes=f"Per GPU model and count: {LOW_PERCENTILE}th percentile and median of the "
        f"verified offers' price per GPU with {STORAGE_GB} GB of disk, and the median minimum "
        "bid (interruptible).",
        offers=tuple(found.rows),
    )
    return Fetched(snapshot, found.unknown_gpus)
