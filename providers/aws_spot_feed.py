"""AWS EC2 spot's feed: spot.json's parser, the Spot Instance Advisor merge and the refresh
(providers/aws_spot.py describes the provider; this module is imported only when `costcalc
refresh` runs it)."""

from __future__ import annotations

import os
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from costcalc.core.constants import INTERRUPTION_BUCKETS
from costcalc.core.models import OfferRow, PriceSnapshot

from .aws_instances import gpu_instances
from .aws_spot import NAME, URL_ENV
from .base import Progress
from .common import FeedError, expect, load_json, named, price

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

    from .aws_spot_advisor import Advice

DEFAULT_URL = "https://website.spot.ec2.aws.a2z.com/spot.json"
MAX_BYTES = 32 * 1024 * 1024
"""Largest answer read: spot.json, every region's spot prices, is about 3 MB."""

LEGACY_REGIONS: dict[str, str] = {
    "us-east": "us-east-1",
    "us-west": "us-west-1",
    "eu-ireland": "eu-west-1",
    "eu-frankfurt": "eu-central-1",
    "apac-sin": "ap-southeast-1",
    "apac-syd": "ap-southeast-2",
    "apac-tokyo": "ap-northeast-1",
}
"""Names the old spot.js feed used for the regions that existed before region codes did."""

_REGION_CODE = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d+(-[a-z]+-\d+[a-z]?)?$")


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def region_code(name: str) -> str | None:
    """'eu-ireland' -> 'eu-west-1'; codes pass through; anything else is not a region."""
    code = LEGACY_REGIONS.get(name, name)
    return code if _REGION_CODE.match(code) else None


def _linux_price(size: dict[str, Any]) -> float | None:
    for column in size.get("valueColumns") or ():
        if isinstance(column, dict) and column.get("name") == "linux":
            prices = column.get("prices")
            return price(prices.get("USD")) if isinstance(prices, dict) else None
    return None


def parse(payload: bytes | str) -> list[OfferRow]:
    """Linux spot price rows for the GPU instance types we map, one per region and type."""
    doc = expect(load_json(payload), dict, "the document")
    config = expect(doc.get("config"), dict, "config")
    regions = expect(config.get("regions"), list, "config.regions")
    table = gpu_instances()
    rows: dict[tuple[str, str], OfferRow] = {}
    for region_doc in regions:
        region_doc = expect(region_doc, dict, "config.regions[]")
        region = region_code(str(region_doc.get("region", "")))
        if region is None:
            continue
        for block in expect(region_doc.get("instanceTypes"), list, "instanceTypes"):
            for size in expect(block, dict, "instanceTypes[]").get("sizes") or ():
                name = size.get("size") if isinstance(size, dict) else None
                if not isinstance(name, str):
                    continue
                gpus = table.get(name)
                if gpus is None or (region, name) in rows:
                    continue
                usd = _linux_price(size)
                if usd is None:
                    continue
                rows[(region, name)] = OfferRow(
                    name=name,
                    region=region,
                    gpu=gpus.gpu,
                    gpu_count=gpus.gpu_count,
                    usd_per_hour=usd,
                    spot=True,
                )
    if not rows:
        raise FeedError("no GPU instance prices in the payload")
    return sorted(rows.values(), key=lambda r: (r.region, r.name))


def with_advice(rows: list[OfferRow], advice: dict[tuple[str, str], Advice]) -> list[OfferRow]:
    """Add the Spot Advisor's savings % and interruption bucket where it has them."""
    merged = []
    for row in rows:
        tip = advice.get((row.region, row.name))
        if tip is None:
            merged.append(row)
            continue
        merged.append(
            replace(
                row,
                **{
                    "savings_pct": tip.savings_pct,
                    "interruption_bucket": tip.bucket,
                    "limits": f"interruption frequency {INTERRUPTION_BUCKETS[tip.bucket]} "
                    "(Spot Instance Advisor, last 30 days)",
                    "vcpus": tip.vcpus,
                    "ram_gb": tip.ram_gb,
                },
            )
        )
    return merged


def fetch(client: HttpClient) -> bytes:
    return client.get(url(), max_bytes=MAX_BYTES)


def refresh(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot:
    """Observed spot prices, with the Spot Instance Advisor's savings and interruption buckets."""
    from . import aws_spot_advisor

    progress(f"downloading {url()}")
    rows = named(url(), lambda: parse(fetch(client)))
    progress(f"downloading {aws_spot_advisor.url()}")
    advice = named(
        aws_spot_advisor.url(), lambda: aws_spot_advisor.parse(aws_spot_advisor.fetch(client))
    )
    return PriceSnapshot(
        provider=NAME,
        source="AWS EC2 spot price feed (spot.json) with Spot Instance Advisor savings and "
        "interruption buckets (spot-advisor-data.json), fetched by costcalc refresh",
        source_url=url(),
        licence="AWS data (c) Amazon Web Services; fetched for the user's own use",
        fetched_at=now,
        spot=True,
        billing_increment_s=1,
        billing_minimum_s=60,
        price_kind="observed",
        notes="Observed Linux spot prices, one per region (the feed has no zone detail). "
        "Spot capacity can be reclaimed with a 2-minute notice.",
        offers=tuple(with_advice(rows, advice)),
    )
