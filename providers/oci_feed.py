"""Oracle OCI's feed: the cost estimator's shapes and products parsers and the refresh
(providers/oci.py describes the provider; this module is imported only when `costcalc refresh`
runs it)."""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from costcalc.core.models import OfferRow, PriceSnapshot

from .base import Fetched, Progress
from .common import FeedError, Parsed, expect, load_json, price
from .gpu_names import GpuNames
from .oci import GPU_NAMES, NAME, SHAPES_URL_ENV, URL_ENV

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

ESTIMATOR = "https://www.oracle.com/a/ocom/docs/cloudestimator2/data"
DEFAULT_URL = f"{ESTIMATOR}/products.json"
DEFAULT_SHAPES_URL = f"{ESTIMATOR}/shapes.json"
MAX_BYTES = 16 * 1024 * 1024
"""Largest file read: the estimator's products and shapes, a few hundred items of about 600
bytes each (the recorded files), are well under a megabyte."""
PREEMPTIBLE_SHARE = 0.5


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def shapes_url() -> str:
    return os.environ.get(SHAPES_URL_ENV) or DEFAULT_SHAPES_URL


def _value(field: Any) -> str | None:
    """OCI writes enumerations as {"value": "gpu"}."""
    value = field.get("value") if isinstance(field, dict) else field
    return value if isinstance(value, str) else None


def _usd(item: dict[str, Any]) -> float | None:
    for local in item.get("currencyCodeLocalizations") or ():
        if not isinstance(local, dict) or local.get("currencyCode") != "USD":
            continue
        for offer in local.get("prices") or ():
            if isinstance(offer, dict) and offer.get("model") == "PAY_AS_YOU_GO":
                return price(offer.get("value"))
    return None


def gpu_prices(payload: bytes | str) -> dict[str, float]:
    """Part number -> USD per GPU-hour, for hourly pay-as-you-go parts priced per GPU."""
    items = expect(expect(load_json(payload), dict, "the document").get("items"), list, "items")
    found = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("partNumber"), str):
            continue
        if item.get("billingModel", "UCM") != "UCM" or item.get("pricetype", "HOUR") != "HOUR":
            continue
        if item.get("metricName", "GPU Per Hour") != "GPU Per Hour":
            continue
        usd = _usd(item)
        if usd is not None:
            found[item["partNumber"]] = usd
    return found


def _rows(shape: Any, prices: dict[str, float], names: GpuNames) -> list[OfferRow]:
    if not isinstance(shape, dict) or _value(shape.get("subType")) != "gpu":
        return []
    name, count = shape.get("name"), shape.get("gpuQty")
    if shape.get("hidden") is True or shape.get("status") != "ACTIVE" or not isinstance(name, str):
        return []
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        return []
    parts = [
        p.get("partNumber")
        for p in shape.get("products") or ()
        if isinstance(p, dict) and _value(p.get("type")) == "ocpu"
    ]
    per_gpu = next((prices[p] for p in parts if p in prices), None)
    key = names.key(name)
    if key is None or per_gpu is None:
        return []
    rows = [
        OfferRow(name=name, region="global", gpu=key, gpu_count=count, usd_per_hour=per_gpu * count)
    ]
    if shape.get("allowPreemptible") is True:
        rows.append(
            OfferRow(
                name=f"{name} (preemptible)",
                region="global",
                gpu=key,
                gpu_count=count,
                usd_per_hour=round(per_gpu * count * PREEMPTIBLE_SHARE, 6),
                spot=True,
                price_kind="estimate",
                summary="preemptible = 50 % of on-demand (OCI's published rule), not observed",
                limits="preemptible: OCI may reclaim the instance at any time",
            )
        )
    return rows


def _shapes(payload: bytes | str) -> list[Any]:
    doc = expect(load_json(payload), dict, "the document")
    items: list[Any] = expect(doc.get("items"), list, "items")
    return items


def parse(shapes_payload: bytes | str, products_payload: bytes | str) -> Parsed:
    """GPU shape offers from the two estimator files, and the shapes no table maps."""
    try:
        prices = gpu_prices(products_payload)
    except FeedError as exc:
        raise FeedError(f"price list: {exc}") from exc
    try:
        shapes = _shapes(shapes_payload)
    except FeedError as exc:
        raise FeedError(f"shapes: {exc}") from exc
    names = GpuNames(GPU_NAMES)
    rows = [row for shape in shapes for row in _rows(shape, prices, names)]
    if not rows:
        raise FeedError("no priced GPU shapes in the answer")
    return Parsed(rows, names.unknown)


def refresh(client: HttpClient, now: datetime, progress: Progress) -> Fetched:
    shapes_address, products_address = shapes_url(), url()
    progress(f"downloading {shapes_address}")
    shapes = client.get(shapes_address, max_bytes=MAX_BYTES)
    progress(f"downloading {products_address}")
    products = client.get(products_address, max_bytes=MAX_BYTES)
    found = parse(shapes, products)
    snapshot = PriceSnapshot(
        provider=NAME,
        source="Oracle cost estimator data (shapes.json and products.json), fetched by costcalc "
        "refresh",
        source_url=products_address,
        licence="Oracle price data (c) Oracle; fetched for the user's own use",
        fetched_at=now,
        billing_increment_s=1,
        billing_minimum_s=60,
        price_kind="observed",
        offers=tuple(found.rows),
    )
    return Fetched(snapshot, found.unknown_gpus)
