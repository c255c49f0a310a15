"""Google Cloud (Compute Engine GPU VMs): whole-VM prices from the field's catalogs (gpuhunt's GCP
catalog, SkyPilot's GCP vms.csv), with a curated, dated table (prices/gcp.yaml) as the fallback.

GCP prices the GPU and the host VM as separate SKUs; the catalogs are read for whole VMs only
(host plus GPUs: providers/catalog_rows.py adds SkyPilot's two rows up), never a GPU SKU alone,
which is not a price anyone pays. Its own Cloud Billing Catalog API needs an API key.
"""

from __future__ import annotations

from .base import CATALOG_ENV, FeedProvider
from .catalog_spec import CatalogFeed, CatalogSource

PROVIDER = FeedProvider(
    name="gcp",
    label="Google Cloud",
    short="GCP",
    snapshot_file="gcp.yaml",
    env=CATALOG_ENV,
    catalogs=CatalogFeed(
        sources=(CatalogSource("gpuhunt", "gcp"), CatalogSource("skypilot", "gcp")),
        tier="secure",
    ),
)
