"""Oracle OCI GPU shapes: prices from Oracle's keyless cost-estimator data.

Format (two GETs, no key; the same files Oracle's cost estimator page reads):
    shapes.json   {"items": [{"name": "BM.GPU.H100.8", "hidden": false, "status": "ACTIVE",
                   "allowPreemptible": false, "gpuQty": 8, "subType": {"value": "gpu"},
                   "products": [{"partNumber": "B98415", "qty": 112,
                                 "type": {"value": "ocpu"}}]}, ...]}
    products.json {"items": [{"partNumber": "B98415", "metricName": "GPU Per Hour",
                   "billingModel": "UCM", "pricetype": "HOUR", "currencyCodeLocalizations":
                   [{"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO",
                                                        "value": 10.0}]}]}, ...]}
For a GPU shape the part number of its `ocpu` product carries the price per GPU and hour (CPU and
memory are included); the shape costs that times `gpuQty`, in every commercial region alike.

Rules kept here: only visible, ACTIVE GPU shapes whose name the OCI table maps; USD pay-as-you-go
only; a preemptible shape also gets an estimated spot offer at 50 % of on-demand (OCI's published
rule), marked as an estimate; parse is pure, fetch is the only function that touches the network.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from costcalc.core.models import OfferRow, PriceSnapshot

from .base import EnvVar, FeedProvider, Fetched, Progress
from .common import FeedError, Parsed, expect, load_json, price
from .gpu_names import Choice, GpuNames

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

NAME = "oci"
URL_ENV = "COSTCALC_OCI_URL"
SHAPES_URL_ENV = "COSTCALC_OCI_SHAPES_URL"
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


# Oracle OCI shape names (the GPU model is in the name; the count is the shape's gpuQty).
GPU_NAMES: dict[str, Choice] = {
    "bm.gpu.h100.8": "h100_sxm5_80gb",
    "bm.gpu.h200.8": "h200_sxm_141gb",
    "bm.gpu.b200.8": "b200",
    "bm.gpu.mi300x.8": "mi300x",
    "bm.gpu.a100-v2.8": "a100_sxm4_80gb",
    "bm.gpu4.8": "a100_sxm4_40gb",
    "bm.gpu.l40s.4": "l40s",
    "vm.gpu.a10.1": "a10",
    "vm.gpu.a10.2": "a10",
    "bm.gpu.a10.4": "a10",
    "vm.gpu3.1": "v100_sxm2_16gb",
    "vm.gpu3.2": "v100_sxm2_16gb",
    "vm.gpu3.4": "v100_sxm2_16gb",
    "bm.gpu3.8": "v100_sxm2_16gb",
    "vm.gpu2.1": "p100_pcie_16gb",
    "bm.gpu2.2": "p100_pcie_16gb",
}


PROVIDER = FeedProvider(
    name=NAME,
    label="Oracle OCI",
    short="OCI",
    snapshot_file="oci.yaml",
    fetch=refresh,
    env=(
        EnvVar(URL_ENV, "price list (products.json) URL"),
        EnvVar(SHAPES_URL_ENV, "shapes (shapes.json) URL"),
    ),
    gpu_names=GPU_NAMES,
)
