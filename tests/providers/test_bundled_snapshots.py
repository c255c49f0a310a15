"""Every provider's bundled snapshot, read offline the way an install reads it: it loads, names
its source, licence and date, each offer a catalog GPU at a plausible price per GPU-hour, dated
no later than the file says it was checked, and no offer twice."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from costcalc.core.models import PriceSnapshot
from costcalc.feeds.refresh import row_identity
from costcalc.providers.registry import PROVIDERS
from costcalc.store.bundled import load_catalog
from costcalc.store.snapshots import load_bundled

FEEDS = [p for p in PROVIDERS if p.snapshot_model is PriceSnapshot]
CHECKED = datetime(2026, 11, 28, 23, 59, tzinfo=timezone.utc)
"""The day these snapshots were put together: no price may claim a later date."""


@pytest.mark.parametrize("name", [p.name for p in FEEDS])
def test_the_bundled_snapshot_is_sourced_dated_and_plausible(name: str) -> None:
    snapshot = load_bundled(name)
    assert isinstance(snapshot, PriceSnapshot)
    assert snapshot.provider == name
    assert snapshot.source.strip() and snapshot.licence and snapshot.source_url
    assert snapshot.fetched_at <= CHECKED
    catalog = load_catalog()
    for row in snapshot.offers:
        assert row.gpu in catalog, (row.name, row.gpu)
        assert 0.05 <= row.usd_per_hour / row.gpu_count <= 20, row.name
        assert (row.fetched_at or snapshot.fetched_at) <= CHECKED, row.name
    identities = [row_identity(r) for r in snapshot.offers]
    assert len(identities) == len(set(identities))


@pytest.mark.parametrize("name", [p.name for p in FEEDS])
def test_offers_in_a_currency_other_than_usd_state_the_original_price(name: str) -> None:
    snapshot = load_bundled(name)
    assert isinstance(snapshot, PriceSnapshot)
    for row in snapshot.offers:
        if (row.currency or snapshot.currency) != "USD":
            assert row.price_in_currency is not None, row.name
