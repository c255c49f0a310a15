"""The timing harness measures steps of known duration correctly."""

from __future__ import annotations

import time

import pytest

from costcalc.bench import time_step
from costcalc.bench.timing import measure, spread_of


def test_a_20ms_step_measures_20ms() -> None:
    timing = time_step(lambda: time.sleep(0.020), items_per_step=10, warmup=1, repeats=5)
    assert timing.step_s == pytest.approx(0.020, abs=0.004)
    assert timing.items_per_s == pytest.approx(10 / timing.step_s)
    assert timing.spread.repeats == 5


def test_short_calls_are_batched_to_beat_clock_resolution() -> None:
    spread = measure(lambda: time.sleep(0.001), "cpu", warmup=1, repeats=3, min_repeat_s=0.02)
    assert spread.median_s == pytest.approx(0.001, abs=0.0006)


def test_wide_spread_is_flagged_noisy() -> None:
    assert spread_of([1.0, 1.0, 2.0, 1.0]).noisy
    steady = spread_of([1.0, 1.01, 0.99, 1.0])
    assert not steady.noisy and steady.median_s == 1.0 and steady.iqr_s < 0.02
