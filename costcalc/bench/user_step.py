"""`costcalc bench --step module:function`: your own training step, timed the bench's way.

Rule kept here: the user's function is called, never inspected beyond its signature. With no
parameters it is one training step; with one (the batch size) the bench also fits memory at two
batch sizes and, on a GPU, searches the largest batch that fits.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import cast

from costcalc.bench import batch, probes, workloads
from costcalc.bench import device as dev
from costcalc.bench.runner import Progress
from costcalc.bench.timing import measure
from costcalc.core.bench_results import BenchResult, WorkloadResult
from costcalc.core.errors import CostcalcError
from costcalc.core.memfit import fit_line

DEFAULT_BATCH = 8


def load_step(spec: str) -> Callable[..., object]:
    """'package.module:function' -> the function (the current directory is importable)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise CostcalcError(f"--step wants MODULE:FUNCTION, got {spec!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise CostcalcError(f"cannot import {module_name!r}: {exc}") from exc
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise CostcalcError(f"{module_name!r} has no function {attr!r}")
    return cast("Callable[..., object]", fn)


def takes_batch(fn: Callable[..., object]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in params
    )


def _memory(fn: Callable[[int], object], device: str, size: int) -> float:
    dev.reset_peak_memory(device)
    if device == "cuda":
        fn(size)
        dev.synchronize(device)
        return float(dev.peak_memory_bytes(device) or 0)
    with workloads.saved_activation_bytes() as saved:
        fn(size)
    return float(saved[0])


def bench_user_step(
    spec: str, device: str | None, batch_size: int | None, progress: Progress
) -> BenchResult:
    started = time.perf_counter()
    fn = load_step(spec)
    device = dev.pick_device(device)
    progress("probes", 0.0)
    fp32 = probes.matmul_tflops(device, "fp32", (256, 512) if device == "cpu" else (2048, 4096))
    bandwidth, spread_bw = probes.bandwidth_gbs(device, 128 if device == "cpu" else 512)
    launch_us = probes.launch_overhead_us(device)
    progress(f"your step {spec}", 0.3)
    size = batch_size or DEFAULT_BATCH
    sized = takes_batch(fn)
    spread = measure((lambda: fn(size)) if sized else fn, device, warmup=2, repeats=7)
    a = b = None
    max_batch, method = None, None
    if sized:
        progress("memory fit", 0.7)
        a, b = fit_line(
            max(1, size // 2),
            _memory(fn, device, max(1, size // 2)),
            size,
            _memory(fn, device, size),
        )
        if device != "cpu":
            max_batch, method = batch.find_max_batch(fn, device, size), "search"
    progress("done", 1.0)
    name = spec.rpartition(":")[2]
    return BenchResult(
        created_at=datetime.now(timezone.utc),
        mode="step",
        device=device,
        environment=dev.environment(device),
        matmul_tflops={"fp32": fp32.tflops},
        matmul=(fp32,),
        bandwidth_gbs=bandwidth,
        bandwidth_spread=spread_bw,
        launch_overhead_us=launch_us,
        workloads=(
            WorkloadResult(
                name=name,
                kind="generic",
                dtype="fp32",
                batch_size=size if (sized or batch_size) else 1,
                items_per_s=(size if (sized or batch_size) else 1) / spread.median_s,
                step_s=spread.median_s,
                spread=spread,
                memory_base_bytes=a,
                memory_per_item_bytes=b,
                max_batch=max_batch,
                max_batch_method=method,
            ),
        ),
        duration_s=time.perf_counter() - started,
        warnings=("step times are noisy",) if spread.noisy else (),
    )
