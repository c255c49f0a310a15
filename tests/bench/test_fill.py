"""Filling the device: the batch grows until throughput stops rising, memory runs out, the
mode's largest batch or the time budget.

The steps are real callables timed by the bench's own clock: they sleep for a time that is a
known function of the batch, so the plateau is where the test puts it. Sleeps are never short
and are late only on a loaded machine, so each step's time is made to differ from the next by
far more than the 5 % the rule looks for. The one fault simulated is CUDA's out-of-memory error
(there is no GPU here), as tests/bench/test_batch.py does.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench.fill import fill
from costcalc.core.errors import CostcalcError


def sleeping(seconds_at: Callable[[int], float], oom_above: int = 1 << 30):  # type: ignore[no-untyped-def]
    def step_for(batch: int) -> Callable[[], None]:
        def step() -> None:
            if batch > oom_above:
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 8 GiB")
            time.sleep(seconds_at(batch))

        return step

    return step_for


def launch_bound_to(knee: int) -> Callable[[int], float]:
    """10 ms a step up to `knee` items (fixed cost: throughput doubles with the batch), then
    growing as the cube of the batch (throughput falls): the plateau is at `knee`."""
    return lambda batch: 0.01 * max(1.0, batch / knee) ** 3


def test_the_batch_grows_until_throughput_stops_rising() -> None:
    filled = fill(sleeping(launch_bound_to(8)), "cpu", start=1, largest=1024, budget_s=60)
    assert filled.sized_by == "plateau" and filled.batch_size == 8
    assert [p.batch_size for p in filled.sizes] == [1, 2, 4, 8, 16]
    assert all(p.items_per_s > 0 for p in filled.sizes)


def test_running_out_of_memory_ends_the_growth_at_the_last_batch_that_fit() -> None:
    step_for = sleeping(lambda batch: 0.005, oom_above=16)
    filled = fill(step_for, "cpu", start=2, largest=1024, budget_s=60)
    assert (filled.sized_by, filled.batch_size) == ("memory", 16)
    assert filled.sizes[-1].batch_size == 32 and filled.sizes[-1].items_per_s == 0


def test_the_largest_batch_of_the_mode_ends_it() -> None:
    filled = fill(sleeping(lambda batch: 0.005), "cpu", start=1, largest=4, budget_s=60)
    assert (filled.sized_by, filled.batch_size) == ("limit", 4)


def test_the_time_budget_ends_it_and_says_so() -> None:
    ticks = iter(range(0, 10_000, 100))  # a clock that jumps 100 s a reading
    filled = fill(
        sleeping(lambda batch: 0.005), "cpu", 1, 1024, budget_s=30, clock=lambda: next(ticks)
    )
    assert (filled.sized_by, filled.batch_size) == ("time budget", 1)


def test_a_start_that_does_not_fit_is_a_one_line_error() -> None:
    with pytest.raises(CostcalcError, match="one step at batch 4 runs out of memory"):
        fill(sleeping(lambda batch: 0.001, oom_above=2), "cpu", 4, 64, budget_s=5)
