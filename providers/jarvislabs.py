"""Jarvislabs: a curated, dated table (prices/jarvislabs.yaml) of its published GPU prices.

Its price endpoint needs an account key and was not recorded, so `costcalc refresh` reports the
table as curated, with its age.
"""

from __future__ import annotations

from .base import FeedProvider

PROVIDER = FeedProvider(name="jarvislabs", label="Jarvislabs", snapshot_file="jarvislabs.yaml")
