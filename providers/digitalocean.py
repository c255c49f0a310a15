"""DigitalOcean GPU Droplet prices (Paperspace's GPU machines) from the authenticated sizes API.

Format (GET https://api.digitalocean.com/v2/sizes, bearer token with sizes:read):
    {"sizes": [{"slug": "gpu-h100x1-80gb", "vcpus": 20, "memory": 245760,
                "price_hourly": 3.39, "price_monthly": 2522.16, "regions": ["nyc2", "tor1"],
                "available": true, "description": "...",
                "gpu_info": {"count": 1, "vram": {"amount": 80, "unit": "gib"},
                             "model": "nvidia_h100"}}, ...],
     "links": {"pages": {"next": "https://api.digitalocean.com/v2/sizes?page=2"}},
     "meta": {"total": 150}}

Rule kept here: this source is used only when the user gives a token; without one nothing is
fetched and the curated Paperspace table stays as it is. Sizes without `gpu_info` are not GPU
machines and are ignored; a GPU model we cannot map to the catalog is skipped, never guessed.
Only Paperspace's feed (providers/paperspace_feed.py) imports this module, when `refresh` runs.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from costcalc.core.models import OfferRow

from .common import FeedError, expect, load_json, price
from .paperspace import DIGITALOCEAN_TOKEN_ENVS, DIGITALOCEAN_URL_ENV

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

URL_ENV = DIGITALOCEAN_URL_ENV
API_HOST = "api.digitalocean.com"
DEFAULT_URL = f"https://{API_HOST}/v2/sizes?per_page=200"
TOKEN_ENVS = DIGITALOCEAN_TOKEN_ENVS
MAX_PAGES = 10
MAX_PAGE_BYTES = 4 * 1024 * 1024
"""Largest page read: 200 sizes of about 400 bytes each (the recorded page) are 80 kB."""

MODELS: dict[str, str] = {
    "h100": "h100_sxm5_80gb",
    "h200": "h200_sxm_141gb",
    "l40s": "l40s",
    "rtx6000ada": "rtx6000_ada",
    "a100": "a100_sxm4_80gb",
    "b200": "b200",
    "amdmi300x": "mi300x",
}
"""DigitalOcean GPU model names (lower case, non-alphanumerics removed, 'nvidia' dropped) ->
catalog keys. Their H100/H200 Droplets are slices of HGX (SXM) servers."""


def token() -> str | None:
    return next((os.environ[name] for name in TOKEN_ENVS if os.environ.get(name)), None)


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def gpu_key(model: str) -> str | None:
    compact = re.sub(r"[^a-z0-9]", "", model.lower()).removeprefix("nvidia")
    return MODELS.get(compact)


def _rows(size: dict[str, Any]) -> list[OfferRow]:
    info = size.get("gpu_info")
    if not isinstance(info, dict) or size.get("available") is False:
        return []
    key = gpu_key(str(info.get("model", "")))
    usd = price(size.get("price_hourly"))
    count = info.get("count")
    if key is None or usd is None or not isinstance(count, int) or count < 1:
        return []
    memory_mb = size.get("memory")
    return [
        OfferRow(
            name=str(size.get("slug")),
            region=str(region),
            gpu=key,
            gpu_count=count,
            usd_per_hour=usd,
            vcpus=size.get("vcpus") if isinstance(size.get("vcpus"), int) else None,
            ram_gb=memory_mb / 1024 if isinstance(memory_mb, (int, float)) and memory_mb else None,
            source="DigitalOcean API /v2/sizes (GPU Droplet list price)",
        )
        for region in _regions(size.get("regions"))
    ]


def _regions(value: Any) -> list[str]:
    """The regions a size is sold in: a list of region slugs (a bare string is one region,
    never a list of its letters)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [r for r in value if isinstance(r, str) and r]
    return []


def parse(payload: bytes | str) -> tuple[list[OfferRow], str | None]:
    """GPU Droplet rows (one per region) and the URL of the next page, if any."""
    doc = expect(load_json(payload), dict, "the document")
    sizes = expect(doc.get("sizes"), list, "sizes")
    rows = [row for size in sizes if isinstance(size, dict) for row in _rows(size)]
    links = doc.get("links")
    pages = links.get("pages") if isinstance(links, dict) else None
    following = pages.get("next") if isinstance(pages, dict) else None
    return rows, following if isinstance(following, str) else None


def fetch(client: HttpClient, bearer: str) -> list[OfferRow]:
    """Every page of the sizes list, as GPU Droplet rows. The token goes only to DigitalOcean's
    own https host, and next-page links are followed only on the first page's host."""
    from costcalc.edge.net import (
        FetchError,
        credential_refusal,
        host_and_port,
        public_url,
        same_origin,
    )

    first = url()
    refusal = credential_refusal(first, API_HOST)
    if refusal is not None:
        raise FetchError(f"{URL_ENV}: {refusal}: the DigitalOcean token was not sent")
    headers = {"Authorization": f"Bearer {bearer}"}
    rows: list[OfferRow] = []
    address: str | None = first
    for _ in range(MAX_PAGES):
        if address is None:
            break
        if not same_origin(first, address):
            raise FetchError(
                f"the next page is on another host than {host_and_port(first)}, or not a plain "
                f"URL ({public_url(address)}): not followed, the token stays with DigitalOcean"
            )
        page, address = parse(
            client.get(address, headers=headers, own_hosts=(API_HOST,), max_bytes=MAX_PAGE_BYTES)
        )
        rows += page
    if not rows:
        raise FeedError("no GPU Droplet sizes in the DigitalOcean answer")
    return rows
