"""`costcalc bench`: measure this machine with PyTorch and save the result for `quick --bench`."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import warnings
from typing import Any

from costcalc.bench import store
from costcalc.bench.report import to_text
from costcalc.cli import output
from costcalc.core.constants import DTYPES, KINDS
from costcalc.core.errors import CostcalcError
from costcalc.core.records import to_json


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="measure this machine with PyTorch: matmul, bandwidth, training steps, max batch",
        description=(
            "Run a short PyTorch micro-benchmark: dense matmul TFLOPS per dtype, memory "
            "bandwidth, kernel launch overhead, and two reference training steps (a "
            "ResNet-50-class CNN and a GPT-2-class language model) grown until the device is "
            "full, with the batch they settled on, their time split, the largest batch that "
            "fits and, on NVIDIA GPUs, their watts under load (NVML). Needs the 'bench' extra "
            "(torch)."
        ),
        **output.examples(
            "costcalc bench --quick --save",
            "costcalc bench --step mymodule:train_step --batch-size 64 --kind cnn",
            "costcalc bench --serve --device cpu",
        ),
    )
    p.add_argument("--device", choices=("cuda", "mps", "cpu"), help="default: the best present")
    speed = p.add_mutually_exclusive_group()
    speed.add_argument(
        "--quick",
        action="store_const",
        const="quick",
        dest="mode",
        help="under 20 s on a laptop CPU, about 30 s on a GPU (default)",
    )
    speed.add_argument(
        "--full",
        action="store_const",
        const="full",
        dest="mode",
        help="the full-size models (ResNet-50 at 224 px, GPT-2 small), longer power windows, "
        "real batch search on GPUs: a few minutes",
    )
    p.add_argument(
        "--serve",
        action="store_true",
        help="time batch-1 decoding of a small GPT-2-class model instead (random weights, "
        "nothing downloaded): tokens/s and the share of the memory rate it reads at",
    )
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--save", action="store_true", help="save the result for `quick --bench`")
    p.add_argument(
        "--step",
        metavar="MODULE:FUNCTION",
        help="time your own training step instead: FUNCTION() does one step "
        "(or FUNCTION(batch_size) to also find the largest batch)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        metavar="N",
        help="with --step: items per step (gives items/s)",
    )
    p.add_argument(
        "--dtype",
        choices=("auto", *DTYPES),
        default="auto",
        help="precision of the reference training steps (default auto: fp16 mixed precision on "
        "a GPU with tensor cores, fp32 otherwise, as in quick and the app); with --step, the "
        "precision your step trains in (default auto: the one its matmuls ran in, so autocast "
        "is seen)",
    )
    p.add_argument(
        "--kind",
        choices=KINDS,
        default="generic",
        help="with --step: the kind of work your step is, recorded so that `quick --bench` "
        "uses it for that kind (default generic)",
    )
    p.set_defaults(run=run, mode="quick")


def run(ns: argparse.Namespace) -> int:
    # torch warns when numpy is absent; the bench never needs numpy
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    if ns.kind != "generic" and not ns.step:
        raise CostcalcError("--kind describes your own --step; the reference steps have theirs")
    if ns.batch_size is not None and ns.batch_size < 1:
        raise CostcalcError(f"--batch-size must be 1 or more, got {ns.batch_size}")
    if ns.serve and (ns.step or ns.save or ns.batch_size is not None):
        raise CostcalcError(
            "--serve times decoding alone: without --step, --batch-size or --save (its result "
            "is printed, not saved)"
        )
    if importlib.util.find_spec("torch") is None:
        raise CostcalcError("the bench needs PyTorch: pip install 'costcalc[bench]'")

    def progress(message: str, fraction: float) -> None:
        print(f"[{fraction:4.0%}] {message}", file=sys.stderr, flush=True)

    if ns.serve:
        return _serve(ns, progress)
    if ns.step:
        from costcalc.bench.user_step import bench_user_step

        try:
            result = bench_user_step(
                ns.step, ns.device, ns.batch_size, progress, kind=ns.kind, dtype=ns.dtype
            )
        except CostcalcError:
            raise
        except Exception as exc:  # the user's own code failed: say so in one line
            raise CostcalcError(f"your step {ns.step} raised {type(exc).__name__}: {exc}") from exc
    else:
        from costcalc.bench.runner import run as run_bench

        result = run_bench(ns.device, ns.mode, progress, dtype=ns.dtype)
    saved = store.save_result(result) if ns.save else None
    if ns.json:
        print(to_json(result))
    else:
        print(to_text(result))
    if saved is not None:
        print(f"costcalc: saved {saved}", file=sys.stderr)
    return 0


def _serve(ns: argparse.Namespace, progress: Any) -> int:
    from costcalc.bench.decode import run as run_decode
    from costcalc.bench.report import decode_text

    result = run_decode(ns.device, ns.mode, progress)
    print(to_json(result) if ns.json else decode_text(result, output.width()))
    return 0
