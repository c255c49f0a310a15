"""`costcalc gpus`: what the GPU catalog holds (`costcalc prices` is costcalc.cli.prices)."""

from __future__ import annotations

import argparse
from typing import Any

from costcalc.cli import output

GPUS_PRIORITY = ("key", "name", "mem", "price", "fp16", "fp32", "bw", "watts", "arch")
"""What a narrow terminal keeps of `costcalc gpus`: the name you type, then memory and price."""


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
    g.add_argument("--segment", choices=("consumer", "workstation", "datacenter"))
    g.add_argument("--json", action="store_true", help="print a JSON list")
    output.add_wide(g)
    g.set_defaults(run=run_gpus)


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
