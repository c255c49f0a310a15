"""Paperspace's feed: the curated table plus DigitalOcean's GPU Droplets (providers/paperspace.py
describes the provider; this module is imported only when `costcalc refresh` runs it)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from msgspec.structs import replace

from costcalc.core.models import PriceSnapshot

from . import digitalocean
from .base import Progress, Skip
from .paperspace import SNAPSHOT_FILE

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient


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
