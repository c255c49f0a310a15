"""Crusoe Cloud: its GPU VMs as Shadeform's catalog lists them (SkyPilot's shadeform/vms.csv, rows
'crusoe_*'), bought through Shadeform at its prices, with a curated, dated table of Crusoe's own
published prices (prices/crusoe.yaml) as the fallback.

Crusoe publishes prices on its pricing page only; its API, which lists VM types and capacity,
needs an account's signed keys. Prices are per VM.
"""

from __future__ import annotations

from .base import CATALOG_ENV, FeedProvider
from .catalog_spec import CatalogFeed, CatalogSource

PROVIDER = FeedProvider(
    name="crusoe",
    label="Crusoe",
    snapshot_file="crusoe.yaml",
    env=CATALOG_ENV,
    catalogs=CatalogFeed(
        sources=(CatalogSource("skypilot", "shadeform", "crusoe"),), tier="secure", via="Shadeform"
    ),
)
