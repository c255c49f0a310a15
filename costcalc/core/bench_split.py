"""Where a measured training step's time goes: math, launches, and the rest (memory).

Rule kept here: pure arithmetic on what the bench measured, shared by the bench (which records
the split) and the tests (which build benches from published figures without torch).

- Math: the step's FLOPs (PyTorch's counter) at the device's measured matmul rate for the step's
  precision: the time it would take at the best rate the device reaches.
- Launches: time that does not grow with the batch. Two measurements bound it from above and
  the smaller is kept: the host's time to issue the step's kernels (kernels x launch overhead,
  all of it exposed only when the device waits for the host; on a GPU that is busy the launches
  overlap its work), and the fixed part of the step time read off the batch sweep (a step of
  F + b x c seconds: doubling b from a size near the plateau leaves F = 2 t(b) - t(2b)).
- Memory and element-wise work: the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from costcalc.core.bench_results import SizePoint
from costcalc.core.models import StepProfile


def fixed_step_s(sizes: Sequence[SizePoint], batch: int) -> float | None:
    """Seconds of a step at `batch` that do not grow with the batch, from the sweep's point at
    `batch` and the next larger one that ran (None without both)."""
    here = next((p for p in sizes if p.batch_size == batch and p.items_per_s > 0), None)
    larger = [p for p in sizes if p.batch_size > batch and p.items_per_s > 0]
    if here is None or not larger:
        return None
    bigger = min(larger, key=lambda p: p.batch_size)
    t_here, t_bigger = batch / here.items_per_s, bigger.batch_size / bigger.items_per_s
    ratio = bigger.batch_size / batch
    # t = F + b c at both sizes: F = (ratio x t_here - t_bigger) / (ratio - 1)
    return max((ratio * t_here - t_bigger) / (ratio - 1), 0.0)


def split_of(
    flops_per_step: float,
    step_s: float,
    tflops: float,
    kernels: int,
    launch_us: float,
    fixed_s: float | None = None,
) -> StepProfile:
    """Shares of one step: math at the measured matmul rate, launches, and the rest (memory)."""
    compute = min(flops_per_step / (tflops * 1e12) / step_s, 1.0) if tflops > 0 else 0.0
    launches_s = kernels * launch_us / 1e6
    if fixed_s is not None:
        launches_s = min(launches_s, fixed_s)
    overhead = min(launches_s / step_s, 1.0 - compute)
    return StepProfile(
        compute_share=compute,
        memory_share=max(1.0 - compute - overhead, 0.0),
        overhead_share=overhead,
    )
