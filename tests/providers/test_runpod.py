"""RunPod: the GraphQL answer's parser, the bundled snapshot, and `costcalc refresh` against a
local server that answers like api.runpod.io (tests/fixtures/feeds/runpod-gputypes.json is a
recorded answer; see the README there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.providers import runpod, runpod_feed
from costcalc.providers.common import FeedError
from costcalc.store.snapshots import load_bundled
from tests.conftest import FeedRoutes
from tests.providers import feedcheck

FIXTURE = Path(__file__).parent.parent / "fixtures" / "feeds" / "runpod-gputypes.json"
GOOD = FIXTURE.read_text()


def rows_by_name() -> dict[str, Any]:
    return {r.name: r for r in runpod_feed.parse(GOOD).rows}


# --------------------------------------------------------------------------- the parser


def test_each_tier_and_gpu_count_is_an_offer_priced_per_gpu_times_count() -> None:
    rows = rows_by_name()
    secure, community = rows["1x RTX 4090 (Secure Cloud)"], rows["1x RTX 4090 (Community Cloud)"]
    assert (secure.gpu, secure.usd_per_hour, secure.tier) == ("rtx4090", 0.69, "secure")
    assert (community.usd_per_hour, community.tier) == (0.34, "community")
    assert "third-party hosts, no data-centre SLA" in str(community.limits)
    eight = rows["8x H100 SXM (Community Cloud)"]
    assert (eight.gpu, eight.gpu_count, eight.usd_per_hour) == ("h100_sxm5_80gb", 8, 21.52)
    assert {r.gpu_count for r in rows.values() if r.gpu == "rtx4090"} == {1, 2, 4, 8}
    assert rows["1x H100 NVL (Secure Cloud)"].gpu == "h100_nvl_94gb"
    assert rows["1x A100 PCIe (Secure Cloud)"].gpu == "a100_pcie_80gb"


def test_a_tier_that_is_off_is_not_offered_whatever_its_placeholder_price() -> None:
    rows = rows_by_name()
    assert "1x L4 (Secure Cloud)" in rows
    assert "1x L4 (Community Cloud)" not in rows  # communityCloud false, communityPrice 0.44
    assert "1x B200 (Community Cloud)" not in rows  # communityCloud false, communityPrice 0.5
    assert "1x RTX 3070 (Secure Cloud)" not in rows  # secureCloud false, securePrice 0
    assert not any("9999" in name or "unknown" in name for name in rows)


def test_gpu_types_no_table_maps_are_skipped_and_reported_once() -> None:
    found = runpod_feed.parse(GOOD)
    # the MI300X and RTX 2000 Ada have catalog rows since issue 25; the half-length V100 stays out
    assert found.unknown_gpus == ("Tesla V100-FHHL-16GB",)
    assert {"mi300x", "rtx2000_ada"} <= {r.gpu for r in found.rows}


def test_counts_follow_max_gpu_count() -> None:
    doc = json.loads(GOOD)
    only = next(t for t in doc["data"]["gpuTypes"] if t["displayName"] == "RTX PRO 6000")
    only["maxGpuCount"] = 2
    found = runpod_feed.parse(json.dumps({"data": {"gpuTypes": [only]}}))
    assert [r.gpu_count for r in found.rows] == [1, 2]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('{"errors": [{"message": "rate limited"}]}', "the API answered an error: rate limited"),
        ('{"data": {"pods": []}}', "unexpected shape: data.gpuTypes"),
        ('{"data": {"gpuTypes": []}}', "no priced GPU types"),
    ],
)
def test_unusable_answers_say_why(payload: str, reason: str) -> None:
    with pytest.raises(FeedError, match=reason):
        runpod_feed.parse(payload)


# --------------------------------------------------------------------------- offline


def test_the_bundled_snapshot_lists_a_4090_an_a100_80gb_and_an_h100_in_both_tiers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshot = load_bundled("runpod")
    gpus = {(r.gpu, r.tier) for r in snapshot.offers}  # type: ignore[union-attr]
    for gpu in ("rtx4090", "a100_pcie_80gb", "a100_sxm4_80gb", "h100_sxm5_80gb"):
        assert (gpu, "secure") in gpus and (gpu, "community") in gpus, gpu
    # issue 25: the cards people weigh a desktop against, in at least one tier
    carried = {gpu for gpu, _ in gpus}
    assert {"rtx3090", "rtx5090", "rtx_a6000", "l4", "rtx6000_ada", "rtx_pro6000"} <= carried
    offers = feedcheck.prices(capsys, "runpod")
    assert offers and all(o["source"] and o["fetched_at"] for o in offers)
    assert any(o["gpu"] == "rtx4090" for o in offers)


# --------------------------------------------------------------------------- refresh


@pytest.fixture
def runpod_api(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    feedcheck.fast_http(monkeypatch)
    monkeypatch.setenv(runpod.URL_ENV, feed_server.url("/graphql"))
    return feed_server


def graphql(text: str) -> feedcheck.Handler:
    def handler(request: Request) -> Response:
        if request.method != "POST" or "gpuTypes" not in request.get_json()["query"]:
            return Response("bad request", status=400)
        return Response(text, content_type="application/json")

    return handler


def test_refresh_asks_the_graphql_api_and_counts_unknown_gpus(
    runpod_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    runpod_api.serve("/graphql", graphql(GOOD))
    code, report = feedcheck.refresh(capsys, "runpod")
    assert code == 0
    result = feedcheck.result(report, "runpod")
    assert result["ok"] and result["offers"] == len(runpod_feed.parse(GOOD).rows)
    assert result["unknown_gpu_count"] == 1
    assert result["unknown_gpus"] == ["Tesla V100-FHHL-16GB"]
    assert "skipped 1 GPU name" in result["message"]
    offers = feedcheck.prices(capsys, "runpod")
    assert {o["source"] for o in offers} == {
        "RunPod GraphQL API gpuTypes (securePrice, communityPrice), fetched by costcalc refresh"
    }
    assert feedcheck.history_count("runpod") == len(offers)


def test_500_then_success_is_retried(
    runpod_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    handler, calls = feedcheck.flaky(graphql(GOOD))
    runpod_api.serve("/graphql", handler)
    code, report = feedcheck.refresh(capsys, "runpod")
    assert code == 0 and feedcheck.result(report, "runpod")["ok"]
    assert len(calls) == 2


def _absurd() -> str:
    doc = json.loads(GOOD)
    for gpu_type in doc["data"]["gpuTypes"]:
        if gpu_type["id"] == "NVIDIA GeForce RTX 4090":
            gpu_type["securePrice"] = 6900  # cents, not dollars
    return json.dumps(doc)


def _only_unknown() -> str:
    doc = json.loads(GOOD)
    doc["data"]["gpuTypes"] = [
        {**t, "id": "NVIDIA GeForce RTX 9090", "displayName": "RTX 9090"}
        for t in doc["data"]["gpuTypes"]
        if t["displayName"] == "RTX 4090"
    ]
    return json.dumps(doc)


FAULTS = {
    **feedcheck.standard_faults(GOOD, '{"data": {"gpuTypes": {"a": 1}}}'),
    "only unknown GPU names": (feedcheck.body(_only_unknown()), "no priced GPU types"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_bad_feed_keeps_the_last_good_snapshot(
    fault: str, runpod_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_fault_keeps_last_good(
        capsys,
        lambda handler: runpod_api.serve("/graphql", handler),
        graphql(GOOD),
        "runpod",
        FAULTS[fault],
    )


def test_a_new_gpu_among_known_ones_is_counted_not_fatal(
    runpod_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(GOOD)
    doc["data"]["gpuTypes"].append(
        {**doc["data"]["gpuTypes"][6], "id": "NVIDIA GeForce RTX 6090", "displayName": "RTX 6090"}
    )
    runpod_api.serve("/graphql", graphql(json.dumps(doc)))
    code, report = feedcheck.refresh(capsys, "runpod")
    assert code == 0
    assert "NVIDIA GeForce RTX 6090" in feedcheck.result(report, "runpod")["unknown_gpus"]


def test_an_absurd_price_is_held_back(
    runpod_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_absurd_price_held_back(
        capsys, lambda handler: runpod_api.serve("/graphql", handler), graphql(_absurd()), "runpod"
    )
