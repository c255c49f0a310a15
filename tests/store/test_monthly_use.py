"""`--profile measured`: the hybrid plan's year from the busy share of each of the last twelve
months in the monitor's history (real SQLite, the real CLI in the test's process).

The history holds hourly samples: January to March 2026 busy one hour in two, June one hour in
ten, the other months none. Read on 2026-11-28, the twelve months run from December 2025 to
November 2026: January to March measure 50 %, June 10 %, and the eight months without samples
take the mean of those four, (3 x 0.5 + 0.1) / 4 = 40 %. A month's hours are its share x 730.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from costcalc.cli import main
from costcalc.core.hybrid import measured_profile
from costcalc.core.usage import month_spans
from costcalc.store import usage
from tests.cli_run import run

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)
RTX3090 = "NVIDIA GeForce RTX 3090"
HYBRID = ["quick", "--gpu", "rtx3090", "--hybrid", "--profile", "measured"]


def hourly(first: datetime, last: datetime, busy_every: int) -> list[usage.Sample]:
    """A sample each hour from `first` up to `last`, busy (95 %) one hour in `busy_every`."""
    samples = []
    at, hour = first, 0
    while at < last:
        util = 95.0 if hour % busy_every == 0 else 0.0
        samples.append(usage.Sample("desk", "GPU-a", RTX3090, "nvml", at, 3600.0, util))
        at += timedelta(hours=1)
        hour += 1
    return samples


def month(year: int, number: int) -> tuple[datetime, datetime]:
    first = datetime(year, number, 1, tzinfo=timezone.utc)
    after = datetime(year + number // 12, number % 12 + 1, 1, tzinfo=timezone.utc)
    return first, after


@pytest.fixture
def history(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSTCALC_NOW", NOW.isoformat())
    samples = []
    for number in (1, 2, 3):
        samples += hourly(*month(2026, number), busy_every=2)
    samples += hourly(*month(2026, 6), busy_every=10)
    assert usage.record(samples) == len(samples)


def test_the_last_twelve_months_end_with_the_current_one_cut_at_now() -> None:
    spans = month_spans(NOW)
    assert [s.strftime("%Y-%m") for s, _ in spans] == [
        "2025-12",
        *(f"2026-{m:02d}" for m in range(1, 12)),
    ]
    assert spans[-1][1] == NOW and spans[0][1] == spans[1][0]
    january = month_spans(datetime(2026, 1, 3, tzinfo=timezone.utc))
    assert january[0][0] == datetime(2025, 2, 1, tzinfo=timezone.utc)


def test_each_month_is_measured_on_its_own(history: None) -> None:
    found = usage.monthly_use(NOW)
    assert found.shares[0:3] == pytest.approx([0.5, 0.5, 0.5])
    assert found.shares[5] == pytest.approx(0.1)
    assert [i for i, s in enumerate(found.shares) if s is None] == [3, 4, 6, 7, 8, 9, 10, 11]
    assert found.gpus == 1 and found.start == datetime(2025, 12, 1, tzinfo=timezone.utc)


def test_months_without_samples_take_the_mean_and_the_source_says_so(history: None) -> None:
    profile = measured_profile(usage.monthly_use(NOW))
    assert profile.hours == pytest.approx(
        [365.0, 365.0, 365.0, 292.0, 292.0, 73.0, 292.0, 292.0, 292.0, 292.0, 292.0, 292.0]
    )
    assert "samples in 4 of the 12 months (jan, feb, mar, jun)" in profile.source
    assert "the other 8 at their mean, 40% busy" in profile.source


def test_quick_plans_on_the_measured_months(
    history: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*HYBRID, "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)["hybrid"]
    assert plan["profile_hours"] == pytest.approx(
        [365.0, 365.0, 365.0, 292.0, 292.0, 73.0, 292.0, 292.0, 292.0, 292.0, 292.0, 292.0]
    )
    assert plan["profile_source"].startswith("measured: the GPU's busy share each month")
    code, out, _ = run(HYBRID, capsys)
    assert code == 0
    assert "measured: the GPU's busy share" in out.replace("\n", " ")


def test_quick_without_a_history_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COSTCALC_NOW", NOW.isoformat())
    code, out, err = run(HYBRID, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("costcalc: error: profile 'measured': no GPU samples")
    assert "costcalc monitor" in lines[0]
