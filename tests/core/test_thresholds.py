"""What flips the verdict (issue 24 item 1): each threshold `quick --json` reports is where the
real verdict changes. Every check moves one input just across its threshold, re-runs the real
`quick --json` (the bundled prices, the user's prices.yaml for the offer's price) and sees the
decision flip, then just short of it and sees it hold.
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from costcalc.cli import main
from costcalc.core.models import CloudOffer
from costcalc.core.ranges import (
    Reading,
    median,
    price_range,
    readings_of,
    same_offer,
    what_price,
)
from costcalc.core.thresholds import OfferThreshold, Thresholds
from costcalc.edge import locations

# One comparable offer: RunPod's Community Cloud 4090, so its price alone decides.
ONE_OFFER = ["--provider", "runpod", "--cloud-gpu", "rtx4090", "--match", "community"]
RUNPOD_4090 = "1x RTX 4090 (Community Cloud)"
NUDGE = 0.005  # half a per cent either side of a threshold


def quick_json(*argv: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["quick", "--no-config", "--gpu", "rtx3090", *argv, "--json"])
    assert code == 0, err.getvalue()
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


def set_runpod_4090(usd_per_hour: float, name: str = RUNPOD_4090) -> None:
    """The user's prices.yaml moves the offer's price: the path a user takes to try one."""
    path: Path = locations.price_overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "overrides:\n"
        f"  - {{provider: runpod, name: '{name}', region: global, "
        f"usd_per_hour: {usd_per_hour!r}, as_of: 2026-09-25}}\n"
    )


@pytest.mark.parametrize("util", ["0.15", "1.0"])
def test_the_offers_price_threshold_flips_the_verdict(util: str) -> None:
    doc = quick_json("--util", util, *ONE_OFFER)
    t = doc["thresholds"]
    assert doc["decision"] in ("rent", "buy") and t["offer_flips_verdict"] is True
    assert t["offer"]["name"] == RUNPOD_4090 and t["offer"]["usd_per_hour_now"] == 0.34
    threshold = t["offer"]["usd_per_hour"]
    rent = doc["decision"] == "rent"
    assert (threshold > 0.34) if rent else (threshold < 0.34)
    set_runpod_4090(threshold * (1 + NUDGE))
    assert quick_json("--util", util, *ONE_OFFER)["decision"] == "buy"
    set_runpod_4090(threshold * (1 - NUDGE))
    assert quick_json("--util", util, *ONE_OFFER)["decision"] == "rent"


def test_a_rent_held_by_other_offers_names_them_and_stays_rent() -> None:
    """With every RunPod offer weighed (a Community Cloud card is their verdict: the 3090 since
    issue 39's speeds, the 4090 before), its price alone cannot flip 15 %: past its threshold
    the next offer is the verdict, still Rent, as the JSON said."""
    doc = quick_json("--util", "0.15", "--provider", "runpod")
    best = doc["best"]["name"]
    assert doc["best"]["provider"] == "runpod" and "Community Cloud" in best
    t = doc["thresholds"]
    assert doc["decision"] == "rent" and t["offer_flips_verdict"] is False
    assert t["held_by_count"] >= 1
    nxt = t["held_by_next"]
    assert (nxt["provider"], nxt["name"]) == (t["held_by"][0]["provider"], t["held_by"][0]["name"])
    set_runpod_4090(t["offer"]["usd_per_hour"] * (1 + NUDGE), best)
    moved = quick_json("--util", "0.15", "--provider", "runpod")
    assert moved["decision"] == "rent"
    assert (moved["best"]["provider"], moved["best"]["name"]) == (nxt["provider"], nxt["name"])
    assert "price alone cannot flip it" in doc["thresholds_text"]


@pytest.mark.parametrize("util", ["0.15", "1.0"])
def test_the_desktop_price_threshold_flips_the_verdict(util: str) -> None:
    doc = quick_json("--util", util, *ONE_OFFER)
    price = doc["thresholds"]["desktop_price_usd"]
    assert price is not None
    cheaper = quick_json("--util", util, *ONE_OFFER, "--desktop-price", f"{price * (1 - NUDGE)}")
    dearer = quick_json("--util", util, *ONE_OFFER, "--desktop-price", f"{price * (1 + NUDGE)}")
    assert (cheaper["decision"], dearer["decision"]) == ("buy", "rent")


def test_the_electricity_threshold_flips_the_verdict() -> None:
    doc = quick_json("--util", "1.0", *ONE_OFFER)
    kwh = doc["thresholds"]["usd_per_kwh"]
    assert doc["decision"] == "buy" and kwh is not None
    cheaper = quick_json("--util", "1.0", *ONE_OFFER, "--kwh-price", f"{kwh * (1 - NUDGE)}")
    dearer = quick_json("--util", "1.0", *ONE_OFFER, "--kwh-price", f"{kwh * (1 + NUDGE)}")
    assert (cheaper["decision"], dearer["decision"]) == ("buy", "rent")


def test_the_utilisation_threshold_flips_the_verdict() -> None:
    doc = quick_json("--util", "0.15", *ONE_OFFER)
    util = doc["thresholds"]["utilisation"]
    assert util == doc["break_even_utilisation"]
    below = quick_json("--util", f"{util * (1 - NUDGE)}", *ONE_OFFER)
    above = quick_json("--util", f"{util * (1 + NUDGE)}", *ONE_OFFER)
    assert (below["decision"], above["decision"]) == ("rent", "buy")


def test_when_nothing_pays_back_the_answer_says_so() -> None:
    doc = quick_json("--util", "0.8", "--horizon", "1")
    assert doc["decision"] == "rent" and doc["thresholds"]["utilisation"] is None
    assert "No utilisation pays back within 1 year." in doc["thresholds_text"]
    assert doc["thresholds"]["usd_per_kwh"] is None  # even free electricity: said too
    assert "Even free electricity would not make it pay back." in doc["thresholds_text"]


def test_decision_names_a_desktop_that_cannot_hold_the_job() -> None:
    doc = quick_json("--memory-gb", "40")
    assert doc["decision"] == "cannot_fit" and doc["thresholds"]["offer"] is None


# --------------------------------------------------------------------------- ranges

WHEN = datetime(2026, 10, 1, tzinfo=timezone.utc)


def offer(name: str, usd: float, **more: Any) -> CloudOffer:
    fields: dict[str, Any] = {
        "provider": "vast",
        "name": name,
        "region": "global",
        "gpu": "rtx4090",
        "usd_per_hour": usd,
        "tier": "marketplace",
        "fetched_at": WHEN,
        "source": "test",
        **more,
    }
    return CloudOffer(**fields)


def test_readings_are_one_offers_labels_and_history_never_another_region_or_tier() -> None:
    low = offer("1x RTX 4090 (20th percentile)", 0.30, summary="20th percentile of 40 verified")
    median = offer("1x RTX 4090 (median)", 0.36, summary="median of 40 verified offers")
    elsewhere = offer("1x RTX 4090 (median)", 0.20, region="eu")
    bid = offer("1x RTX 4090 (interruptible)", 0.10, spot=True)
    assert same_offer(low, median) and not same_offer(low, elsewhere)
    assert not same_offer(low, bid)
    history = [("1x RTX 4090 (median)", datetime(2026, 9, 1, tzinfo=timezone.utc), 0.50, "history")]
    found = readings_of(low, [low, median, elsewhere, bid], history)
    assert [r.usd_per_hour for r in found] == [0.50, 0.30, 0.36]
    assert [r.what for r in found] == [
        "median of verified offers",
        "20th percentile of verified offers",
        "median of verified offers",
    ]
    assert [r.recorded for r in found] == [True, False, False]


def test_the_range_says_which_readings_would_flip_the_verdict() -> None:
    readings = [Reading(p, WHEN, "list price") for p in (0.30, 0.34, 0.50)]
    deciding = OfferThreshold(result=None, usd_per_hour=0.41)  # type: ignore[arg-type]
    rent = Thresholds("rent", deciding, (), None, None, None, None, None)
    spread = price_range(readings, rent)
    assert spread is not None
    assert (spread.low, spread.median, spread.high, spread.count) == (0.30, 0.34, 0.50, 3)
    assert not spread.holds and [r.usd_per_hour for r in spread.flips_at] == [0.50]
    buy = Thresholds("buy", deciding, (), None, None, None, None, None)
    spread = price_range(readings, buy)
    assert spread is not None and [r.usd_per_hour for r in spread.flips_at] == [0.30, 0.34]


def test_marketplace_figures_are_labelled_for_what_they_are() -> None:
    assert what_price(offer("1x RTX 4090 (Vast.ai's quoted rate)", 0.44)) == "quoted rate"
    assert what_price(offer("1x RTX 4090 (median)", 0.4)) == "median of verified offers"
    assert what_price(offer("g6e.xlarge", 1.8, tier=None)) == "list price"


def test_every_cross_check_reading_is_of_a_bundled_offer() -> None:
    """prices/readings.yaml only adds readings to offers that exist: a row renamed in its
    snapshot file must take its readings with it."""
    from costcalc.core.ranges import ReadingsFile
    from costcalc.store.snapshots import load_bundled_file, load_price_book

    readings = load_bundled_file("readings.yaml", ReadingsFile).readings
    book = load_price_book(overrides=False).offers
    held = {(o.provider, o.name, o.region, o.gpu, o.gpu_count) for o in book}
    assert readings
    for r in readings:
        assert (r.provider, r.name, r.region, r.gpu, r.gpu_count) in held, r
        assert r.source and r.observed.year >= 2025


def test_the_price_bisection_costs_every_offer_as_the_engine_does() -> None:
    """The bisection prices an offer without copying it; at any price its year is what
    compare.cloud_year gives the offer at that price (whole months, fees, setup, spot)."""
    from costcalc.core.compare import cloud_year
    from costcalc.core.engine import HOURS_PER_YEAR
    from costcalc.core.models import Scenario
    from costcalc.core.scenario import evaluate
    from costcalc.core.thresholds import year_at_price
    from costcalc.store.loaders import load_app_data

    data = load_app_data()
    calc = evaluate(Scenario(gpu="rtx3090", utilisation=0.4), data, WHEN)
    a = calc.assumptions
    kinds = set()
    for result in calc.comparison.offers:
        year = year_at_price(result, a)
        assert year.__name__ == "fast", result.offer  # no copy needed: the formula held
        kinds.add((result.offer.billing_increment_s >= 86_400, result.offer.spot))
        for price in (0.0, 0.5, result.offer.usd_per_hour * 3):
            priced = replace(result.offer, **{"usd_per_hour": price})
            busy = a.utilisation * HOURS_PER_YEAR
            want = cloud_year(priced, busy, result.effective_speed, a.horizon_years)[1]
            assert year(price) == pytest.approx(want, rel=1e-12, abs=1e-9)
    assert {(True, False), (False, True), (False, False)} <= kinds  # monthly, spot, hourly


@given(st.lists(st.floats(min_value=0, max_value=1e4) | st.integers(0, 10**4), min_size=1))
def test_the_readings_median_is_the_standard_librarys(prices: list[float]) -> None:
    """ranges.median stands in for statistics.median (whose import costs quick 3 ms)."""
    assert median(prices) == statistics.median(prices)
    assert type(median(prices)) is type(statistics.median(prices))
