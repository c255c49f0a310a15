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
  Both are in providers/vast_feed.py, imported only when `refresh` runs.
"""

from __future__ import annotations

from .base import EnvVar, FeedProvider, feed
from .gpu_names import Choice

NAME = "vast"
URL_ENV = "COSTCALC_VAST_URL"
KEY_ENVS = ("COSTCALC_VAST_API_KEY", "VAST_API_KEY")


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
    fetch=feed(__package__, ".vast_feed", "refresh"),
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
