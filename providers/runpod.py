"""RunPod pods: Secure Cloud and Community Cloud prices from RunPod's keyless GraphQL API.

Format (POST https://api.runpod.io/graphql; the `gpuTypes` query needs no key, launching does):
    {"query": "query GpuTypes { gpuTypes { id displayName memoryInGb maxGpuCount secureCloud
               communityCloud securePrice communityPrice } }"}
    -> {"data": {"gpuTypes": [{"id": "NVIDIA GeForce RTX 4090", "displayName": "RTX 4090",
        "memoryInGb": 24, "maxGpuCount": 8, "secureCloud": true, "communityCloud": true,
        "securePrice": 0.69, "communityPrice": 0.34}, ...]}}
Prices are per GPU and hour; a pod of n GPUs costs n times that. A tier is offered only when its
flag is true and its price is above 0: the API answers placeholder prices for tiers that are off
(`communityCloud: false` with `communityPrice: 0.5`). `id` is the stable name; `displayName`
has changed over time.

Rules kept here: Secure Cloud (RunPod's data centres) and Community Cloud (third-party hosts,
no data-centre SLA) are separate offers, each labelled with its tier, never merged; pods of 1, 2,
4 and 8 GPUs where the type allows that many; parse is pure, fetch is the only function that
touches the network.
"""

from __future__ import annotations

from .base import CATALOG_ENV, EnvVar, FeedProvider, feed
from .catalog_spec import CatalogFeed, CatalogSource
from .gpu_names import Choice

NAME = "runpod"
URL_ENV = "COSTCALC_RUNPOD_URL"

# RunPod GraphQL `gpuTypes.id` (stable; `displayName` changes over time). The ids are those of
# a recorded response (2025-06-21) and RunPod's docs table references/gpu-types.mdx (the MI300X,
# B300 and RTX Ada workstation ids from that table as read 2026-11-25).
GPU_NAMES: dict[str, Choice] = {
    "nvidia geforce rtx 5090": "rtx5090",
    "nvidia geforce rtx 5080": "rtx5080",
    "nvidia geforce rtx 4090": "rtx4090",
    "nvidia geforce rtx 4080 super": "rtx4080_super",
    "nvidia geforce rtx 4080": "rtx4080",
    "nvidia geforce rtx 4070 ti": "rtx4070ti",
    "nvidia geforce rtx 3090 ti": "rtx3090ti",
    "nvidia geforce rtx 3090": "rtx3090",
    "nvidia geforce rtx 3080 ti": "rtx3080ti",
    "nvidia geforce rtx 3080": "rtx3080",
    "nvidia geforce rtx 3070": "rtx3070",
    "nvidia rtx a4000": "rtx_a4000",
    "nvidia rtx a4500": "rtx_a4500",
    "nvidia rtx a5000": "rtx_a5000",
    "nvidia rtx a6000": "rtx_a6000",
    "nvidia rtx 6000 ada generation": "rtx6000_ada",
    "nvidia rtx 5000 ada generation": "rtx5000_ada",
    "nvidia rtx 4000 ada generation": "rtx4000_ada",
    "nvidia rtx 4000 sff ada generation": "rtx4000_sff_ada",
    "nvidia rtx 2000 ada generation": "rtx2000_ada",
    "nvidia rtx pro 6000 blackwell workstation edition": "rtx_pro6000",
    "nvidia l4": "l4",
    "nvidia l40": "l40",
    "nvidia l40s": "l40s",
    "nvidia a40": "a40",
    "nvidia a30": "a30",
    "nvidia a100 80gb pcie": "a100_pcie_80gb",
    "nvidia a100-sxm4-80gb": "a100_sxm4_80gb",
    "nvidia h100 pcie": "h100_pcie_80gb",
    "nvidia h100 80gb hbm3": "h100_sxm5_80gb",
    "nvidia h100 nvl": "h100_nvl_94gb",
    "nvidia h200": "h200_sxm_141gb",
    "nvidia b200": "b200",
    "nvidia b300 sxm6 ac": "b300",
    "amd instinct mi300x oam": "mi300x",
    "tesla v100-pcie-16gb": "v100_pcie_16gb",
    # Not 'tesla v100-fhhl-16gb': the 150 W half-length card runs slower than the catalog's
    # 250 W V100 PCIe, so it is reported rather than priced as the faster card.
    "tesla v100-sxm2-16gb": "v100_sxm2_16gb",
    "tesla v100-sxm2-32gb": "v100_sxm2_32gb",
}

IGNORED_GPUS = {"unknown": "RunPod's placeholder type: no GPU, every price 0"}
"""Names that are not a GPU offer at all; skipped without being reported."""


PROVIDER = FeedProvider(
    name=NAME,
    label="RunPod",
    snapshot_file="runpod.yaml",
    fetch=feed(__package__, ".runpod_feed", "refresh"),
    env=(EnvVar(URL_ENV, "GraphQL API URL"), *CATALOG_ENV),
    gpu_names=GPU_NAMES,
    ignored_gpus=IGNORED_GPUS,
    catalogs=CatalogFeed(
        sources=(CatalogSource("gpuhunt", "runpod"), CatalogSource("skypilot", "runpod")),
        tier="secure",
        cross_check_only=True,
    ),
)
