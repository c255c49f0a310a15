"""Lambda's feed: the instance-types parser and the keyed refresh (providers/lambda_cloud.py
describes the provider; this module is imported only when `costcalc refresh` runs it)."""

from __future__ import annotations

import os
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from costcalc.core.models import OfferRow, PriceSnapshot

from .base import Fetched, Progress, Skip
from .common import FeedError, Parsed, expect, load_json, named, price
from .gpu_names import GpuNames
from .lambda_cloud import GPU_NAMES, KEY_ENVS, NAME, URL_ENV

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

API_HOSTS = ("lambda.ai", "lambdalabs.com")
DEFAULT_URL = "https://cloud.lambda.ai/api/v1/instance-types"
MAX_BYTES = 1024 * 1024
"""Largest answer read: some two dozen instance types of about 500 bytes each (the recorded
answer) are about 15 kB; an answer past this is not its price list."""
BILLING = "billed by the minute; prices exclude sales tax and VAT"

_COUNT = re.compile(r"^\s*(\d+)\s*x\s+(.+?)\s*$")


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def api_key() -> str | None:
    return next((os.environ[n] for n in KEY_ENVS if os.environ.get(n)), None)


def _gpus(kind: dict[str, Any]) -> tuple[int, str] | None:
    """(GPU count, GPU text) from 'description' ('8x H100 (80 GB SXM5)'), preferring the
    separate `gpu_description` and `specs.gpus` where the answer has them."""
    match = _COUNT.match(str(kind.get("description", "")))
    if match is None:
        return None
    specs = kind.get("specs")
    declared = specs.get("gpus") if isinstance(specs, dict) else None
    count = declared if isinstance(declared, int) and declared >= 1 else int(match[1])
    text = kind.get("gpu_description")
    return (count, text) if isinstance(text, str) and text.strip() else (count, match[2])


def _capacity(entry: dict[str, Any]) -> str:
    regions = entry.get("regions_with_capacity_available")
    listed = [r.get("name") for r in regions or () if isinstance(r, dict)]
    names = [n for n in listed if isinstance(n, str)]
    if not names:
        return "no region had capacity when fetched"
    return f"capacity when fetched in {', '.join(names[:6])}"


def _row(entry: Any, names: GpuNames) -> OfferRow | None:
    kind = entry.get("instance_type") if isinstance(entry, dict) else None
    if not isinstance(kind, dict) or not isinstance(kind.get("name"), str):
        return None
    cents = price(kind.get("price_cents_per_hour"))
    gpus = _gpus(kind)
    if cents is None or gpus is None:
        return None
    count, text = gpus
    key = names.key(text)
    if key is None or count < 1:
        return None
    specs = kind.get("specs")
    vcpus, memory = (
        (specs.get("vcpus"), specs.get("memory_gib")) if isinstance(specs, dict) else (0, 0)
    )
    return OfferRow(
        name=kind["name"],
        region="global",
        gpu=key,
        gpu_count=count,
        usd_per_hour=cents / 100,
        limits=f"{BILLING}; {_capacity(entry)}",
        vcpus=vcpus if isinstance(vcpus, int) and vcpus >= 1 else None,
        ram_gb=float(memory) if isinstance(memory, (int, float)) and memory > 0 else None,
    )


def parse(payload: bytes | str) -> Parsed:
    """One offer per GPU instance type, and the GPU descriptions no table maps."""
    doc = expect(load_json(payload), dict, "the document")
    data = expect(doc.get("data"), dict, "data")
    names = GpuNames(GPU_NAMES)
    rows = [row for entry in data.values() if (row := _row(entry, names)) is not None]
    if not rows:
        raise FeedError("no priced GPU instance types in the answer")
    return Parsed(sorted(rows, key=lambda r: r.name), names.unknown)


def _refusal(address: str) -> str | None:
    from costcalc.edge.net import credential_refusal

    reasons = [credential_refusal(address, host) for host in API_HOSTS]
    return None if None in reasons else reasons[0]


def refresh(client: HttpClient, now: datetime, progress: Progress) -> Fetched | Skip:
    from costcalc.edge.net import FetchError

    key = api_key()
    if key is None:
        return Skip(f"set {KEY_ENVS[0]} (or {KEY_ENVS[1]}) to fetch Lambda's prices")
    address = url()
    refusal = _refusal(address)
    if refusal is not None:
        raise FetchError(f"{URL_ENV}: {refusal}: the Lambda API key was not sent")
    progress(f"downloading {address}")
    headers = {"Authorization": f"Bearer {key}"}
    found = named(
        address,
        lambda: parse(
            client.get(address, headers=headers, own_hosts=API_HOSTS, max_bytes=MAX_BYTES)
        ),
    )
    snapshot = PriceSnapshot(
        provider=NAME,
        source="Lambda API /api/v1/instance-types (price_cents_per_hour), fetched by costcalc "
        "refresh",
        source_url=address,
        licence="Lambda data (c) Lambda; fetched with the user's key for their own use",
        fetched_at=now,
        billing_increment_s=60,
        billing_minimum_s=60,
        price_kind="observed",
        offers=tuple(found.rows),
    )
    return Fetched(snapshot, found.unknown_gpus)
