"""AWS Spot Instance Advisor: savings over on-demand and interruption frequency per region and type.

Format (spot-advisor-data.json):
    {"instance_types": {"g4dn.xlarge": {"emr": true, "cores": 4, "ram_gb": 16.0}, ...},
     "ranges": [{"index": 0, "label": "<5%", "dots": 0, "max": 5}, ...],
     "spot_advisor": {"us-east-1": {"Linux": {"g4dn.xlarge": {"s": 64, "r": 3}, ...},
                                    "Windows": {...}}, ...},
     "global_rate": "<10%"}
`s` is the savings over on-demand in percent, `r` the interruption bucket: 0 <5 %, 1 5-10 %,
2 10-15 %, 3 15-20 %, 4 >20 % (the `ranges` list).

Rule kept here: parse is pure and keeps Linux figures for the GPU types we map; a bucket outside
0..4 or a savings figure outside 0..100 % means the feed changed meaning, so it is refused.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

from costcalc.core.records import Meta, Record, ValidationError, problem, validated

from .aws_instances import gpu_instances
from .common import FeedError, expect, load_json

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

URL_ENV = "COSTCALC_AWS_ADVISOR_URL"
DEFAULT_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
MAX_BYTES = 32 * 1024 * 1024
"""Largest answer read: the advisor's data for every type in every region, a few MB (its GPU
types in three regions are 19 kB, /work/shared/data/spot-advisor-data.gpu-fragment.json)."""


class Advice(Record, frozen=True, kw_only=True):
    """The advisor's figures for one instance type in one region (Linux)."""

    savings_pct: Annotated[float, Meta(ge=0, le=100)]
    bucket: Annotated[int, Meta(ge=0, le=4)]
    """Interruption frequency bucket (r)."""
    vcpus: Annotated[int, Meta(ge=1)] | None = None
    ram_gb: Annotated[float, Meta(gt=0)] | None = None


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def parse(payload: bytes | str) -> dict[tuple[str, str], Advice]:
    """(region, instance type) -> Advice, for GPU instance types only."""
    doc = expect(load_json(payload), dict, "the document")
    by_region = expect(doc.get("spot_advisor"), dict, "spot_advisor")
    sizes = doc.get("instance_types")
    sizes = sizes if isinstance(sizes, dict) else {}
    table = gpu_instances()
    advice: dict[tuple[str, str], Advice] = {}
    for region, systems in by_region.items():
        systems = expect(systems, dict, f"spot_advisor.{region}")
        linux = expect(systems.get("Linux", {}), dict, f"spot_advisor.{region}.Linux")
        for name, figures in linux.items():
            if name not in table or not isinstance(figures, dict):
                continue
            size = sizes.get(name)
            size = size if isinstance(size, dict) else {}
            try:
                advice[(region, name)] = validated(
                    Advice,
                    {
                        "savings_pct": figures.get("s"),
                        "bucket": figures.get("r"),
                        "vcpus": size.get("cores"),
                        "ram_gb": size.get("ram_gb"),
                    },
                )
            except ValidationError as exc:
                field = problem(exc).split(":")[0]
                raise FeedError(
                    f"implausible advisor figure for {name} in {region}: {field} "
                    f"({figures.get('s')!r} % saved, bucket {figures.get('r')!r})"
                ) from exc
    if not advice:
        raise FeedError("no GPU instance types in the advisor data")
    return advice


def fetch(client: HttpClient) -> bytes:
    return client.get(url(), max_bytes=MAX_BYTES)
