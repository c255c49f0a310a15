"""`costcalc history`: how a price moved across refreshes, as sparklines or JSON points."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from costcalc.cli import output
from costcalc.present import display as fmt
from costcalc.providers.registry import get, names
from costcalc.store import history
from costcalc.store.bundled import load_catalog
from costcalc.store.snapshots import load_price_book

PRIORITY = ("name", "now", "trend", "provider", "region", "gpu", "low", "high", "points", "span")
"""What a narrow terminal keeps of `costcalc history`: the offer, its price now and its trend,
and where (without the region an offer sold in several regions would repeat on identical rows)."""

TREND_POINTS = 30
"""Bars in the trend column: the latest points (all of them with --wide)."""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "history",
        help="show how prices moved across refreshes (sparklines or JSON)",
        description=(
            "Show every price `costcalc refresh` has observed, together with the prices of "
            "the snapshots in use (the bundled ones included), one row per offer with a "
            f"sparkline of its latest {TREND_POINTS} prices (--wide: all of them); --json "
            "prints every point (fetched_at, usd_per_hour)."
        ),
        **output.examples(
            "costcalc history --gpu h100",
            "costcalc history --provider aws-spot --region us-east-1 --wide",
            "costcalc history --gpu 'A100 80GB' --json",
        ),
    )
    p.add_argument(
        "--gpu",
        help="only offers with this GPU, e.g. h100, 'A100 80GB', t4 (a family name matches "
        "every variant, as in prices: 'a100' is every A100)",
    )
    p.add_argument("--provider", metavar="NAME", help=f"only this provider: {', '.join(names())}")
    p.add_argument("--region", metavar="CODE", help="only this region, e.g. us-east-1")
    p.add_argument("--json", action="store_true", help="print a JSON list of series")
    output.add_wide(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    catalog = load_catalog()  # one catalog for the filter, the prices held and the names
    gpus = None
    if ns.gpu:
        # A filter over offers, as prices --gpu: 'a100' is every A100 (one card is `resolve`'s)
        gpus = frozenset(spec.key for spec in catalog.family(ns.gpu))
    if ns.provider:
        ns.provider = get(ns.provider).name

    held = load_price_book(overrides=False, catalog=catalog).offers
    series = history.query(gpu=gpus, provider=ns.provider, region=ns.region, held=held)
    if ns.json:
        doc = [
            {
                "provider": fmt.safe(s.provider),
                "name": fmt.safe(s.name),
                "region": fmt.safe(s.region),
                "gpu": s.gpu,
                "gpu_count": s.gpu_count,
                "points": [
                    {"fetched_at": p.fetched_at.isoformat(), "usd_per_hour": p.usd_per_hour}
                    for p in s.points
                ],
            }
            for s in series
        ]
        print(json.dumps(doc, indent=2))
        return 0
    if not series:
        print("costcalc: no price history matches; run `costcalc refresh` first", file=sys.stderr)
        return 0
    from costcalc.present.report import Plain, render_table  # the table: --json needs none

    names = {spec.key: spec.short_name for spec in catalog}
    columns = (
        Plain("provider", "provider", numeric=False),
        Plain("name", "offer", numeric=False, clip=True),
        Plain("region", "region", numeric=False),
        Plain("gpu", "GPU", numeric=False, clip=True),
        Plain("trend", "trend", numeric=False),
        Plain("now", "$/h"),
        Plain("low", "low"),
        Plain("high", "high"),
        Plain("points", "points"),
        Plain("span", "observed", numeric=False),
    )
    decimals = fmt.money_decimals(p.usd_per_hour for s in series for p in s.points)
    rows = []
    for s in series:
        prices = [p.usd_per_hour for p in s.points]
        rows.append(
            {
                "provider": fmt.safe(s.provider),
                "name": fmt.safe(s.name),
                "region": fmt.safe(s.region),
                "gpu": fmt.gpus(names.get(s.gpu, s.gpu), s.gpu_count),
                "trend": history.sparkline(prices if ns.wide else prices[-TREND_POINTS:]),
                "now": fmt.amount(prices[-1], decimals),
                "low": fmt.amount(min(prices), decimals),
                "high": fmt.amount(max(prices), decimals),
                "points": f"{len(prices):,}",
                "span": f"{s.points[0].fetched_at:%Y-%m-%d} .. {s.points[-1].fetched_at:%Y-%m-%d}",
            }
        )
    width = None if ns.wide else output.width()
    print(render_table(columns, rows, width=width, priority=PRIORITY))
    return 0
