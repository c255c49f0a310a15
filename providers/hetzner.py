"""Hetzner: dedicated GPU servers rented by the month, a curated, dated table (prices/hetzner.yaml).

Hetzner bills its GPU servers monthly in EUR, with a one-off setup fee and no hourly product. The
table says so in each offer: the hourly figure is the monthly price / 730 h converted at the
stated, dated EUR->USD rate, billed in whole months (billing increment and minimum 730 h), with the
setup fee as `setup_fee_usd`. Its Robot API needs an account, so `costcalc refresh` reports the
table as curated, with its age.
"""

from __future__ import annotations

from .base import FeedProvider

PROVIDER = FeedProvider(name="hetzner", label="Hetzner", snapshot_file="hetzner.yaml")
