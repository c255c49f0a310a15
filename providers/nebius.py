"""Nebius: a curated, dated table (prices/nebius.yaml) of its published GPU prices.

Nebius's machine-readable prices need a service account (its SDK's calculator), so `costcalc
refresh` reports the table as curated, with its age.
"""

from __future__ import annotations

from .base import FeedProvider

PROVIDER = FeedProvider(name="nebius", label="Nebius", snapshot_file="nebius.yaml")
