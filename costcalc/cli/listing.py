"""`costcalc gpus` and `costcalc prices`: what the catalog and the price snapshots hold."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    from providers.registry import names

    g = sub.add_parser(
        "gpus",
        help="list the GPU catalog with specs and sources",
        description="List every GPU costcalc knows, with the names it accepts for each.",
    )
    g.add_argument("--segment", choices=("consumer", "workstation", "datacenter"))
    g.add_argument("--json", action="store_true", help="print a JSON list")
    g.set_defaults(run=run_gpus)

    p = sub.add_parser(
        "prices",
        help="list cloud offers from the price snapshots, with their age",
        description=(
            "List the offers in the current price snapshots (refreshed ones override the "
            "bundled ones), marking stale data by each provider's policy: a spot feed after a "
            "day, list prices after 90 days."
        ),
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME",
        help=f"only these providers (repeatable): {', '.join(names())}",
    )
    p.add_argument(
        "--gpu",
        action="append",
        default=[],
        help="only offers with this GPU (repeatable); a family matches every variant: a100",
    )
    p.add_argument(
        "--region",
        action="append",
        default=[],
        metavar="REGION",
        help="only offers in this cloud region (repeatable): us-east-1, NY2, ...",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of offers")
    p.set_defaults(run=run_prices)


def run_gpus(ns: argparse.Namespace) -> int:
    import json

    from costcalc.loaders import load_catalog

    specs = [s for s in load_catalog() if ns.segment in (None, s.segment)]
    if ns.json:
        print(json.dumps([s.model_dump(mode="json") for s in specs], indent=2))
        return 0
    from costcalc.report import Plain, render_table

    columns = (
        Plain("key", "key", numeric=False),
        Plain("name", "name", numeric=False),
        Plain("arch", "architecture", numeric=False),
        Plain("mem", "GB"),
        Plain("bw", "GB/s"),
        Plain("fp32", "FP32 TF"),
        Plain("fp16", "FP16 tensor TF"),
        Plain("watts", "W"),
        Plain("price", "price $"),
    )
    rows = [
        {
            "key": s.key,
            "name": s.name,
            "arch": s.architecture,
            "mem": f"{s.memory_gb:g}",
            "bw": f"{s.bandwidth_gbs:,.0f}",
            "fp32": f"{s.fp32_tflops:.1f}",
            "fp16": f"{s.fp16_tensor_tflops:.1f}" if s.fp16_tensor_tflops else "-",
            "watts": f"{s.board_power_w:g}",
            "price": f"{s.desktop_price_usd:,.0f}" if s.desktop_price_usd else "-",
        }
        for s in specs
    ]
    print(render_table(columns, rows))
    return 0


def run_prices(ns: argparse.Namespace) -> int:
    import json
    import sys

    from costcalc import display
    from costcalc.loaders import load_catalog, utc_now
    from costcalc.offers import age_days, is_stale
    from costcalc.report import Plain, cloud_offer_json, render_table
    from costcalc.snapshots import load_price_book
    from providers import registry

    now = utc_now()
    catalog = load_catalog()
    gpus = {spec.key for name in ns.gpu for spec in catalog.family(name)}
    regions = {r.casefold() for r in ns.region}
    names = [registry.get(p).name for p in ns.provider]
    book = load_price_book(names or None)
    offers = [
        o
        for o in book.offers
        if (not gpus or o.gpu in gpus) and (not regions or o.region.casefold() in regions)
    ]
    for warning in book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    if ns.json:
        doc = [
            {**cloud_offer_json(o), "gpu_name": catalog.get(o.gpu).name, "stale": is_stale(o, now)}
            for o in offers
        ]
        print(json.dumps(doc, indent=2))
        return 0
    for provider, loaded in book.snapshots.items():
        stale = loaded.is_stale(now)
        print(
            f"{provider}: {loaded.origin}, prices of {loaded.fetched_at:%Y-%m-%d} "
            f"(age {display.age(age_days(loaded.fetched_at, now))}{', STALE' if stale else ''}); "
            f"source: {loaded.snapshot.source}"
        )
    if not offers:
        print("\nno offers match", file=sys.stderr)
        return 0
    columns = (
        Plain("provider", "provider", numeric=False),
        Plain("name", "offer", numeric=False),
        Plain("gpu", "GPU", numeric=False),
        Plain("region", "region", numeric=False),
        Plain("price", "$/h"),
        Plain("fee", "plan $/mo"),
        Plain("kind", "kind", numeric=False),
        Plain("age", "age"),
    )
    rows = [
        {
            "provider": o.provider,
            "name": o.name,
            "gpu": display.gpus(catalog.get(o.gpu).short_name, o.gpu_count),
            "region": o.region,
            "price": f"{o.usd_per_hour:,.3f}",
            "fee": f"{o.monthly_fee_usd:g}" if o.monthly_fee_usd else "-",
            "kind": o.price_kind + (" spot" if o.spot else ""),
            "age": display.age(age_days(o.fetched_at, now))
            + (" stale" if is_stale(o, now) else ""),
        }
        for o in offers
    ]
    print()
    print(render_table(columns, rows))
    return 0
