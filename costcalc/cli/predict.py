"""`costcalc predict`: how long work measured on one GPU takes on another (or on all of them)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from costcalc.cli import output
from costcalc.core.constants import DTYPES, KINDS
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.inputs import whole
from costcalc.core.predict import default_dtype
from costcalc.core.records import plain
from costcalc.present import display as fmt
from costcalc.present.report import Plain, render_table
from costcalc.store.bundled import load_catalog, load_predictor

if TYPE_CHECKING:
    from costcalc.core.catalog import GpuCatalog
    from costcalc.core.models import GpuSpec
    from costcalc.core.predict import Predictor

PRIORITY = ("gpu", "seconds", "speedup", "band")
"""What a narrow terminal keeps: the GPU, the predicted time, then the speed-up."""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds must be a number, got {quoted(text)}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"seconds must be a positive number, got {text}")
    return value


def _batch(text: str) -> int:
    """A batch per GPU, read as every count costcalc takes (inputs.whole: long text cut)."""
    try:
        value = whole(text, "batch")
    except CostcalcError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not value:
        raise argparse.ArgumentTypeError(f"batch must be at least 1, got {quoted(text.strip())}")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser(
        "predict",
        help="predict how long work timed on one GPU takes on another",
        description=(
            "How much faster work runs on another GPU, or (with --seconds) how long a time "
            "measured on one GPU takes there: the step is split into matmul, element-wise, "
            "memory and overhead time, each scaled by the target's achievable rate for the "
            "precision. Shows a low-high band from the calibration's leave-one-source-out errors."
        ),
        **output.examples(
            "costcalc predict --from rtx3090 --to rtx4090 --kind transformer",
            "costcalc predict --from rtx3090 --to 'A100 80GB' --seconds 3600",
            "costcalc predict --from rtx4090 --to h100 --seconds 90 --json",
        ),
    )
    p.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="GPU",
        help="GPU you timed on (as in quick: 'a100' or 'h100' is the PCIe card, an SXM module "
        "only when the name says SXM: 'A100 SXM4')",
    )
    p.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="GPU",
        help="target GPU (named as --from), or 'all' for every catalog GPU",
    )
    p.add_argument(
        "--seconds",
        type=_seconds,
        default=None,
        metavar="S",
        help="time of the work on the source GPU (any unit: the answer is the same); without "
        "it, the speed ratio target / source and its band",
    )
    p.add_argument("--kind", choices=KINDS, default="generic", help="workload kind")
    p.add_argument(
        "--batch",
        type=_batch,
        default=None,
        metavar="N",
        help="batch per GPU (cnn work): a step's fixed cost (launches, the host) weighs more at "
        "a small batch, and a big GPU gains less; default: the calibration's reference batch",
    )
    p.add_argument(
        "--dtype",
        choices=("auto", *DTYPES),
        default="auto",
        help="training precision (default auto: fp16 mixed precision when the source GPU has "
        "tensor cores, fp32 otherwise, as in quick and the app)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    output.add_wide(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    catalog = load_catalog()
    predictor = load_predictor()
    # The one lookup `quick`, `desktops` and the app use: 'a100' is the same card everywhere.
    source, source_note = catalog.resolve_noted(ns.source)
    if ns.target.lower() == "all":
        targets, target_note = list(catalog), None
    else:
        target, target_note = catalog.resolve_noted(ns.target)
        targets = [target]
    if ns.dtype == "auto":
        ns.dtype = default_dtype(source)
    notes = [
        source_note,
        target_note,
        predictor.thin_data([source, *targets]),
        predictor.known_bias([source, *targets], ns.kind, ns.dtype),
    ]
    unused = predictor.batch_unused(ns.kind, "--batch") if ns.batch is not None else None
    if unused:
        notes.append(unused)
        ns.batch = None
    ns.at = f" at batch {ns.batch}" if ns.batch else ""
    if ns.seconds is None:
        code = _print_ratios(ns, source, targets, predictor)
    else:
        code = _print_times(ns, source, targets, predictor, catalog)
    output.notes([n for n in notes if n], prefix="note: ")  # after the answer
    return code


def _print_times(
    ns: argparse.Namespace,
    source: GpuSpec,
    targets: list[GpuSpec],
    predictor: Predictor,
    catalog: GpuCatalog,
) -> int:
    """With --seconds: how long the work takes on each target, with the band."""
    found = [
        predictor.predict(ns.seconds, source, t, kind=ns.kind, dtype=ns.dtype, batch=ns.batch)
        for t in targets
    ]
    if ns.target.lower() == "all":
        found.sort(key=lambda p: p.seconds)

    cells = [
        {
            "gpu": catalog.get(p.target).name,
            "seconds": fmt.seconds(p.seconds),
            "band": f"{fmt.seconds(p.low_s)}-{fmt.seconds(p.high_s)}",
            "speedup": f"{p.speedup:.2f}x",
        }
        for p in found
    ]

    return _emit(
        ns,
        [{k: v for k, v in plain(p).items() if k != "profile"} for p in found],
        f"{ns.seconds:g} s on {source.name}, {ns.kind} work in {ns.dtype}{ns.at}:",
        (Plain("seconds", "seconds"), Plain("band", "low-high"), Plain("speedup", "speed-up")),
        cells,
    )


def _print_ratios(
    ns: argparse.Namespace, source: GpuSpec, targets: list[GpuSpec], predictor: Predictor
) -> int:
    """Without --seconds: how much faster each target runs the work, with the band (the time
    band's multipliers turned into speed: a time x low is a speed / low)."""
    rows = []
    for t in targets:
        speedup = predictor.speedup(source, t, ns.kind, ns.dtype, batch=ns.batch)
        low, high = predictor.band(source, t, ns.kind, ns.dtype)
        rows.append(
            {
                "source": source.key,
                "target": t.key,
                "kind": ns.kind,
                "dtype": ns.dtype,
                "batch": ns.batch,
                "speedup": speedup,
                "speedup_low": speedup / high,
                "speedup_high": speedup / low,
            }
        )
    if ns.target.lower() == "all":
        rows.sort(key=lambda r: -r["speedup"])

    names = {t.key: t.name for t in targets}
    cells = [
        {
            "gpu": names[r["target"]],
            "speedup": f"{r['speedup']:.2f}x",
            "band": f"{r['speedup_low']:.2f}-{r['speedup_high']:.2f}x",
        }
        for r in rows
    ]
    return _emit(
        ns,
        rows,
        f"Speed relative to {source.name}, {ns.kind} work in {ns.dtype}{ns.at}:",
        (Plain("speedup", "speed-up"), Plain("band", "low-high")),
        cells,
    )


def _emit(
    ns: argparse.Namespace,
    docs: list[dict[str, Any]],
    title: str,
    columns: tuple[Plain, ...],
    cells: list[dict[str, str]],
) -> int:
    """Print the answer: the documents as JSON with --json (one object for one target), else
    the title and a table of the GPU and `columns`, fitted to the terminal."""
    if ns.json:
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return 0
    print(title)
    gpu = Plain("gpu", "GPU", numeric=False, clip=True)
    width = None if ns.wide else output.width()
    print(render_table((gpu, *columns), cells, width=width, priority=PRIORITY))
    return 0
