"""Tiers as a filter (issue 24 item 3): which tiers each offer is in, the one filter that leaves
them out, and `--exclude` as a user types it in `quick` and `prices` (the app: tests/tui)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from msgspec.structs import replace

from costcalc.cli import main
from costcalc.core import inputs, tiers
from costcalc.core.constants import TIER_NAMES
from costcalc.core.errors import CostcalcError
from costcalc.core.models import CloudOffer, Scenario
from costcalc.core.offers import custom_offer
from costcalc.present import display
from tests.cli_run import run

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def offer(name: str, **more: Any) -> CloudOffer:
    return CloudOffer(
        provider=more.pop("provider", "runpod"),
        name=name,
        region="global",
        gpu="rtx4090",
        usd_per_hour=more.pop("usd_per_hour", 0.5),
        fetched_at=NOW,
        source="test",
        **more,
    )


SECURE = offer("secure")
COMMUNITY = offer("community", tier="community")
MARKET = offer("market", provider="vast", tier="marketplace", price_kind="observed")
SPOT = offer("spot estimate", provider="aws-spot", spot=True, price_kind="estimate")
FREE = offer("free", provider="colab", usd_per_hour=0.0, guaranteed=False)
PLAN = offer("plan", provider="colab", usd_per_hour=0.0, monthly_fee_usd=9.99)
COMMITTED = replace(  # a commitment: paid for every hour of its term
    offer("g6e.xlarge (1-yr reserved)", provider="aws-reserved"), term_years=1
)


@pytest.mark.parametrize(
    ("item", "wanted"),
    [
        (SECURE, {"secure", "on-demand"}),
        (COMMUNITY, {"community", "on-demand"}),
        (MARKET, {"marketplace", "on-demand"}),
        (SPOT, {"secure", "spot", "estimate"}),
        (FREE, {"secure", "on-demand", "free"}),
        (PLAN, {"secure", "on-demand"}),  # no hourly price, but a monthly fee: not free
        (COMMITTED, {"secure", "committed"}),
    ],
    ids=lambda v: v.name if isinstance(v, CloudOffer) else "",
)
def test_every_offer_is_in_one_host_and_one_pricing_tier(
    item: CloudOffer, wanted: set[str]
) -> None:
    assert tiers.tiers_of(item) == wanted


def test_the_filter_leaves_out_any_offer_in_a_named_tier() -> None:
    every = [SECURE, COMMUNITY, MARKET, SPOT, FREE, PLAN, COMMITTED]
    kept = tiers.without(every, frozenset({"community", "marketplace"}))
    assert kept == [SECURE, SPOT, FREE, PLAN, COMMITTED]
    assert tiers.without(every, frozenset({"spot", "free", "committed"})) == [
        SECURE,
        COMMUNITY,
        MARKET,
        PLAN,
    ]
    assert tiers.without(every, frozenset({"estimate"})) == [o for o in every if o is not SPOT]
    assert tiers.without(every, frozenset()) == every


def test_your_own_offer_is_never_left_out() -> None:
    mine = custom_offer("rtx4090", 1, 0.3, NOW)
    assert tiers.keeps(mine, frozenset(TIER_NAMES))


def test_offers_spot_or_on_demand_is_the_same_filter() -> None:
    assert tiers.left_out((), "on-demand") == {"spot", "committed"}
    assert tiers.left_out((), "spot") == {"on-demand", "committed"}
    assert tiers.left_out((), "committed") == {"on-demand", "spot"}
    assert tiers.left_out(("community",), "all") == {"community"}


def test_the_weighed_clause_names_what_was_weighed_and_left_out() -> None:
    w = tiers.weighed([SECURE, SPOT, COMMUNITY], frozenset({"marketplace", "free"}))
    assert display.weighed_text(w) == (
        "Weighed: secure and community on-demand and spot offers; left out: marketplace, free."
    )
    assert display.weighed_text(tiers.weighed([SECURE], frozenset())) is None


def test_a_scenario_keeps_each_tier_once_in_one_order() -> None:
    s = Scenario(exclude_tiers=("marketplace", "community", "marketplace"))  # type: ignore[arg-type]
    assert s.exclude_tiers == ("community", "marketplace")


@pytest.mark.parametrize("text", ["comunity", "datacentre", "community,nope"])
def test_an_unknown_tier_is_one_line_naming_the_valid_ones(text: str) -> None:
    with pytest.raises(CostcalcError) as caught:
        inputs.BY_FIELD["exclude_tiers"].parse(text)
    message = str(caught.value)
    assert "\n" not in message and all(name in message for name in TIER_NAMES)


# ---------------------------------------------------------------------- through the CLI


QUICK = ["quick", "--gpu", "rtx3090", "--util", "0.15"]


def test_excluding_community_and_marketplace_gives_a_data_centre_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run([*QUICK, "--json"], capsys)
    before = json.loads(out)["best"]
    assert before["tier"] in ("community", "marketplace")  # else this test would prove nothing
    code, out, err = run([*QUICK, "--exclude", "community,marketplace", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["best"]["tier"] in (None, "secure")
    assert doc["tiers"]["left_out"] == ["community", "marketplace"]
    assert "community" not in doc["tiers"]["hosts"]
    assert all(o["tier"] not in ("community", "marketplace") for o in doc["offers"])
    code, text, _ = run([*QUICK, "--exclude", "community", "--exclude", "marketplace"], capsys)
    flat = " ".join(text.split())
    assert code == 0 and doc["best"]["name"] in flat
    assert (
        "Weighed: secure on-demand, spot and committed offers; left out: community, marketplace."
        in flat
    )


def test_exclude_from_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSTCALC_EXCLUDE", "community, marketplace")
    _, out, _ = run([*QUICK, "--json"], capsys)
    assert json.loads(out)["best"]["tier"] in (None, "secure")


@pytest.mark.parametrize("command", [QUICK, ["prices"]])
def test_an_unknown_tier_exits_2_with_one_line(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*command, "--exclude", "community,datacenter"], capsys)
    assert code == 2 and not out
    assert err.count("\n") == 1 and "marketplace" in err and "'datacenter'" in err


def test_prices_leaves_out_the_same_tiers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["prices", "--gpu", "rtx4090", "--json"], capsys)
    every = json.loads(out)
    assert {o["tier"] for o in every} >= {"community", "marketplace"}
    code, out, _ = run(
        ["prices", "--gpu", "rtx4090", "--exclude", "community,marketplace", "--json"], capsys
    )
    kept = json.loads(out)
    assert code == 0 and kept
    assert [o for o in every if o["tier"] not in ("community", "marketplace")] == kept
    _, out, _ = run(["prices", "--exclude", "spot,estimate", "--json"], capsys)
    assert not any(o["spot"] or o["price_kind"] == "estimate" for o in json.loads(out))


@pytest.mark.parametrize("command", ["quick", "prices", "tui"])
def test_every_command_that_takes_offers_lists_the_tiers(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    flat = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert all(name in flat for name in TIER_NAMES), flat


def test_free_is_said_of_free_tiers_only(capsys: pytest.CaptureFixture[str]) -> None:
    """Seen on main: Colab's Pay As You Go ($0.87/h for a G4, no plan) read "free" in the
    plan/host column and answered the words filter `free`, as every Colab offer without a
    guaranteed GPU did; only the $0 tier is free."""
    from costcalc.present import columns as cols
    from costcalc.store.loaders import load_app_data

    colab = [o for o in load_app_data().book.offers if o.provider == "colab"]
    payg = [o for o in colab if o.name.startswith("Pay As You Go")]
    free = [o for o in colab if o.usd_per_hour == 0]
    assert payg and free and not any(o.guaranteed for o in colab)  # no GPU guaranteed: all
    assert all(tiers.is_free(o) and "free" in tiers.tiers_of(o) for o in free)
    assert not any(tiers.is_free(o) or "free" in tiers.tiers_of(o) for o in payg)
    assert main(["quick", "--no-config", "--gpu", "t4", "--desktop-price", "900", "--provider",
                 "colab", "--json", "--all"]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    hosts = {o["name"]: o for o in doc["offers"]}
    assert main(["quick", "--no-config", "--gpu", "t4", "--desktop-price", "900", "--provider",
                 "colab", "--match", "free", "--json", "--all"]) == 0  # fmt: skip
    matched = json.loads(capsys.readouterr().out)["offers"]
    assert matched and all(o["usd_per_hour"] == 0 for o in matched)
    assert {o["name"] for o in matched} == {n for n, o in hosts.items() if o["usd_per_hour"] == 0}
    ctx = cols.Context()
    results = _results(free + payg)
    cells = {r.offer.name: cols.BY_KEY["extras"].cell(r, ctx) for r in results}
    assert {cells[o.name] for o in free} == {"free"}
    assert {cells[o.name] for o in payg} == {"no plan"}


def _results(offers: list[CloudOffer]) -> list[Any]:
    """The offers as a comparison prices them (the cells take a result, not an offer)."""
    from costcalc.core.scenario import evaluate
    from costcalc.store.loaders import load_app_data

    data = load_app_data()
    scenario = Scenario(gpu="t4", desktop_price_usd=900.0, providers=("colab",))
    calc = evaluate(scenario, data, NOW)
    wanted = {(o.name, o.gpu) for o in offers}
    return [r for r in calc.comparison.offers if (r.offer.name, r.offer.gpu) in wanted]
