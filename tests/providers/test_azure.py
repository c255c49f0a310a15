"""Azure: the Retail Prices API's pages, the VM size table, the bundled snapshot, and `costcalc
refresh` walking NextPageLink on a local server (tests/fixtures/feeds/azure-prices-page*.json
follow the API's format; see the README there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.core.errors import CostcalcError
from costcalc.providers import azure, azure_feed
from costcalc.providers.common import FeedError
from costcalc.store.bundled import load_catalog
from costcalc.store.snapshots import load_bundled
from tests.conftest import FeedRoutes
from tests.providers import feedcheck

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"
PAGE1 = (FEEDS / "azure-prices-page1.json").read_text()
PAGE2 = (FEEDS / "azure-prices-page2.json").read_text()
PATH = "/api/retail/prices"


def rows() -> dict[tuple[str, bool | None], Any]:
    """(size, spot) -> row; spot rows are named '<size> (spot)'."""
    found = {}
    for r in azure_feed.parse([PAGE1, PAGE2]).rows:
        assert r.name.endswith(" (spot)") == bool(r.spot)
        found[(r.name.removesuffix(" (spot)"), r.spot)] = r
    return found


# --------------------------------------------------------------------------- the parser


def test_linux_on_demand_and_spot_rows_with_their_gpus() -> None:
    found = rows()
    a100 = found[("Standard_NC24ads_A100_v4", False)]
    assert (a100.gpu, a100.gpu_count, a100.usd_per_hour, a100.region) == (
        "a100_pcie_80gb",
        1,
        3.673,  # the Linux meter, not the Windows 4.777 or the Low Priority 0.735
        "eastus",
    )
    assert found[("Standard_NC24ads_A100_v4", True)].usd_per_hour == 1.041296
    h100 = found[("Standard_ND96isr_H100_v5", False)]
    assert (h100.gpu, h100.gpu_count, h100.usd_per_hour) == ("h100_sxm5_80gb", 8, 98.32)
    assert found[("Standard_NC96ads_A100_v4", False)].usd_per_hour == 14.692
    assert found[("Standard_NC40ads_H100_v5", False)].gpu == "h100_nvl_94gb"


def test_rows_that_are_not_linux_pay_as_you_go_whole_gpus_are_left_out() -> None:
    found = rows()
    assert ("Standard_NC40ads_H100_v5", True) not in found  # spot at the on-demand price
    assert ("Standard_NV12ads_A10_v5", True) not in found  # a third of an A10
    assert ("Standard_ND96isr_H200_v5", False) not in found  # retailPrice 0
    assert len([r for r in found.values() if r.usd_per_hour == 36.047]) == 0  # dedicated host
    assert sum(1 for size, _ in found if size == "Standard_NC24ads_A100_v4") == 2


def test_a_size_no_table_maps_is_reported_a_skipped_one_is_not() -> None:
    assert azure_feed.parse([PAGE1, PAGE2]).unknown_gpus == ("Standard_ND96isr_MI300X_v5",)


@pytest.mark.parametrize(
    "product",
    ["Virtual Machines NDsr H100 v5 Series Windows", "Virtual Machines NDsr H100 v5 Series Win"],
)
def test_windows_is_recognised_both_ways_it_is_written(product: str) -> None:
    doc = json.loads(PAGE1)
    doc["Items"] = [{**doc["Items"][6], "productName": product}]
    with pytest.raises(FeedError, match="no Linux GPU VM prices"):
        azure_feed.parse([json.dumps(doc)])


def test_every_mapped_size_is_a_catalog_gpu_and_none_is_both_mapped_and_skipped() -> None:
    table = azure.load_size_table()
    catalog = load_catalog()
    assert all(g.gpu in catalog for g in table.sizes.values())
    assert not set(table.sizes) & set(table.skipped)
    assert all(azure_feed.GPU_SIZE.match(name) for name in [*table.sizes, *table.skipped])


def test_the_default_query_asks_for_gpu_vms_in_the_chosen_regions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(azure.REGIONS_ENV, "eastus, swedencentral")
    query = unquote(azure_feed.url())
    assert query.startswith("https://prices.azure.com/api/retail/prices?api-version=2023-01-01")
    assert "armRegionName eq 'swedencentral'" in query and "westeurope" not in query
    assert "contains(armSkuName, 'Standard_ND')" in query
    monkeypatch.setenv(azure.REGIONS_ENV, "east us")
    with pytest.raises(CostcalcError, match="not an Azure region name"):
        azure_feed.regions()


# --------------------------------------------------------------------------- offline


def test_the_bundled_snapshot_has_an_a100_80gb_and_an_h100_and_keeps_linux_prices() -> None:
    snapshot = load_bundled("azure")
    found = {(r.name, r.spot): r for r in snapshot.offers}  # type: ignore[union-attr]
    assert found[("Standard_NC24ads_A100_v4", False)].usd_per_hour == 3.673
    assert found[("Standard_NC48ads_A100_v4", False)].usd_per_hour == 7.346  # not Windows 9.554
    assert found[("Standard_ND96isr_H100_v5", False)].gpu == "h100_sxm5_80gb"
    assert all(r.fetched_at and r.source for r in found.values())


# --------------------------------------------------------------------------- refresh


def pages(routes: FeedRoutes, first: str = PAGE1, second: str = PAGE2) -> feedcheck.Handler:
    """Page 1 at PATH, page 2 at PATH?$skip=1000, with NextPageLink pointing at this server."""
    doc = json.loads(first)
    doc["NextPageLink"] = routes.url(PATH + "?api-version=2023-01-01-preview&$skip=1000")
    page1 = json.dumps(doc)

    def handler(request: Request) -> Response:
        text = second if request.args.get("$skip") == "1000" else page1
        return Response(text, content_type="application/json")

    return handler


@pytest.fixture
def azure_api(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    feedcheck.fast_http(monkeypatch)
    monkeypatch.setenv(azure.URL_ENV, feed_server.url(PATH))
    return feed_server


def test_refresh_walks_the_pages(azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]) -> None:
    azure_api.serve(PATH, pages(azure_api))
    code, report = feedcheck.refresh(capsys, "azure")
    result = feedcheck.result(report, "azure")
    assert code == 0, report
    assert result["offers"] == 12 and azure_api.hits[PATH] == 2
    assert result["unknown_gpus"] == ["Standard_ND96isr_MI300X_v5"]
    regions = {o["region"] for o in feedcheck.prices(capsys, "azure")}
    assert regions == {"eastus"}


def test_a_page_loop_is_refused(azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]) -> None:
    looping = json.loads(PAGE2)
    looping["NextPageLink"] = azure_api.url(PATH)  # back to the first page
    azure_api.serve(PATH, pages(azure_api, second=json.dumps(looping)))
    assert main(["refresh", "--provider", "azure"]) == 1
    err = capsys.readouterr().err
    assert "azure failed" in err and "page loop" in err
    assert azure_api.hits[PATH] == 2


def test_an_endless_page_chain_stops_at_the_page_limit(
    azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(azure_feed, "MAX_PAGES", 5)

    def endless(request: Request) -> Response:
        doc = json.loads(PAGE1)
        doc["NextPageLink"] = azure_api.url(f"{PATH}?$skip={int(request.args.get('$skip', 0)) + 1}")
        return Response(json.dumps(doc), content_type="application/json")

    azure_api.serve(PATH, endless)
    assert main(["refresh", "--provider", "azure"]) == 1
    assert "more than 5 pages" in capsys.readouterr().err
    assert azure_api.hits[PATH] == 5


def test_a_next_page_on_another_host_is_not_followed(
    azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(PAGE1)  # NextPageLink: the real prices.azure.com
    azure_api.serve(PATH, feedcheck.body(json.dumps(doc)))
    assert main(["refresh", "--provider", "azure"]) == 1
    assert "next page is on another host (prices.azure.com)" in capsys.readouterr().err
    assert azure_api.hits[PATH] == 1


def test_500_then_success_is_retried(
    azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    handler, calls = feedcheck.flaky(pages(azure_api))
    azure_api.serve(PATH, handler)
    assert feedcheck.refresh(capsys, "azure")[0] == 0
    assert len(calls) == 3  # 503, page 1, page 2


def _absurd() -> str:
    doc = json.loads(PAGE2)
    doc["Items"][6]["retailPrice"] = 5000.0  # NC4as T4 v3
    return json.dumps(doc)


def _broken_second_page() -> str:
    return PAGE2[: len(PAGE2) // 2]


FAULTS: dict[str, tuple[str, str, str]] = {
    # name: (page 1, page 2, what the stderr line says)
    "HTML": ("<!DOCTYPE html><html>Down</html>", PAGE2, "got HTML"),
    "truncated JSON on page 2": (PAGE1, _broken_second_page(), "page 2: JSON ends early"),
    "wrong shape": ('{"Items": {"a": 1}}', PAGE2, "unexpected shape: Items"),
}


@pytest.mark.parametrize("fault", [*FAULTS, "500 every time"])
def test_a_bad_feed_keeps_the_last_good_snapshot(
    fault: str, azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    if fault == "500 every time":
        bad, reason = feedcheck.status(500), "HTTP 500"
    else:
        first, second, reason = FAULTS[fault]
        bad = pages(azure_api, first, second) if first.startswith("{") else feedcheck.body(first)
    feedcheck.check_fault_keeps_last_good(
        capsys,
        lambda handler: azure_api.serve(PATH, handler),
        pages(azure_api),
        "azure",
        (bad, reason),
    )


def test_an_absurd_price_is_held_back(
    azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_absurd_price_held_back(
        capsys,
        lambda handler: azure_api.serve(PATH, handler),
        pages(azure_api, PAGE1, _absurd()),
        "azure",
    )


# --------------------------------------------------------------------------- reservations

RESERVATIONS = (FEEDS / "azure-prices-reservations.json").read_text()


def test_a_reservation_is_the_whole_term_spread_over_every_hour_of_it() -> None:
    found = {r.name: r for r in azure_feed.parse([RESERVATIONS]).rows}
    one = found["Standard_NC24ads_A100_v4 (1-yr reserved)"]
    three = found["Standard_NC24ads_A100_v4 (3-yr reserved)"]
    # 21,033 $ for 1 year / 8,760 h; 35,821 $ for 3 years / 26,280 h
    assert (one.term_years, one.usd_per_hour) == (1, pytest.approx(2.401027, abs=1e-6))
    assert (three.term_years, three.usd_per_hour) == (3, pytest.approx(1.363052, abs=1e-6))
    assert one.gpu == "a100_pcie_80gb" and not one.spot
    assert found["Standard_NC24ads_A100_v4"].term_years is None  # pay as you go stays as it was
    h100 = found["Standard_ND96isr_H100_v5 (1-yr reserved)"]
    assert (h100.gpu_count, h100.usd_per_hour) == (8, pytest.approx(551221 / 8760))


def test_other_terms_and_dedicated_hosts_are_not_reservations_we_compare() -> None:
    names = {r.name for r in azure_feed.parse([RESERVATIONS]).rows}
    assert not any("5-yr" in n for n in names)  # the third H100 term
    assert sum(1 for n in names if n.startswith("Standard_ND96isr_H100_v5")) == 3
    assert not any(n.startswith("Standard_ND96amsr") for n in names)  # Dedicated Host, 202,094 $


def test_the_default_query_asks_for_reservations_too() -> None:
    query = unquote(azure_feed.default_url(["eastus"]))
    assert "(priceType eq 'Consumption' or priceType eq 'Reservation')" in query


def test_refresh_brings_reservations_as_committed_offers(
    azure_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    azure_api.serve(PATH, feedcheck.body(RESERVATIONS))
    code, report = feedcheck.refresh(capsys, "azure")
    assert code == 0, report
    offers = {o["name"]: o for o in feedcheck.prices(capsys, "azure")}
    reserved = offers["Standard_NC24ads_A100_v4 (1-yr reserved)"]
    assert reserved["term_years"] == 1 and reserved["way"] == "committed"
    assert reserved["usd_per_gpu_hour"] == pytest.approx(21033 / 8760)
    assert offers["Standard_NC24ads_A100_v4"]["way"] == "on-demand"
