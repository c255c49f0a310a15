"""AWS on-demand: the pricing page's per-location JSON and the streamed Price List bulk CSV."""

from __future__ import annotations

import csv
import io
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from costcalc.providers import aws_ondemand, aws_ondemand_feed
from costcalc.providers.common import FeedError

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"


def test_per_location_document_gives_gpu_rows_with_size() -> None:
    rows = {
        r.name: r for r in aws_ondemand_feed.parse((FEEDS / "ondemand-us-east-1.json").read_bytes())
    }
    assert set(rows) == {"g4dn.xlarge", "g4dn.12xlarge", "p3.2xlarge", "p4d.24xlarge", "g5.xlarge"}
    p4d = rows["p4d.24xlarge"]
    assert (p4d.region, p4d.gpu, p4d.gpu_count, p4d.usd_per_hour) == (
        "us-east-1",
        "a100_sxm4_40gb",
        8,
        22.5,
    )
    assert (p4d.vcpus, p4d.ram_gb, p4d.spot) == (96, 1152.0, False)


def test_europe_and_eu_location_names_both_map_to_the_region() -> None:
    rows = aws_ondemand_feed.parse((FEEDS / "ondemand-eu-west-1.json").read_bytes())
    assert {r.region for r in rows} == {"eu-west-1"}
    assert aws_ondemand_feed.region_of("EU (Ireland)") == aws_ondemand_feed.region_of(
        "Europe (Ireland)"
    )


def test_url_template_expands_per_region(monkeypatch: pytest.MonkeyPatch) -> None:
    assert aws_ondemand_feed.urls()[0].endswith("/US%20East%20%28N.%20Virginia%29/Linux/index.json")
    monkeypatch.setenv(aws_ondemand.URL_ENV, "http://127.0.0.1:1/{region}.csv")
    assert aws_ondemand_feed.urls() == [
        f"http://127.0.0.1:1/{r}.csv" for r in aws_ondemand_feed.REGIONS
    ]
    monkeypatch.setenv(aws_ondemand.URL_ENV, "http://127.0.0.1:1/all.json")
    assert aws_ondemand_feed.urls() == ["http://127.0.0.1:1/all.json"]


def test_bulk_csv_keeps_only_linux_shared_ondemand_used_capacity() -> None:
    with (FEEDS / "ec2-offer-us-east-1.csv").open() as lines:
        rows = {r.name: r for r in aws_ondemand_feed.parse_bulk_csv(lines)}
    # Windows, Dedicated, Reserved, capacity reservation and SQL rows of g4dn.xlarge are dropped
    assert rows["g4dn.xlarge"].usd_per_hour == 0.54
    assert rows["p4d.24xlarge"].ram_gb == 1152.0  # "1,152 GiB"
    assert set(rows) == {"g4dn.xlarge", "p4d.24xlarge", "g6e.xlarge"}


@pytest.mark.slow  # seconds: in the whole suite, not the fast subset
def test_bulk_csv_is_parsed_as_a_stream_with_bounded_memory() -> None:
    """~40 MB of non-GPU rows stream through while peak memory stays a few MB."""
    fixture = (FEEDS / "ec2-offer-us-east-1.csv").read_text().splitlines(keepends=True)
    preamble_and_header, gpu_rows = fixture[:6], fixture[6:]
    filler = next(line for line in gpu_rows if '"m5.large"' in line)

    def lines() -> Iterator[str]:
        yield from preamble_and_header
        for _ in range(40 * 2**20 // len(filler)):
            yield filler
        yield from gpu_rows

    tracemalloc.start()
    try:
        rows = aws_ondemand_feed.parse_bulk_csv(lines())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert {r.name for r in rows} == {"g4dn.xlarge", "p4d.24xlarge", "g6e.xlarge"}
    assert peak < 4 * 2**20


def test_bulk_csv_without_the_columns_we_need_is_refused() -> None:
    out = io.StringIO()
    csv.writer(out).writerows(
        [["FormatVersion", "v1.0"], ["SKU", "TermType", "Unit"], ["a", "b", "c"]]
    )
    with pytest.raises(FeedError, match="lacks column"):
        aws_ondemand_feed.parse_bulk_csv(io.StringIO(out.getvalue()))
    with pytest.raises(FeedError, match="no header row"):
        aws_ondemand_feed.parse_bulk_csv(io.StringIO("<html><body>Access Denied</body></html>\n"))


def test_document_without_gpu_rows_is_refused() -> None:
    with pytest.raises(FeedError, match="no GPU instance prices"):
        aws_ondemand_feed.parse('{"regions": {"US East (N. Virginia)": {}}}')
    with pytest.raises(FeedError, match="regions should be an object"):
        aws_ondemand_feed.parse('{"manifest": {}}')


def test_regions_default_to_the_bundled_ones_and_can_be_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from costcalc.core.errors import CostcalcError

    monkeypatch.setenv("COSTCALC_AWS_ONDEMAND_URL", "http://127.0.0.1:1/{region}.csv")
    assert len(aws_ondemand_feed.urls()) == len(aws_ondemand_feed.REGIONS) == 6
    monkeypatch.setenv("COSTCALC_AWS_REGIONS", "eu-central-1, ap-northeast-1")
    assert aws_ondemand_feed.urls() == [
        "http://127.0.0.1:1/eu-central-1.csv",
        "http://127.0.0.1:1/ap-northeast-1.csv",
    ]
    monkeypatch.setenv("COSTCALC_AWS_REGIONS", "mars-north-1")
    with pytest.raises(CostcalcError, match="unknown region 'mars-north-1'"):
        aws_ondemand_feed.urls()
