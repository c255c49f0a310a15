"""Local PyTorch micro-benchmark: what this machine does, measured carefully.

Rule kept here: importing this package never imports torch. `run_bench` and `time_step` import
it when called, so `costcalc quick` and the TUI can load saved results (costcalc.core.bench_results)
for free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from costcalc.bench.timing import StepTiming
    from costcalc.core.bench_results import BenchResult

__all__ = ["run_bench", "time_step"]


def run_bench(
    device: str | None = None,
    mode: Literal["quick", "full", "tiny"] = "quick",
    progress: Callable[[str, float], None] | None = None,
) -> BenchResult:
    """Run the bench on `device` (None: CUDA, then MPS, then the CPU) and return its result.

    `progress(message, fraction)` is called as each probe starts; safe to call from a worker
    thread (it only calls back, it never touches a UI).
    """
    from costcalc.bench.runner import run

    return run(device, mode, progress)


def time_step(
    step: Callable[[], object],
    *,
    device: str = "cpu",
    items_per_step: int | None = None,
    warmup: int = 2,
    repeats: int = 7,
) -> StepTiming:
    """Time your own training step (forward, backward, optimizer step) the careful way."""
    from costcalc.bench.timing import time_step as timed

    return timed(step, device=device, items_per_step=items_per_step, warmup=warmup, repeats=repeats)
