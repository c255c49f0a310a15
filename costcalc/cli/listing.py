"""`costcalc gpus` and `costcalc prices`: what the catalog and the price snapshots hold."""

from __future__ import annotations

import argparse
from typing import Any

from costcalc.constants import PROVIDERS


def register(sub: Any) -> None:
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
            "bundled ones), marking stale data: spot older than a day, list prices older "
            "than 90 days."
        ),
    )
    p.add_argument(
        "--provider",
        action="append",
        choices=PROVIDERS,
        default=[],
        help="only these providers (repeatable)",
    )
    p.add_argument("--gpu", action="append", default=[], help="only offers with this GPU")
    p.add_argument("--json", action="store_true", help="print a JSON list of offers")
    p.set_defaults(run=run_prices)


def run_gpus(ns: argparse.Namespace) -> int:
    import json

    from costcalc.catalog import load_catalog

    specs = [s for s in load_catalog() if ns.segment in (None, s.segment)]
    if ns.json:
        print(json.dumps([s.model_dump(mode="json") for s in specs], indent=2))
        return 0
    from costcalc.report import Column, render_table

    columns = (
        Column("key", "key", numeric=False),
        Column("name", "name", numeric=False),
        Column("arch", "architecture", numeric=False),
        Column("mem", "GB"),
        Column("bw", "GB/s"),
        Column("fp32", "FP32 TF"),
        Column("fp16", "FP16 tensor TF"),
        Column("watts", "W"),
        Column("price", "price $"),
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

    from costcalc import format as fmt
    from costcalc.catalog import load_catalog
    from costcalc.loaders import utc_now
    from costcalc.report import Column, cloud_offer_json, render_table
    from costcalc.snapshots import age_days, is_stale, load_price_book

    now = utc_now()
    catalog = load_catalog()
    gpus = {catalog.resolve(name).key for name in ns.gpu}
    book = load_price_book(ns.provider or None)
    offers = [o for o in book.offers if not gpus or o.gpu in gpus]
    for warning in book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    if ns.json:
        doc = [
            {**cloud_offer_json(o), "stale": is_stale(o.fetched_at, o.spot, now)} for o in offers
        ]
        print(json.dumps(doc, indent=2))
        return 0
    for provider, loaded in book.snapshots.items():
        stale = is_stale(loaded.fetched_at, loaded.is_spot, now)
        print(
            f"{provider}: {loaded.origin}, prices of {loaded.fetched_at:%Y-%m-%d} "
            f"(age {fmt.age(age_days(loaded.fetched_at, now))}{', STALE' if stale else ''}); "
            f"source: {loaded.snapshot.source}"
        )
    columns = (
        Column("provider", "provider", numeric=False),
        Column("name", "offer", numeric=False),
        Column("gpu", "GPU", numeric=False),
        Column("region", "region", numeric=False),
        Column("price", "$/h"),
        Column("fee", "plan $/mo"),
        Column("age", "age"),
    )
    rows = [
        {
            "provider": o.provider,
            "name": o.name,
            "gpu": fmt.gpus(o.gpu, o.gpu_count),
            "region": o.region,
            "price": f"{o.usd_per_hour:,.3f}",
            "fee": f"{o.monthly_fee_usd:g}" if o.monthly_fee_usd else "-",
            "age": fmt.age(age_days(o.fetched_at, now))
            + (" stale" if is_stale(o.fetched_at, o.spot, now) else ""),
        }
        for o in offers
    ]
    print()
    print(render_table(columns, rows))
    return 0
