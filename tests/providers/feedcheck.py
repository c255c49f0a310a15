"""What every live provider's tests check against the local feed server: a refresh that works,
and a refresh that survives a misbehaving feed with its last good snapshot, its history and the
other providers intact. Each provider's test module supplies its good payload and its own
'wrong shape' and 'absurd prices' payloads: one wrong GPU is held back and named
(costcalc.core.plausible); tests/faults/test_faults_prices.py refuses a feed whose prices are
mostly wrong.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.edge import locations
from costcalc.store.snapshots import load_snapshot, refreshed_path

Handler = Callable[[Request], Response]


def body(text: str | bytes, content_type: str = "application/json") -> Handler:
    return lambda _request: Response(text, content_type=content_type)


def status(code: int) -> Handler:
    return lambda _request: Response("oops", status=code)


def fast_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "2")
    monkeypatch.setenv("COSTCALC_HTTP_RETRIES", "2")
    monkeypatch.setenv("COSTCALC_HTTP_BACKOFF", "0.01")


def refresh(capsys: pytest.CaptureFixture[str], *providers: str) -> tuple[int, dict[str, Any]]:
    """`costcalc refresh --json` for these providers: exit code and the JSON report."""
    argv = ["refresh", "--json"]
    for name in providers:
        argv += ["--provider", name]
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def result(report: dict[str, Any], provider: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in report["results"] if r["provider"] == provider)
    return found


def prices(capsys: pytest.CaptureFixture[str], provider: str) -> list[dict[str, Any]]:
    assert main(["prices", "--provider", provider, "--json"]) == 0
    doc: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return doc


def history_count(provider: str) -> int:
    db = locations.history_db()
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT COUNT(*) FROM observations WHERE provider = ?", (provider,))
        return int(row.fetchone()[0])


def flaky(good: Handler) -> tuple[Handler, list[int]]:
    """A handler that answers 503 once, then `good`; and the list of its calls."""
    calls: list[int] = []

    def handler(request: Request) -> Response:
        calls.append(1)
        return Response("busy", status=503) if len(calls) == 1 else good(request)

    return handler, calls


def standard_faults(good: str, wrong_shape: str) -> dict[str, tuple[Handler, str]]:
    """Fault name -> (handler, what the one stderr line must say)."""
    return {
        "500 every time": (status(500), "HTTP 500"),
        "HTML": (body("<!DOCTYPE html><html><body>Down</body></html>", "text/html"), "got HTML"),
        "truncated JSON": (body(good[: len(good) // 2]), "ends early"),
        "wrong shape": (body(wrong_shape), "unexpected shape"),
    }


def check_absurd_price_held_back(
    capsys: pytest.CaptureFixture[str],
    serve: Callable[[Handler], None],
    absurd: Handler,
    provider: str,
) -> None:
    """One GPU's price wrong by orders of magnitude: that GPU's offers are held back and named
    in --json, the rest of the feed is stored, and the provider counts as refreshed."""
    serve(absurd)
    code, report = refresh(capsys, provider)
    assert code == 0, report
    held = result(report, provider)["held_back"]
    assert held and all("per GPU-hour, expected" in note for note in held), held
    snapshot = load_snapshot(provider)
    assert snapshot.origin == str(refreshed_path(provider))
    stored = {(row.name, row.region) for row in snapshot.snapshot.offers}  # type: ignore[union-attr]
    held_rows = {tuple(note.split(": ")[0].rsplit(" in ", 1)) for note in held}
    assert stored and not stored & held_rows, held_rows


def check_fault_keeps_last_good(
    capsys: pytest.CaptureFixture[str],
    serve: Callable[[Handler], None],
    good: Handler,
    provider: str,
    fault: tuple[Handler, str],
) -> None:
    """Refresh once with `good`, then with the fault: exit 1, one stderr line naming the reason,
    the snapshot byte for byte and the history as they were, and colab still reported."""
    serve(good)
    code, _ = refresh(capsys, provider)
    assert code == 0
    kept = refreshed_path(provider).read_bytes()
    rows = history_count(provider)

    handler, reason = fault
    serve(handler)
    code = main(["refresh", "--provider", provider, "--provider", "colab"])
    out, err = capsys.readouterr()
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert f"{provider} failed" in lines[0] and reason in lines[0], lines[0]
    assert "kept its last good snapshot" in lines[0]
    assert "colab: skipped" in out  # the other provider was still reached
    assert refreshed_path(provider).read_bytes() == kept
    assert history_count(provider) == rows
