"""One staleness rule per kind of price (issue 24 item 4): the limits, the legend, one age format,
and the CLI's table, its verdict, `quick --json` and `prices --json` saying the same of one offer
(the app: tests/tui/test_tiers.py)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from msgspec.structs import replace

from costcalc.core import staleness
from costcalc.core.models import CloudOffer
from costcalc.core.scenario import CARD_PRICE_STALE_DAYS
from costcalc.present import display
from tests.cli_run import run

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def offer(days_old: float, **more: Any) -> CloudOffer:
    return CloudOffer(
        provider=more.pop("provider", "lambda"),
        name="x",
        region="global",
        gpu="rtx4090",
        usd_per_hour=0.5,
        fetched_at=NOW - timedelta(days=days_old),
        source="test",
        **more,
    )


KINDS = [
    # (what the offer is, its rule's limit in days)
    ({"price_kind": "observed", "spot": True}, 7),
    ({"price_kind": "observed", "tier": "marketplace"}, 7),
    ({"price_kind": "estimate", "spot": True}, 30),
    ({"price_kind": "estimate"}, 30),
    ({"price_kind": "list"}, 90),
    ({"price_kind": "list", "spot": True}, 90),  # a published spot price (GCP)
    ({"price_kind": "list", "tier": "community"}, 90),  # RunPod's community cloud
    ({"price_kind": "list", "tier": "marketplace"}, 90),  # a marketplace's own quoted rate
    ({"price_kind": "observed"}, 90),  # an on-demand price read from a page or API
]


@pytest.mark.parametrize(("kind", "limit"), KINDS, ids=lambda v: str(v))
def test_each_kind_of_price_is_stale_after_its_own_limit(kind: dict[str, Any], limit: int) -> None:
    assert staleness.max_age_days(offer(0, **kind)) == limit
    assert not staleness.is_stale(offer(limit - 0.5, **kind), NOW)
    assert staleness.is_stale(offer(limit + 0.5, **kind), NOW)


def test_the_provider_does_not_decide() -> None:
    """RunPod at 61 d and Jarvislabs at 66 d: both list prices, both fresh (issue 24)."""
    runpod = offer(61, provider="runpod", tier="community")
    jarvis = offer(66, provider="jarvislabs")
    assert not staleness.is_stale(runpod, NOW) and not staleness.is_stale(jarvis, NOW)


def test_committed_prices_follow_the_list_rule() -> None:
    committed = replace(offer(100), price_kind="committed")
    assert staleness.stale_kind(committed) == "list" and staleness.is_stale(committed, NOW)


def test_one_table_feeds_every_limit_and_the_legend() -> None:
    assert CARD_PRICE_STALE_DAYS == staleness.MAX_AGE_DAYS["street"] == 180
    assert staleness.LEGEND == (
        "stale: observed spot/marketplace prices over 7 d, estimates over 30 d, list prices "
        "over 90 d, desktop card prices over 180 d"
    )
    assert staleness.CLOUD_LEGEND in staleness.LEGEND and "card" not in staleness.CLOUD_LEGEND


@pytest.mark.parametrize(
    ("days", "text"), [(0.01, "<1 d"), (0.5, "<1 d"), (61.4, "61 d"), (1059.2, "1,059 d")]
)
def test_one_age_format(days: float, text: str) -> None:
    assert display.age(days) == text


# ---------------------------------------------------------------------- through the CLI


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSTCALC_NOW", NOW.isoformat())


QUICK = ["quick", "--gpu", "rtx4090", "--util", "0.15", "--provider", "runpod"]
QUICK += ["--provider", "vast", "--provider", "aws-spot", "--provider", "lambda"]


@pytest.mark.usefixtures("pinned", "wide_terminal")
def test_the_table_the_json_and_prices_agree_for_every_offer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run([*QUICK, "--all", "--json"], capsys)
    offers = json.loads(out)["offers"]
    assert {o["stale"] for o in offers} == {True, False}  # both kinds are in the bundled data
    for o in offers:
        assert o["stale"] == (o["price_age_days"] > o["stale_after_days"])
    key = {(o["provider"], o["name"], o["region"]): o["stale"] for o in offers}

    _, out, _ = run(["prices", "--provider", "runpod", "--provider", "vast", "--json"], capsys)
    listed = json.loads(out)
    both = [o for o in listed if (o["provider"], o["name"], o["region"]) in key]
    assert len(both) > 20
    assert all(o["stale"] == key[(o["provider"], o["name"], o["region"])] for o in both)

    _, text, _ = run([*QUICK, "--all", "--wide"], capsys)
    rows = [line for line in text.splitlines() if re.search(r"\d d( stale)?$", line)]
    by_name = {o["name"]: o["stale"] for o in offers if o["gpu"] in ("rtx4090",)}
    checked = 0
    for line in rows:
        for name, stale in by_name.items():
            if f"  {name}  " in line:
                assert line.endswith(" stale") == stale, line
                checked += 1
    assert checked >= 2
    assert staleness.CLOUD_LEGEND in " ".join(text.split())


@pytest.mark.usefixtures("pinned")
def test_the_verdict_says_which_rule_made_its_price_stale(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["quick", "--gpu", "rtx_a6000", "--provider", "vast", "--cloud-gpu", "rtx_a6000"]
    _, out, _ = run(argv, capsys)
    flat = " ".join(out.split())
    # an October listing, the only offer left: a stale market price decides only when no other can
    assert "stale (observed spot/marketplace prices over 7 d)" in flat
    h100 = ["--gpu", "h100_sxm5_80gb", "--provider", "paperspace", "--cloud-gpu", "h100_sxm5_80gb"]
    _, out, _ = run(["quick", *h100], capsys)
    assert "stale (list prices over 90 d)" in " ".join(out.split())  # Paperspace's H100 of May
    assert staleness.CLOUD_LEGEND in flat
    _, out, _ = run(["quick", "--gpu", "rtx4090", "--provider", "lambda"], capsys)
    assert "stale" not in out  # no stale price anywhere: no legend either


@pytest.mark.usefixtures("pinned")
def test_prices_sources_and_ages_say_stale_by_the_same_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(["prices", "--provider", "vast", "--provider", "lambda", "--sources"], capsys)
    flat = " ".join(out.split())
    assert re.search(r"vast: bundled, prices of \S+ \(age \d+ d, 7 of 8 rows stale\)", flat)
    assert re.search(r"lambda: bundled, prices of \S+ \(age \d+ d\)", flat)
    assert staleness.CLOUD_LEGEND in flat
    assert not re.search(r"\d\.\d y", out)  # ages in days, never years
    _, out, _ = run(["prices", "--ages"], capsys)
    assert not re.search(r"\d\.\d y", out)


@pytest.mark.usefixtures("pinned")
def test_the_answer_names_the_stale_listings_it_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The bundled Vast.ai listings (2026-10-04) are cheaper than RunPod's RTX 3090 rows but stale
    at NOW: the text names the cheapest, the JSON lists them all, and none is the verdict."""
    argv = ["quick", "--gpu", "rtx3090", "--provider", "vast", "--provider", "runpod"]
    _, out, _ = run([*argv, "--json"], capsys)
    doc = json.loads(out)
    aside = doc["set_aside_stale"]
    assert aside and all(o["provider"] == "vast" and o["stale"] for o in aside)
    assert doc["best"]["provider"] == "runpod" and not doc["best"]["stale"]
    assert all(o["usd_per_year"] < doc["best"]["usd_per_year"] for o in aside)
    _, text, _ = run(argv, capsys)
    flat = " ".join(text.split())
    assert f"Left out of the verdict as stale: Vast.ai {aside[0]['name']} at" in flat
