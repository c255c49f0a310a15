"""Lambda (Lambda Cloud): on-demand instances, from its instance-types API with the user's key.

Format (GET https://cloud.lambda.ai/api/v1/instance-types, `Authorization: Bearer <key>`; the key
is free with an account and read from COSTCALC_LAMBDA_API_KEY or LAMBDA_API_KEY):
    {"data": {"gpu_1x_h100_sxm5": {"instance_type": {"name": "gpu_1x_h100_sxm5",
        "description": "1x H100 (80 GB SXM5)", "gpu_description": "H100 (80 GB SXM5)",
        "price_cents_per_hour": 429, "specs": {"vcpus": 26, "memory_gib": 225,
        "storage_gib": 2816, "gpus": 1}},
      "regions_with_capacity_available": [{"name": "us-east-1", "description": "Virginia, USA"}]},
      ...}}
The price is in cents, for the whole instance; it is the same in every region. An empty
capacity list means sold out right now, not "not offered".

Rules kept here: without a key nothing is fetched and the bundled table (Lambda's public price
list, dated) stays in use; the key goes only over https to Lambda's own hosts (cloud.lambda.ai,
or the older cloud.lambdalabs.com); parse is pure, fetch is the only function that touches the
network (both in providers/lambda_cloud_feed.py, imported only when `refresh` runs).
"""

from __future__ import annotations

from .base import CATALOG_ENV, EnvVar, FeedProvider, feed
from .catalog_spec import CatalogFeed, CatalogSource
from .gpu_names import Choice

NAME = "lambda"
URL_ENV = "COSTCALC_LAMBDA_URL"
KEY_ENVS = ("COSTCALC_LAMBDA_API_KEY", "LAMBDA_API_KEY")

# Lambda `gpu_description` (or `description` without its 'Nx ' prefix).
GPU_NAMES: dict[str, Choice] = {
    "h100 (80 gb sxm5)": "h100_sxm5_80gb",
    "h100 (80 gb pcie)": "h100_pcie_80gb",
    "a100 (80 gb sxm4)": "a100_sxm4_80gb",
    "a100 (40 gb sxm4)": "a100_sxm4_40gb",
    "a100 (40 gb pcie)": "a100_pcie_40gb",
    "b200 (180 gb sxm6)": "b200",
    "gh200 (96 gb)": "gh200_96gb",
    "a10 (24 gb pcie)": "a10",
    "a6000 (48 gb)": "rtx_a6000",
    "rtx a6000 (48 gb)": "rtx_a6000",
    "rtx 6000 (24 gb)": "quadro_rtx6000",
    "quadro rtx 6000 (24 gb)": "quadro_rtx6000",
    # Lambda's 8x V100 machines are SXM2 (NVLink) servers; the text does not say so.
    "tesla v100 (16 gb)": "v100_sxm2_16gb",
    "v100 (16 gb)": "v100_sxm2_16gb",
}


PROVIDER = FeedProvider(
    name=NAME,
    label="Lambda",
    snapshot_file="lambda.yaml",
    fetch=feed(__package__, ".lambda_cloud_feed", "refresh"),
    env=(
        EnvVar(KEY_ENVS[0], "Lambda API key", secret=True, aliases=KEY_ENVS[1:]),
        EnvVar(URL_ENV, "instance-types API URL"),
        *CATALOG_ENV,
    ),
    gpu_names=GPU_NAMES,
    catalogs=CatalogFeed(
        sources=(CatalogSource("skypilot", "lambda"), CatalogSource("gpuhunt", "lambdalabs")),
        tier="secure",
    ),
)
