"""The measured busy share (costcalc.core.usage): how samples summed per GPU and day become the
utilisation, its spread and the power under load, and how `--util measured` reads."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from costcalc.core import inputs
from costcalc.core.errors import CostcalcError
from costcalc.core.scenario import validate_scenario
from costcalc.core.usage import (
    GpuDay,
    PowerBin,
    inside_spread,
    is_measured,
    measure,
    weighted_median,
    window_days,
)

START = datetime(2026, 11, 1, tzinfo=timezone.utc)


def day(gpu: str, n: int, busy_h: float, sampled_h: float = 24.0, **kw: object) -> GpuDay:
    first = START + timedelta(days=n)
    return GpuDay(
        gpu=gpu,
        day=n,
        busy_s=busy_h * 3600,
        sampled_s=sampled_h * 3600,
        samples=int(sampled_h * 360),
        first_at=kw.get("first_at", first),  # type: ignore[arg-type]
        last_end_at=kw.get("last_end_at", first + timedelta(days=1)),  # type: ignore[arg-type]
    )


def test_the_busy_share_is_busy_gpu_time_over_the_period() -> None:
    days = [day("box/0", n, busy_h=6) for n in range(28)]  # 6 h of every 24
    use = measure(days, [], START, 28)
    assert use is not None
    assert use.busy_share == pytest.approx(0.25)
    assert use.busy_gpu_h == pytest.approx(6 * 28)
    assert use.period_gpu_h == pytest.approx(24 * 28)
    assert use.coverage == pytest.approx(1.0)
    assert (use.spread_unit, use.spread_count) == ("week", 4)
    assert use.spread_low == use.spread_high == pytest.approx(0.25)


def test_time_without_samples_counts_as_idle_and_lowers_the_coverage() -> None:
    """A machine switched off at night leaves no samples: those hours did no work."""
    days = [day("box/0", n, busy_h=6, sampled_h=12) for n in range(14)]
    use = measure(days, [], START, 14)
    assert use is not None
    assert use.busy_share == pytest.approx(0.25)  # 6 h of the 24, not of the 12 sampled
    assert use.coverage == pytest.approx(0.5)


def test_the_period_starts_at_the_first_sample_not_the_window() -> None:
    """Samples begun 3 days ago in a 30-day window: the 27 days before are not idle days."""
    days = [day("box/0", n, busy_h=12) for n in (27, 28, 29)]
    use = measure(days, [], START, 30)
    assert use is not None
    assert use.busy_share == pytest.approx(0.5)
    assert use.start == START + timedelta(days=27)
    assert use.spread_unit == "day"  # under two weeks: the spread of its days


def test_two_gpus_average_their_gpu_hours() -> None:
    days = [day("box/0", n, busy_h=24) for n in range(7)] + [
        day("box/1", n, busy_h=0) for n in range(7)
    ]
    use = measure(days, [], START, 7)
    assert use is not None
    assert (use.gpus, use.busy_share) == (2, pytest.approx(0.5))


def test_the_weekly_spread_is_the_quietest_and_the_busiest_week() -> None:
    busy_by_week = (1.2, 2.4, 12.0, 6.0)  # hours a day
    days = [day("box/0", w * 7 + d, busy_h=h) for w, h in enumerate(busy_by_week) for d in range(7)]
    use = measure(days, [], START, 28)
    assert use is not None
    assert (use.spread_low, use.spread_high) == (pytest.approx(0.05), pytest.approx(0.5))
    assert inside_spread(use, 0.3) and not inside_spread(use, 0.6)
    assert not inside_spread(use, None)


def test_power_under_load_is_the_median_over_busy_time() -> None:
    bins = [PowerBin(250, 100), PowerBin(300, 300), PowerBin(350, 150)]
    use = measure([day("box/0", 0, busy_h=1)], bins, START, 1)
    assert use is not None and use.load_w == 300
    assert weighted_median([]) is None
    assert weighted_median([(10, 1), (20, 1), (30, 1)]) == 20


def test_no_samples_measure_nothing() -> None:
    assert measure([], [], START, 30) is None


def test_busy_time_past_the_period_is_capped_at_the_period() -> None:
    """Two imports of the same GPU under two names cannot make it busier than all the time."""
    days = [day("box/0", 0, busy_h=24), day("box/0", 0, busy_h=24)]
    use = measure(days, [], START, 1)
    assert use is not None and use.busy_share == 1.0


@pytest.mark.parametrize(
    ("text", "days"), [("measured", 30), ("measured:7d", 7), ("MEASURED:400d", 400)]
)
def test_the_window_a_measured_utilisation_names(text: str, days: int) -> None:
    assert window_days(text) == days


@pytest.mark.parametrize("text", ["measured:0d", "measured:401d", "measured:7", "measure"])
def test_a_window_out_of_range_or_misspelt_is_one_line(text: str) -> None:
    with pytest.raises(CostcalcError, match="utilisation"):
        window_days(text)


def test_util_reads_measured_as_a_word_and_everything_else_as_before() -> None:
    util = inputs.BY_FIELD["utilisation"]
    assert util.parse("measured") == "measured"
    assert util.parse(" Measured:14d ") == "measured:14d"
    assert util.parse("15%") == pytest.approx(0.15)
    assert util.show("measured:14d") == "measured:14d"
    with pytest.raises(CostcalcError, match="or measured"):
        util.parse("mesured")
    with pytest.raises(CostcalcError) as bad:
        util.parse("1.5")
    assert "measured" not in str(bad.value)  # a number's message stays the number's


def test_the_scenario_keeps_measured_and_refuses_other_words() -> None:
    assert validate_scenario({"utilisation": "measured:7d"}).utilisation == "measured:7d"
    assert is_measured("measured") and not is_measured(0.15)
    with pytest.raises(CostcalcError, match="utilisation"):
        validate_scenario({"utilisation": "sometimes"})
