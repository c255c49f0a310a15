"""Vast.ai: a marketplace of independent hosts, summarised per GPU model and count.

Format (POST https://console.vast.ai/api/v0/bundles/ with a JSON body of filters; answered
without a key today, sent with `Authorization: Bearer <key>` when COSTCALC_VAST_API_KEY is set,
because Vast's docs show one):
    {"offers": [{"id": 11684738, "gpu_name": "RTX 4090", "num_gpus": 1, "gpu_ram": 24564,
                 "gpu_frac": 1.0, "dph_base": 0.5237, "dph_total": 0.7370, "storage_cost": 0.15,
                 "min_bid": 0.206, "reliability2": 0.987, "verification": "verified",
                 "rentable": true, "rented": false, "geolocation": "Quebec, CA", ...}, ...]}
`dph_base` is the offer's $/h for its GPUs, CPU and RAM; `storage_cost` is $ per GB-month of disk
(gpuhunt prices disk the same way); `min_bid` is the interruptible floor; `gpu_ram` is MiB;
verification is the string `verification` ("verified", "unverified", "deverified").

Rules kept here:
- thousands of hosts are summarised, never listed: per catalog GPU and count (1, 2, 4, 8), the
  20th percentile and the median price per GPU of the offers that are verified, reliable
  (reliability2 >= 0.95), rentable and whole (gpu_frac 1), each with STORAGE_GB of disk at the
  host's rate included; the median minimum bid is a separate interruptible (spot) offer. Each
  says what it is in its summary ("median of 37 verified offers (reliability >= 0.95), ...");
- a statistic needs MIN_OFFERS offers behind it: a thinner group is left out;
- the filters are sent to the API and checked again here: the server is not trusted to apply them;
- parse is pure (the day it names comes in as an argument); fetch is the only function that
  touches the network, and the key goes only to Vast's own https host.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from costcalc.core.models import OfferRow, PriceSnapshot

from .base import EnvVar, FeedProvider, Fetched, Progress
from .common import FeedError, Parsed, expect, load_json, named, price
from .gpu_names import Choice, GpuNames

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

NAME = "vast"
URL_ENV = "COSTCALC_VAST_URL"
KEY_ENVS = ("COSTCALC_VAST_API_KEY", "VAST_API_KEY")
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


# Vast.ai `gpu_name` as offers spell it (real records, SkyPilot catalog rows, gpuhunt's map; the Ada
# and PRO workstation, A16, GH200 and B300 spellings from public clients' lists of Vast.ai gpu_name
# values, read 2026-11-25).
GPU_NAMES: dict[str, Choice] = {
    "rtx 5090": "rtx5090",
    "rtx 5080": "rtx5080",
    "rtx 5070 ti": "rtx5070ti",
    "rtx 5070": "rtx5070",
    "rtx 5060 ti": {16: "rtx5060ti_16gb"},
    "rtx 4090": "rtx4090",
    "rtx 4080s": "rtx4080_super",
    "rtx 4080": "rtx4080",
    "rtx 4070s ti": "rtx4070ti_super",
    "rtx 4070s": "rtx4070_super",
    "rtx 4070 ti": "rtx4070ti",
    "rtx 4070": "rtx4070",
    "rtx 4060 ti": {16: "rtx4060ti_16gb"},
    "rtx 4060": "rtx4060",
    "rtx 3090 ti": "rtx3090ti",
    "rtx 3090": "rtx3090",
    "rtx 3080 ti": "rtx3080ti",
    "rtx 3080": "rtx3080",
    "rtx 3070 ti": "rtx3070ti",
    "rtx 3070": "rtx3070",
    "rtx 3060 ti": "rtx3060ti",
    "rtx 3060": {12: "rtx3060_12gb"},
    "rtx 2080 ti": "rtx2080ti",
    "rtx a4000": "rtx_a4000",
    "rtx a4500": "rtx_a4500",
    "rtx a5000": "rtx_a5000",
    "rtx a6000": "rtx_a6000",
    "rtx 6000ada": "rtx6000_ada",
    "rtx 6000 ada": "rtx6000_ada",
    "rtx 5000ada": "rtx5000_ada",
    "rtx 4500ada": "rtx4500_ada",
    "rtx 4000ada": "rtx4000_ada",
    "rtx 2000ada": "rtx2000_ada",
    "rtx pro 5000": "rtx_pro5000",
    "rtx pro 4500": "rtx_pro4500",
    # Not 'rtx pro 4000 mobile': a laptop part, slower than the desktop card.
    "rtx pro 4000": "rtx_pro4000",
    "q rtx 6000": "quadro_rtx6000",
    "q rtx 8000": "quadro_rtx8000",
    "rtx pro 6000 ws": "rtx_pro6000",
    # The Server Edition: same GB202 die and 96 GB, mapped like AWS g7e (aws_instances.yaml).
    "rtx pro 6000 s": "rtx_pro6000",
    "tesla t4": "t4",
    "tesla p100": "p100_pcie_16gb",
    "a10": "a10",
    "a16": "a16",
    "a30": "a30",
    "a40": "a40",
    "l4": "l4",
    "l40": "l40",
    "l40s": "l40s",
    "a100 pcie": {40: "a100_pcie_40gb", 80: "a100_pcie_80gb"},
    "a100 sxm4": {40: "a100_sxm4_40gb", 80: "a100_sxm4_80gb"},
    "h100 pcie": "h100_pcie_80gb",
    "h100 sxm": "h100_sxm5_80gb",
    "h100 nvl": "h100_nvl_94gb",
    "h200": "h200_sxm_141gb",
    "b200": "b200",
    "b300": "b300",
    "gh200 sxm": "gh200_96gb",
}


PROVIDER = FeedProvider(
    name=NAME,
    label="Vast.ai",
    snapshot_file="vast.yaml",
    fetch=refresh,
    env=(
        EnvVar(URL_ENV, "offer search (bundles) API URL"),
        EnvVar(
            KEY_ENVS[0],
            "Vast.ai API key (optional)",
            secret=True,
            optional=True,
            aliases=KEY_ENVS[1:],
        ),
    ),
    gpu_names=GPU_NAMES,
)
