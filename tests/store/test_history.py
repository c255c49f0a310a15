"""Price history in SQLite: append-only, WAL, one transaction per refresh; sparklines and JSON."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from msgspec.structs import replace

from costcalc.cli import main
from costcalc.core.models import CloudOffer
from costcalc.edge import locations
from costcalc.store import history

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


def offer(
    name: str, usd: float, when: datetime, region: str = "us-test-1", gpu: str = "t4"
) -> CloudOffer:
    """An observation in a region no bundled snapshot has, so the bundled prices (which the
    history command also shows) stay out of these series."""
    return CloudOffer(
        provider="aws-spot",
        name=name,
        region=region,
        gpu=gpu,
        usd_per_hour=usd,
        spot=True,
        fetched_at=when,
        source="test",
    )


def test_record_and_query_keep_every_observation_in_time_order() -> None:
    for hours, usd in ((0, 0.20), (6, 0.25), (12, 0.22)):
        when = T0 + timedelta(hours=hours)
        history.record(
            [
                offer("g4dn.xlarge", usd, when),
                offer("p3.2xlarge", 1.0 + hours, when, gpu="v100_sxm2_16gb"),
            ],
            when,
        )
    series = history.query(gpu="t4")
    assert len(series) == 1
    assert [p.usd_per_hour for p in series[0].points] == [0.20, 0.25, 0.22]
    assert [p.fetched_at for p in series[0].points] == [
        T0,
        T0 + timedelta(hours=6),
        T0 + timedelta(hours=12),
    ]
    assert {s.name for s in history.query()} == {"g4dn.xlarge", "p3.2xlarge"}
    assert history.query(region="eu-west-1") == []
    assert history.record([offer("g4dn.xlarge", 0.20, T0)], T0) == 0  # recorded once only


def test_database_runs_in_wal_mode() -> None:
    history.record([offer("g4dn.xlarge", 0.2, T0)], T0)
    with sqlite3.connect(locations.history_db()) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_failed_refresh_write_leaves_no_partial_rows() -> None:
    history.record([offer("g4dn.xlarge", 0.2, T0)], T0)

    good = offer("g5.xlarge", 0.4, T0)
    unbindable = replace(offer("g6.xlarge", 0.3, T0), usd_per_hour=object())
    with pytest.raises(history.HistoryError):
        history.record([good, unbindable], T0 + timedelta(hours=1))
    assert {s.name for s in history.query()} == {"g4dn.xlarge"}  # nothing of the failed refresh


def test_no_database_means_no_history_and_no_file_created() -> None:
    assert history.query() == []
    assert not locations.history_db().exists()


def test_corrupt_database_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    locations.history_db().parent.mkdir(parents=True)
    locations.history_db().write_bytes(b"this is not sqlite" * 100)
    assert main(["history"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "price history unusable" in err


@pytest.mark.parametrize(
    ("values", "line"),
    [([1, 2, 3, 4, 5, 6, 7, 8], "▁▂▃▄▅▆▇█"), ([2.0, 2.0, 2.0], "▄▄▄"), ([5, 1], "█▁"), ([], "")],
)
def test_sparkline(values: list[float], line: str) -> None:
    assert history.sparkline(values) == line


def test_history_command_shows_a_sparkline_per_offer(capsys: pytest.CaptureFixture[str]) -> None:
    for hours, usd in ((0, 0.20), (6, 0.30), (12, 0.25)):
        history.record(
            [offer("g4dn.xlarge", usd, T0 + timedelta(hours=hours))], T0 + timedelta(hours=hours)
        )
    assert main(["history", "--gpu", "T4", "--wide"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    titles = re.split(r"\s{2,}", header.strip())
    assert titles == [
        "provider", "offer", "region", "GPU", "trend", "$/h", "low", "high", "points", "observed"
    ]  # fmt: skip
    (row,) = [re.split(r"\s{2,}", r.strip()) for r in rows if "us-test-1" in r]
    assert row == [  # one number of decimals down the whole $/h, low and high columns
        "aws-spot", "g4dn.xlarge", "us-test-1", "T4", "▁█▅", "0.25", "0.20", "0.30", "3",
        "2026-11-01 .. 2026-11-02",
    ]  # fmt: skip
    assert main(["history", "--gpu", "T4"]) == 0  # 80 columns: the offer, its price, its trend
    header, *rows = capsys.readouterr().out.splitlines()
    (row,) = [r for r in rows if "us-test-1" in r]
    assert row.startswith("aws-spot") and "▁█▅" in row and " 0.25" in row
    assert len(header) <= 80 and all(len(r) <= 80 for r in rows)
    assert any(r.strip().startswith("--wide shows") for r in rows[-3:])


def test_the_trend_shows_the_latest_prices_and_wide_shows_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    prices = [0.10 + 0.01 * (i % 8) for i in range(40)]
    for i, usd in enumerate(prices):
        when = T0 + timedelta(hours=i)
        history.record([offer("g4dn.xlarge", usd, when)], when)
    assert main(["history", "--gpu", "T4", "--region", "us-test-1", "--wide"]) == 0
    everything = capsys.readouterr().out
    assert history.sparkline(prices) in everything
    assert main(["history", "--gpu", "T4", "--region", "us-test-1"]) == 0
    latest = capsys.readouterr().out
    assert history.sparkline(prices[-30:]) in latest
    assert history.sparkline(prices) not in latest


def test_history_json_points(capsys: pytest.CaptureFixture[str]) -> None:
    history.record([offer("g4dn.xlarge", 0.2, T0)], T0)
    history.record([offer("g4dn.xlarge", 0.3, T0 + timedelta(hours=1))], T0 + timedelta(hours=1))
    assert main(["history", "--json", "--provider", "aws-spot", "--region", "us-test-1"]) == 0
    (series,) = json.loads(capsys.readouterr().out)
    assert series["points"] == [
        {"fetched_at": "2026-11-01T12:00:00+00:00", "usd_per_hour": 0.2},
        {"fetched_at": "2026-11-01T13:00:00+00:00", "usd_per_hour": 0.3},
    ]


def test_history_starts_from_the_bundled_prices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--json", "--provider", "paperspace"]) == 0
    series = json.loads(capsys.readouterr().out)
    assert series and all(len(s["points"]) == 1 for s in series)
    a6000 = next(s for s in series if s["name"] == "A6000" and s["region"] == "NY2")
    assert a6000["points"][0]["usd_per_hour"] == 1.89
    assert not locations.history_db().exists()  # reading never writes


def test_a_filter_that_matches_nothing_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--region", "nowhere-9"]) == 0
    assert "no price history matches" in capsys.readouterr().err


def test_unknown_gpu_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--gpu", "voodoo5"]) == 2
    assert "unknown GPU" in capsys.readouterr().err
