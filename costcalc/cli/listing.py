"""`costcalc gpus` and `costcalc prices`: what the catalog and the price snapshots hold."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from costcalc.cli import output

GPUS_PRIORITY = ("key", "name", "mem", "price", "fp16", "fp32", "bw", "watts", "arch")
"""What a narrow terminal keeps of `costcalc gpus`: the name you type, then memory and price."""

PRICES_PRIORITY = ("name", "gpu", "price", "provider", "kind", "age", "region", "fee")
"""What a narrow terminal keeps of `costcalc prices`: the offer, its GPU and price first."""


def register(sub: Any) -> None:
    from costcalc.providers.registry import names

    g = sub.add_parser(
        "gpus",
        help="list the GPU catalog with specs and sources",
        description="List every GPU costcalc knows, with the names it accepts for each.",
        **output.examples(
            "costcalc gpus",
            "costcalc gpus --segment workstation --wide",
            "costcalc gpus --json",
        ),
    )
    g.add_argument("--segment", choices=("consumer", "workstation", "datacenter"))
    g.add_argument("--json", action="store_true", help="print a JSON list")
    output.add_wide(g)
    g.set_defaults(run=run_gpus)

    p = sub.add_parser(
        "prices",
        help="list cloud offers from the price snapshots, with their age",
        description=(
            "List the offers in the current price snapshots (refreshed ones override the "
            "bundled ones), marking stale data by each provider's policy: a spot feed after a "
            "day, list prices after 90 days."
        ),
        **output.examples(
            "costcalc prices --gpu h100",
            "costcalc prices --provider runpod --gpu rtx4090 --json",
            "costcalc prices --ages",
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
    p.add_argument(
        "--ages",
        action="store_true",
        help="print how old each price file's rows are, and which rows decide a desktop "
        "verdict on one source",
    )
    output.add_wide(p)
    p.set_defaults(run=run_prices)


def run_gpus(ns: argparse.Namespace) -> int:
    import json

    from costcalc.store.bundled import load_catalog

    specs = [s for s in load_catalog() if ns.segment in (None, s.segment)]
    if ns.json:
        print(json.dumps([s.model_dump(mode="json") for s in specs], indent=2))
        return 0
    from costcalc.present.report import Plain, render_table

    columns = (
        Plain("key", "key", numeric=False),
        Plain("name", "name", numeric=False, clip=True),
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
    width = None if ns.wide else output.width()
    print(render_table(columns, rows, width=width, priority=GPUS_PRIORITY))
    return 0


def run_prices(ns: argparse.Namespace) -> int:
    import json
    import sys

    from costcalc.core.offers import age_days, is_stale
    from costcalc.core.terminal import fill_all
    from costcalc.present import display
    from costcalc.present.report import Plain, cloud_offer_json, render_table
    from costcalc.providers import registry
    from costcalc.store.bundled import load_catalog
    from costcalc.store.loaders import utc_now
    from costcalc.store.snapshots import load_price_book

    now = utc_now()
    if ns.ages:
        return _print_ages(ns, now)
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
    width = output.width()
    for provider, loaded in book.snapshots.items():
        stale = loaded.is_stale(now)
        head = (
            f"{provider}: {loaded.origin}, prices of {loaded.fetched_at:%Y-%m-%d} "
            f"(age {display.age(age_days(loaded.fetched_at, now))}{', STALE' if stale else ''})"
        )
        print("\n".join(fill_all([head, f"  source: {loaded.snapshot.source}"], width)))
    if not offers:
        print("\nno offers match", file=sys.stderr)
        return 0
    columns = (
        Plain("provider", "provider", numeric=False),
        Plain("name", "offer", numeric=False, clip=True),
        Plain("gpu", "GPU", numeric=False, clip=True),
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
    print(render_table(columns, rows, width=None if ns.wide else width, priority=PRICES_PRIORITY))
    return 0


def _print_ages(ns: argparse.Namespace, now: datetime) -> int:
    """`prices --ages`: the same freshness table scripts/bundle_prices.py prints for a release,
    for the snapshots this user's costcalc reads (refreshed ones, else the bundled ones)."""
    import sys

    from costcalc.providers import registry
    from costcalc.store import freshness
    from costcalc.store.loaders import load_app_data
    from costcalc.store.snapshots import load_desktop_defaults, load_electricity, load_fx

    data = load_app_data([registry.get(p).name for p in ns.provider] or None)
    for warning in data.book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    rates = load_fx()
    others = freshness.other_ages(
        load_desktop_defaults(), load_electricity(), rates.rates, rates.origin != "bundled"
    )
    print(freshness.report(data, now, None if ns.wide else output.width(), others))
    return 0
