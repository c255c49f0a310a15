"""Issue 41's 'done when' for the bundle: on the release day prices/release.yaml states, every
row that decides a desktop verdict for the ten GPUs at 5/15/40/80 % is at most 30 days old, and
no single provider decides more than half of those 40 cases unless it is truly the cheapest
after its tier filter (no cheaper offer set aside as stale).

The data files say which rows break the rule and why (prices/release.yaml `older` and
`concentration`, written by scripts/bundle_prices.py); these tests recompute the rows with the
real engine from the bundled prices and fail on a row that breaks the rule unsaid, on a row said
to break it that does not, and on a reason left empty, so the declarations cannot outlive the
data they describe.
"""

from __future__ import annotations

import runpy
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from costcalc.core.offers import age_days

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = runpy.run_path(str(ROOT / "scripts" / "bundle_prices.py"))
RELEASE: dict[str, Any] = yaml.safe_load((ROOT / "prices" / "release.yaml").read_text())
RELEASED = datetime.fromisoformat(RELEASE["released"]).replace(tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def data() -> Any:
    return SCRIPT["release_data"](ROOT / "prices")


@pytest.fixture(scope="module")
def rows(data: Any) -> list[Any]:
    return SCRIPT["freshness_rows"](data, RELEASED)


def _key(gpu: str, utilisation: float, provider: str, offer: str) -> tuple[str, float, str, str]:
    return (gpu, round(utilisation, 2), provider, offer)


def problems(rows: list[Any], released: datetime, declared: list[dict[str, Any]]) -> list[str]:
    """Every deciding row older than the rule that `declared` does not name with a reason, and
    every declaration that names no such row."""
    limit = RELEASE["max_deciding_age_days"]
    said = {_key(d["gpu"], d["utilisation"], d["provider"], d["offer"]): d for d in declared}
    found, old = [], set()
    for r in rows:
        key = _key(r.gpu, r.utilisation, r.offer.provider, r.offer.name)
        age = age_days(r.offer.fetched_at, released)
        if age <= limit:
            continue
        old.add(key)
        entry = said.get(key)
        if entry is None:
            found.append(f"{key} is {age:.0f} days old and release.yaml does not say why")
        elif not entry["why"].strip() or entry["date"] != f"{r.offer.fetched_at:%Y-%m-%d}":
            found.append(f"{key}: its entry's date or reason is wrong")
    found += [f"{key} is declared older but is not" for key in said.keys() - old]
    return found


def test_the_release_states_its_day_the_rule_and_the_ten_gpus() -> None:
    assert RELEASE["max_deciding_age_days"] == 30
    assert RELEASE["cards"] == list(SCRIPT["RELEASE_CARDS"])
    assert len(RELEASE["cards"]) == 10


def test_every_deciding_row_is_at_most_30_days_old_or_says_why(rows: list[Any]) -> None:
    assert len(rows) == 40, "the engine found an offer for each GPU at each utilisation"
    assert not problems(rows, RELEASED, RELEASE["older"])


def test_the_age_rule_can_fail(rows: list[Any]) -> None:
    """The check on the rows this bundle has: without its declarations every older row is
    found; a week later, more rows are too old than were declared; shipped the day after the
    newest deciding row, nothing needs a reason."""
    older = [r for r in rows if age_days(r.offer.fetched_at, RELEASED) > 30]
    assert len(problems(rows, RELEASED, [])) == len(older)
    newest = max(r.offer.fetched_at for r in rows)
    early = RELEASE["older"]
    assert problems(rows, newest + timedelta(days=1), []) == []
    assert len(problems(rows, newest + timedelta(days=1), early)) == len(early)


def test_no_provider_decides_more_than_half_unless_truly_the_cheapest_or_said_why(
    data: Any, rows: list[Any]
) -> None:
    computed = SCRIPT["concentration"](data, rows, RELEASED)
    assert computed == RELEASE["concentration"]
    for entry in RELEASE["concentration"]:
        assert entry["decides"] * 2 > entry["of"] == len(rows)
        assert entry["why"].strip()
        for case in entry["not_cheapest"]:
            assert case["set_aside"], "a case listed is one where a cheaper offer was set aside"


def test_the_bundle_claims_no_price_newer_than_its_release(data: Any) -> None:
    assert all(o.fetched_at <= RELEASED + timedelta(days=1) for o in data.book.offers)
