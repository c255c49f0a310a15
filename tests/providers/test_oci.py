"""Oracle OCI: the cost-estimator files' parser, the bundled list prices, and `costcalc refresh`
against a local server serving both files (tests/fixtures/feeds/oci-*.json follow the files'
format; their GPU values are made up, see the README there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from costcalc.providers import oci, oci_feed
from costcalc.providers.common import FeedError
from costcalc.store.snapshots import load_bundled
from tests.conftest import FeedRoutes
from tests.providers import feedcheck

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"
SHAPES = (FEEDS / "oci-shapes.json").read_text()
PRODUCTS = (FEEDS / "oci-products.json").read_text()


def test_gpu_shapes_cost_the_per_gpu_part_times_the_gpu_count() -> None:
    found = oci_feed.parse(SHAPES, PRODUCTS)
    rows = {(r.name.removesuffix(" (preemptible)"), bool(r.spot)): r for r in found.rows}
    h100 = rows[("BM.GPU.H100.8", False)]
    assert (h100.gpu, h100.gpu_count, h100.usd_per_hour) == ("h100_sxm5_80gb", 8, 80.0)
    assert rows[("VM.GPU.A10.1", False)].usd_per_hour == 2.0  # USD, not the EUR 1.84
    spot = rows[("VM.GPU.A10.1", True)]
    assert (spot.usd_per_hour, spot.price_kind) == (1.0, "estimate")
    assert "50 % of on-demand" in str(spot.summary)
    assert ("BM.GPU.H100.8", True) not in rows  # bare metal is not preemptible
    assert not any(name.startswith("BM.GPU.OLD") for name, _ in rows)  # hidden, deprecated
    assert not any(name.startswith("BM.DenseIO") for name, _ in rows)  # no GPU
    mi300x = next(
        r for r in found.rows if r.name == "BM.GPU.MI300X.8"
    )  # in the catalog since issue 25
    assert (mi300x.gpu, mi300x.gpu_count) == ("mi300x", 8)
    assert found.unknown_gpus == ()


def test_only_usd_pay_as_you_go_hourly_gpu_parts_price_a_shape() -> None:
    doc = json.loads(PRODUCTS)
    doc["items"][0]["pricetype"] = "MONTH"  # the H100 part
    rows = {r.name for r in oci_feed.parse(SHAPES, json.dumps(doc)).rows}
    assert "BM.GPU.H100.8" not in rows and "VM.GPU.A10.1" in rows


@pytest.mark.parametrize(
    ("shapes", "products", "reason"),
    [
        ("<html></html>", PRODUCTS, "shapes: got"),
        (SHAPES, '{"items": 3}', "price list: unexpected shape: items"),
        ('{"items": []}', PRODUCTS, "no priced GPU shapes"),
    ],
)
def test_unusable_files_say_which_and_why(shapes: str, products: str, reason: str) -> None:
    with pytest.raises(FeedError, match=reason):
        oci_feed.parse(shapes, products)


def test_the_bundled_snapshot_has_an_a100_80gb_and_an_h100() -> None:
    snapshot = load_bundled("oci")
    gpus = {r.gpu for r in snapshot.offers}  # type: ignore[union-attr]
    assert {"a100_sxm4_80gb", "h100_sxm5_80gb"} <= gpus


@pytest.fixture
def oci_api(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    feedcheck.fast_http(monkeypatch)
    feed_server.serve_file("/shapes.json", "oci-shapes.json")
    monkeypatch.setenv(oci.SHAPES_URL_ENV, feed_server.url("/shapes.json"))
    monkeypatch.setenv(oci.URL_ENV, feed_server.url("/products.json"))
    return feed_server


def test_refresh_reads_both_files(oci_api: FeedRoutes, capsys: pytest.CaptureFixture[str]) -> None:
    oci_api.serve("/products.json", feedcheck.body(PRODUCTS))
    code, report = feedcheck.refresh(capsys, "oci")
    result = feedcheck.result(report, "oci")
    assert code == 0 and result["offers"] == 4  # the MI300X shape counts since issue 25
    assert result["unknown_gpus"] == []


def _absurd() -> str:
    doc = json.loads(PRODUCTS)
    doc["items"][0]["currencyCodeLocalizations"][0]["prices"][0]["value"] = 1000.0
    return json.dumps(doc)


FAULTS = feedcheck.standard_faults(PRODUCTS, '{"items": {"a": 1}}')


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_bad_price_list_keeps_the_last_good_snapshot(
    fault: str, oci_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_fault_keeps_last_good(
        capsys,
        lambda handler: oci_api.serve("/products.json", handler),
        feedcheck.body(PRODUCTS),
        "oci",
        FAULTS[fault],
    )


def test_an_absurd_price_is_held_back(
    oci_api: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    feedcheck.check_absurd_price_held_back(
        capsys,
        lambda handler: oci_api.serve("/products.json", handler),
        feedcheck.body(_absurd()),
        "oci",
    )
