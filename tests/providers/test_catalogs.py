"""The field's catalogs read as they are published: the parsers on the recorded copies
(tests/fixtures/feeds/catalogs), and the refresh against the local server when a catalog
misbehaves."""

from __future__ import annotations

from typing import Any

import pytest
from werkzeug import Response

from costcalc.feeds.refresh import run_refresh
from costcalc.providers.catalog_rows import gpu_memory_gb, parse_gpuhunt, parse_skypilot
from costcalc.providers.catalogs import commit_date, unzip_member, version_day
from costcalc.providers.common import FeedError
from costcalc.store.snapshots import load_snapshot
from tests.conftest import CATALOGS, FeedRoutes, zipped

SKY = CATALOGS / "skypilot" / "v8"


def sky(cloud: str) -> bytes:
    return (SKY / cloud / "vms.csv").read_bytes()


def test_shadeform_rows_belong_to_the_cloud_that_runs_them() -> None:
    rows = parse_skypilot(sky("shadeform"), "shadeform")
    by = {(r.provider, r.instance, r.region): r for r in rows}
    a6000 = by[("massedcompute", "A6000x8", "kansascity-usa-1")]
    assert (a6000.gpu_name, a6000.gpu_count, a6000.usd_per_hour) == ("A6000", 8, 4.56)
    assert a6000.gpu_memory_gb == 48  # Shadeform writes GB where the others write MiB
    assert {r.provider for r in rows} >= {"lambdalabs", "crusoe", "scaleway", "denvr", "vultr"}
    assert not any(r.spot for r in rows)  # its SpotPrice column is empty


def test_zones_fold_into_regions_spot_at_the_cheapest_zone() -> None:
    rows = parse_skypilot(sky("aws"), "aws")
    spot = {(r.instance, r.region): r for r in rows if r.spot}
    on_demand = {(r.instance, r.region): r for r in rows if not r.spot}
    g6 = spot[("g6.48xlarge", "us-east-1")]
    assert (g6.usd_per_hour, g6.zones) == (3.7289, 4)  # the cheapest of use1-az1/2/4/6
    assert on_demand[("g6.48xlarge", "us-east-1")].usd_per_hour == 13.3504
    assert not any(r.instance.startswith("a1.") for r in rows)  # no accelerator: no GPU offer


def test_gcp_whole_vms_add_the_host_and_its_gpus() -> None:
    rows = {(r.instance, r.region): r for r in parse_skypilot(sky("gcp"), "gcp")}
    assert rows[("a2-highgpu-1g", "us-central1")].usd_per_hour == pytest.approx(0.73948 + 2.93391)
    assert rows[("a3-highgpu-1g", "us-east4")].usd_per_hour == pytest.approx(1.18251 + 9.79655)
    # a host whose GPUs have no price in its region has no whole price either
    assert ("a3-highgpu-1g", "europe-west4") not in rows
    assert not any(r.gpu_name.startswith("tpu") for r in rows.values())


def test_gpuhunt_rows_keep_gpus_only_and_gcp_zones_become_regions() -> None:
    folder = CATALOGS / "gpuhunt" / "gcp"
    version = (folder / "version").read_text().strip()
    rows = parse_gpuhunt((folder / version / "gcp.csv").read_bytes(), "gcp")
    assert {r.region for r in rows} >= {"us-central1", "us-east4", "asia-east1"}
    assert not any(r.gpu_name == "v5litepod" for r in rows)  # a TPU
    central = [r for r in rows if r.instance == "a3-highgpu-1g" and r.region == "us-central1"]
    assert {r.zones for r in central} == {2}


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("{'Gpus': [{'Name': 'L4', 'MemoryInfo': {'SizeInMiB': 22888}}]}", 22888 / 1024),
        ('{"Gpus": [{"Name": "B300", "MemoryInfo": {"SizeInMiB": 268288}}]}', 262.0),
        ("{'Gpus': [{'Name': 'A6000', 'MemoryInfo': {'SizeInMiB': 48}}]}", 48.0),
        ("{'Gpus': [{'Name': 'RTX PRO 6000 96GB', 'MemoryInfo': {'SizeInMiB': 0}}]}", None),
        ("__import__('os')", None),
        ("", None),
    ],
)
def test_gpu_memory_is_read_from_either_dict_and_nothing_runs(cell: str, expected: Any) -> None:
    assert gpu_memory_gb(cell) == (pytest.approx(expected) if expected else None)


def test_versions_commits_and_zips_are_checked() -> None:
    assert f"{version_day('20261127-5'):%Y-%m-%d}" == "2026-11-27"
    with pytest.raises(FeedError, match="not a gpuhunt catalog version"):
        version_day("<html>")
    assert f"{commit_date((CATALOGS / 'skypilot' / 'commits' / 'aws.json').read_bytes()):%F}" == (
        "2026-09-24"
    )
    with pytest.raises(FeedError, match="no commit touches"):
        commit_date(b"[]")
    with pytest.raises(FeedError, match="not a zip archive"):
        unzip_member(b"PK\x03\x04 cut short", "aws.csv", 10_000)
    with pytest.raises(FeedError, match="unpacks to"):
        unzip_member(zipped("aws.csv", b"x" * 5000), "aws.csv", 1000)
    with pytest.raises(FeedError, match=r"holds no aws\.csv"):
        unzip_member(zipped("gcp.csv", b"x"), "aws.csv", 1000)


@pytest.mark.parametrize(
    "body",
    [b"<!doctype html><html>rate limited</html>", b"", b"instance,price\nx,1\n"],
    ids=["HTML", "empty", "another CSV"],
)
def test_a_file_that_is_no_catalog_is_one_line(body: bytes) -> None:
    with pytest.raises(FeedError) as found:
        parse_skypilot(body, "aws")
    assert "\n" not in str(found.value)


def test_a_catalog_without_a_date_is_not_used_and_the_direct_feed_stays(
    catalog_feeds: FeedRoutes,
) -> None:
    """GitHub's API rate-limits (403): SkyPilot's AWS file has no date, so none of its rows is
    used; gpuhunt's AWS catalog still adds its rows, and the direct feed's rows stay."""
    catalog_feeds.serve("/github/commits", lambda _r: Response('{"message": "rate"}', status=403))
    report = run_refresh(["aws-ondemand", "hyperbolic"])
    aws = next(r for r in report.results if r.provider == "aws-ondemand")
    assert aws.ok and "1 catalog failed" in aws.message and "no date" in aws.message
    offers = load_snapshot("aws-ondemand").snapshot.offers
    assert not any("SkyPilot" in str(o.source) for o in offers)
    assert any("gpuhunt aws" in str(o.source) for o in offers)
    hyper = next(r for r in report.results if r.provider == "hyperbolic")
    assert not hyper.ok and "no date for SkyPilot's hyperbolic catalog" in hyper.message


def test_a_catalog_down_costs_only_its_providers(catalog_feeds: FeedRoutes) -> None:
    """Shadeform's file answers 500: the providers read from it fail and keep their bundled
    prices; a provider read from another file refreshes; Shadeform is asked once, not once per
    provider reading it (nine)."""
    catalog_feeds.serve("/skypilot/v8/shadeform/vms.csv", lambda _r: Response("down", status=500))
    report = run_refresh(["massedcompute", "scaleway", "crusoe", "lium"])
    ok = {r.provider: r.ok for r in report.results}
    assert ok == {"massedcompute": False, "scaleway": False, "crusoe": False, "lium": True}
    assert report.exit_code == 1
    asked = catalog_feeds.hits["/skypilot/v8/shadeform/vms.csv"]
    assert asked <= 3, "one download (and its retries) for every provider reading it"
    assert load_snapshot("massedcompute").origin == "bundled"


def test_absurd_catalog_prices_are_held_back_like_any_feed(catalog_feeds: FeedRoutes) -> None:
    text = sky("hyperbolic").decode().replace(",1.29,", ",0.0129,")
    catalog_feeds.serve("/skypilot/v8/hyperbolic/vms.csv", lambda _r: Response(text))
    report = run_refresh(["hyperbolic"])
    (result,) = report.results
    assert result.ok and [h.usd_per_hour for h in result.held_back] == [0.0129]
    assert {o.usd_per_hour for o in load_snapshot("hyperbolic").snapshot.offers} == {2.58, 3.87}


def test_a_later_refresh_never_reads_an_earlier_refreshs_catalog_files() -> None:
    """The catalog files are kept for one refresh (one session), so each provider of it reads a
    catalog once; a later refresh starts over even when its session object lands where the
    first one's was freed (CPython reuses the address, so an id() of the session matched, and
    a test run's later refresh read an earlier test's dated SkyPilot file)."""
    from types import SimpleNamespace

    from costcalc.providers import catalogs

    class Session:  # stands for requests.Session: only its identity matters here
        pass

    first = SimpleNamespace(session=Session())
    key = ("skypilot", "aws/vms.csv")
    assert catalogs._cached(first, key) is None  # type: ignore[arg-type]
    catalogs._cache[key] = FeedError("a file of the first refresh")
    assert catalogs._cached(first, key) is not None  # type: ignore[arg-type]
    for _ in range(20):  # free it, then a session that may take its place
        first.session = None
        first.session = Session()
        assert catalogs._cached(first, key) is None  # type: ignore[arg-type]
        catalogs._cache[key] = FeedError("a file of this refresh")
