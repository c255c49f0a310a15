"""The AWS spot feed parser on payloads in the real format (spot.json and legacy spot.js)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from costcalc.providers import aws_spot_advisor, aws_spot_feed
from costcalc.providers.common import FeedError

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"


def spot_payload() -> str:
    return (FEEDS / "spot.json").read_text()


def by_key(rows: list) -> dict:  # type: ignore[type-arg]
    return {(r.region, r.name): r for r in rows}


def test_keeps_gpu_types_with_linux_prices_mapped_to_catalog_gpus() -> None:
    rows = by_key(aws_spot_feed.parse(spot_payload()))
    p4d = rows[("us-east-1", "p4d.24xlarge")]
    assert (p4d.gpu, p4d.gpu_count, p4d.usd_per_hour, p4d.spot) == ("a100_sxm4_40gb", 8, 11.2, True)
    assert rows[("us-east-1", "g4dn.12xlarge")].gpu_count == 4
    assert rows[("eu-west-1", "g6e.xlarge")].gpu == "l40s"
    names = {name for _, name in rows}
    assert "m5.large" not in names  # not a GPU type
    assert "inf1.xlarge" not in names  # Inferentia, not a GPU
    assert "g4ad.xlarge" not in names  # AMD: not mapped on purpose


def test_na_and_zero_prices_are_no_offer() -> None:
    rows = by_key(aws_spot_feed.parse(spot_payload()))
    assert ("us-west-2", "p3.2xlarge") not in rows  # "N/A*"
    assert ("us-east-1", "p5.48xlarge") not in rows  # "0": no price published yet
    assert len(rows) == 14


def test_jsonp_form_with_legacy_region_names_gives_the_same_rows() -> None:
    legacy = by_key(aws_spot_feed.parse((FEEDS / "spot-legacy.js").read_text()))
    modern = by_key(aws_spot_feed.parse(spot_payload()))
    assert ("ap-northeast-1", "g4dn.xlarge") in legacy  # apac-tokyo
    del legacy[("ap-northeast-1", "g4dn.xlarge")]
    assert legacy == modern  # us-east -> us-east-1, eu-ireland -> eu-west-1


@pytest.mark.parametrize(
    ("legacy", "code"),
    [
        ("us-east", "us-east-1"),
        ("us-west", "us-west-1"),
        ("eu-ireland", "eu-west-1"),
        ("apac-sin", "ap-southeast-1"),
        ("apac-syd", "ap-southeast-2"),
        ("apac-tokyo", "ap-northeast-1"),
        ("us-gov-west-1", "us-gov-west-1"),
        ("us-west-2-lax-1", "us-west-2-lax-1"),
        ("mars-base", None),
    ],
)
def test_region_names(legacy: str, code: str | None) -> None:
    assert aws_spot_feed.region_code(legacy) == code


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("<!DOCTYPE html><html><body>Service Unavailable</body></html>", "got HTML"),
        ("", "empty payload"),
        ('{"vers": 0.01, "config": {"regions": [{"region": "us-ea', "ends early"),
        ('callback({"vers": 0.01, "config": {"regions": [', "ends early"),
        ('{"vers": 0.01, "regions": []}', "config should be an object"),
        ('{"vers": 0.01, "config": {"regions": {}}}', "config.regions should be a list"),
        ("[1, 2, 3]", "the document should be an object"),
        ('{"config": {"regions": []}}', "no GPU instance prices"),
    ],
)
def test_unusable_payloads_raise_one_line_reasons(payload: str, reason: str) -> None:
    with pytest.raises(FeedError, match=reason) as caught:
        aws_spot_feed.parse(payload)
    assert "\n" not in str(caught.value)


def test_advice_adds_savings_bucket_and_size() -> None:
    advice = aws_spot_advisor.parse((FEEDS / "spot-advisor-data.json").read_bytes())
    rows = by_key(aws_spot_feed.with_advice(aws_spot_feed.parse(spot_payload()), advice))
    g4 = rows[("us-east-1", "g4dn.xlarge")]
    assert (g4.savings_pct, g4.interruption_bucket, g4.vcpus, g4.ram_gb) == (60, 2, 4, 16.0)
    assert g4.limits is not None and "10-15%" in g4.limits
    # no advice for this one: the spot price stays, without made-up risk figures
    assert rows[("eu-west-1", "g6e.xlarge")].interruption_bucket is None


def test_bytes_with_utf8_bom_parse() -> None:
    payload = b"\xef\xbb\xbf" + spot_payload().encode()
    assert len(aws_spot_feed.parse(payload)) == 14


def test_region_without_instance_types_list_is_a_shape_error() -> None:
    doc = json.loads(spot_payload())
    doc["config"]["regions"][0]["instanceTypes"] = "gpu"
    with pytest.raises(FeedError, match="instanceTypes should be a list"):
        aws_spot_feed.parse(json.dumps(doc))
