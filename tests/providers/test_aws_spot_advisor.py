"""The Spot Instance Advisor parser: savings % and interruption buckets, Linux GPU types only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from costcalc.providers import aws_spot_advisor
from costcalc.providers.common import FeedError

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"


def advisor_doc() -> dict:  # type: ignore[type-arg]
    return json.loads((FEEDS / "spot-advisor-data.json").read_text())


def test_linux_gpu_types_with_savings_bucket_and_size() -> None:
    advice = aws_spot_advisor.parse(json.dumps(advisor_doc()))
    tip = advice[("us-east-1", "p4d.24xlarge")]
    assert (tip.savings_pct, tip.bucket, tip.vcpus, tip.ram_gb) == (49, 3, 96, 1152.0)
    assert ("us-east-1", "m5.large") not in advice  # not a GPU type
    assert ("us-east-1", "g4ad.xlarge") not in advice  # AMD
    assert advice[("us-east-1", "g4dn.xlarge")].savings_pct == 60  # Linux, not Windows' 45
    assert len(advice) == 10


@pytest.mark.parametrize(("field", "value"), [("r", 5), ("r", -1), ("s", 140)])
def test_figures_outside_their_meaning_are_refused(field: str, value: int) -> None:
    doc = advisor_doc()
    doc["spot_advisor"]["us-west-2"]["Linux"]["g5.xlarge"][field] = value
    with pytest.raises(FeedError, match=r"implausible advisor figure for g5\.xlarge in us-west-2"):
        aws_spot_advisor.parse(json.dumps(doc))


def test_wrong_shape_is_refused() -> None:
    with pytest.raises(FeedError, match="spot_advisor should be an object"):
        aws_spot_advisor.parse('{"instance_types": {}, "ranges": []}')
    with pytest.raises(FeedError, match="no GPU instance types"):
        aws_spot_advisor.parse('{"spot_advisor": {"us-east-1": {"Linux": {}}}}')
