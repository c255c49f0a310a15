"""Google Colab: tiers that buy compute units, burnt at a per-accelerator rate.

Colab publishes no machine-readable prices: the bundled table (prices/colab.yaml) holds each
tier's fee, units and limits and each accelerator's observed burn rate, with dates. Offers are
tier x accelerator at units per hour x $ per unit; the Free tier guarantees no GPU.
"""

from __future__ import annotations

from costcalc.core.models import CloudOffer, ColabSnapshot
from costcalc.core.offers import Snapshot, offers_from_colab

from .base import FeedProvider


def _offers(snapshot: Snapshot) -> list[CloudOffer]:
    assert isinstance(snapshot, ColabSnapshot)
    return offers_from_colab(snapshot)


PROVIDER = FeedProvider(
    name="colab",
    label="Google Colab",
    short="Colab",
    snapshot_file="colab.yaml",
    snapshot_model=ColabSnapshot,
    to_offers=_offers,
)
