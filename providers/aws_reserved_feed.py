"""AWS EC2 reserved's feed: the bulk CSV's Reserved rows and the refresh (providers/aws_reserved.py
describes the provider; this module is imported only when `costcalc refresh` runs it)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec.structs import replace

from costcalc.core.models import OfferRow, PriceSnapshot

from . import aws_ondemand_feed
from .aws_reserved import NAME, URL_ENV
from .base import Progress, Skip
from .common import FeedError

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

TERMS = {"1yr": 1, "3yr": 3}

_WANTED = {
    "TermType": "Reserved",
    **aws_ondemand_feed.LINUX_HOURS,
    "PurchaseOption": "No Upfront",
    "OfferingClass": "standard",
}


def reserved_suffix(years: int) -> str:
    return f" ({years}-yr reserved)"


def parse_bulk_csv(lines: Iterable[str]) -> list[OfferRow]:
    """Reserved rows (1 and 3 years, Standard, No Upfront) of a Price List bulk CSV."""
    found: dict[tuple[str, str], OfferRow] = {}
    term = "LeaseContractLength"
    for row, more in aws_ondemand_feed.bulk_gpu_rows(lines, _WANTED, (term,)):
        years = TERMS.get(more[term])
        if years is None:
            continue
        row = replace(row, **{"name": row.name + reserved_suffix(years), "term_years": years})
        found.setdefault((row.region, row.name), row)
    if not found:
        raise FeedError("no GPU reserved-instance prices in the Price List CSV")
    return list(found.values())


def urls() -> list[str]:
    """The configured URL, one per region when it is a {region} template; none when unset."""
    template = os.environ.get(URL_ENV, "")
    if not template:
        return []
    if "{region}" not in template:
        return [template]
    return [template.replace("{region}", r) for r in aws_ondemand_feed.regions()]


def refresh(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot | Skip:
    addresses = urls()
    if not addresses:
        return Skip(
            f"set {URL_ENV} to a Price List bulk CSV (e.g. "
            f"{aws_ondemand_feed.BULK_URL_EXAMPLE}; hundreds of MB a region) to fetch reserved "
            "prices"
        )
    progress(f"streaming {len(addresses)} Price List CSV(s)")
    rows: list[OfferRow] = []
    for address in addresses:
        try:
            rows += parse_bulk_csv(client.iter_lines(address))
        except FeedError as exc:
            raise FeedError(f"{address}: {exc}") from exc
    source = (
        "AWS Price List AmazonEC2 bulk CSV, Reserved, Linux, shared tenancy, Standard, "
        "No Upfront, 1 and 3 years, fetched by costcalc refresh"
    )
    return aws_ondemand_feed.ec2_snapshot(NAME, source, addresses[0], rows, now)
