"""Lambda: the instance-types parser, the bundled price list, and `costcalc refresh` with a key
against a local https server (the key travels only over https; tests/fixtures/feeds/
lambda-instance-types.json follows the API's format, see the README there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.providers import lambda_cloud, lambda_cloud_feed
from costcalc.providers.common import FeedError
from costcalc.store.snapshots import load_bundled, refreshed_path
from tests.conftest import FeedRoutes, serve_catalogs
from tests.providers import feedcheck

FIXTURE = Path(__file__).parent.parent / "fixtures" / "feeds" / "lambda-instance-types.json"
GOOD = FIXTURE.read_text()
KEY = "lambda-secret"


# --------------------------------------------------------------------------- the parser


def test_instance_types_become_offers_priced_per_instance_in_dollars() -> None:
    found = lambda_cloud_feed.parse(GOOD)
    rows = {r.name: r for r in found.rows}
    eight = rows["gpu_8x_h100_sxm5"]
    assert (eight.gpu, eight.gpu_count, eight.usd_per_hour) == ("h100_sxm5_80gb", 8, 31.92)
    assert (eight.vcpus, eight.ram_gb) == (208, 1800.0)
    assert rows["gpu_8x_a100_80gb_sxm4"].usd_per_hour == 22.32
    assert rows["gpu_1x_rtx6000"].gpu == "quadro_rtx6000"
    assert "no region had capacity" in str(eight.limits)  # sold out now is still an offer
    assert "us-east-1" in str(rows["gpu_1x_h100_sxm5"].limits)
    assert "gpu_1x_synthetic_x1" not in rows  # price 0: no price
    gh200 = next(r for r in found.rows if r.gpu == "gh200_96gb")  # a catalog row since issue 25
    assert gh200.gpu_count == 1
    assert found.unknown_gpus == ()


def test_the_count_comes_from_the_description_when_specs_do_not_say() -> None:
    doc = json.loads(GOOD)
    kind = doc["data"]["gpu_8x_b200_sxm6"]["instance_type"]
    del kind["specs"]["gpus"], kind["gpu_description"]
    rows = {r.name: r for r in lambda_cloud_feed.parse(json.dumps(doc)).rows}
    assert (rows["gpu_8x_b200_sxm6"].gpu, rows["gpu_8x_b200_sxm6"].gpu_count) == ("b200", 8)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('{"error": {"code": "global/invalid-api-key"}}', "unexpected shape: data"),
        ('{"data": {}}', "no priced GPU instance types"),
    ],
)
def test_unusable_answers_say_why(payload: str, reason: str) -> None:
    with pytest.raises(FeedError, match=reason):
        lambda_cloud_feed.parse(payload)


# --------------------------------------------------------------------------- offline


def test_the_bundled_price_list_has_an_a100_80gb_and_an_h100_dated_and_sourced() -> None:
    snapshot = load_bundled("lambda")
    gpus = {r.gpu for r in snapshot.offers}  # type: ignore[union-attr]
    assert {"a100_sxm4_80gb", "h100_sxm5_80gb", "h100_pcie_80gb"} <= gpus
    assert all(r.fetched_at and r.source for r in snapshot.offers)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- refresh


def test_without_a_key_nothing_is_fetched_and_the_price_list_stays(
    feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(lambda_cloud.URL_ENV, feed_server.url("/api/v1/instance-types"))
    serve_catalogs(feed_server, monkeypatch, recorded=False)  # they list no Lambda instance
    code, report = feedcheck.refresh(capsys, "lambda")
    result = feedcheck.result(report, "lambda")
    assert code == 0 and result["skipped"]
    assert "COSTCALC_LAMBDA_API_KEY" in result["message"]
    assert "/api/v1/instance-types" not in feed_server.hits
    assert not refreshed_path("lambda").exists()


@pytest.fixture
def lambda_feed(tls_feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    feedcheck.fast_http(monkeypatch)
    monkeypatch.setenv("LAMBDA_API_KEY", KEY)
    monkeypatch.setenv(lambda_cloud.URL_ENV, tls_feed_server.url("/api/v1/instance-types"))
    return tls_feed_server


def with_key(text: str, seen: list[str | None] | None = None) -> feedcheck.Handler:
    def handler(request: Request) -> Response:
        if seen is not None:
            seen.append(request.headers.get("Authorization"))
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            return Response('{"error": {"code": "global/invalid-api-key"}}', status=401)
        return Response(text, content_type="application/json")

    return handler


def test_with_a_key_refresh_fetches_the_live_prices(
    lambda_feed: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str | None] = []
    lambda_feed.serve("/api/v1/instance-types", with_key(GOOD, seen))
    code, report = feedcheck.refresh(capsys, "lambda")
    result = feedcheck.result(report, "lambda")
    assert code == 0 and result["offers"] == 10  # the GH200 counts since issue 25
    assert result["unknown_gpus"] == []
    assert seen == [f"Bearer {KEY}"]
    assert KEY not in json.dumps(report)
    names = {o["name"] for o in feedcheck.prices(capsys, "lambda")}
    assert "gpu_8x_h100_sxm5" in names


def test_the_key_is_not_sent_over_plain_http(
    feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COSTCALC_LAMBDA_API_KEY", KEY)
    monkeypatch.setenv(lambda_cloud.URL_ENV, feed_server.url("/api/v1/instance-types"))
    code = main(["refresh", "--provider", "lambda"])
    err = capsys.readouterr().err
    assert code == 1
    assert "plain http, not https: the Lambda API key was not sent" in err
    assert feed_server.hits == {}


def test_the_key_is_not_sent_to_another_host() -> None:
    assert lambda_cloud_feed._refusal("https://cloud.lambda.ai/api/v1/instance-types") is None
    assert lambda_cloud_feed._refusal("https://cloud.lambdalabs.com/api/v1/instance-types") is None
    refusal = lambda_cloud_feed._refusal("https://lambda.ai.evil.example/api")
    assert refusal is not None and "is not lambda.ai" in refusal


def test_500_then_success_is_retried(
    lambda_feed: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    handler, calls = feedcheck.flaky(with_key(GOOD))
    lambda_feed.serve("/api/v1/instance-types", handler)
    assert feedcheck.refresh(capsys, "lambda")[0] == 0
    assert len(calls) == 2


def _absurd() -> str:
    doc = json.loads(GOOD)
    doc["data"]["gpu_1x_a10"]["instance_type"]["price_cents_per_hour"] = 129000
    return json.dumps(doc)


FAULTS = {
    **feedcheck.standard_faults(GOOD, '{"data": ["gpu_1x_a10"]}'),
    "key refused": (feedcheck.status(401), "HTTP 401"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_bad_feed_keeps_the_last_good_snapshot(
    fault: str, lambda_feed: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_fault_keeps_last_good(
        capsys,
        lambda handler: lambda_feed.serve("/api/v1/instance-types", handler),
        with_key(GOOD),
        "lambda",
        FAULTS[fault],
    )


def test_an_absurd_price_is_held_back(
    lambda_feed: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_absurd_price_held_back(
        capsys,
        lambda handler: lambda_feed.serve("/api/v1/instance-types", handler),
        with_key(_absurd()),
        "lambda",
    )
