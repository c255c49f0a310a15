"""RunPod's feed: the GraphQL query, its parser and the refresh (providers/runpod.py describes
the provider; this module is imported only when `costcalc refresh` runs it)."""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from costcalc.core.models import OfferRow, PriceSnapshot, Tier

from .base import Fetched, Progress
from .common import FeedError, Parsed, expect, load_json, named, price
from .gpu_names import GpuNames
from .runpod import GPU_NAMES, IGNORED_GPUS, NAME, URL_ENV

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

DEFAULT_URL = "https://api.runpod.io/graphql"
MAX_BYTES = 2 * 1024 * 1024
"""Largest answer read: about 40 GPU types of about 600 bytes each (the recorded answer)."""
QUERY = (
    "query GpuTypes { gpuTypes { id displayName memoryInGb maxGpuCount secureCloud "
    "communityCloud securePrice communityPrice } }"
)
GPU_COUNTS = (1, 2, 4, 8)

TIERS: tuple[tuple[Tier, str, str, str], ...] = (
    ("secure", "secureCloud", "securePrice", "Secure Cloud"),
    ("community", "communityCloud", "communityPrice", "Community Cloud"),
)
COMMUNITY_LIMITS = "Community Cloud: third-party hosts, no data-centre SLA"
STORAGE_LIMITS = "container and volume disk are billed on top"


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def _counts(gpu_type: dict[str, Any]) -> tuple[int, ...]:
    most = gpu_type.get("maxGpuCount")
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        return (1,)
    return tuple(n for n in GPU_COUNTS if n <= most)


def _rows(gpu_type: dict[str, Any], names: GpuNames) -> list[OfferRow]:
    ident = gpu_type.get("id")
    if not isinstance(ident, str):
        return []
    offered = [
        (tier, label, usd)
        for tier, flag, field, label in TIERS
        if gpu_type.get(flag) is True and (usd := price(gpu_type.get(field))) is not None
    ]
    if not offered:
        return []
    key = names.key(ident)
    if key is None:
        return []
    shown = str(gpu_type.get("displayName") or ident).strip()
    rows = []
    for tier, label, per_gpu in offered:
        limits = f"{COMMUNITY_LIMITS}; {STORAGE_LIMITS}" if tier == "community" else STORAGE_LIMITS
        for count in _counts(gpu_type):
            rows.append(
                OfferRow(
                    name=f"{count}x {shown} ({label})",
                    region="global",
                    gpu=key,
                    gpu_count=count,
                    usd_per_hour=round(per_gpu * count, 6),
                    tier=tier,
                    limits=limits,
                )
            )
    return rows


def parse(payload: bytes | str) -> Parsed:
    """Pod offers per GPU type, tier and GPU count, and the GPU ids no table maps."""
    doc = expect(load_json(payload), dict, "the document")
    data = doc.get("data")
    if data is None and isinstance(doc.get("errors"), list) and doc["errors"]:
        first = doc["errors"][0]
        message = first.get("message") if isinstance(first, dict) else first
        raise FeedError(f"the API answered an error: {str(message)[:160]}")
    types = expect(expect(data, dict, "data").get("gpuTypes"), list, "data.gpuTypes")
    names = GpuNames(GPU_NAMES, IGNORED_GPUS)
    rows = [row for t in types if isinstance(t, dict) for row in _rows(t, names)]
    if not rows:
        raise FeedError("no priced GPU types in the answer")
    return Parsed(rows, names.unknown)


def refresh(client: HttpClient, now: datetime, progress: Progress) -> Fetched:
    address = url()
    progress(f"asking {address} for GPU types")
    found = named(
        address, lambda: parse(client.post_json(address, {"query": QUERY}, max_bytes=MAX_BYTES))
    )
    snapshot = PriceSnapshot(
        provider=NAME,
        source="RunPod GraphQL API gpuTypes (securePrice, communityPrice), fetched by costcalc "
        "refresh",
        source_url=address,
        licence="RunPod data (c) RunPod; fetched for the user's own use",
        fetched_at=now,
        billing_increment_s=1,
        price_kind="observed",
        notes="Per-GPU prices x GPU count; Secure Cloud and Community Cloud are separate tiers.",
        offers=tuple(found.rows),
    )
    return Fetched(snapshot, found.unknown_gpus)
