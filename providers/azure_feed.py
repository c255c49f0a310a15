"""Azure's feed: the Retail Prices API's pages, their parser and the refresh (providers/azure.py
describes the provider and keeps the size table; this module is imported only when `costcalc
refresh` runs it)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from costcalc.core.engine import HOURS_PER_YEAR
from costcalc.core.models import OfferRow, PriceSnapshot

from .azure import NAME, REGIONS_ENV, URL_ENV, load_size_table
from .base import Fetched, Progress
from .common import FeedError, Parsed, expect, load_json, price

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

    from .aws_instances import InstanceGpus

API = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"
REGIONS: tuple[str, ...] = ("eastus", "eastus2", "southcentralus", "westus2", "westeurope")
"""Regions fetched by default: Azure's largest GPU regions in the US and Europe."""
MAX_PAGES = 100
MAX_PAGE_BYTES = 8 * 1024 * 1024
"""Largest page read: a page holds at most 1,000 items of about 800 bytes (the recorded pages)."""
GPU_SIZE = re.compile(r"^Standard_N[CDV]\d")
_WINDOWS = re.compile(r"\bWin(dows)?\b")
SPOT = " (spot)"
"""Spot offers are named after their size and this, so a size's two offers never share a name."""
TERMS = {"1 Year": 1, "3 Years": 3}
"""reservationTerm -> years: the terms costcalc compares (no upfront is the same total)."""


def reserved_suffix(years: int) -> str:
    """' (1-yr reserved)': a reservation row's name is its size and this."""
    return f" ({years}-yr reserved)"


def regions() -> tuple[str, ...]:
    chosen = tuple(r.strip() for r in os.environ.get(REGIONS_ENV, "").split(",") if r.strip())
    bad = [r for r in chosen if not re.fullmatch(r"[a-z0-9]+", r)]
    if bad:
        from costcalc.core.errors import CostcalcError, quoted

        raise CostcalcError(
            f"{REGIONS_ENV}: {quoted(bad[0])} is not an Azure region name like eastus"
        )
    return chosen or REGIONS


def default_url(wanted: Iterable[str]) -> str:
    places = " or ".join(f"armRegionName eq '{r}'" for r in wanted)
    families = " or ".join(f"contains(armSkuName, 'Standard_N{f}')" for f in "CDV")
    query = (
        "serviceName eq 'Virtual Machines' and (priceType eq 'Consumption' or "
        f"priceType eq 'Reservation') and ({places}) "
        f"and ({families})"
    )
    from urllib.parse import quote  # only for a download: not on `costcalc quick`'s path

    return f"{API}?api-version={API_VERSION}&$filter={quote(query)}"


def url() -> str:
    return os.environ.get(URL_ENV) or default_url(regions())


def _skipped_product(item: dict[str, Any]) -> bool:
    product = str(item.get("productName", ""))
    meter = f"{item.get('meterName', '')} {item.get('skuName', '')}"
    return (
        item.get("type", "Consumption") not in ("Consumption", "Reservation")
        or item.get("unitOfMeasure", "1 Hour") != "1 Hour"
        or item.get("currencyCode", "USD") != "USD"
        or bool(_WINDOWS.search(product))
        or "Cloud Services" in product
        or "CloudServices" in product
        or "Dedicated" in product
        or "Low Priority" in meter
    )


def _row(item: Any, unknown: dict[str, None]) -> OfferRow | None:
    if not isinstance(item, dict):
        return None
    size, region = item.get("armSkuName"), item.get("armRegionName")
    if not isinstance(size, str) or not isinstance(region, str) or not GPU_SIZE.match(size):
        return None
    usd = price(item.get("retailPrice"))
    if usd is None or _skipped_product(item):
        return None
    table = load_size_table()
    gpus = table.sizes.get(size)
    if gpus is None:
        if size not in table.skipped:
            unknown.setdefault(size[:80], None)
        return None
    if item.get("type") == "Reservation":
        return _reserved_row(item, size, region, usd, gpus)
    spot = " Spot" in f"{item.get('meterName', '')} {item.get('skuName', '')}"
    return OfferRow(
        name=size + SPOT if spot else size,
        region=region,
        gpu=gpus.gpu,
        gpu_count=gpus.gpu_count,
        usd_per_hour=usd,
        spot=spot,
        limits="spot: Azure may evict the VM at any time (30 s notice)" if spot else None,
    )


def _reserved_row(
    item: dict[str, Any], size: str, region: str, term_usd: float, gpus: InstanceGpus
) -> OfferRow | None:
    """A reservation: the whole term's price turned into $/h over every hour of the term."""
    years = TERMS.get(str(item.get("reservationTerm", "")))
    if years is None:
        return None
    return OfferRow(
        name=size + reserved_suffix(years),
        region=region,
        gpu=gpus.gpu,
        gpu_count=gpus.gpu_count,
        usd_per_hour=term_usd / (years * HOURS_PER_YEAR),
        spot=False,
        term_years=years,
        summary=f"${term_usd:,.0f} for {years} year{'s' if years > 1 else ''}, "
        "owed whether used or not",
    )


def parse_page(payload: bytes | str) -> tuple[Parsed, str | None]:
    """The GPU VM rows of one page, the sizes no table maps, and the next page's link."""
    doc = expect(load_json(payload), dict, "the document")
    items = expect(doc.get("Items"), list, "Items")
    unknown: dict[str, None] = {}
    rows = [row for item in items if (row := _row(item, unknown)) is not None]
    following = doc.get("NextPageLink")
    return Parsed(rows, tuple(unknown)), following if isinstance(following, str) else None


def without_pointless_spot(rows: list[OfferRow]) -> list[OfferRow]:
    """Drop spot rows priced at or above the same size's on-demand price in that region."""
    on_demand = {(r.name, r.region): r.usd_per_hour for r in rows if not r.spot}
    return [
        r
        for r in rows
        if not r.spot
        or r.usd_per_hour < on_demand.get((r.name.removesuffix(SPOT), r.region), float("inf"))
    ]


def combine(pages: Iterable[Parsed]) -> Parsed:
    """All pages' rows as one price list; FeedError when none is a GPU VM we can compare."""
    rows: list[OfferRow] = []
    unknown: dict[str, None] = {}
    for page in pages:
        rows += page.rows
        unknown.update(dict.fromkeys(page.unknown_gpus))
    rows = without_pointless_spot(rows)
    if not rows:
        raise FeedError("no Linux GPU VM prices for the mapped sizes in the answer")
    rows.sort(key=lambda r: (r.region, r.name, bool(r.spot)))
    return Parsed(rows, tuple(sorted(unknown)))


def parse(payloads: Iterable[bytes | str]) -> Parsed:
    """A whole page set (for tests and the benchmark; fetch parses page by page)."""
    return combine(parse_page(payload)[0] for payload in payloads)


def fetch(client: HttpClient, first: str, progress: Progress) -> Parsed:
    """Every page from `first`, following NextPageLink on the same origin, at most MAX_PAGES."""
    from costcalc.edge.net import FetchError, host_of, same_origin

    pages: list[Parsed] = []
    seen: set[str] = set()
    address: str | None = first
    while address is not None:
        if address in seen:
            raise FeedError(f"page loop: NextPageLink repeats a page already read ({len(seen)})")
        if len(seen) >= MAX_PAGES:
            raise FeedError(f"more than {MAX_PAGES} pages; narrow {URL_ENV} or {REGIONS_ENV}")
        if not same_origin(first, address):
            raise FetchError(f"the next page is on another host ({host_of(address)}): not followed")
        seen.add(address)
        if len(seen) > 1:
            progress(f"page {len(seen)}")
        try:
            page, address = parse_page(client.get(address, max_bytes=MAX_PAGE_BYTES))
        except FeedError as exc:
            raise FeedError(f"page {len(seen)}: {exc}") from exc
        pages.append(page)
    return combine(pages)


def refresh(client: HttpClient, now: datetime, progress: Progress) -> Fetched:
    first = url()
    progress(f"downloading the Retail Prices API for {', '.join(regions())}")
    found = fetch(client, first, progress)
    snapshot = PriceSnapshot(
        provider=NAME,
        source="Azure Retail Prices API (Linux, pay-as-you-go, spot and 1- and 3-year "
        "reservations), fetched by costcalc "
        "refresh; GPUs per size: Microsoft Learn size pages (costcalc/data/azure_sizes.yaml)",
        source_url=API,
        licence="Azure retail prices (c) Microsoft; fetched for the user's own use",
        fetched_at=now,
        billing_increment_s=1,
        price_kind="observed",
        offers=tuple(found.rows),
    )
    return Fetched(snapshot, found.unknown_gpus)
