"""Paperspace (a DigitalOcean company): machines by the hour, with Gradient plans.

Paperspace publishes no machine-readable price list, so the bundled table (prices/paperspace.yaml,
read from paperspace.com/pricing) is kept. With a DigitalOcean token, `costcalc refresh` adds the
GPU Droplets from DigitalOcean's sizes API (providers/digitalocean.py) to it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from msgspec.structs import replace

from costcalc.core.models import PriceSnapshot

from . import digitalocean
from .base import EnvVar, FeedProvider, Progress, Skip

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

NAME = "paperspace"
SNAPSHOT_FILE = "paperspace.yaml"


def refresh(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot | Skip:
    from costcalc.edge.resources import PRICES_PACKAGE, load_yaml_resource

    bearer = digitalocean.token()
    if bearer is None:
        return Skip(f"set {digitalocean.TOKEN_ENVS[0]} to fetch DigitalOcean GPU Droplet prices")
    progress(f"downloading {digitalocean.url()}")
    fetched = digitalocean.fetch(client, bearer)
    droplets = [replace(r, **{"fetched_at": now, "price_kind": "observed"}) for r in fetched]
    curated = load_yaml_resource(PRICES_PACKAGE, SNAPSHOT_FILE, PriceSnapshot)
    return replace(
        curated,
        **{
            "source": f"{curated.source}; GPU Droplets: DigitalOcean API /v2/sizes, fetched by "
            "costcalc refresh",
            "offers": curated.offers + tuple(droplets),
        },
    )


PROVIDER = FeedProvider(
    name=NAME,
    label="Paperspace",
    snapshot_file=SNAPSHOT_FILE,
    fetch=refresh,
    env=(
        EnvVar(
            digitalocean.TOKEN_ENVS[0],
            "DigitalOcean API token (sizes:read)",
            secret=True,
            aliases=digitalocean.TOKEN_ENVS[1:],
        ),
        EnvVar(digitalocean.URL_ENV, "DigitalOcean sizes API URL"),
    ),
)
