"""Your electricity, your currency, today's desktop: the wiring of issue 13 as users meet it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from costcalc.cli import main
from costcalc.store.bundled import load_catalog


def quick(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["quick", "--gpu", "rtx3090", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def quick_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = quick([*argv, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.usefixtures("wide_terminal")
@pytest.mark.parametrize(
    ("region", "label", "currency"),
    [
        # Eurostat nrg_pc_204, band DC, all taxes, 2025-S2: Germany 0.3869 EUR/kWh
        ("DE", "€0.387/kWh, Germany, Eurostat 2025-S2", "EUR"),
        # EIA average residential retail price 2025, California: 32.64 cents/kWh
        ("US-CA", "$0.326/kWh, California, EIA 2025", "USD"),
        # Ofgem price cap 1 Oct - 31 Dec 2026, direct debit unit rate 26.32 p/kWh
        ("UK", "£0.263/kWh, United Kingdom", "GBP"),
        # TEPCO model household tariff, October 2026: 36.8 JPY/kWh
        ("Japan", "¥36.8/kWh, Japan", "JPY"),
    ],
)
def test_a_home_region_brings_its_household_price_with_its_date(
    region: str, label: str, currency: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = quick_json(["--region", region], capsys)
    assert doc["electricity"]["label"].startswith(label), doc["electricity"]["label"]
    assert doc["electricity"]["period"]
    assert doc["currency"]["code"] == currency
    _, out, _ = quick(["--region", region], capsys)
    at = next(line for line in out.splitlines() if line.startswith("  at "))  # the desktop's
    assert label.split(",")[0] in at


def test_the_region_and_currency_default_and_override(capsys: pytest.CaptureFixture[str]) -> None:
    plain = quick_json([], capsys)
    assert plain["currency"]["code"] == "USD"
    assert plain["electricity"]["label"].startswith("$0.173/kWh, United States, EIA 2025")
    german = quick_json(["--region", "Germany"], capsys)
    assert german["inputs"]["assumptions"]["home_region"] == "DE"
    in_dollars = quick_json(["--region", "DE", "--currency", "USD"], capsys)
    assert in_dollars["desktop"] == german["desktop"]  # the figures do not depend on the display


def test_currency_shows_every_amount_at_the_shipped_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    usd = quick_json([], capsys)
    eur = quick_json(["--currency", "EUR"], capsys)
    rate = eur["currency"]["per_usd"]
    assert eur["currency"]["rates_as_of"] == "2026-10-06"
    assert rate == pytest.approx(1 / 1.1269, rel=1e-6)  # ECB: 1 EUR = 1.1269 USD
    assert eur["desktop"]["price_usd"] == usd["desktop"]["price_usd"]  # JSON stays in USD
    _, out, _ = quick(["--currency", "EUR"], capsys)
    price = usd["desktop"]["price_usd"] * rate
    assert f"€{price:,.0f} up front" in out
    assert "$" not in out.split("Comparable cloud offers", 1)[1].split("That is")[0]


def test_money_typed_in_the_chosen_currency(capsys: pytest.CaptureFixture[str]) -> None:
    eur = quick_json(
        ["--currency", "EUR", "--desktop-price", "2000", "--kwh-price", "0.38"], capsys
    )
    rate = eur["currency"]["per_usd"]
    assert eur["desktop"]["price_usd"] == pytest.approx(2000 / rate)
    assert eur["electricity"]["usd_per_kwh"] == pytest.approx(0.38 / rate)
    code, _, err = quick(["--kwh-price", "12"], capsys)
    assert code == 2 and "electricity price must be at most $10 per kWh" in err
    code, _, err = quick(["--currency", "XYZ"], capsys)
    assert code == 2 and "XYZ" in err and len(err.strip().splitlines()) == 1


def test_the_2026_desktop_price_is_dated_and_sourced(capsys: pytest.CaptureFixture[str]) -> None:
    for gpu in ("rtx3090", "rtx4090"):
        spec = load_catalog().get(gpu)
        assert spec.street_price_date is not None and spec.street_price_date.year == 2026
        code, out, _ = main(["gpus", "--json"]), capsys.readouterr().out, None
        assert code == 0
        listed = {g["key"]: g for g in json.loads(out)}[gpu]
        assert listed["street_price_date"].startswith("2026") and listed["sources"]["street_price"]
    doc = quick_json([], capsys)
    assert doc["desktop_price"]["as_of"].startswith("2026")
    assert doc["desktop_price"]["condition"] in ("new", "used", "new or used")


@pytest.mark.usefixtures("wide_terminal")
def test_an_old_card_price_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSTCALC_NOW", "2027-06-01T00:00:00+00:00")
    code, _, err = main(["quick", "--gpu", "rtx4090"]), None, capsys.readouterr().err
    assert code == 0 and "days old: give --desktop-price for today's" in err


def test_used_prices_the_card_second_hand(capsys: pytest.CaptureFixture[str]) -> None:
    new = quick_json(["--gpu", "rtx5090"], capsys)
    used = quick_json(["--gpu", "rtx5090", "--used"], capsys)
    assert used["desktop_price"]["condition"] == "used"
    assert used["desktop"]["price_usd"] != new["desktop"]["price_usd"]


def test_one_carbon_basis_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    from costcalc.store.loaders import load_grid

    grid = load_grid()
    pairs = (("aws:ca-central-1", "SE"), ("aws:us-west-2", "gcp:us-west1"))
    for a, b in pairs:
        assert grid.home(a).basis == grid.home(b).basis == "lifecycle"
    assert grid.home("aws:us-west-2").gco2_per_kwh == grid.home("gcp:us-west1").gco2_per_kwh
    doc = quick_json(["--region", "SE"], capsys)
    assert doc["grid"]["basis"].startswith("lifecycle")
