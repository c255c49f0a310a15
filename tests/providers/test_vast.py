"""Vast.ai: summarising a marketplace answer, the bundled snapshot, and `costcalc refresh`
against a local server that answers like console.vast.ai (tests/fixtures/feeds/vast-bundles.json
keeps a real offer's field names; its values are made up, see the README there)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.core.ranges import what_price
from costcalc.providers import vast, vast_feed
from costcalc.providers.common import FeedError
from costcalc.store.snapshots import load_bundled
from tests.conftest import FeedRoutes
from tests.providers import feedcheck

FIXTURE = Path(__file__).parent.parent / "fixtures" / "feeds" / "vast-bundles.json"
GOOD = FIXTURE.read_text()
DAY = date(2026, 11, 22)


def offer(**fields: Any) -> dict[str, Any]:
    """A trusted one-GPU RTX 4090 offer, changed by `fields`."""
    base = {
        "gpu_name": "RTX 4090",
        "num_gpus": 1,
        "gpu_ram": 24564,
        "gpu_frac": 1.0,
        "dph_base": 0.40,
        "storage_cost": 0.0,
        "min_bid": 0.20,
        "reliability2": 0.99,
        "verification": "verified",
        "rentable": True,
        "rented": False,
    }
    return {**base, **fields}


def summary_rows(*offers: dict[str, Any]) -> dict[str, Any]:
    return {r.name: r for r in vast_feed.parse(json.dumps({"offers": list(offers)}), DAY).rows}


# --------------------------------------------------------------------------- the parser


def test_the_recorded_answer_becomes_percentile_median_and_interruptible_offers() -> None:
    found = vast_feed.parse(GOOD, DAY)
    rows = {r.name: r for r in found.rows}
    low, median = rows["1x RTX 4090 (20th percentile)"], rows["1x RTX 4090 (median)"]
    assert low.gpu == median.gpu == "rtx4090"
    assert low.usd_per_hour < median.usd_per_hour
    assert median.summary == (
        "median of 11 verified offers (reliability >= 0.95), 50 GB disk included, 2026-11-22"
    )
    assert (median.tier, median.spot, median.region) == ("marketplace", False, "global")
    bid = rows["1x RTX 4090 (interruptible)"]
    assert bid.spot and bid.usd_per_hour < low.usd_per_hour
    assert "minimum bid of 10 verified offers" in str(bid.summary)  # one offer has no min_bid
    assert rows["1x A100 PCIE (median)"].gpu == "a100_pcie_80gb"  # 81,920 MiB: the 80 GB card
    assert rows["2x RTX 4090 (median)"].gpu_count == 2
    # Thin groups (one 8x 4090, one H100 NVL, one RTX PRO 6000 S) give no statistic.
    assert not any(name.startswith("8x") or "NVL" in name or "PRO" in name for name in rows)
    assert found.unknown_gpus == ()


def test_the_price_is_per_gpu_with_the_disk_and_times_the_count() -> None:
    rows = summary_rows(
        *(offer(num_gpus=2, dph_base=base, storage_cost=0.144) for base in (0.8, 1.0, 1.2))
    )
    # 50 GB at $0.144 per GB-month = $0.01/h per instance; median instance 1.0 + 0.01.
    assert rows["2x RTX 4090 (median)"].usd_per_hour == pytest.approx(1.01)
    assert rows["2x RTX 4090 (20th percentile)"].usd_per_hour == pytest.approx(0.89)


def test_only_verified_reliable_rentable_whole_gpus_count() -> None:
    good = [offer(dph_base=p) for p in (0.30, 0.40, 0.50)]
    noise = [
        offer(dph_base=0.01, verification="unverified"),
        offer(dph_base=0.01, verification="deverified"),
        offer(dph_base=0.01, reliability2=0.90),
        offer(dph_base=0.01, reliability2=None),
        offer(dph_base=0.01, gpu_frac=0.25),
        offer(dph_base=0.01, rented=True),
        offer(dph_base=0.01, rentable=False),
        offer(dph_base=0.01, num_gpus=3),
        offer(dph_base=0),
    ]
    rows = summary_rows(*good, *noise)
    assert rows["1x RTX 4090 (median)"].usd_per_hour == pytest.approx(0.40)
    assert "of 3 verified offers" in str(rows["1x RTX 4090 (median)"].summary)


def test_a_boolean_verified_field_is_read_too() -> None:
    trio = [offer(verification=None, verified=True, dph_base=p) for p in (0.3, 0.4, 0.5)]
    assert "1x RTX 4090 (median)" in summary_rows(*trio)


def test_a_name_that_needs_its_memory_is_told_apart_by_it_or_reported() -> None:
    trio = [offer(gpu_name="A100 SXM4", gpu_ram=40960, dph_base=p) for p in (0.7, 0.8, 0.9)]
    odd = offer(gpu_name="A100 SXM4", gpu_ram=65536)
    found = vast_feed.parse(json.dumps({"offers": [*trio, odd]}), DAY)
    assert {r.gpu for r in found.rows} == {"a100_sxm4_40gb"}
    assert found.unknown_gpus == ("A100 SXM4 (64 GB)",)


def test_percentile_interpolates_between_ranks() -> None:
    assert vast_feed.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert vast_feed.percentile([1.0, 2.0, 3.0, 4.0, 5.0], 20) == pytest.approx(1.8)
    assert vast_feed.percentile([2.0], 20) == 2.0


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('{"offers": {"a": 1}}', "unexpected shape: offers"),
        ('{"offers": []}', "no GPU model with 3 verified, reliable offers"),
        (json.dumps({"offers": [offer(), offer()]}), "no GPU model with 3"),
    ],
)
def test_unusable_answers_say_why(payload: str, reason: str) -> None:
    with pytest.raises(FeedError, match=reason):
        vast_feed.parse(payload, DAY)


# --------------------------------------------------------------------------- offline


def test_the_bundled_snapshot_carries_the_desktop_cards_and_says_what_each_figure_is() -> None:
    """Issue 25: the 3090, 4090, 5090, A6000, L4, A100 80GB and H100, each dated and sourced, and
    each labelled by its statistic (a cheapest listing is never shown as a median)."""
    snapshot = load_bundled("vast")
    offers = {o.gpu: o for o in vast.PROVIDER.offers(snapshot)}
    cards = {"rtx3090", "rtx4090", "rtx5090", "rtx_a6000", "l4"}
    wanted = cards | {"a100_sxm4_80gb", "h100_sxm5_80gb"}
    assert wanted <= set(offers)
    for row in snapshot.offers:  # type: ignore[union-attr]
        assert row.fetched_at and row.source and row.summary and row.tier == "marketplace"
    for gpu in ("rtx3090", "rtx4090", "rtx5090", "rtx_a6000", "l4"):
        assert what_price(offers[gpu]) == "cheapest listing", gpu
    assert what_price(offers["h100_sxm5_80gb"]) == "median of verified offers"


# --------------------------------------------------------------------------- refresh


@pytest.fixture
def vast_api(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    feedcheck.fast_http(monkeypatch)
    monkeypatch.setenv(vast.URL_ENV, feed_server.url("/api/v0/bundles/"))
    return feed_server


def search(text: str, seen: list[Request] | None = None) -> feedcheck.Handler:
    def handler(request: Request) -> Response:
        if seen is not None:
            seen.append(request)
        if request.method != "POST":
            return Response("method", status=405)
        return Response(text, content_type="application/json")

    return handler


def test_refresh_posts_the_quality_filters_and_stores_the_summary(
    vast_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[Request] = []
    vast_api.serve("/api/v0/bundles/", search(GOOD, seen))
    code, report = feedcheck.refresh(capsys, "vast")
    assert code == 0, report
    assert feedcheck.result(report, "vast")["offers"] == 15
    query = seen[0].get_json()
    assert query["verified"] == {"eq": True} and query["reliability2"] == {"gte": 0.95}
    assert "Authorization" not in seen[0].headers  # no key set: none sent
    offers = {o["name"]: o for o in feedcheck.prices(capsys, "vast")}
    assert offers["1x RTX 4090 (median)"]["stale"] is False


def test_the_key_goes_only_to_an_https_host(
    tls_feed_server: FeedRoutes,
    feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    feedcheck.fast_http(monkeypatch)
    monkeypatch.setenv("COSTCALC_VAST_API_KEY", "vast-secret")
    seen: list[Request] = []
    tls_feed_server.serve("/bundles/", search(GOOD, seen))
    monkeypatch.setenv(vast.URL_ENV, tls_feed_server.url("/bundles/"))
    assert feedcheck.refresh(capsys, "vast")[0] == 0
    assert seen[-1].headers["Authorization"] == "Bearer vast-secret"

    feed_server.serve("/bundles/", search(GOOD, seen))
    monkeypatch.setenv(vast.URL_ENV, feed_server.url("/bundles/"))  # plain http
    code, report = feedcheck.refresh(capsys, "vast")
    assert code == 0, report
    assert "Authorization" not in seen[-1].headers
    assert "vast-secret" not in json.dumps(report)


def test_500_then_success_is_retried(
    vast_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    handler, calls = feedcheck.flaky(search(GOOD))
    vast_api.serve("/api/v0/bundles/", handler)
    assert feedcheck.refresh(capsys, "vast")[0] == 0
    assert len(calls) == 2


def _absurd() -> str:
    doc = json.loads(GOOD)
    for item in doc["offers"]:
        if item["gpu_name"] == "RTX 4090":
            item["dph_base"] = item["dph_base"] * 1000  # milli-dollars read as dollars
    return json.dumps(doc)


def _with_unknown() -> str:
    doc = json.loads(GOOD)
    doc["offers"] += [  # new machines (new ids) of a GPU no table maps
        {**o, "gpu_name": "RTX 6090", "id": o["id"] + 10**9} for o in doc["offers"][:3]
    ]
    return json.dumps(doc)


FAULTS = feedcheck.standard_faults(GOOD, '{"offers": "none"}')


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_bad_feed_keeps_the_last_good_snapshot(
    fault: str, vast_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_fault_keeps_last_good(
        capsys,
        lambda handler: vast_api.serve("/api/v0/bundles/", handler),
        search(GOOD),
        "vast",
        FAULTS[fault],
    )


def test_an_unknown_gpu_name_is_counted_and_the_rest_refreshes(
    vast_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    vast_api.serve("/api/v0/bundles/", search(_with_unknown()))
    code, report = feedcheck.refresh(capsys, "vast")
    result = feedcheck.result(report, "vast")
    assert code == 0 and result["offers"] == 15
    assert (result["unknown_gpu_count"], result["unknown_gpus"]) == (1, ["RTX 6090"])


def test_an_absurd_price_is_held_back(
    vast_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_absurd_price_held_back(
        capsys,
        lambda handler: vast_api.serve("/api/v0/bundles/", handler),
        search(_absurd()),
        "vast",
    )
