"""Filling the device: grow a workload's batch until its throughput stops rising.

Rule kept here: a step measured at a size too small for the device measures launches, not the
GPU (on an H100 the old reference CNN at batch 64 spent 35 % of its step launching kernels and
drew 183 W; at batch 1,024 it was within 5 % of its plateau). The batch doubles while a doubling
still gains more than PLATEAU_GAIN; an out-of-memory error or the mode's largest batch also ends
it, and so does the time budget, which is then said (a budget stop is not a filled device).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from msgspec import Struct

from costcalc.bench.device import empty_cache, is_out_of_memory
from costcalc.bench.timing import measure
from costcalc.core.bench_results import SizedBy, SizePoint, Spread
from costcalc.core.errors import CostcalcError

PLATEAU_GAIN = 1.05
"""A doubling that adds less than 5 % items/s means the device is full."""


class Filled(Struct, frozen=True):
    batch_size: int
    sized_by: SizedBy
    sizes: tuple[SizePoint, ...]
    spread: Spread
    """The timing at `batch_size` (one warm-up, median of three), so a quick bench need not
    time it again."""


def timed_at(
    step_for: Callable[[int], Callable[[], object]], batch: int, device: str
) -> Spread | None:
    """A short measurement at `batch` (one warm-up, median of three); None when the batch runs
    out of memory."""
    try:
        return measure(step_for(batch), device, warmup=1, repeats=3)
    except Exception as exc:
        if not is_out_of_memory(exc):
            raise
        return None
    finally:
        gc.collect()
        empty_cache(device)


def fill(
    step_for: Callable[[int], Callable[[], object]],
    device: str,
    start: int,
    largest: int,
    budget_s: float,
    clock: Callable[[], float] = time.perf_counter,
) -> Filled:
    """The batch at which throughput stops rising, and why the search stopped there."""
    started = clock()
    first = timed_at(step_for, start, device)
    if first is None:
        raise CostcalcError(f"one step at batch {start} runs out of memory on {device}")
    batch, spread = start, first
    sizes = [SizePoint(batch_size=batch, items_per_s=batch / spread.median_s)]
    why: SizedBy | None = None
    while why is None:
        if batch * 2 > largest:
            why = "limit"
        # the next size runs 4 steps (a warm-up and three timed) of about twice this one's time
        elif clock() - started + 4 * 2 * spread.median_s > budget_s:
            why = "time budget"
        else:
            bigger = timed_at(step_for, batch * 2, device)
            rate = 2 * batch / bigger.median_s if bigger is not None else 0.0
            sizes.append(SizePoint(batch_size=batch * 2, items_per_s=rate))
            if bigger is None:
                why = "memory"
            elif rate < sizes[-2].items_per_s * PLATEAU_GAIN:
                why = "plateau"
            else:
                batch, spread = batch * 2, bigger
    return Filled(batch, why, tuple(sizes), spread)
