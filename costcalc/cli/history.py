"""`costcalc history`: how a price moved across refreshes, as sparklines or JSON points."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    from providers.registry import names

    p = sub.add_parser(
        "history",
        help="show how prices moved across refreshes (sparklines or JSON)",
        description=(
            "Show every price `costcalc refresh` has observed, one line per offer with a "
            "sparkline of its price over time; --json prints the points (fetched_at, "
            "usd_per_hour)."
        ),
    )
    p.add_argument("--gpu", help="only offers with this GPU, e.g. h100, 'A100 80GB', t4")
    p.add_argument("--provider", metavar="NAME", help=f"only this provider: {', '.join(names())}")
    p.add_argument("--region", metavar="CODE", help="only this region, e.g. us-east-1")
    p.add_argument("--json", action="store_true", help="print a JSON list of series")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    import json
    import sys

    from costcalc import display as fmt
    from costcalc import history

    gpu = None
    if ns.gpu:
        from costcalc.loaders import load_catalog

        gpu = load_catalog().resolve(ns.gpu).key
    if ns.provider:
        from providers.registry import get

        ns.provider = get(ns.provider).name
    from costcalc.snapshots import load_price_book

    held = load_price_book(overrides=False).offers
    series = history.query(gpu=gpu, provider=ns.provider, region=ns.region, held=held)
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
    width = max(len(fmt.safe(f"{s.provider} {s.name} {s.region}")) for s in series)
    from costcalc.loaders import load_catalog

    names = {spec.key: spec.short_name for spec in load_catalog()}
    for s in series:
        prices = [p.usd_per_hour for p in s.points]
        label = fmt.safe(f"{s.provider} {s.name} {s.region}").ljust(width)
        gpus = fmt.gpus(names.get(s.gpu, s.gpu), s.gpu_count)
        span = f"{s.points[0].fetched_at:%Y-%m-%d} .. {s.points[-1].fetched_at:%Y-%m-%d}"
        print(
            f"{label}  {gpus:<22} {history.sparkline(prices)}  ${prices[-1]:,.4g}/h "
            f"(low {min(prices):,.4g}, high {max(prices):,.4g}; {len(prices)} points, {span})"
        )
    return 0
