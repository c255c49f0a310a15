"""Nebius: its GPU VMs as the field's catalogs list them (gpuhunt's Nebius catalog, SkyPilot's
nebius/vms.csv, both collected with the catalogs' own service accounts), with a curated, dated
table of its published prices (prices/nebius.yaml) as the fallback.

Nebius's machine-readable prices need a service account (its SDK's calculator), which costcalc
does not ask for.
"""

from __future__ import annotations

from .base import CATALOG_ENV, FeedProvider
from .catalog_spec import CatalogFeed, CatalogSource

PROVIDER = FeedProvider(
    name="nebius",
    label="Nebius",
    snapshot_file="nebius.yaml",
    env=CATALOG_ENV,
    catalogs=CatalogFeed(
        sources=(CatalogSource("gpuhunt", "nebius"), CatalogSource("skypilot", "nebius")),
        tier="secure",
    ),
)
