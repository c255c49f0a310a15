"""AWS EC2 on-demand's feed: the per-location JSON and bulk CSV parsers and the refresh
(providers/aws_ondemand.py describes the provider; this module is imported only when
`costcalc refresh` runs it, or aws_reserved's feed reads the same bulk CSV)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from costcalc.core.models import OfferRow, PriceSnapshot

from .aws_instances import gpu_instances
from .aws_ondemand import NAME, REGIONS_ENV, URL_ENV
from .base import Progress
from .common import FeedError, expect, load_json, price

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

DEFAULT_URL = (
    "https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/"
    "ec2-ondemand-without-sec-sel/{location}/Linux/index.json"
)
BULK_URL_EXAMPLE = (
    "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"
)

LOCATIONS: dict[str, str] = {
    "US East (N. Virginia)": "us-east-1",
    "US East (Ohio)": "us-east-2",
    "US West (N. California)": "us-west-1",
    "US West (Oregon)": "us-west-2",
    "EU (Ireland)": "eu-west-1",
    "EU (Frankfurt)": "eu-central-1",
    "EU (London)": "eu-west-2",
    "EU (Stockholm)": "eu-north-1",
    "Asia Pacific (Tokyo)": "ap-northeast-1",
    "Asia Pacific (Seoul)": "ap-northeast-2",
    "Asia Pacific (Mumbai)": "ap-south-1",
    "Asia Pacific (Singapore)": "ap-southeast-1",
    "Asia Pacific (Sydney)": "ap-southeast-2",
    "Canada (Central)": "ca-central-1",
    "South America (Sao Paulo)": "sa-east-1",
}
"""Price List location names -> region codes. AWS writes European ones both 'EU (...)' and
'Europe (...)'; both are accepted."""

REGIONS: tuple[str, ...] = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-northeast-1",
)
"""Regions fetched when the URL is a per-region template: those of the bundled snapshot, so a
refresh never leaves the user with fewer regions than the install came with. REGIONS_ENV
(comma-separated codes) chooses others."""
MAX_BYTES = 16 * 1024 * 1024
"""Largest per-location JSON read: about 1 MB a region."""


def regions() -> tuple[str, ...]:
    """The regions to fetch: REGIONS_ENV when set (each must be a known location), else REGIONS."""
    chosen = tuple(r.strip() for r in os.environ.get(REGIONS_ENV, "").split(",") if r.strip())
    unknown = [r for r in chosen if r not in LOCATIONS.values()]
    if unknown:
        from costcalc.core.errors import CostcalcError, quoted

        known = ", ".join(sorted(LOCATIONS.values()))
        raise CostcalcError(f"{REGIONS_ENV}: unknown region {quoted(unknown[0])}; known: {known}")
    return chosen or REGIONS


def region_of(location: str) -> str | None:
    if location.startswith("Europe ("):
        location = "EU (" + location[len("Europe (") :]
    return LOCATIONS.get(location)


def location_of(region: str) -> str:
    return next(name for name, code in LOCATIONS.items() if code == region)


def urls() -> list[str]:
    """One URL per region when the configured URL is a template, else the URL itself."""
    template = os.environ.get(URL_ENV) or DEFAULT_URL
    if "{location}" not in template and "{region}" not in template:
        return [template]
    return [
        template.replace("{location}", _quoted(location_of(r))).replace("{region}", r)
        for r in regions()
    ]


def is_bulk_csv(url: str) -> bool:
    return url.split("?", 1)[0].endswith(".csv")


def gpu_row(name: str, region: str, usd: float, vcpus: Any, memory: Any) -> OfferRow | None:
    gpus = gpu_instances().get(name)
    if gpus is None:
        return None
    return OfferRow(
        name=name,
        region=region,
        gpu=gpus.gpu,
        gpu_count=gpus.gpu_count,
        usd_per_hour=usd,
        spot=False,
        vcpus=_int(vcpus),
        ram_gb=_gib(memory),
    )


def _int(text: Any) -> int | None:
    try:
        value = int(str(text).strip())
    except ValueError:
        return None
    return value if value >= 1 else None


def _gib(text: Any) -> float | None:
    """'16 GiB' -> 16.0; anything else -> None."""
    head = str(text).replace(",", "").split(" ", 1)[0]
    try:
        value = float(head)
    except ValueError:
        return None
    return value if value > 0 else None


def parse(payload: bytes | str) -> list[OfferRow]:
    """Rows from one per-location pricing-page document (any number of locations in it)."""
    doc = expect(load_json(payload), dict, "the document")
    locations = expect(doc.get("regions"), dict, "regions")
    rows: list[OfferRow] = []
    for location, entries in locations.items():
        region = region_of(location)
        if region is None:
            continue
        for entry in expect(entries, dict, f"regions.{location}").values():
            if not isinstance(entry, dict):
                continue
            name, usd = entry.get("Instance Type"), price(entry.get("price"))
            if not isinstance(name, str) or usd is None:
                continue
            row = gpu_row(name, region, usd, entry.get("vCPU"), entry.get("Memory"))
            if row is not None:
                rows.append(row)
    if not rows:
        raise FeedError("no GPU instance prices in the payload")
    return rows


# --------------------------------------------------------------------------- bulk CSV

LINUX_HOURS = {
    "Unit": "Hrs",
    "Currency": "USD",
    "Tenancy": "Shared",
    "Operating System": "Linux",
    "Pre Installed S/W": "NA",
    "CapacityStatus": "Used",
    "License Model": "No License required",
}
"""The Price List columns of a shared Linux instance's hourly USD price, with no software or
licence in it: what the on-demand and the reserved feeds both keep."""
_WANTED = {"TermType": "OnDemand", **LINUX_HOURS}


def csv_data_rows(lines: Iterable[str]) -> Iterator[list[str]]:
    """The CSV rows after the preamble; the first row yielded is the header. A body with no
    length to check it by may have been cut anywhere, so the file's own shape is its check:
    AWS ends every line with a line break and gives every row every column, and a row or a
    last line without them is FeedError (cut short), never a shorter price list."""
    import csv  # only when a price list is read: not on `costcalc quick`'s path

    reader = csv.reader(_whole_lines(lines))
    for row in reader:
        if len(row) > 2 and "SKU" in row:
            yield row
            for values in reader:
                if len(values) != len(row):
                    raise FeedError(
                        f"line {reader.line_num} of the Price List CSV has {len(values)} of its "
                        f"{len(row)} columns (cut short?)"
                    )
                yield values
            return
    raise FeedError("no header row in the Price List CSV (is it the offer file?)")


def _whole_lines(lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        if not line.endswith("\n"):
            raise FeedError("the Price List CSV ends without a line break (cut short?)")
        yield line


def parse_bulk_csv(lines: Iterable[str]) -> list[OfferRow]:
    """Rows from a Price List bulk CSV, read one line at a time (memory stays bounded)."""
    found: dict[tuple[str, str], OfferRow] = {}
    for row, _ in bulk_gpu_rows(lines, _WANTED):
        found.setdefault((row.region, row.name), row)
    if not found:
        raise FeedError("no GPU instance prices in the Price List CSV")
    return list(found.values())


def bulk_gpu_rows(
    lines: Iterable[str], wanted: Mapping[str, str], more: Sequence[str] = ()
) -> Iterator[tuple[OfferRow, dict[str, str]]]:
    """Each GPU instance's row of a Price List bulk CSV whose columns hold the `wanted` values,
    with the values of the `more` columns it names (each must be there), read one line at a
    time: what the on-demand and the reserved feeds both read."""
    rows = csv_data_rows(lines)
    header = next(rows)
    column = {name: i for i, name in enumerate(header)}
    needed = (*wanted, "Instance Type", "PricePerUnit", "Region Code", *more)
    missing = [name for name in needed if name not in column]
    if missing:
        raise FeedError(f"unexpected shape: Price List CSV lacks column(s) {', '.join(missing)}")
    checks = [(column[name], value) for name, value in wanted.items()]
    i_type, i_price = column["Instance Type"], column["PricePerUnit"]
    i_region = column["Region Code"]
    i_vcpu, i_mem = column.get("vCPU"), column.get("Memory")
    table = gpu_instances()
    for values in rows:
        if values[i_type] not in table:
            continue
        if any(values[i] != want for i, want in checks):
            continue
        usd = price(values[i_price])
        if usd is None:
            continue
        row = gpu_row(
            values[i_type],
            values[i_region],
            usd,
            values[i_vcpu] if i_vcpu is not None else None,
            values[i_mem] if i_mem is not None else None,
        )
        if row is not None:
            yield row, {name: values[column[name]] for name in more}


def fetch(client: HttpClient) -> list[OfferRow]:
    """Fetch every configured URL and parse it; a bulk CSV is streamed line by line."""
    rows: list[OfferRow] = []
    for address in urls():
        try:
            if is_bulk_csv(address):
                rows += parse_bulk_csv(client.iter_lines(address))
            else:
                rows += parse(client.get(address, max_bytes=MAX_BYTES))
        except FeedError as exc:
            raise FeedError(f"{address}: {exc}") from exc
    return rows


def ec2_snapshot(
    provider: str, source: str, source_url: str, rows: list[OfferRow], now: datetime
) -> PriceSnapshot:
    """EC2 prices fetched from AWS's price lists as one snapshot: per-second billing with a
    minute's minimum, observed prices, rows by region and name (on-demand and reserved alike)."""
    return PriceSnapshot(
        provider=provider,
        source=source,
        source_url=source_url,
        licence="AWS data (c) Amazon Web Services; fetched for the user's own use",
        fetched_at=now,
        spot=False,
        billing_increment_s=1,
        billing_minimum_s=60,
        price_kind="observed",
        offers=tuple(sorted(rows, key=lambda r: (r.region, r.name))),
    )


def refresh(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot:
    progress(f"downloading {len(urls())} price list(s)")
    source = "AWS EC2 on-demand prices (Linux, shared tenancy), fetched by costcalc refresh"
    return ec2_snapshot(NAME, source, urls()[0], fetch(client), now)


def _quoted(text: str) -> str:
    from urllib.parse import quote  # only for a download: not on `costcalc quick`'s path

    return quote(text)
