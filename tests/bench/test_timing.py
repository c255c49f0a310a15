"""The timing harness measures steps of known duration correctly."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench import time_step
from costcalc.bench.timing import measure, spread_of

# A sleep never returns early but may return late on a busy machine: these tests bound the
# measurement below by the sleep and above by a margin that a loaded 2-core machine stays under.


def test_a_20ms_step_measures_20ms() -> None:
    timing = time_step(lambda: time.sleep(0.020), items_per_step=10, warmup=1, repeats=5)
    assert 0.020 <= timing.step_s < 0.060
    assert timing.items_per_s == pytest.approx(10 / timing.step_s)
    assert timing.spread.repeats == 5


def test_short_calls_are_batched_to_beat_clock_resolution() -> None:
    calls = 0

    def step() -> None:
        nonlocal calls
        calls += 1
        time.sleep(0.001)

    spread = measure(step, "cpu", warmup=1, repeats=3, min_repeat_s=0.02)
    # per call, not per batch: a batch lasts at least min_repeat_s (20 ms) by construction
    assert 0.001 <= spread.median_s < 0.020
    assert calls >= 3 * 4  # each repeat ran several calls to last at least 20 ms


def test_wide_spread_is_flagged_noisy() -> None:
    assert spread_of([1.0, 1.0, 2.0, 1.0]).noisy
    steady = spread_of([1.0, 1.01, 0.99, 1.0])
    assert not steady.noisy and steady.median_s == 1.0 and steady.iqr_s < 0.02
