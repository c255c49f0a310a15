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
rule), marked as an estimate; parse is pure, fetch is the only function that touches the network
(both in providers/oci_feed.py, imported only when `refresh` runs).
"""

from __future__ import annotations

from .base import EnvVar, FeedProvider, feed
from .gpu_names import Choice

NAME = "oci"
URL_ENV = "COSTCALC_OCI_URL"
SHAPES_URL_ENV = "COSTCALC_OCI_SHAPES_URL"

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
    fetch=feed(__package__, ".oci_feed", "refresh"),
    env=(
        EnvVar(URL_ENV, "price list (products.json) URL"),
        EnvVar(SHAPES_URL_ENV, "shapes (shapes.json) URL"),
    ),
    gpu_names=GPU_NAMES,
)
