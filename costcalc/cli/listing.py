"""`costcalc gpus`: what the GPU catalog holds (`costcalc prices` is costcalc.cli.prices)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from costcalc.cli import output
from costcalc.core.catalog import card_price
from costcalc.core.records import plain
from costcalc.present.report import Plain, render_table
from costcalc.store.bundled import load_catalog

GPUS_PRIORITY = (
    "key",
    "name",
    "mem",
    "price",
    "price_is",
    "aliases",
    "fp16",
    "fp32",
    "bw",
    "watts",
    "arch",
)
"""What a narrow terminal keeps of `costcalc gpus`: the name you type, then memory and price
(and what that price is), then the other names it accepts."""


def register(sub: Any) -> None:
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
    g.add_argument(
        "--segment",
        choices=("consumer", "workstation", "datacenter"),
        help="only the cards of one market segment (GeForce / RTX Ax000 and Quadro / "
        "data-centre cards)",
    )
    g.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list: every spec, its aliases, and the card price the desktop uses "
        '("card_price": dollars, date, new/used/launch)',
    )
    output.add_wide(g)
    g.set_defaults(run=run_gpus)


def run_gpus(ns: argparse.Namespace) -> int:
    specs = [s for s in load_catalog() if ns.segment in (None, s.segment)]
    if ns.json:
        print(json.dumps([{**plain(s), **_price_json(s)} for s in specs], indent=2))
        return 0

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
        Plain("price_is", "price is", numeric=False),
        Plain("aliases", "also written", numeric=False, clip=True),
    )
    rows = [
        {
            "key": s.key,
            "name": s.name,
            "arch": s.architecture,
            "mem": f"{s.memory_gb:g}",
            "bw": f"{s.bandwidth_gbs:,.0f}",
            "fp32": f"{s.fp32_tflops:,.1f}",
            "fp16": f"{s.fp16_tensor_tflops:,.1f}" if s.fp16_tensor_tflops else "-",
            "watts": f"{s.board_power_w:g}",
            **_price_cells(card_price(s), s.release_year),
            "aliases": ", ".join(s.aliases) or "-",
        }
        for s in specs
    ]
    width = None if ns.wide else output.width()
    print(render_table(columns, rows, width=width, priority=GPUS_PRIORITY))
    return 0


def _price_cells(price: Any, release_year: int) -> dict[str, str]:
    """A card's price and what it is: 'new 2026-09-30', 'used 2026-09-30', 'launch 2020'."""
    if price is None:
        return {"price": "-", "price_is": "-"}
    if price.observed is None:
        what = f"launch {release_year}"
    else:
        what = f"{price.condition} {price.observed:%Y-%m-%d}"
    return {"price": f"{price.usd:,.0f}", "price_is": what}


def _price_json(spec: Any) -> dict[str, Any]:
    price = card_price(spec)
    if price is None:
        return {"card_price": None}
    return {
        "card_price": {
            "usd": price.usd,
            "date": price.observed.isoformat() if price.observed else None,
            "kind": "launch" if price.observed is None else price.condition,
            "launch_year": spec.release_year if price.observed is None else None,
            "source": price.source,
        }
    }
