"""Crash consistency as a property: a refresh of every provider, killed at each write step in
turn, leaves snapshots and history that load and agree once the next refresh has run.

The kill is simulated in-process: a BaseException (nothing in costcalc catches it, as nothing
can catch a SIGKILL) raised at the n-th fsync, rename or history transaction.
tests/feeds/test_refresh.py also kills a real process with SIGKILL between a write and its rename.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Response

from costcalc.edge import locations
from costcalc.feeds.refresh import run_refresh
from costcalc.providers import registry
from costcalc.store import history
from costcalc.store.snapshots import load_price_book, refreshed_observations

SPOT_JSON = (Path(__file__).parents[1] / "fixtures" / "feeds" / "spot.json").read_text()


class Killed(BaseException):
    """The process died here."""


@contextmanager
def kill_at(step: int | None, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Count the write steps (fsync, rename, history transaction); die at step `step`."""
    steps: list[str] = []
    real_fsync, real_replace, real_record = os.fsync, os.replace, history.record

    def tick(name: str) -> None:
        steps.append(name)
        if step is not None and len(steps) == step:
            raise Killed(name)

    def fsync(fd: int) -> None:
        tick("fsync")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        tick(f"rename {Path(dst).name}")
        real_replace(src, dst)

    def record(offers: Any, when: datetime, path: Any = None) -> int:
        tick("history transaction")
        return real_record(offers, when, path)

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fsync)
        patch.setattr(os, "replace", replace)
        patch.setattr(history, "record", record)
        yield steps


def dearer_spot_feed() -> str:
    doc = json.loads(SPOT_JSON)
    for region in doc["config"]["regions"]:
        for block in region["instanceTypes"]:
            for size in block["sizes"]:
                for column in size["valueColumns"]:
                    usd = column["prices"]["USD"]
                    if usd[0].isdigit() and usd != "0":
                        column["prices"]["USD"] = f"{float(usd) * 1.25:.4f}"
    return json.dumps(doc)


def recorded() -> set[tuple[str, str, str, datetime, float]]:
    return {
        (s.provider, s.name, s.region, p.fetched_at, p.usd_per_hour)
        for s in history.query()
        for p in s.points
    }


def check_agreement() -> None:
    """Every file loads; every price a refreshed snapshot observed is in the history, and the
    history holds nothing newer than the snapshots."""
    book = load_price_book()
    assert not book.warnings, book.warnings
    held = {
        (o.provider, o.name, o.region, o.fetched_at, o.usd_per_hour)
        for o in refreshed_observations()
    }
    in_history = recorded()
    assert held <= in_history
    for provider in registry.names():
        newest_snapshot = max((h[3] for h in held if h[0] == provider), default=None)
        newest_recorded = max((h[3] for h in in_history if h[0] == provider), default=None)
        if newest_recorded is not None:
            assert newest_snapshot is not None and newest_recorded <= newest_snapshot
    leftovers = list(locations.snapshots_dir().glob(".*.tmp"))
    assert not leftovers


FED = ("aws-spot", "aws-ondemand")
"""The providers whose feeds the test serves and changes: a refresh of all 31 takes each step
eight times as long and adds only renames of files nothing in the test changes."""


def test_killed_at_every_write_step_snapshots_and_history_agree(
    aws_feeds: Any, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert run_refresh(FED).exit_code == 0  # a first, good refresh of the providers fed here
    aws_feeds.serve("/spot.json", lambda _r: Response(dearer_spot_feed()))
    with kill_at(None, monkeypatch) as steps:
        run_refresh(FED)
    total = len(steps)
    assert total >= 8 and "history transaction" in steps and "rename aws_spot.yaml" in steps

    home = isolated_home
    for step in range(1, total + 1):
        monkeypatch.setenv("COSTCALC_HOME", str(tmp_path / f"home-{step}"))
        aws_feeds.serve_file("/spot.json", "spot.json")
        assert run_refresh(FED).exit_code == 0
        aws_feeds.serve("/spot.json", lambda _r: Response(dearer_spot_feed()))
        with kill_at(step, monkeypatch) as done, pytest.raises(Killed):
            run_refresh(FED)
        assert len(done) == step

        # after the crash: everything loads, and `costcalc history` shows what prices shows
        book = load_price_book()
        assert not book.warnings, (step, done[-1], book.warnings)

        # the next refresh (every feed down now) back-fills what the crash left unrecorded
        aws_feeds.serve("/spot.json", lambda _r: Response("down", status=503))
        aws_feeds.serve("/spot-advisor-data.json", lambda _r: Response("down", status=503))
        for region in ("us-east-1", "us-west-2", "eu-west-1"):
            aws_feeds.serve(f"/ondemand/{region}/index.json", lambda _r: Response("x", status=503))
        assert run_refresh(FED).exit_code == 1
        check_agreement()

        aws_feeds.serve_file("/spot-advisor-data.json", "spot-advisor-data.json")
        for region in ("us-east-1", "us-west-2", "eu-west-1"):
            aws_feeds.serve_file(f"/ondemand/{region}/index.json", f"ondemand-{region}.json")
    monkeypatch.setenv("COSTCALC_HOME", str(home))
