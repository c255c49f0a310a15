"""The ECB reference-rate feed: the parser on the ECB's own file, and the refresh path against a
local server that misbehaves (HTML, truncated, wrong shape), never touching the bundled rates."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Response

from costcalc.core.fx import Converter
from costcalc.edge.net import FetchSettings, HttpClient
from costcalc.feeds.refresh import refresh_fx, run_refresh
from costcalc.providers import ecb
from costcalc.providers.common import FeedError
from costcalc.store.loaders import load_converter
from costcalc.store.snapshots import fx_path, load_fx
from tests.conftest import FEEDS, FeedRoutes

ECB_XML = (FEEDS / "eurofxref-daily.xml").read_bytes()
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)


def test_parse_reads_the_ecbs_own_file() -> None:
    rates = ecb.parse(ECB_XML)
    assert rates.day == date(2026, 9, 24)
    assert len(rates.per_eur) == 29
    assert rates.per_eur["USD"] == 1.1367 and rates.per_eur["JPY"] == 180.57
    assert rates.per_eur["GBP"] == 0.85986 and rates.per_eur["IDR"] == 20384.10


def test_parse_takes_the_newest_day_of_a_history_file() -> None:
    older = "<Cube time='2026-09-23'><Cube currency='USD' rate='1.1300'/></Cube>"
    text = ECB_XML.decode().replace("<Cube>\n", f"<Cube>\n{older}\n", 1)
    rates = ecb.parse(text)
    assert rates.day == date(2026, 9, 24) and rates.per_eur["USD"] == 1.1367


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"", "empty payload"),
        (b"<!DOCTYPE html><html><body>Maintenance</body></html>", "got HTML"),
        (ECB_XML[: len(ECB_XML) // 2], "ends early"),
        (b'{"rates": {"USD": 1.1}}', "not XML"),
        (b"<root><Cube time='2026-09-24'/></root>", "not an Envelope"),
        (ECB_XML.replace(b"time='2026-09-24'", b""), "no dated"),
        (ECB_XML.replace(b"time='2026-09-24'", b"time='yesterday'"), "bad date"),
        (ECB_XML.replace(b"rate='180.57'", b"rate='n/a'"), "not a number"),
        (ECB_XML.replace(b"rate='180.57'", b"rate='-1'"), "implausible rate"),
        (ECB_XML.replace(b"rate='1.1367'", b"rate='113.67'"), "implausible rate: USD"),
        (ECB_XML.replace(b"currency='USD'", b"currency='XXXX'"), "unexpected shape"),
        (ECB_XML.replace(b"currency='USD'", b"currency='AAA'"), "no USD rate"),
        (
            b'<?xml version="1.0"?><!DOCTYPE e [<!ENTITY a "aaaa">]><e>&a;</e>',
            "DTD or entities",
        ),
        (b"\xff\xfe<x/>", "not UTF-8"),
    ],
)
def test_parse_refuses_what_is_not_the_ecb_file(payload: bytes, message: str) -> None:
    with pytest.raises(FeedError, match=message):
        ecb.parse(payload)


def test_to_fx_rates_keeps_the_pegs_and_dates_the_download() -> None:
    bundled = load_fx().rates
    stored = ecb.to_fx_rates(ecb.parse(ECB_XML), bundled, NOW)
    assert stored.as_of == date(2026, 9, 24) and stored.fetched_at == NOW
    assert stored.pegs == bundled.pegs and "source acknowledged" in stored.licence
    assert Converter(stored).to_usd(3.75, "SAR") == pytest.approx(1.0)


# --------------------------------------------------------------------------- the refresh path


def _client() -> HttpClient:
    return HttpClient(
        FetchSettings(
            connect_timeout_s=2, read_timeout_s=2, deadline_s=10, retries=1, backoff_s=0.01
        )
    )


def _serve(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch, handler: Any) -> None:
    feed_server.serve("/eurofxref-daily.xml", handler)
    monkeypatch.setenv(ecb.URL_ENV, feed_server.url("/eurofxref-daily.xml"))


def _newer(body: bytes) -> bytes:
    return body.replace(b"2026-09-24", b"2026-11-20").replace(b"1.1367", b"1.0500")


def test_refresh_stores_the_days_rates_and_converters_use_them(
    feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(feed_server, monkeypatch, lambda _r: Response(_newer(ECB_XML), content_type="text/xml"))
    with _client() as client:
        result = refresh_fx(client, NOW, lambda _m: None)
    assert result.ok and "29 euro reference rates of 2026-11-20" in result.message
    assert fx_path().exists()
    loaded = load_fx()
    assert loaded.origin == str(fx_path()) and loaded.rates.as_of == date(2026, 11, 20)
    assert load_converter().per_eur("USD") == 1.05


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (Response("<html><body>Service unavailable</body></html>", status=200), "got HTML"),
        (Response(ECB_XML[:300], content_type="text/xml"), "ends early"),
        (Response(b"<Envelope><Cube/></Envelope>", content_type="text/xml"), "no dated"),
        (Response("down", status=503), "503"),
    ],
)
def test_a_bad_download_keeps_the_last_good_rates(
    feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
    response: Response,
    message: str,
) -> None:
    _serve(feed_server, monkeypatch, lambda _r: Response(_newer(ECB_XML), content_type="text/xml"))
    with _client() as client:
        assert refresh_fx(client, NOW, lambda _m: None).ok
    _serve(feed_server, monkeypatch, lambda _r: response)
    with _client() as client:
        result = refresh_fx(client, NOW, lambda _m: None)
    assert not result.ok and message in result.message
    assert feed_server.url("/eurofxref-daily.xml") in result.message or "503" in result.message
    assert load_fx().rates.as_of == date(2026, 11, 20)  # the last good file stays


def test_a_broken_refreshed_file_falls_back_to_the_bundled_rates() -> None:
    path = fx_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("per_eur: [not, a, mapping]\n", encoding="utf-8")
    loaded = load_fx()
    assert loaded.origin == "bundled" and loaded.warning
    assert loaded.rates.as_of == date(2026, 10, 6)


def test_an_older_refreshed_file_does_not_hide_newer_bundled_rates(tmp_path: Path) -> None:
    older = ecb.to_fx_rates(
        ecb.parse(ECB_XML.replace(b"2026-09-24", b"2026-01-02")), load_fx().rates, NOW
    )
    from costcalc.store.snapshots import write_refreshed

    write_refreshed(fx_path(), older)
    assert load_fx().origin == "bundled"


def test_a_full_refresh_renews_the_rates_a_named_one_does_not(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    aws_feeds.serve("/eurofxref-daily.xml", lambda _r: Response(_newer(ECB_XML)))
    report = run_refresh(["aws-spot"])
    assert [r.provider for r in report.results] == ["aws-spot"]
    assert not fx_path().exists()
    report = run_refresh()
    fx_result = report.results[-1]
    assert fx_result.provider == ecb.NAME and fx_result.ok, fx_result
    assert report.exit_code == 0
    assert load_fx().rates.as_of == date(2026, 11, 20)
    aws_feeds.serve("/eurofxref-daily.xml", lambda _r: Response("<html>down</html>"))
    report = run_refresh()
    assert report.exit_code == 1 and [r.provider for r in report.failed] == [ecb.NAME]
