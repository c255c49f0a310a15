"""Google Cloud (Compute Engine GPU VMs): a curated, dated table (prices/gcp.yaml).

GCP prices the GPU and the host VM as separate SKUs in its Cloud Billing Catalog API, which needs
an API key and a machine-type table to add them up; the table holds whole-VM prices only (host
plus GPUs), never a GPU SKU alone, which is not a price anyone pays. `costcalc refresh` reports
it as curated, with its age.
"""

from __future__ import annotations

from .base import FeedProvider

PROVIDER = FeedProvider(name="gcp", label="Google Cloud", short="GCP", snapshot_file="gcp.yaml")
