"""How big a batch fits: measured memory at two batch sizes, and the grow-then-bisect search.

Rule kept here: an out-of-memory error is an answer, not a failure: it is caught, caches are
freed, and the search narrows. Memory is linear in the batch: memory = a + b x batch, measured
as a step's peak at two batches (costcalc.core.memory.JobMemory: the fixed part and the part per
item that --target-batch max sizes every GPU's batch from).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from costcalc.bench import device as dev
from costcalc.bench import workloads
from costcalc.bench.device import empty_cache, is_out_of_memory
from costcalc.core.memory import JobMemory, from_two_batches


def memory_at(run: Callable[[int], object], device: str, size: int, static_bytes: int) -> float:
    """Peak bytes of one step at `size`: the allocator's peak on CUDA, else the weights and
    optimizer state plus the tensors autograd saved."""
    dev.reset_peak_memory(device)
    if device == "cuda":
        run(size)
        dev.synchronize(device)
        return float(dev.peak_memory_bytes(device) or 0)
    with workloads.saved_activation_bytes() as saved:
        run(size)
    return float(static_bytes + saved[0])


def memory_fit(
    run: Callable[[int], object], device: str, small: int, large: int, static_bytes: int = 0
) -> JobMemory:
    """The job's memory from its peak at two batches: a fixed part (weights, gradients,
    optimizer state, workspace) and a part per item."""
    at_small = memory_at(run, device, small, static_bytes)
    at_large = memory_at(run, device, large, static_bytes)
    return from_two_batches(small, at_small / 1e9, large, at_large / 1e9, "bench")


def fits(run: Callable[[int], object], batch: int, device: str) -> bool:
    """Whether one step at `batch` runs; an out-of-memory error means no."""
    try:
        run(batch)
    except Exception as exc:
        if not is_out_of_memory(exc):
            raise
        return False
    finally:
        gc.collect()
        empty_cache(device)
    return True


def find_max_batch(
    run: Callable[[int], object], device: str, start: int = 1, limit: int = 65536
) -> int:
    """Largest batch for which `run(batch)` does not run out of memory (0 when 1 does not fit).

    Doubles from `start` until a step fails or `limit` is reached, then bisects the last gap.
    """
    if not fits(run, start, device):
        return 0 if start == 1 else find_max_batch(run, device, 1, start - 1)
    good, bad = start, None
    while bad is None and good < limit:
        trial = min(good * 2, limit)
        if fits(run, trial, device):
            good = trial
        else:
            bad = trial
    if bad is None:
        return good
    while bad - good > 1:
        mid = (good + bad) // 2
        if fits(run, mid, device):
            good = mid
        else:
            bad = mid
    return good
