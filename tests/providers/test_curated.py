"""The curated providers (GCP, CoreWeave, Nebius, Jarvislabs, Hetzner): dated tables that
`costcalc refresh` keeps and reports with their age (GCP's and Nebius's when the catalogs list
nothing for them), and what each table has to get right."""

from __future__ import annotations

import re

import pytest

from costcalc.core.models import PriceSnapshot
from costcalc.store.snapshots import load_bundled, load_price_book, refreshed_path
from tests.conftest import FeedRoutes, serve_catalogs
from tests.providers import feedcheck

CURATED = ("gcp", "coreweave", "nebius", "jarvislabs", "hetzner")


def snapshot(name: str) -> PriceSnapshot:
    found = load_bundled(name)
    assert isinstance(found, PriceSnapshot)
    return found


@pytest.mark.parametrize("name", CURATED)
def test_refresh_keeps_the_table_and_reports_its_age(
    name: str,
    capsys: pytest.CaptureFixture[str],
    feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    serve_catalogs(feed_server, monkeypatch, recorded=False)
    code, report = feedcheck.refresh(capsys, name)
    result = feedcheck.result(report, name)
    assert code == 0 and result["skipped"] and result["ok"]
    kept = r"kept the curated prices of 2026-\d\d-\d\d \([\d,]+ d old\)"
    assert re.search(kept, result["message"])
    assert not refreshed_path(name).exists()


@pytest.mark.parametrize("name", CURATED)
def test_every_row_names_its_source_and_date(name: str) -> None:
    table = snapshot(name)
    assert table.offers
    for row in table.offers:
        assert (row.source or table.source) and (row.fetched_at or table.fetched_at)


def test_hetzner_is_billed_as_what_it_is_a_month_with_a_setup_fee() -> None:
    table = snapshot("hetzner")
    rate = float(re.search(r"EUR -> USD at ([\d.]+) USD per EUR", str(table.notes))[1])  # type: ignore[index]
    assert "2026-10-06" in str(table.notes)  # the rate is dated: the bundled fx.yaml's day
    rows = {r.name: r for r in table.offers}
    assert set(rows) == {"GEX63 (monthly)", "GEX45 (monthly)"}
    month_s = 730 * 3600
    # (monthly EUR, setup EUR) per server: GEX63 EUR 999 + 999, GEX45 (issue 25) EUR 214 + 209
    for row, (monthly, setup) in (
        (rows["GEX63 (monthly)"], (999, 999)),
        (rows["GEX45 (monthly)"], (214, 209)),
    ):
        assert (row.billing_increment_s, row.billing_minimum_s) == (month_s, month_s)
        assert (row.currency, row.price_in_currency) == (
            "EUR",
            pytest.approx(monthly / 730, abs=1e-6),
        )
        assert row.usd_per_hour == pytest.approx(monthly * rate / 730, abs=1e-6)
        assert row.setup_fee_usd == pytest.approx(setup * rate, abs=0.01)
        assert "whole months" in str(row.limits) and "730 h" in str(row.summary)
    offers = {o.name: o for o in load_price_book(["hetzner"]).offers}
    gex63 = offers["GEX63 (monthly)"]
    assert (gex63.currency, gex63.setup_fee_usd) == ("EUR", rows["GEX63 (monthly)"].setup_fee_usd)
    assert offers["GEX45 (monthly)"].gpu == "rtx_pro4000_sff"


def test_gcp_ships_whole_vm_prices_never_a_gpu_sku_alone() -> None:
    for row in snapshot("gcp").offers:
        machine = row.name.removesuffix(" (spot)")
        assert re.fullmatch(r"[a-z]\d-[a-z]+-\d+g", machine), row.name  # a machine type
        assert row.name.endswith(" (spot)") == bool(row.spot)
        assert "summed" in str(row.source) or "added up" in str(row.source)


def test_coreweave_prices_whole_eight_gpu_nodes() -> None:
    every = snapshot("coreweave").offers
    # the GH200 is a one-GPU superchip (issue 25); every other row is an 8-GPU node
    assert {r.gpu for r in every if r.gpu_count == 1} == {"gh200_96gb"}
    rows = [r for r in every if r.gpu != "gh200_96gb"]
    assert {r.gpu_count for r in rows} == {8}
    h100 = next(r for r in rows if r.gpu == "h100_sxm5_80gb" and not r.spot)
    assert h100.usd_per_hour / 8 == pytest.approx(6.155)


def test_conflicting_sources_are_said_in_the_offer() -> None:
    nebius_h100 = next(r for r in snapshot("nebius").offers if r.gpu == "h100_sxm5_80gb")
    jarvis_h100 = next(r for r in snapshot("jarvislabs").offers if r.gpu == "h100_sxm5_80gb")
    assert "disagree" in str(nebius_h100.limits) and "3.49" in str(jarvis_h100.limits)
