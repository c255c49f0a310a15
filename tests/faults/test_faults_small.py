"""The smaller fault cases of the second audit: each gives one plain line (or the right count),
never a Python exception's name, an empty record or the wrong advice.

Real parts throughout: the local feed server, SQLite files in the test's home, the CLI.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from costcalc.cli import main
from costcalc.core.errors import DataFileError
from costcalc.core.models import CloudOffer
from costcalc.edge import locations
from costcalc.providers import vast_feed
from costcalc.providers.common import FeedError, load_json
from costcalc.store import history
from costcalc.store.overrides import load_overrides
from costcalc.store.snapshots import cannot_store, load_bundled, refreshed_path, write_refreshed
from tests.conftest import FEEDS, FeedRoutes

VAST = json.loads((FEEDS / "vast-bundles.json").read_text())
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
OFFER = CloudOffer(
    provider="aws-spot",
    name="g4dn.xlarge",
    region="us-east-1",
    gpu="t4",
    usd_per_hour=0.2,
    fetched_at=NOW,
    source="test",
)


def unexpected(text: str) -> bool:
    return "unexpected " in text or "Traceback" in text or "Error:" in text


# --------------------------------------------------------------------------- Vast.ai


def test_one_vast_offer_listed_a_hundred_times_counts_once() -> None:
    first = next(o for o in VAST["offers"] if o["gpu_name"] == "RTX 4090")
    once = vast_feed.parse(json.dumps(VAST), NOW.date())
    doc = {**VAST, "offers": VAST["offers"] + [first] * 100}
    repeated = vast_feed.parse(json.dumps(doc), NOW.date())
    assert [(r.name, r.usd_per_hour, r.summary) for r in repeated.rows] == [
        (r.name, r.usd_per_hour, r.summary) for r in once.rows
    ]


# --------------------------------------------------------------------------- history


def _refresh_rows() -> list[tuple[int, str]]:
    with sqlite3.connect(locations.history_db()) as conn:
        return conn.execute("SELECT id, providers FROM refreshes").fetchall()


def test_recording_nothing_new_leaves_no_refresh_row() -> None:
    assert history.record([OFFER], NOW) == 1
    assert history.record([OFFER], NOW) == 0
    assert len(_refresh_rows()) == 1


def test_a_refresh_that_exits_2_writes_nothing(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["refresh", "--provider", "aws-spot"]) == 0
    rows = _refresh_rows()
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "soon")
    capsys.readouterr()
    assert main(["refresh", "--provider", "aws-spot"]) == 2
    assert "COSTCALC_HTTP_TIMEOUT must be a number" in capsys.readouterr().err
    assert _refresh_rows() == rows


def test_an_empty_history_file_is_reported(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    locations.history_db().parent.mkdir(parents=True, exist_ok=True)
    locations.history_db().write_bytes(b"")
    assert main(["refresh", "--provider", "aws-spot"]) == 0
    err = capsys.readouterr().err
    assert "was empty (0 bytes)" in err and err.count("\n") == 1
    assert main(["refresh", "--provider", "aws-spot"]) == 0
    assert "was empty" not in capsys.readouterr().err  # said once


def test_a_full_disk_is_not_a_broken_history() -> None:
    full = sqlite3.OperationalError("database or disk is full")
    advice = history._advice(full)
    assert "disk is full" in advice and "move the file aside" not in advice
    broken = history._advice(sqlite3.DatabaseError("file is not a database"))
    assert "move the file aside" in broken


# --------------------------------------------------------------------------- prices.yaml


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("usd_per_hour: .inf", "number <= 10000"),
        ("usd_per_hour: 1e-300", "too small to be a price"),
        ("usd_per_hour: 1e9", "number <= 10000"),
        ("usd_per_hour: 1.0\n    gpu_count: 1.0e+6", "whole number <= 64"),
        ("usd_per_hour: 1.0\n    as_of: 2999-01-01", "is in the future"),
    ],
)
def test_prices_yaml_refuses_what_cannot_be_a_price(entry: str, why: str) -> None:
    path = locations.price_overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "offers:\n  - provider: runpod\n    name: mine\n    region: home\n    gpu: rtx3090\n"
        f"    {entry}\n"
    )
    with pytest.raises(DataFileError, match=why) as caught:
        load_overrides(path)
    assert len(str(caught.value).splitlines()) == 1


def test_prices_yaml_still_takes_a_real_price() -> None:
    path = locations.price_overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    today = (date.today() - timedelta(days=1)).isoformat()
    path.write_text(
        f"overrides:\n  - provider: runpod\n    name: x\n    usd_per_hour: 0\n    as_of: {today}\n"
    )
    loaded = load_overrides(path)
    assert loaded is not None and loaded.overrides[0].usd_per_hour == 0


# --------------------------------------------------------------------------- plain lines


def test_json_nested_beyond_the_recursion_limit_is_one_line() -> None:
    with pytest.raises(FeedError, match="nested too deeply"):
        load_json("[" * 100_000 + "]" * 100_000)


def test_a_feed_value_the_model_refuses_is_a_plain_line() -> None:
    from costcalc.core.models import OfferRow
    from costcalc.core.records import ValidationError, revalidated
    from costcalc.feeds.refresh import unstorable

    with pytest.raises(ValidationError) as caught:
        revalidated(OfferRow(name="x", region="y", gpu="t4", gpu_count=0, usd_per_hour=1.0))
    line = unstorable(caught.value)
    assert line == (
        "the feed has a value costcalc cannot store (gpu_count: expected a whole number >= 1)"
    )


@pytest.mark.parametrize(
    ("error", "advice"),
    [
        (OSError(28, "No space left on device"), "the disk is full"),
        (IsADirectoryError(21, "Is a directory"), "a directory stands where the file goes"),
        (FileExistsError(17, "File exists"), "a file stands where a directory"),
        (NotADirectoryError(20, "Not a directory"), "a file stands where a directory"),
    ],
)
def test_a_snapshot_that_cannot_be_written_says_what_to_do(error: OSError, advice: str) -> None:
    assert advice in cannot_store(error)


def test_a_directory_where_the_snapshot_goes_is_one_plain_line(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    refreshed_path("aws-spot").mkdir(parents=True)
    assert main(["refresh", "--provider", "aws-spot"]) == 1
    err = capsys.readouterr().err
    assert "a directory stands where the file goes" in err and not unexpected(err), err
    with pytest.raises(DataFileError, match="a directory stands"):
        write_refreshed(refreshed_path("aws-spot"), load_bundled("aws-spot"))


def test_a_home_whose_snapshot_directory_is_a_file_is_one_plain_line(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    snapshots = refreshed_path("aws-spot").parent
    snapshots.parent.mkdir(parents=True, exist_ok=True)
    snapshots.write_text("not a directory")
    code = main(["refresh", "--provider", "aws-spot"])
    err = capsys.readouterr().err
    assert code in (1, 2) and not unexpected(err), err
    assert len(err.strip().splitlines()) == 1, err
