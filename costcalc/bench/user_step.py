"""`costcalc bench --step module:function`: your own training step, timed the bench's way.

Rule kept here: the user's function is called, never inspected beyond its signature and what it
dispatches. With no parameters it is one training step; with one (the batch size) the bench also
fits memory at two batch sizes and, on a GPU, searches the largest batch that fits. What it runs
is recorded as it is: the kind the user names, the precision they name or the one its matmuls
ran in (autocast is seen in their outputs), its own optimizer, its watts and its time split.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, cast

from msgspec import Struct

from costcalc.bench import batch, probes, workloads
from costcalc.bench import device as dev
from costcalc.bench.batch import memory_fit
from costcalc.bench.power import PowerMeter, open_nvml
from costcalc.bench.runner import Progress
from costcalc.bench.timing import measure
from costcalc.core.bench_results import BenchResult, MatmulProbe, WorkloadResult
from costcalc.core.bench_split import split_of
from costcalc.core.constants import Kind
from costcalc.core.errors import CostcalcError
from costcalc.core.predict import precision_class

DEFAULT_BATCH = 8
STEP_POWER_WINDOW_S = 5.0
"""Your step runs back to back this long while its watts are metered (GPU only)."""


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


class Precision(Struct, frozen=True):
    dtype: str
    source: Literal["given", "detected"]
    warning: str | None = None


def precision(asked: str, seen: str | None, device: str) -> Precision:
    """The dtype to record: the one asked for, else the one the step's matmuls ran in (an
    autocast region shows as fp16 or bf16 outputs; fp32 matmuls with TF32 allowed are tf32)."""
    if seen == "fp32" and device == "cuda" and probes.tf32_allowed():
        seen = "tf32"
    if asked != "auto":
        differs = seen is not None and precision_class(seen) != precision_class(asked)
        warning = (
            f"you said --dtype {asked}, but the step's matmuls ran in {seen}" if differs else None
        )
        return Precision(asked, "given", warning)
    return Precision(seen or "fp32", "detected")


def bench_user_step(
    spec: str,
    device: str | None,
    batch_size: int | None,
    progress: Progress,
    kind: str = "generic",
    dtype: str = "auto",
) -> BenchResult:
    started = time.perf_counter()
    fn = load_step(spec)
    device = dev.pick_device(device)
    size = batch_size or DEFAULT_BATCH
    sized = takes_batch(fn)
    step: Callable[[], object] = (lambda: fn(size)) if sized else fn
    progress(f"your step {spec}: what it runs", 0.0)
    ops = workloads.ops_of(step)  # also its first (warm-up) call
    chosen = precision(dtype, ops.math_dtype, device)
    flops = ops.flops
    progress("probes", 0.15)
    meter = PowerMeter(open_nvml() if device == "cuda" else None)
    idle_w = meter.idle_w()
    tflops = _matmul_tflops(device, chosen.dtype)
    bandwidth, spread_bw = probes.bandwidth_gbs(device, 128 if device == "cpu" else 512)
    launch_us = probes.launch_overhead_us(device)
    progress(f"your step {spec}: timing", 0.3)
    spread = measure(step, device, warmup=1, repeats=7)
    power = meter.reading(step, lambda: dev.synchronize(device), STEP_POWER_WINDOW_S, idle_w)
    meter.close()
    a = b = None
    max_batch, method = None, None
    if sized:
        progress("memory fit", 0.7)
        found = memory_fit(fn, device, max(1, size // 2), max(size, 2))
        a, b = found.fixed_gb * 1e9, found.per_item_gb * 1e9
        if device != "cpu":
            max_batch, method = batch.find_max_batch(fn, device, size), "search"
    progress("done", 1.0)
    items = size if (sized or batch_size) else 1
    warnings = [w for w in (chosen.warning,) if w]
    warnings += ["step times are noisy"] if spread.noisy else []
    return BenchResult(
        created_at=datetime.now(timezone.utc),
        mode="step",
        device=device,
        environment=dev.environment(device),
        matmul_tflops={chosen.dtype: tflops.tflops},
        matmul=(tflops,),
        bandwidth_gbs=bandwidth,
        bandwidth_spread=spread_bw,
        launch_overhead_us=launch_us,
        workloads=(
            WorkloadResult(
                name=spec.rpartition(":")[2],
                kind=cast("Kind", kind),
                dtype=chosen.dtype,
                description=f"your own step ({spec}): its model, loss and optimizer",
                dtype_source=chosen.source,
                batch_size=items,
                sized_by="given",
                items_per_s=items / spread.median_s,
                step_s=spread.median_s,
                spread=spread,
                flops_per_item=flops / items,
                kernels_per_step=ops.kernels,
                memory_base_bytes=a,
                memory_per_item_bytes=b,
                max_batch=max_batch,
                max_batch_method=method,
                profile=split_of(flops, spread.median_s, tflops.tflops, ops.kernels, launch_us),
                power=power,
            ),
        ),
        power_w=power.load_w if power else None,
        idle_w=idle_w,
        energy_j=power.load_w * power.window_s if power else None,
        duration_s=time.perf_counter() - started,
        warnings=tuple(warnings),
    )


def _matmul_tflops(device: str, dtype: str) -> MatmulProbe:
    """The matmul rate of the step's own precision (where the device has it), which its math
    share is measured against."""
    dtype = dtype if dtype in probes.supported_dtypes(device) else "fp32"
    sizes = (256, 512) if device == "cpu" else (2048, 4096)
    return probes.matmul_tflops(device, dtype, sizes)
