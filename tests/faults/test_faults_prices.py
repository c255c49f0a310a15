"""Fault cases for prices: a price is judged per GPU (its class in the catalog, what the same GPU
costs elsewhere), not against one band for every feed. A wrong price is held back, named in the
refresh's line and in `--json`, and never reaches a verdict.

The feeds are served by a real HTTP server on 127.0.0.1 (tests/conftest.py).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from werkzeug import Response

from costcalc.cli import main
from costcalc.core.models import OfferRow, PriceSnapshot
from costcalc.core.plausible import MAX_GPUS_PER_OFFER, Readings, doubt
from costcalc.store.bundled import load_catalog
from costcalc.store.snapshots import load_price_book, load_snapshot, refreshed_path, write_refreshed
from tests.conftest import FEEDS, FeedRoutes

RUNPOD = json.loads((FEEDS / "runpod-gputypes.json").read_text())


@pytest.fixture(scope="module")
def readings() -> Readings:
    return Readings.of(load_price_book(overrides=False).offers)


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("gpu", "count", "usd_per_hour", "why"),
    [
        ("h100_sxm5_80gb", 1, 0.01, "for its class"),  # Lambda price_cents_per_hour: 1
        ("h100_sxm5_80gb", 1, 0.011, "for its class"),  # RunPod
        ("h100_sxm5_80gb", 1, 0.05, "for its class"),  # RunPod
        ("h100_sxm5_80gb", 1, 0.02, "for its class"),  # Vast
        ("h100_sxm5_80gb", 8, 0.16, "for its class"),  # OCI's 8-GPU shape at $0.02 per GPU
        ("rtx4090", 1, 99.0, "for its class"),
        ("h100_sxm5_80gb", 8, 0.09, "for its class"),  # an 8x H100 VM at $0.09/h
        ("h100_sxm5_80gb", 10**9, 3.0 * 10**9, "GPUs in one offer"),
        ("h100_sxm5_80gb", 10**6, 3.0 * 10**6, "GPUs in one offer"),
        ("h100_sxm5_80gb", 1, 0.30, "other readings"),  # inside its class, 13x below the rest
        ("t4", 1, 40.0, "other readings"),  # no card price: its segment allows it, others not
    ],
)
def test_a_wrong_price_for_its_gpu_is_doubted(
    gpu: str, count: int, usd_per_hour: float, why: str, readings: Readings
) -> None:
    reason = doubt(gpu, count, usd_per_hour, load_catalog(), readings)
    assert reason is not None and why in reason


@pytest.mark.parametrize(
    ("gpu", "count", "usd_per_hour"),
    [("h100_sxm5_80gb", 1, 1.5), ("h100_sxm5_80gb", 8, 98.32), ("rtx4090", 1, 0.2), ("t4", 4, 1.5)],
)
def test_a_right_price_passes(
    gpu: str, count: int, usd_per_hour: float, readings: Readings
) -> None:
    assert doubt(gpu, count, usd_per_hour, load_catalog(), readings) is None


def test_every_bundled_offer_is_believable_against_the_others(readings: Readings) -> None:
    """The bundled prices are checked here, not by checksums: prices/ is edited by hand, and a
    change that breaks the rule above shows up as a failing test naming the offer."""
    catalog = load_catalog()
    book = load_price_book(overrides=False)
    doubted = [
        (o.provider, o.name, o.region, why)
        for o in book.offers
        if (why := doubt(o.gpu, o.gpu_count, o.usd_per_hour, catalog, readings)) is not None
    ]
    assert doubted == []
    assert max(o.gpu_count for o in book.offers) <= MAX_GPUS_PER_OFFER


# --------------------------------------------------------------------------- in a refresh


def _runpod(**h100: Any) -> bytes:
    doc = json.loads(json.dumps(RUNPOD))
    for gpu_type in doc["data"]["gpuTypes"]:
        if gpu_type["displayName"] == "H100 SXM":
            gpu_type.update(h100)
    return json.dumps(doc).encode()


def test_a_one_cent_h100_is_held_back_named_and_never_the_verdict(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    aws_feeds.serve(
        "/runpod/graphql",
        lambda _r: Response(_runpod(securePrice=0.011, communityPrice=0.05), content_type="json"),
    )
    assert main(["refresh", "--provider", "runpod", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (result,) = doc["results"]
    held = result["held_back"]
    assert len(held) == 8  # 1, 2, 4 and 8 GPUs, in both tiers
    assert all("H100 SXM" in note and "per GPU-hour" in note for note in held)
    stored = load_snapshot("runpod").snapshot
    assert isinstance(stored, PriceSnapshot)
    assert not [r for r in stored.offers if r.gpu == "h100_sxm5_80gb"]
    assert len(stored.offers) > 8  # the rest of the feed was kept

    assert main(["quick", "--no-config", "--gpu", "h100 sxm", "--util", "0.5", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    h100 = [o for o in answer["offers"] if o["gpu"] == "h100_sxm5_80gb"]
    assert h100 and min(o["usd_per_hour"] / o["gpu_count"] for o in h100) > 0.5
    assert answer["best"]["usd_per_hour"] / answer["best"]["gpu_count"] > 0.5


def test_the_line_names_what_was_held_back(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    aws_feeds.serve(
        "/runpod/graphql", lambda _r: Response(_runpod(securePrice=0.02), content_type="json")
    )
    assert main(["refresh", "--provider", "runpod"]) == 0
    out = capsys.readouterr().out
    line = next(text for text in out.splitlines() if "runpod: ok" in text)
    assert "held back 4 implausible prices" in line and "1x H100 SXM (Secure Cloud)" in line


def test_a_feed_whose_prices_are_mostly_wrong_is_refused_whole(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cents read as dollars: on a first refresh (no snapshot of its own to compare with) most
    prices are held back, so the feed is refused; after a good refresh the whole feed is held
    back for its ratio to that snapshot, which stays byte for byte."""
    doc = json.loads(json.dumps(RUNPOD))
    for gpu_type in doc["data"]["gpuTypes"]:
        for field in ("securePrice", "communityPrice"):
            if gpu_type.get(field):
                gpu_type[field] = gpu_type[field] * 100
    bad = json.dumps(doc)
    aws_feeds.serve("/runpod/graphql", lambda _r: Response(bad, content_type="json"))
    assert main(["refresh", "--provider", "runpod"]) == 1
    err = capsys.readouterr().err
    assert "implausible prices in" in err and "kept its last good snapshot" in err
    assert not refreshed_path("runpod").exists()

    aws_feeds.serve_file("/runpod/graphql", "runpod-gputypes.json")
    assert main(["refresh", "--provider", "runpod"]) == 0
    good = refreshed_path("runpod").read_bytes()
    aws_feeds.serve("/runpod/graphql", lambda _r: Response(bad, content_type="json"))
    capsys.readouterr()
    assert main(["refresh", "--provider", "runpod"]) == 1
    err = capsys.readouterr().err
    assert "held back whole: its prices are a median 100.00x" in err
    assert "kept its last good snapshot" in err
    assert refreshed_path("runpod").read_bytes() == good


def test_a_stored_snapshot_with_a_wrong_price_never_reaches_a_verdict() -> None:
    """A snapshot refreshed before these checks (or edited by hand) is judged when loaded."""
    now = datetime.now(timezone.utc)
    rows = (
        OfferRow(name="cheap", region="global", gpu="h100_sxm5_80gb", usd_per_hour=0.01),
        OfferRow(name="fine", region="global", gpu="h100_sxm5_80gb", usd_per_hour=2.5),
        OfferRow(name="many", region="global", gpu="rtx4090", gpu_count=10**9, usd_per_hour=1.0),
    )
    snapshot = PriceSnapshot(provider="runpod", source="test", fetched_at=now, offers=rows)
    write_refreshed(refreshed_path("runpod"), snapshot)
    book = load_price_book(["runpod"], overrides=False)
    assert [o.name for o in book.offers] == ["fine"]
    assert any("cheap in global" in p and "(+1 more)" in p for p in book.problems)
