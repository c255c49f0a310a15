"""Filling the device: the batch grows until throughput stops rising, memory runs out, the
mode's largest batch or the time budget.

The steps are real callables timed by the bench's own timing code, on a virtual clock: a step
advances it by a known function of the batch, so the plateau is where the test puts it, on a
quiet machine or a loaded one (real sleeps ran late under load and moved it). The one fault
simulated is CUDA's out-of-memory error (there is no GPU here), as tests/bench/test_batch.py
does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench.fill import fill
from costcalc.core.errors import CostcalcError


class VirtualTime:
    """What costcalc.bench.timing reads the time from, advanced only by the steps."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def virtual_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualTime]:
    from costcalc.bench import timing

    clock = VirtualTime()
    monkeypatch.setattr(timing, "time", clock)
    CLOCKS.append(clock)
    yield clock
    CLOCKS.pop()


CLOCKS: list[VirtualTime] = []


def sleeping(seconds_at: Callable[[int], float], oom_above: int = 1 << 30):  # type: ignore[no-untyped-def]
    def step_for(batch: int) -> Callable[[], None]:
        def step() -> None:
            if batch > oom_above:
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 8 GiB")
            CLOCKS[-1].now += seconds_at(batch)

        return step

    return step_for


def launch_bound_to(knee: int) -> Callable[[int], float]:
    """10 ms a step up to `knee` items (fixed cost: throughput doubles with the batch), then
    growing as the cube of the batch (throughput falls): the plateau is at `knee`."""
    return lambda batch: 0.01 * max(1.0, batch / knee) ** 3


def test_the_batch_grows_until_throughput_stops_rising() -> None:
    filled = fill(
        sleeping(launch_bound_to(8)),
        "cpu",
        start=1,
        largest=1024,
        budget_s=60,
        clock=CLOCKS[-1].perf_counter,
    )
    assert filled.sized_by == "plateau" and filled.batch_size == 8
    assert [p.batch_size for p in filled.sizes] == [1, 2, 4, 8, 16]
    assert all(p.items_per_s > 0 for p in filled.sizes)


def test_running_out_of_memory_ends_the_growth_at_the_last_batch_that_fit() -> None:
    step_for = sleeping(lambda batch: 0.005, oom_above=16)
    filled = fill(
        step_for, "cpu", start=2, largest=1024, budget_s=60, clock=CLOCKS[-1].perf_counter
    )
    assert (filled.sized_by, filled.batch_size) == ("memory", 16)
    assert filled.sizes[-1].batch_size == 32 and filled.sizes[-1].items_per_s == 0


def test_the_largest_batch_of_the_mode_ends_it() -> None:
    filled = fill(
        sleeping(lambda batch: 0.005),
        "cpu",
        start=1,
        largest=4,
        budget_s=60,
        clock=CLOCKS[-1].perf_counter,
    )
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
