"""CoreWeave: a curated, dated table (prices/coreweave.yaml) of its published node prices.

CoreWeave publishes prices on its pricing page only (no price API; it rents through Kubernetes),
so `costcalc refresh` reports the table as curated, with its age. Prices are per 8-GPU node.
"""

from __future__ import annotations

from .base import FeedProvider

PROVIDER = FeedProvider(name="coreweave", label="CoreWeave", snapshot_file="coreweave.yaml")
