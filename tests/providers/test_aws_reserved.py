"""AWS reserved instances: the Price List bulk CSV's Reserved rows (Standard, No Upfront, 1 and
3 years), the bundled 1-year snapshot, and `costcalc refresh` streaming the CSV from a local
server (tests/fixtures/feeds/ec2-offer-reserved-us-east-1.csv; see the README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from costcalc.cli import main
from costcalc.providers import aws_reserved, aws_reserved_feed
from costcalc.providers.common import FeedError
from costcalc.store.snapshots import load_bundled
from tests.conftest import FeedRoutes
from tests.providers import feedcheck

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"
CSV = "ec2-offer-reserved-us-east-1.csv"


def rows() -> dict[str, object]:
    with (FEEDS / CSV).open() as lines:
        return {r.name: r for r in aws_reserved_feed.parse_bulk_csv(lines)}


def test_standard_no_upfront_linux_gpu_rows_of_one_and_three_years() -> None:
    found = rows()
    assert set(found) == {
        "g4dn.xlarge (1-yr reserved)",
        "g4dn.xlarge (3-yr reserved)",
        "p4d.24xlarge (1-yr reserved)",
    }  # not partial or all upfront, convertible, Windows, on demand or m5.large
    one = found["g4dn.xlarge (1-yr reserved)"]
    assert (one.usd_per_hour, one.term_years, one.gpu, one.spot) == (0.331, 1, "t4", False)  # type: ignore[attr-defined]
    assert found["g4dn.xlarge (3-yr reserved)"].term_years == 3  # type: ignore[attr-defined]
    p4d = found["p4d.24xlarge (1-yr reserved)"]
    assert (p4d.gpu_count, p4d.ram_gb) == (8, 1152.0)  # type: ignore[attr-defined]


def test_a_csv_without_reserved_columns_is_refused() -> None:
    text = (FEEDS / "ec2-offer-us-east-1.csv").read_text()
    no_terms = text.replace('"LeaseContractLength",', '"Lease",', 1)
    with pytest.raises(FeedError, match="lacks column"):
        aws_reserved_feed.parse_bulk_csv(no_terms.splitlines(keepends=True))
    with pytest.raises(FeedError, match="no GPU reserved-instance prices"):
        aws_reserved_feed.parse_bulk_csv(
            text.splitlines(keepends=True)
        )  # its one Reserved row is blank


def test_the_bundled_snapshot_has_one_and_three_year_terms_for_the_on_demand_types() -> None:
    reserved = load_bundled("aws-reserved").offers  # type: ignore[union-attr]
    sold = {(r.region, r.name): r for r in load_bundled("aws-ondemand").offers}  # type: ignore[union-attr]
    terms = {1: 0, 3: 0}
    for r in reserved:
        assert r.term_years is not None and r.name.endswith(f" ({r.term_years}-yr reserved)")
        terms[r.term_years] += 1
        same = sold[(r.region, r.name.split(" (", 1)[0])]
        assert (r.gpu, r.gpu_count) == (same.gpu, same.gpu_count)
        # 1-year discounts run 30-40 % off on demand, 3-year ones 45-60 %
        low, high = (0.55, 0.8) if r.term_years == 1 else (0.35, 0.6)
        assert low < r.usd_per_hour / same.usd_per_hour < high, r.name
        # the 3-year rows come from an older copy and say so row by row
        assert (r.source is None) == (r.term_years == 1)
    assert terms == {1: 180, 3: 184}


@pytest.fixture
def reserved_feed(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    feedcheck.fast_http(monkeypatch)
    monkeypatch.setenv(aws_reserved.URL_ENV, feed_server.url("/{region}/index.csv"))
    monkeypatch.setenv("COSTCALC_AWS_REGIONS", "us-east-1")
    return feed_server


def test_refresh_streams_the_csv_and_serves_committed_offers(
    reserved_feed: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    reserved_feed.serve_file("/us-east-1/index.csv", CSV, content_type="text/csv")
    code, report = feedcheck.refresh(capsys, "aws-reserved")
    assert code == 0, report
    assert feedcheck.result(report, "aws-reserved")["offers"] == 3
    offers = {o["name"]: o for o in feedcheck.prices(capsys, "aws-reserved")}
    assert offers["g4dn.xlarge (3-yr reserved)"]["term_years"] == 3
    assert {o["way"] for o in offers.values()} == {"committed"}


def test_without_a_url_refresh_keeps_the_bundled_snapshot_and_says_how(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(aws_reserved.URL_ENV, raising=False)
    assert main(["refresh", "--provider", "aws-reserved"]) == 0
    out, err = capsys.readouterr()
    assert aws_reserved.URL_ENV in out + err
