"""Household electricity, exchange rates and region names: the pure lookups the CLI and the app
use to price a home desktop in the user's region and currency."""

from __future__ import annotations

from datetime import date

import pytest

from costcalc.core.catalog import card_price
from costcalc.core.electricity import DEFAULT, ElectricityIndex
from costcalc.core.errors import UnknownRegion
from costcalc.core.fx import Converter, UnknownCurrency, format_money, format_unit_price
from costcalc.core.grid import GridIndex, describe, on_basis
from costcalc.core.models import CurrencyPeg, FxRates
from costcalc.core.regions import RegionIndex, country_of
from costcalc.store.bundled import load_catalog
from costcalc.store.loaders import (
    load_converter,
    load_electricity_index,
    load_grid,
    load_region_index,
)
from costcalc.store.snapshots import load_carbon


@pytest.fixture(scope="module")
def prices() -> ElectricityIndex:
    return load_electricity_index()


@pytest.fixture(scope="module")
def fx() -> Converter:
    return load_converter()


# --------------------------------------------------------------------------- electricity


@pytest.mark.parametrize(
    ("typed", "code", "label"),
    [
        ("DE", "DE", "€0.387/kWh, Germany, Eurostat 2025-S2"),
        ("germany", "DE", "€0.387/kWh, Germany, Eurostat 2025-S2"),
        ("US", "US", "$0.173/kWh, United States, EIA 2025"),
        ("US-CA", "US-CA", "$0.326/kWh, California, EIA 2025"),
        ("California", "US-CA", "$0.326/kWh, California, EIA 2025"),
        ("UK", "GB", "£0.263/kWh, United Kingdom (Great Britain), Ofgem price cap 2026-Q4"),
        ("Japan", "JP", "¥36.8/kWh, Japan, utility tariff 2026-10"),
        ("Quebec", "CA-QC", "CAD 0.097/kWh, Quebec, utility tariff 2026-04"),
    ],
)
def test_a_region_gets_its_own_dated_price(
    prices: ElectricityIndex, typed: str, code: str, label: str
) -> None:
    found = prices.lookup(typed)
    assert (found.region, found.label, found.fallback) == (code, label, None)
    assert found.as_of is not None and found.citation


def test_prices_convert_to_usd_at_the_shipped_rates(prices: ElectricityIndex) -> None:
    germany = prices.lookup("DE")
    assert germany.usd_per_kwh == pytest.approx(0.3869 * 1.1269)
    japan = prices.lookup("JP")
    assert japan.usd_per_kwh == pytest.approx(36.8 / 178.15 * 1.1269)
    assert prices.lookup("US-CA").usd_per_kwh == 0.3264  # USD stays as published


def test_no_region_means_the_default_region(prices: ElectricityIndex) -> None:
    assert prices.lookup(None).region == "US"
    assert prices.lookup("  ").region == "US"


def test_a_state_without_a_price_falls_back_to_its_country(prices: ElectricityIndex) -> None:
    found = prices.lookup("US-PR")
    assert found.region == "US" and found.fallback and "United States used" in found.fallback
    australia = prices.lookup("AU-NSW")
    assert australia.region == "AU" and "New South Wales" in (australia.fallback or "")


def test_a_region_without_a_price_gets_the_labelled_default(prices: ElectricityIndex) -> None:
    found = prices.lookup("RU")
    assert found.region == DEFAULT and found.usd_per_kwh == 0.12
    assert found.label == "$0.120/kWh, costcalc default (Dettmers 2020)"
    assert found.fallback and "no household price for Russia" in found.fallback
    assert "--kwh-price" in found.fallback


def test_a_price_in_a_currency_without_a_rate_says_so(prices: ElectricityIndex) -> None:
    found = prices.lookup("Taiwan")
    assert found.region == DEFAULT
    assert found.fallback and "TWD" in found.fallback


def test_an_unknown_region_is_refused_with_suggestions(prices: ElectricityIndex) -> None:
    with pytest.raises(UnknownRegion, match="Germani") as caught:
        prices.lookup("Germani")
    assert "DE" in caught.value.suggestions


def test_an_ambiguous_name_is_refused_not_guessed(prices: ElectricityIndex) -> None:
    with pytest.raises(UnknownRegion, match="more than one region") as caught:
        prices.lookup("Georgia")
    assert caught.value.suggestions == ["GE", "US-GA"]


# --------------------------------------------------------------------------- regions


def test_region_names_resolve_the_same_for_grid_and_price(prices: ElectricityIndex) -> None:
    grid = load_grid()
    for typed, code in (("UK", "GB"), ("England", "GB"), ("Japan", "JP"), ("Oregon", "US-OR")):
        assert grid.home(typed).code == code
        assert load_region_index().resolve(typed) == code
    assert grid.home("CA-MT").code == "CA-MB"  # an earlier version's code
    assert grid.home("us-west1").code == "gcp:us-west1"  # bare cloud region names still work
    with pytest.raises(UnknownRegion, match="more than one region"):
        grid.home("Georgia")


def test_grid_index_without_aliases_keeps_its_old_behaviour() -> None:
    grid = GridIndex(load_carbon())
    assert grid.home("Germany").code == "DE"
    with pytest.raises(UnknownRegion):
        grid.home("UK")


def test_completion_by_name_offers_each_region_once() -> None:
    regions = load_region_index()
    assert regions.complete("germ") == [("Germany", "DE")]
    assert ("California", "US-CA") in regions.complete("cali")
    assert ("UK", "GB") in regions.complete("uk")
    codes = [code for _name, code in regions.complete("a", limit=500)]
    assert len(codes) == len(set(codes))


def test_country_of() -> None:
    assert country_of("US-CA") == "US"
    assert country_of("DE") is None
    assert country_of("aws:us-east-1") is None


def test_region_index_codes_win_over_names() -> None:
    from costcalc.core.models import RegionNames

    names = RegionNames(source="test", as_of=date(2026, 1, 1), aliases=())
    index = RegionIndex(names, [("CA", "Canada"), ("US-CA", "California")])
    assert index.resolve("ca") == "CA"
    assert index.resolve("california") == "US-CA"
    assert index.name_of("US-CA") == "California" and index.name_of("XX") == "XX"


# --------------------------------------------------------------------------- carbon basis


def test_every_grid_states_its_basis_and_the_other_one_is_kept_aside() -> None:
    grid = load_grid()
    assert grid.basis == "lifecycle"
    oregon = grid.home("gcp:us-west1")
    assert describe(oregon) == "lifecycle, 2025"
    assert on_basis(oregon, "lifecycle") == 184.0
    assert on_basis(oregon, "direct") == pytest.approx(79.23)  # Google's own, operational
    assert on_basis(grid.home("SE"), "direct") is None  # no open direct figure for countries


# --------------------------------------------------------------------------- currencies


def test_conversion_goes_through_the_euro(fx: Converter) -> None:
    assert fx.as_of == date(2026, 10, 6)
    assert fx.label == "ECB reference rates of 2026-10-06"
    assert fx.from_usd(1.1269, "EUR") == pytest.approx(1.0)
    assert fx.to_usd(1.0, "EUR") == pytest.approx(1.1269)
    assert fx.convert(1.0, "GBP", "JPY") == pytest.approx(178.15 / 0.8488)
    assert fx.to_usd(fx.from_usd(70.96, "INR"), "INR") == pytest.approx(70.96)
    assert fx.convert(5.0, "usd", "USD") == 5.0


def test_pegged_currencies_follow_their_anchor(fx: Converter) -> None:
    assert fx.to_usd(3.75, "SAR") == pytest.approx(1.0)
    assert fx.convert(1.95583, "BGN", "EUR") == pytest.approx(1.0)
    assert fx.convert(1.0, "NAD", "ZAR") == pytest.approx(1.0)


def test_a_peg_uses_the_refreshed_anchor_rate() -> None:
    rates = FxRates(
        source="test",
        licence="test",
        as_of=date(2026, 10, 2),
        per_eur={"USD": 1.2},
        pegs=(CurrencyPeg(currency="SAR", anchor="USD", per_anchor=3.75, source="peg"),),
    )
    assert Converter(rates).per_eur("SAR") == pytest.approx(4.5)


def test_an_unknown_currency_is_refused(fx: Converter) -> None:
    assert not fx.knows("TWD")
    with pytest.raises(UnknownCurrency, match="TWD"):
        fx.from_usd(1.0, "TWD")


def test_money_formats() -> None:
    assert format_money(1234.4, "EUR") == "€1,234"
    assert format_money(70.964, "GBP", decimals=2) == "£70.96"
    assert format_money(180570.2, "JPY", decimals=2) == "¥180,570"
    assert format_money(-5, "CHF") == "-CHF 5"
    assert format_unit_price(0.3869, "EUR") == "€0.387"
    assert format_unit_price(3.06, "INR") == "₹3.06"
    assert format_unit_price(36.8, "JPY") == "¥36.8"


# --------------------------------------------------------------------------- desktop cards


def test_card_prices_say_new_used_or_launch() -> None:
    catalog = load_catalog()
    rtx4090 = card_price(catalog.get("rtx4090"))
    assert rtx4090 is not None
    assert (rtx4090.usd, rtx4090.condition, rtx4090.observed) == (1925, "used", date(2026, 6, 29))
    rtx5090_used = card_price(catalog.get("rtx5090"), used=True)
    assert rtx5090_used is not None and rtx5090_used.condition == "used"
    assert rtx5090_used.observed == date(2026, 9, 30)
    launch = card_price(catalog.get("rtx3090ti"))
    assert launch is not None and launch.condition == "launch price" and launch.observed is None
    assert card_price(catalog.get("rtx3090ti"), used=True) is None  # no dated used price
