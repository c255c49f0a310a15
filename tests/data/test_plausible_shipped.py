"""Price sanity with one reading (issue 37, part 5): each GPU's price is bounded by what ships
(its card's street price, the cheapest and dearest shipped price of the GPU, the cheapest of
its class per GB), and a whole feed far from its last good snapshot is held back. Held-back
prices are named in the refresh's line and in `--json`, and the verdict stays as it was.

The bounds' constants are recomputed from the bundled data here, so a data change that moves
them fails a test naming the figure. The feeds are served by a real HTTP server on 127.0.0.1
(tests/conftest.py) in the recorded formats of tests/fixtures/feeds.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

import pytest
from werkzeug import Response

from costcalc.cli import main
from costcalc.core.catalog import card_price
from costcalc.core.models import OfferRow, PriceSnapshot
from costcalc.core.plausible import (
    FEED_RATIO,
    RENT_OUT_HOURS,
    SHIPPED_SPREAD,
    Readings,
    ShippedPrices,
    doubt,
    feed_shift,
    judge,
)
from costcalc.core.ranges import ReadingsFile, family_name
from costcalc.edge import locations
from costcalc.store.bundled import load_catalog
from costcalc.store.snapshots import (
    load_bundled,
    load_bundled_file,
    load_price_book,
    load_snapshot,
    refreshed_path,
    shipped_prices,
    write_refreshed,
)
from tests.conftest import FEEDS, FeedRoutes

RUNPOD = json.loads((FEEDS / "runpod-gputypes.json").read_text())
VAST = json.loads((FEEDS / "vast-bundles.json").read_text())


@pytest.fixture(scope="module")
def shipped() -> ShippedPrices:
    return shipped_prices()


def bundled_offers() -> list[Any]:
    from costcalc.providers import registry

    return [o for p in registry.PROVIDERS for o in p.offers(load_bundled(p))]


# --------------------------------------------------------------------------- the bounds' ground


def test_the_shipped_spread_is_the_widest_two_readings_of_one_offer_lie_apart() -> None:
    """SHIPPED_SPREAD covers, and is no more than a tenth above, the widest ratio between two
    shipped dated prices of one offer (a snapshot's row and its cross-checks)."""
    prices: dict[tuple[object, ...], list[float]] = defaultdict(list)
    for o in bundled_offers():
        if o.usd_per_hour > 0:
            name = family_name(o.name)
            offer = (o.provider, name, o.region, o.gpu, o.gpu_count, o.spot, o.tier, o.term_years)
            prices[offer].append(o.usd_per_hour)
    for r in load_bundled_file("readings.yaml", ReadingsFile).readings:
        key = (r.provider, family_name(r.name), r.region, r.gpu, r.gpu_count)
        (same,) = [k for k in prices if k[:5] == key and not k[5] and k[7] is None][:1]
        prices[same].append(r.usd_per_hour)
    widest = max(max(found) / min(found) for found in prices.values())
    assert widest <= SHIPPED_SPREAD < widest * 1.1, widest


def test_three_years_of_rent_earn_back_more_than_any_shipped_offer_does() -> None:
    """Every shipped offer of a card with a dated street or used price earns it back in less
    than RENT_OUT_HOURS around the clock; the longest (RunPod's Community Cloud 8x H100 PCIe) in
    ~14,700 h."""
    catalog = load_catalog()
    paybacks = []
    for o in bundled_offers():
        if o.usd_per_hour <= 0:
            continue
        spec = catalog.get(o.gpu)
        dated = [p for p in (card_price(spec), card_price(spec, used=True)) if p and p.observed]
        if dated:
            card = min(p.usd for p in dated)
            paybacks.append((card / o.usd_per_gpu_hour, o.provider, o.name))
    longest = max(paybacks)
    assert longest[0] < RENT_OUT_HOURS
    assert 14_000 < longest[0] < 15_000 and longest[1] == "runpod", longest


def test_every_shipped_offer_and_reading_passes_every_bound(shipped: ShippedPrices) -> None:
    """Colab tiers, AWS spot and reserved prices, Vast.ai's cheapest listings: none is doubted
    by what ships, judged as a feed's row is (with the other readings too)."""
    catalog = load_catalog()
    book = load_price_book(overrides=False)
    readings = Readings.of(book.offers)
    doubted = [
        (o.provider, o.name, o.region, why)
        for o in bundled_offers()
        if (why := doubt(o.gpu, o.gpu_count, o.usd_per_hour, catalog, readings, shipped))
    ]
    doubted += [
        (r.provider, r.name, str(r.observed), why)
        for r in load_bundled_file("readings.yaml", ReadingsFile).readings
        if (why := doubt(r.gpu, r.gpu_count, r.usd_per_hour, catalog, shipped=shipped))
    ]
    assert doubted == []


@pytest.mark.parametrize(
    ("gpu", "count", "usd_per_hour", "what"),
    [
        ("rtx3090", 1, 0.1296, "Vast.ai's cheapest verified 3090 listing, 2026-10-04"),
        ("rtx3090", 1, 0.18, "DuneDive: Vast.ai 3090 interruptible from 0.18, 2026-05"),
        ("rtx4090", 1, 0.31, "DuneDive: Vast.ai 4090 interruptible from 0.31, 2026-05"),
        ("rtx4090", 1, 0.2, "a median minimum bid of the recorded Vast.ai answer's kind"),
        ("a100_sxm4_80gb", 1, 0.78, "DuneDive: Vast.ai A100-80GB from 0.78, 2026-05"),
        ("h100_sxm5_80gb", 1, 0.93, "the recorded Vast.ai answer's H100 SXM median minimum bid"),
        ("h100_sxm5_80gb", 1, 1.85, "DuneDive: Vast.ai H100-80GB from 1.85, 2026-05"),
        ("t4", 1, 0.1189, "Colab Pro's T4 per hour of compute units"),
        ("v100_sxm2_16gb", 4, 1.7136, "AWS spot p3.8xlarge estimate (4x V100)"),
        ("rtx3070", 1, 0.13, "RunPod's recorded RTX 3070 Community Cloud price, 2025-06-21"),
        ("rtx2000_ada", 1, 0.23, "RunPod's recorded RTX 2000 Ada Secure Cloud price"),
    ],
)
def test_a_cheap_but_real_price_passes(
    gpu: str, count: int, usd_per_hour: float, what: str, shipped: ShippedPrices
) -> None:
    assert judge(gpu, count, usd_per_hour, load_catalog(), shipped=shipped) is None, what


@pytest.mark.parametrize(
    ("gpu", "usd_per_hour", "bound", "expected"),
    [
        # the 3090's $850 used price earns back at $0.0323: Vast.ai's listing sets the floor
        ("rtx3090", 0.01, "shipped prices", "at least $0.037: 1/3.5 of the cheapest shipped RTX"),
        ("rtx5090", 0.05, "street price", "at least $0.14: its $3,688 new price of 2026-09-30"),
        ("rtx_pro6000", 0.2, "street price", "earned back in 3 years of renting around the clock"),
        ("rtx4090", 0.040, "shipped prices", "at least $0.0971: 1/3.5 of the cheapest shipped RTX"),
        ("rtx3080", 0.005, "street price", "at least $0.0116: its $305 used price of 2026-07-31"),
        (
            "rtx3090ti",
            0.02,
            "shipped class",
            "1,008 GB/s at 1/3.5 of the cheapest shipped consumer",
        ),
        (
            "rtx_a4000",
            0.03,
            "shipped class",
            "448 GB/s at 1/3.5 of the cheapest shipped workstation",
        ),
        ("h100_sxm5_80gb", 0.5, "shipped prices", "vast 1x H100 SXM (median), 2026-10-19"),
        (
            "rtx3090",
            0.9,
            "shipped prices",
            "at most $0.77: 3.5x the dearest shipped RTX 3090 price",
        ),
    ],
)
def test_one_reading_is_enough_to_hold_a_price_back(
    gpu: str, usd_per_hour: float, bound: str, expected: str, shipped: ShippedPrices
) -> None:
    """Each of these passed the checks before (class range, and no three other readings)."""
    catalog = load_catalog()
    assert judge(gpu, 1, usd_per_hour, catalog) is None
    found = judge(gpu, 1, usd_per_hour, catalog, shipped=shipped)
    assert found is not None and found.bound == bound and expected in found.reason, found


def test_a_feed_is_judged_by_its_median_ratio_over_the_offers_in_both() -> None:
    last = {"a": 1.0, "b": 2.0, "c": 4.0, "gone": 9.0}
    shift = feed_shift({"a": 0.2, "b": 0.4, "c": 0.8, "new": 1.0}, last)  # new, gone: not in both
    assert shift is not None and shift.compared == 3 and shift.ratio == pytest.approx(0.2)
    assert shift.held_back
    one = feed_shift({"a": 0.2, "b": 2.0, "c": 4.0}, last)  # one offer at a fifth: not the feed
    assert one is not None and one.ratio == 1.0 and not one.held_back
    assert feed_shift({"a": 0.2, "b": 0.4}, last) is None  # too few in both
    low, high = FEED_RATIO
    for ratio, held in ((low, False), (high, False), (low * 0.99, True), (high * 1.01, True)):
        found = feed_shift({k: v * ratio for k, v in last.items()}, last)
        assert found is not None and found.held_back is held


# --------------------------------------------------------------------------- in a refresh


def runpod_with_a_3090(community: float, secure: float) -> str:
    """The recorded RunPod answer with an RTX 3090 type added in the same format."""
    doc = json.loads(json.dumps(RUNPOD))
    types = doc["data"]["gpuTypes"]
    template = next(t for t in types if t["displayName"] == "RTX 4090")
    rtx3090 = {
        **template,
        "id": "NVIDIA GeForce RTX 3090",
        "displayName": "RTX 3090",
        "memoryInGb": 24,
        "communityPrice": community,
        "securePrice": secure,
    }
    types.append(rtx3090)
    return json.dumps(doc)


def vast_offer(number: int, gpu_name: str, gpu_ram: int, dph_base: float) -> dict[str, Any]:
    """A verified, reliable one-GPU offer in the recorded answer's format (no disk cost and no
    minimum bid, so the 20th percentile and the median are the prices themselves)."""
    template = next(o for o in VAST["offers"] if o["gpu_name"] == "RTX 4090")
    offer = {**template, "gpu_name": gpu_name, "gpu_ram": gpu_ram, "gpu_total_ram": gpu_ram}
    offer.update(id=40_000_000 + number, machine_id=50_000 + number, host_id=60_000 + number)
    offer.update(dph_base=dph_base, storage_cost=0.0, reliability2=0.99)
    del offer["min_bid"]
    return offer


def vast_with_cheap_3090s_and_4090() -> str:
    """The recorded Vast.ai answer's A100 offers, plus five 1x RTX 3090 (20th percentile $0.01,
    median $0.03) and five 1x RTX 4090 (20th percentile $0.040, median $0.348)."""
    kept = [o for o in VAST["offers"] if o["gpu_name"].startswith("A100")]
    rtx3090 = [
        vast_offer(i, "RTX 3090", 24576, usd)
        for i, usd in enumerate((0.01, 0.01, 0.03, 0.03, 0.03))
    ]
    rtx4090 = [
        vast_offer(10 + i, "RTX 4090", 24564, usd)
        for i, usd in enumerate((0.040, 0.040, 0.348, 0.40, 0.45))
    ]
    return json.dumps({"offers": kept + rtx3090 + rtx4090})


@pytest.fixture
def cheap_feeds(aws_feeds: FeedRoutes) -> FeedRoutes:
    runpod = runpod_with_a_3090(community=0.01, secure=0.03)
    vast = vast_with_cheap_3090s_and_4090()
    aws_feeds.serve("/runpod/graphql", lambda _r: Response(runpod, content_type="json"))
    aws_feeds.serve("/vast/bundles/", lambda _r: Response(vast, content_type="json"))
    return aws_feeds


def verdict(capsys: pytest.CaptureFixture[str], gpu: str) -> tuple[str, float]:
    """The decision at 15 % and the price per GPU-hour of the offer it rests on."""
    assert main(["quick", "--no-config", "--gpu", gpu, "--util", "0.15", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return doc["decision"], doc["best"]["usd_per_hour"] / doc["best"]["gpu_count"]


FEEDS_ARGS = ("--provider", "runpod", "--provider", "vast")


def test_one_reading_prices_are_held_back_named_and_the_verdict_stays(
    cheap_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {gpu: verdict(capsys, gpu) for gpu in ("rtx3090", "rtx4090")}

    assert main(["refresh", *FEEDS_ARGS, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    runpod, vast = doc["results"]
    held = {
        (h["provider"], h["offer"], h["usd_per_gpu_hour"]): h for h in runpod["held_back_offers"]
    }
    held |= {
        (h["provider"], h["offer"], h["usd_per_gpu_hour"]): h for h in vast["held_back_offers"]
    }
    assert set(held) == {
        *(("runpod", f"{n}x RTX 3090 (Community Cloud)", 0.01) for n in (1, 2, 4, 8)),
        *(("runpod", f"{n}x RTX 3090 (Secure Cloud)", 0.03) for n in (1, 2, 4, 8)),
        ("vast", "1x RTX 3090 (20th percentile)", 0.01),
        ("vast", "1x RTX 3090 (median)", 0.03),
        ("vast", "1x RTX 4090 (20th percentile)", 0.04),
    }
    assert {h["gpu"] for h in held.values()} == {"rtx3090", "rtx4090"}
    assert held[("vast", "1x RTX 4090 (20th percentile)", 0.04)]["bound"] == "shipped prices"
    assert held[("runpod", "1x RTX 3090 (Community Cloud)", 0.01)]["bound"] == "shipped prices"
    assert all("per GPU-hour, expected at least" in h["reason"] for h in held.values())
    assert len(runpod["held_back"]) == 8 and len(vast["held_back"]) == 3
    assert doc["exit_code"] == 0 and runpod["held_back_feed"] is None

    stored = {
        name: {(r.name, r.usd_per_hour) for r in load_snapshot(name).snapshot.offers}  # type: ignore[union-attr]
        for name in ("runpod", "vast")
    }
    assert not any("RTX 3090" in name for found in stored.values() for name, _ in found)
    assert ("1x RTX 4090 (median)", 0.348) in stored["vast"]  # the rest of each feed is kept
    assert any(name.startswith("1x A100") for name, _ in stored["vast"])
    assert ("1x RTX 4090 (Community Cloud)", 0.34) in stored["runpod"]

    # the held prices decide nothing: the decision stays, and the offer it rests on is none of
    # them (the shipped RunPod 3090 the feed no longer lists may give way to another offer)
    after = {gpu: verdict(capsys, gpu) for gpu in before}
    assert {gpu: found[0] for gpu, found in after.items()} == {
        gpu: found[0] for gpu, found in before.items()
    }
    assert all(found[1] >= 0.1 for found in after.values())


def test_the_refresh_line_names_each_price_held_back_and_its_bound(
    cheap_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["refresh", *FEEDS_ARGS]) == 0
    lines = capsys.readouterr().out.splitlines()
    runpod = next(line for line in lines if "runpod: ok" in line)
    vast = next(line for line in lines if "vast: ok" in line)
    secure = ", ".join(f"{n}x RTX 3090 (Secure Cloud)" for n in (1, 2, 4, 8))
    community = ", ".join(f"{n}x RTX 3090 (Community Cloud)" for n in (1, 2, 4, 8))
    why = "expected at least $0.037: 1/3.5 of the cheapest shipped RTX 3090 price, $0.1296"
    assert "held back 8 implausible prices: " in runpod
    assert f"{secure} in global: RTX 3090 at $0.03 per GPU-hour, {why}" in runpod
    assert f"{community} in global: RTX 3090 at $0.01 per GPU-hour, {why}" in runpod
    assert "held back 3 implausible prices: " in vast
    assert f"1x RTX 3090 (20th percentile) in global: RTX 3090 at $0.01 per GPU-hour, {why}" in vast
    assert (
        "1x RTX 4090 (20th percentile) in global: RTX 4090 at $0.04 per GPU-hour, expected at "
        "least $0.0971: 1/3.5 of the cheapest shipped RTX 4090 price, $0.34" in vast
    )


def runpod_times(factor: float) -> str:
    doc = json.loads(json.dumps(RUNPOD))
    for gpu_type in doc["data"]["gpuTypes"]:
        for field in ("securePrice", "communityPrice"):
            if gpu_type.get(field):
                gpu_type[field] = round(gpu_type[field] * factor, 4)
    return json.dumps(doc)


def history_rows(provider: str) -> int:
    import sqlite3

    with sqlite3.connect(locations.history_db()) as conn:
        found = conn.execute("SELECT COUNT(*) FROM observations WHERE provider = ?", (provider,))
        return int(found.fetchone()[0])


def test_a_whole_feed_at_a_fifth_of_its_last_snapshot_is_held_back(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["refresh", "--provider", "runpod"]) == 0
    good = refreshed_path("runpod").read_bytes()
    count = len(load_snapshot("runpod").snapshot.offers)  # type: ignore[union-attr]
    recorded = history_rows("runpod")
    fifth = runpod_times(0.2)
    aws_feeds.serve("/runpod/graphql", lambda _r: Response(fifth, content_type="json"))
    capsys.readouterr()

    assert main(["refresh", "--provider", "runpod"]) == 1
    out, err = capsys.readouterr()
    assert "refresh: 0 refreshed, 0 skipped, 1 failed" in out
    assert (
        "runpod failed: held back whole: its prices are a median 0.20x those of the last good "
        "snapshot" in err
    )
    assert (
        f"({count} offers in both; expected 0.5x-2x)" in err
        and "kept its last good snapshot" in err
    )

    assert main(["refresh", "--provider", "runpod", "--json"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["results"]
    feed = result["held_back_feed"]
    assert feed["median_ratio"] == pytest.approx(0.2, abs=0.005)
    assert (feed["offers_compared"], feed["expected_ratio"]) == (count, [0.5, 2.0])
    assert not result["ok"] and "0.20x" in result["message"]

    assert refreshed_path("runpod").read_bytes() == good
    assert history_rows("runpod") == recorded


def test_force_stores_a_feed_whose_prices_really_moved(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["refresh", "--provider", "runpod"]) == 0
    dearer = runpod_times(2.5)  # within every GPU's bounds, but the whole feed moved
    aws_feeds.serve("/runpod/graphql", lambda _r: Response(dearer, content_type="json"))
    assert main(["refresh", "--provider", "runpod"]) == 1
    assert "a median 2.50x" in capsys.readouterr().err
    assert main(["refresh", "--provider", "runpod", "--force"]) == 0
    stored = {r.name: r.usd_per_hour for r in load_snapshot("runpod").snapshot.offers}  # type: ignore[union-attr]
    assert stored["1x RTX 4090 (Community Cloud)"] == pytest.approx(0.85)


# --------------------------------------------------------------------------- after a refresh


def test_a_stored_one_reading_price_never_reaches_a_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A snapshot stored before these bounds, with a 3090 at $0.03, is judged when loaded."""
    before = verdict(capsys, "rtx3090")
    now = datetime.now(timezone.utc)
    rows = (
        OfferRow(
            name="1x RTX 3090 (Community Cloud)", region="global", gpu="rtx3090", usd_per_hour=0.03
        ),
        OfferRow(
            name="1x RTX 4090 (Community Cloud)", region="global", gpu="rtx4090", usd_per_hour=0.34
        ),
    )
    snapshot = PriceSnapshot(provider="runpod", source="test", fetched_at=now, offers=rows)
    write_refreshed(refreshed_path("runpod"), snapshot)
    book = load_price_book(["runpod"], overrides=False)
    assert [o.name for o in book.offers] == ["1x RTX 4090 (Community Cloud)"]
    (problem,) = book.problems
    assert (
        "1x RTX 3090 (Community Cloud) in global: $0.03 per GPU-hour, expected at least $0.037"
        in problem
    )
    # the bad 3090 row never becomes the verdict: RunPod's 4090, the one row kept, is
    after = verdict(capsys, "rtx3090")
    assert after == (before[0], 0.34)


def test_your_own_price_is_kept_with_a_warning_naming_the_bound(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A price in your prices.yaml is deliberate: used as written, never dropped, but a price a
    feed's would be held back for is named on stderr (a 0.03 typed for 0.30 is seen)."""
    path = locations.price_overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "overrides:\n"
        "  - {provider: runpod, name: 1x RTX 3090 (Community Cloud), usd_per_hour: 0.03}\n"
        "  - {provider: runpod, name: 1x RTX 4090 (Community Cloud), usd_per_hour: 0.30}\n"
        "offers:\n"
        "  - {provider: vast, name: my 4090, region: home, gpu: rtx4090, usd_per_hour: 0.04}\n"
    )
    assert main(["prices", "--provider", "runpod", "--provider", "vast", "--json"]) == 0
    out, err = capsys.readouterr()
    prices = {o["name"]: o["usd_per_hour"] for o in json.loads(out)}
    assert prices["1x RTX 3090 (Community Cloud)"] == 0.03 and prices["my 4090"] == 0.04
    warned = [line for line in err.splitlines() if "used as you wrote it" in line]
    assert len(warned) == 2, err
    assert (
        "overrides[0] (runpod '1x RTX 3090 (Community Cloud)' in global): $0.03 per GPU-hour, "
        "expected at least $0.037" in warned[0]
    )
    assert "offers[0] (vast 'my 4090' in home): $0.04 per GPU-hour" in warned[1]
