"""`costcalc predict`: how long work measured on one GPU takes on another (or on all of them)."""

from __future__ import annotations

import argparse
from typing import Any

from costcalc.constants import DTYPES, KINDS


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds must be a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"seconds must be a positive number, got {text}")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser(
        "predict",
        help="predict how long work timed on one GPU takes on another",
        description=(
            "Scale a time measured on one GPU to another GPU: the step is split into matmul, "
            "memory-bound and overhead time, each scaled by the target's achievable rate. "
            "Shows a low-high band from the calibration's leave-one-GPU-out errors."
        ),
    )
    p.add_argument("--from", dest="source", required=True, metavar="GPU", help="GPU you timed on")
    p.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="GPU",
        help="target GPU, or 'all' for every catalog GPU",
    )
    p.add_argument(
        "--seconds",
        type=_seconds,
        required=True,
        metavar="S",
        help="time of the work on the source GPU (any unit: the answer is the same)",
    )
    p.add_argument("--kind", choices=KINDS, default="generic", help="workload kind")
    p.add_argument(
        "--dtype",
        choices=("auto", *DTYPES),
        default="auto",
        help="training precision (default auto: fp16 mixed precision when the source GPU has "
        "tensor cores, fp32 otherwise, as in quick and the app)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    import json

    from costcalc.loaders import load_catalog, load_predictor

    catalog = load_catalog()
    predictor = load_predictor()
    source = catalog.resolve(ns.source)
    if ns.dtype == "auto":
        ns.dtype = "fp16" if source.fp16_tensor_tflops else "fp32"
    targets = list(catalog) if ns.target.lower() == "all" else [catalog.resolve(ns.target)]
    found = [
        predictor.predict(ns.seconds, source, t, kind=ns.kind, dtype=ns.dtype) for t in targets
    ]
    if ns.target.lower() == "all":
        found.sort(key=lambda p: p.seconds)
    if ns.json:
        rows = [p.model_dump(exclude={"profile"}) for p in found]
        print(json.dumps(rows[0] if len(rows) == 1 else rows, indent=2))
        return 0
    print(f"{ns.seconds:g} s on {source.name}, {ns.kind} work in {ns.dtype}:")
    width = max(len(catalog.get(p.target).name) for p in found)
    for p in found:
        name = catalog.get(p.target).name
        print(
            f"  {name:{width}}  {p.seconds:12,.4g} s  ({p.low_s:,.4g}-{p.high_s:,.4g})  "
            f"{p.speedup:5.2f}x"
        )
    return 0
