"""Azure GPU VMs (NC, ND, NV series): on-demand and spot prices from the keyless Retail Prices API.

Format (GET https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&$filter=...,
no key; filter values are case-sensitive), one page of at most 1,000 items:
    {"BillingCurrency": "USD", "Items": [{"armSkuName": "Standard_NC24ads_A100_v4",
        "armRegionName": "eastus", "productName": "Virtual Machines NCads A100 v4 Series",
        "meterName": "NC24ads A100 v4 Spot", "skuName": "NC24ads A100 v4 Spot",
        "retailPrice": 1.041296, "unitOfMeasure": "1 Hour", "type": "Consumption",
        "currencyCode": "USD", ...}, ...],
     "NextPageLink": "https://prices.azure.com/api/retail/prices?...&$skip=1000" | null}
`retailPrice` is USD per hour for the whole VM. The API does not name the GPU: the VM size ->
GPU model and count table is costcalc/data/azure_sizes.yaml (from Microsoft's size pages).

Rules kept here:
- Linux pay-as-you-go only: rows whose product is Windows (' Windows', or ' Win' as some H100
  rows write it), Cloud Services or a Dedicated Host, Low Priority meters (retired), other price
  types and zero prices are skipped; a spot meter is a spot offer named '<size> (spot)';
- a spot price no lower than the same size's on-demand price in the same region is dropped:
  the API has listed such meters (NC40ads H100 v5 Spot at the on-demand 6.98), which are no
  discount anyone can buy;
- fractional sizes (vGPU slices) and retired sizes are skipped as the size table says; another
  NC/ND/NV size is reported as one no table maps;
- reservations (type 'Reservation', reservationTerm '1 Year' or '3 Years') are commitments:
  retailPrice is the price of the whole term, so $/h = retailPrice / (years x 8,760), owed for
  every hour of the term; a row named '<size> (1-yr reserved)' with term_years. Other terms
  (some H100 sizes list a third, longer one) are skipped;
- pages are followed through NextPageLink on the first page's origin only, a repeated link is
  a page loop, and MAX_PAGES bounds the walk;
- parsers are pure; fetch is the only function that touches the network (both in
  providers/azure_feed.py, imported only when `refresh` runs; the size table stays here, as
  the field's catalogs read Azure's rows through it).
"""

from __future__ import annotations

import functools
from datetime import date
from typing import Annotated

from msgspec import field

from costcalc.core.records import Meta, Record
from costcalc.edge.resources import load_yaml_resource

from .aws_instances import InstanceGpus
from .base import CATALOG_ENV, EnvVar, FeedProvider, feed
from .catalog_spec import CatalogFeed, CatalogSource

NAME = "azure"
URL_ENV = "COSTCALC_AZURE_URL"
REGIONS_ENV = "COSTCALC_AZURE_REGIONS"


class AzureSizeTable(Record, frozen=True, kw_only=True):
    """costcalc/data/azure_sizes.yaml."""

    schema_version: Annotated[int, Meta(ge=1, le=1)] = 1
    source: str
    as_of: date
    sizes: dict[str, InstanceGpus]
    skipped: dict[str, str] = field(default_factory=dict)
    """GPU VM sizes left out, with the reason."""


@functools.cache
def load_size_table() -> AzureSizeTable:
    return load_yaml_resource("costcalc.data", "azure_sizes.yaml", AzureSizeTable)


def azure_size_table() -> tuple[dict[str, InstanceGpus], dict[str, str]]:
    """The size table and its skipped sizes, as the field's catalogs are read through it
    (providers/catalog_spec.py CatalogFeed.instances)."""
    table = load_size_table()
    return table.sizes, table.skipped


PROVIDER = FeedProvider(
    name=NAME,
    label="Azure",
    snapshot_file="azure.yaml",
    fetch=feed(__package__, ".azure_feed", "refresh"),
    env=(
        EnvVar(URL_ENV, "Retail Prices API URL of the first page"),
        EnvVar(REGIONS_ENV, "comma-separated regions to fetch"),
        *CATALOG_ENV,
    ),
    catalogs=CatalogFeed(
        sources=(CatalogSource("gpuhunt", "azure"), CatalogSource("skypilot", "azure")),
        instances=azure_size_table,
    ),
)
