"""Fault cases for exchange rates: every rate has bounds and a day-over-day change limit, not
only the dollar's. A wrong ECB file keeps the last good rates, in one line; a stored file that
cannot be right (written before these checks) falls back to the bundled rates.

The ECB file is served by a real HTTP server on 127.0.0.1 (tests/conftest.py).
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from msgspec.structs import replace
from werkzeug import Response

from costcalc.cli import main
from costcalc.edge.net import FetchSettings, HttpClient
from costcalc.feeds.refresh import refresh_fx
from costcalc.providers import ecb
from costcalc.store.snapshots import fx_path, load_fx, write_refreshed
from tests.conftest import FEEDS, FeedRoutes

ECB_XML = (FEEDS / "eurofxref-daily.xml").read_bytes()
NOW = datetime(2026, 9, 25, 9, 0, tzinfo=timezone.utc)
GBP = b"<Cube currency='GBP' rate='0.85986'/>"


def _client() -> HttpClient:
    return HttpClient(FetchSettings(read_timeout_s=2, deadline_s=10, retries=0))


def _gbp(rate: str) -> bytes:
    return ECB_XML.replace(GBP, f"<Cube currency='GBP' rate='{rate}'/>".encode())


BAD_FILES = {
    "GBP at 0.000001": (_gbp("0.000001"), "implausible rate: GBP"),
    "GBP at 1e12": (_gbp("1e12"), "implausible rate: GBP"),
    "USD at 2.99": (ECB_XML.replace(b"'1.1367'", b"'2.99'"), "implausible rate: USD"),
    "GBP halved overnight": (_gbp("0.43"), "a move of more than 1.25x in 1 days"),
    "a date in 2999": (ECB_XML.replace(b"2026-09-24", b"2999-09-24"), "implausible date"),
    "a duplicated currency": (ECB_XML.replace(GBP, GBP + GBP), "GBP is given twice"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_wrong_rate_keeps_the_last_good_rates(
    case: str, feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    body, reason = BAD_FILES[case]
    feed_server.serve("/ecb.xml", lambda _r: Response(body, content_type="text/xml"))
    monkeypatch.setenv(ecb.URL_ENV, feed_server.url("/ecb.xml"))
    with _client() as client:
        result = refresh_fx(client, NOW, lambda _event: None)
    assert not result.ok and reason in result.message, result.message
    assert not fx_path().exists()
    assert load_fx().origin == "bundled"


def test_a_real_move_passes(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> None:
    # a day after the bundled rates (2026-10-06), GBP up 6 %
    moved = _gbp("0.9").replace(b"2026-09-24", b"2026-10-07")
    feed_server.serve("/ecb.xml", lambda _r: Response(moved, content_type="text/xml"))
    monkeypatch.setenv(ecb.URL_ENV, feed_server.url("/ecb.xml"))
    day_after = datetime(2026, 10, 8, 9, 0, tzinfo=timezone.utc)
    with _client() as client:
        assert refresh_fx(client, day_after, lambda _event: None).ok
    assert load_fx().rates.per_eur["GBP"] == 0.9


def test_a_stored_wrong_rate_falls_back_to_the_bundled_rates(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A file stored before each rate was checked (GBP at 0.000001) made every UK user's
    `quick` exit 2; now it is reported and the bundled rates are used."""
    bundled = load_fx().rates
    wrong = replace(
        bundled, **{"as_of": date(2026, 10, 9), "per_eur": {**bundled.per_eur, "GBP": 0.000001}}
    )
    write_refreshed(fx_path(), wrong)
    loaded = load_fx()
    assert loaded.origin == "bundled" and "implausible rate: GBP" in str(loaded.warning)
    code = main(["quick", "--no-config", "--gpu", "rtx3090", "--util", "0.2", "--currency", "GBP"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "£" in out and "Traceback" not in err
