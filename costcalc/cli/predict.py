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
from costcalc.core.terminal import fill, fill_all
from costcalc.present import display as fmt
from costcalc.present.report import Plain, render_table
from costcalc.store.bundled import load_catalog, load_predictor

if TYPE_CHECKING:
    from costcalc.core.batching import BatchPlan
    from costcalc.core.catalog import GpuCatalog
    from costcalc.core.models import GpuSpec
    from costcalc.core.predict import Predictor

PRIORITY = ("gpu", "seconds", "speedup", "batch", "band")
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


def _target_batch(text: str) -> object:
    from costcalc.core.batching import parse_target_batch
    from costcalc.core.errors import CostcalcError

    try:
        return parse_target_batch(text)
    except CostcalcError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _memory_gb(text: str) -> float:
    from costcalc.core.errors import CostcalcError
    from costcalc.core.inputs import number

    try:
        value = number(text, "memory")
    except CostcalcError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if value is None or not 0 < value <= 100_000:
        raise argparse.ArgumentTypeError(f"memory must be a number of GB above 0, got {text!r}")
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
            "costcalc predict --from rtx3090 --to 'A100 80GB' --seconds 3600 --json",
            "costcalc predict --from t4 --to l4 --batch 8 --memory-gb 12 --target-batch max",
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
        help="batch per GPU the work ran at on --from: what a step costs whatever its size "
        "(launches, the host, the optimizer's update) weighs more at a small batch; default: "
        "the speed model's reference (256 images, 32 sequences of 1,024 tokens, 128 sequences)",
    )
    p.add_argument(
        "--target-batch",
        type=_target_batch,
        default="same",
        metavar="same|max|N",
        help="batch per GPU on the target: same (default: your job unchanged), max (the "
        "largest that fits each target, rounded to a multiple of 8; needs --memory-gb) or N",
    )
    p.add_argument(
        "--memory-gb",
        type=_memory_gb,
        default=None,
        metavar="GB",
        help="GPU memory the work takes at --batch on --from: split into a fixed part "
        "(weights, gradients, optimizer state) and a part per item for --target-batch max",
    )
    p.add_argument(
        "--seq-len",
        type=_batch,
        default=None,
        metavar="TOKENS",
        help="tokens per item (transformer work): a step's fixed cost is spread over batch x "
        "sequence tokens; default 1,024",
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
    if ns.seq_len is not None and not predictor.kind_calibration(ns.kind).reference_sequence:
        notes.append(f"--seq-len is not used for {ns.kind} work (its items are not tokens)")
        ns.seq_len = None
    ns.plan = _plan(ns, source, predictor)
    ns.at = _at_words(ns, source, targets)
    if ns.seconds is None:
        code = _print_ratios(ns, source, targets, predictor)
    else:
        code = _print_times(ns, source, targets, predictor, catalog)
    output.notes([n for n in notes if n], prefix="note: ")  # after the answer
    return code


def _plan(ns: argparse.Namespace, source: GpuSpec, predictor: Predictor) -> BatchPlan:
    """Which batch each GPU runs: the user's on --from, and on every target by --target-batch."""
    from costcalc.core.batching import BatchPlan
    from costcalc.core.memory import from_one_batch

    memory = None
    if ns.memory_gb is not None:
        at = ns.batch or int(predictor.kind_calibration(ns.kind).reference_batch or 1)
        memory = from_one_batch(ns.memory_gb, at, ns.kind)
        if ns.seq_len:
            memory = memory.at_sequence(float(ns.seq_len))
    return BatchPlan(ns.batch, ns.target_batch, memory, source.key)


def _at_words(ns: argparse.Namespace, source: GpuSpec, targets: list[GpuSpec]) -> str:
    """', batch 8 on the RTX 3090' or ' at batch 64': the batch in the answer's title."""
    seq = f" of {ns.seq_len:,} tokens" if ns.seq_len else ""
    if not ns.plan.varies:
        return f" at batch {ns.batch}{seq}" if ns.batch else ""
    mine = f"batch {ns.batch}{seq}" if ns.batch else "the speed model's batch"
    if len(targets) == 1:
        there = ns.plan.on(targets[0]) or "none"
        return f", {mine} on the {source.short_name} and {there} on the {targets[0].short_name}"
    return f", {mine} on the {source.short_name} and each GPU's own (batch column)"


def _target_batches(
    ns: argparse.Namespace, targets: list[GpuSpec]
) -> tuple[list[GpuSpec], list[str]]:
    """The targets the job fits at their batch, and a line naming those it does not."""
    fits = [t for t in targets if ns.plan.on(t) != 0]
    left = [t.short_name for t in targets if ns.plan.on(t) == 0]
    if not left:
        return fits, []
    named = ", ".join(left[:6]) + (f" and {len(left) - 6} more" if len(left) > 6 else "")
    return fits, [f"Does not fit at any batch: {named}."]


def _why_lines(ns: argparse.Namespace, source: GpuSpec, targets: list[GpuSpec]) -> list[str]:
    """Which batch each GPU ran and why: every GPU for one or two targets, else the rule."""
    if not ns.plan.varies:
        return []
    lines = ["Batch per GPU:", f"  {source.short_name}: {ns.plan.on(source) or 'reference'} "
             f"({ns.plan.why(source)})"]  # fmt: skip
    if len(targets) <= 2:
        lines += [f"  {t.short_name}: {ns.plan.on(t)} ({ns.plan.why(t)})" for t in targets]
    elif ns.plan.memory is not None:
        lines.append(f"  every other GPU: the largest batch that fits it ({ns.plan.memory.words})")
    else:
        lines.append(f"  every other GPU: {ns.plan.target} (--target-batch)")
    return lines


def _print_times(
    ns: argparse.Namespace,
    source: GpuSpec,
    targets: list[GpuSpec],
    predictor: Predictor,
    catalog: GpuCatalog,
) -> int:
    """With --seconds: how long the work takes on each target, with the band."""
    targets, left = _target_batches(ns, targets)
    found = [
        predictor.predict(
            ns.seconds,
            source,
            t,
            kind=ns.kind,
            dtype=ns.dtype,
            batch=ns.batch,
            target_batch=ns.plan.on(t),
            sequence=ns.seq_len,
        )
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
            "batch": f"{p.target_batch:g}" if p.target_batch else "ref.",
        }
        for p in found
    ]

    docs = [
        {k: v for k, v in plain(p).items() if k != "profile"}
        | {"target_batch_why": ns.plan.why(catalog.get(p.target))}
        for p in found
    ]
    columns = (Plain("seconds", "seconds"), Plain("band", "low-high"), Plain("speedup", "speed-up"))
    return _emit(
        ns,
        docs,
        f"{ns.seconds:g} s on {source.name}, {ns.kind} work in {ns.dtype}{ns.at}:",
        columns + ((Plain("batch", "batch"),) if ns.plan.varies else ()),
        cells,
        _why_lines(ns, source, targets) + left,
    )


def _print_ratios(
    ns: argparse.Namespace, source: GpuSpec, targets: list[GpuSpec], predictor: Predictor
) -> int:
    """Without --seconds: how much faster each target runs the work, with the band (the time
    band's multipliers turned into speed: a time x low is a speed / low)."""
    targets, left = _target_batches(ns, targets)
    rows = []
    for t in targets:
        there = ns.plan.on(t)
        speedup = predictor.speedup(
            source, t, ns.kind, ns.dtype, batch=ns.batch, target_batch=there, sequence=ns.seq_len
        )
        low, high = predictor.band(source, t, ns.kind, ns.dtype)
        rows.append(
            {
                "source": source.key,
                "target": t.key,
                "kind": ns.kind,
                "dtype": ns.dtype,
                "batch": ns.batch,
                "target_batch": there,
                "target_batch_why": ns.plan.why(t),
                "sequence": ns.seq_len,
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
            "batch": f"{r['target_batch']}" if r["target_batch"] else "ref.",
        }
        for r in rows
    ]
    columns = (Plain("speedup", "speed-up"), Plain("band", "low-high"))
    return _emit(
        ns,
        rows,
        f"Speed relative to {source.name}, {ns.kind} work in {ns.dtype}{ns.at}:",
        columns + ((Plain("batch", "batch"),) if ns.plan.varies else ()),
        cells,
        _why_lines(ns, source, targets) + left,
    )


def _emit(
    ns: argparse.Namespace,
    docs: list[dict[str, Any]],
    title: str,
    columns: tuple[Plain, ...],
    cells: list[dict[str, str]],
    after: list[str] | None = None,
) -> int:
    """Print the answer: the documents as JSON with --json (one object for one target), else
    the title, a table of the GPU and `columns`, fitted to the terminal, and `after`."""
    if ns.json:
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return 0
    width = None if ns.wide else output.width()
    print("\n".join(fill(title, width)))
    gpu = Plain("gpu", "GPU", numeric=False, clip=True)
    if cells:
        print(render_table((gpu, *columns), cells, width=width, priority=PRIORITY))
    for line in fill_all(after or [], width):
        print(line)
    return 0
