"""Careful timing of a callable on a device: warm-up, synchronisation, median of repeats.

Rule kept here: one device-agnostic path. On CUDA and MPS the device's own events bracket the
work (kernels run asynchronously); elsewhere the wall clock after a synchronise does.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
from msgspec import Struct

from costcalc.bench.device import synchronize
from costcalc.core.bench_results import Spread

NOISY_CV = 0.10
"""Repeats whose coefficient of variation exceeds this are flagged as noisy."""


class StepTiming(Struct, frozen=True):
    """A user's step timed the careful way."""

    step_s: float
    items_per_s: float | None
    spread: Spread


def spread_of(samples: list[float]) -> Spread:
    ordered = sorted(samples)
    median = statistics.median(ordered)
    if len(ordered) >= 4:
        q = statistics.quantiles(ordered, n=4)
        iqr = q[2] - q[0]
    else:
        iqr = ordered[-1] - ordered[0]
    mean = statistics.fmean(ordered)
    cv = statistics.stdev(ordered) / mean if len(ordered) > 1 and mean > 0 else 0.0
    return Spread(median_s=median, iqr_s=iqr, cv=cv, repeats=len(ordered), noisy=cv > NOISY_CV)


def _event_class(device: str) -> Any:
    if device == "cuda":
        return torch.cuda.Event
    if device == "mps":
        return torch.mps.event.Event
    return None


def _one(fn: Callable[[], object], device: str, inner: int) -> float:
    """Seconds per call of `fn`, over `inner` back-to-back calls."""
    event = _event_class(device)
    synchronize(device)
    if event is not None:
        start, end = event(enable_timing=True), event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        synchronize(device)
        return float(start.elapsed_time(end)) / 1000 / inner
    begin = time.perf_counter()
    for _ in range(inner):
        fn()
    synchronize(device)
    return (time.perf_counter() - begin) / inner


def measure(
    fn: Callable[[], object],
    device: str = "cpu",
    *,
    warmup: int = 2,
    repeats: int = 7,
    min_repeat_s: float = 0.0,
) -> Spread:
    """Median seconds per call of `fn` after `warmup` calls, with the spread of `repeats`.

    Calls too short for the clock are batched: each repeat runs the call enough times to last
    at least `min_repeat_s`.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    for _ in range(warmup):
        fn()
    inner = 1
    if min_repeat_s > 0:
        first = _one(fn, device, 1)
        inner = max(1, min(10_000, int(min_repeat_s / max(first, 1e-9))))
    return spread_of([_one(fn, device, inner) for _ in range(repeats)])


def time_step(
    step: Callable[[], object],
    *,
    device: str = "cpu",
    items_per_step: int | None = None,
    warmup: int = 2,
    repeats: int = 7,
) -> StepTiming:
    """Time one training step of your own (a callable doing forward, backward, optimizer step).

    >>> timing = time_step(lambda: train_one_batch(), device="cuda", items_per_step=64)
    >>> timing.step_s, timing.items_per_s, timing.spread.noisy
    """
    spread = measure(step, device, warmup=warmup, repeats=repeats)
    rate = items_per_step / spread.median_s if items_per_step and spread.median_s > 0 else None
    return StepTiming(step_s=spread.median_s, items_per_s=rate, spread=spread)
