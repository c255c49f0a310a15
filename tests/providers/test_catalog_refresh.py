"""`costcalc refresh` on recorded copies of the field's catalogs (gpuhunt's published catalog and
SkyPilot's catalog CSVs, tests/fixtures/feeds/catalogs) served by the local test server, with
every credential unset: issue 41's 'done when' for the feeds."""

from __future__ import annotations

import csv

import pytest

from costcalc.core.models import PriceSnapshot
from costcalc.feeds.refresh import RefreshReport, run_refresh
from costcalc.providers import registry
from costcalc.store.snapshots import load_snapshot
from tests.conftest import CATALOGS, FeedRoutes

FILLED_AT_LEAST = 25


@pytest.fixture
def refreshed(catalog_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> RefreshReport:
    for provider in registry.every():
        for var in provider.env:
            if var.secret:
                for name in var.names:
                    monkeypatch.delenv(name, raising=False)
    return run_refresh()


def _offers(name: str) -> PriceSnapshot:
    snapshot = load_snapshot(name).snapshot
    assert isinstance(snapshot, PriceSnapshot)
    return snapshot


def test_refresh_fills_at_least_25_providers_without_a_key(refreshed: RefreshReport) -> None:
    filled = [r.provider for r in refreshed.results if r.ok and not r.skipped and r.offers]
    assert len(filled) >= FILLED_AT_LEAST, filled
    assert refreshed.exit_code == 0, [r.message for r in refreshed.failed]
    for name in ("verda", "hyperbolic", "lium", "cloudrift", "massedcompute", "gcp", "crusoe"):
        assert name in filled


def _recorded_regions(cloud: str, spot: bool | None = None) -> set[str]:
    """The regions a recorded SkyPilot file prices a GPU instance in (both kinds, or one)."""
    with (CATALOGS / "skypilot" / "v8" / cloud / "vms.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["AcceleratorName"] and r["InstanceType"]]
    column = {None: None, False: "Price", True: "SpotPrice"}[spot]
    return {r["Region"] for r in rows if column is None or r[column]}


def _gpuhunt_regions(provider: str) -> set[str]:
    folder = CATALOGS / "gpuhunt" / provider
    version = (folder / "version").read_text().strip()
    with (folder / version / f"{provider}.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["gpu_count"] not in ("", "0")]
    return {
        r["location"].rsplit("-", 1)[0] if provider == "gcp" else r["location"]
        for r in rows
        if r["gpu_vendor"] == "nvidia"
    }


def test_every_region_of_aws_azure_and_gcp(refreshed: RefreshReport) -> None:
    assert _recorded_regions("aws", spot=False) <= {
        o.region for o in _offers("aws-ondemand").offers
    }
    assert _recorded_regions("aws", spot=True) <= {o.region for o in _offers("aws-spot").offers}
    assert _gpuhunt_regions("azure") <= {o.region for o in _offers("azure").offers}
    gcp = {o.region for o in _offers("gcp").offers}
    assert _gpuhunt_regions("gcp") | {"us-east4"} <= gcp
    assert len(_gpuhunt_regions("azure")) >= 15 and len(gcp) >= 8


def test_every_catalog_row_keeps_its_catalog_and_date(refreshed: RefreshReport) -> None:
    hyperbolic = _offers("hyperbolic").offers
    assert {o.source for o in hyperbolic} == {"SkyPilot v8 hyperbolic/vms.csv, as of 2026-11-20"}
    assert {f"{o.fetched_at:%Y-%m-%d}" for o in hyperbolic} == {"2026-11-20"}
    cloudrift = _offers("cloudrift").offers
    assert {o.source for o in cloudrift} == {
        "gpuhunt cloudrift catalog 20261120-6120, as of 2026-11-20"
    }
    aws = {o.name: o for o in _offers("aws-ondemand").offers if o.region == "eu-north-1"}
    assert aws["g6.48xlarge"].usd_per_hour == 14.15992
    assert aws["g6.48xlarge"].source.startswith("SkyPilot v8 aws/vms.csv, as of 2026-09-24")


def test_each_new_provider_in_its_tier(refreshed: RefreshReport) -> None:
    tiers = {
        name: {o.tier for o in _offers(name).offers}
        for name in ("verda", "hyperbolic", "lium", "yotta", "cudo", "scaleway", "massedcompute")
    }
    assert tiers == {
        "verda": {"secure"},
        "hyperbolic": {"marketplace"},
        "lium": {"decentralised"},
        "yotta": {"decentralised"},
        "cudo": {"marketplace"},
        "scaleway": {"secure"},
        "massedcompute": {"secure"},
    }
