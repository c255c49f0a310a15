"""Crusoe Cloud: a curated, dated table (prices/crusoe.yaml) of its published GPU VM prices.

Crusoe publishes prices on its pricing page only; its API, which lists VM types and capacity,
needs an account's signed keys. So `costcalc refresh` reports the table as curated, with its age.
Prices are per VM: the page's per-GPU price times the GPUs of the VM type.
"""

from __future__ import annotations

from .base import FeedProvider

PROVIDER = FeedProvider(name="crusoe", label="Crusoe", snapshot_file="crusoe.yaml")
