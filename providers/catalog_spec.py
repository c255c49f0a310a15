"""What a provider takes from the field's catalogs: which files, and what its rows are.

Rule kept here: data only, imported with the registry's providers, so it stays as light as the
rest of a provider's description; reading the catalogs is providers/catalogs.py's job and turning
their rows into a snapshot providers/from_catalogs.py's, both imported only by a refresh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from msgspec import Struct, field

from costcalc.core.models import PriceKind, Tier

from .gpu_names import Choice

Catalog = Literal["gpuhunt", "skypilot"]
Ways = Literal["both", "on-demand", "spot"]
Instances = Callable[[], tuple[Mapping[str, Any], Mapping[str, str]]]
"""An instance-type table: type -> its GPUs (`.gpu`, `.gpu_count`), and the types it leaves out
with the reason (AWS's costcalc/data/aws_instances.yaml, Azure's azure_sizes.yaml)."""


class CatalogSource(Struct, frozen=True):
    """One catalog file and the rows in it that are this provider's."""

    catalog: Catalog
    file: str
    """gpuhunt's provider name ('verda') or SkyPilot's cloud directory ('shadeform')."""
    rows_of: str | None = None
    """The name the file gives this provider's rows, when the file resells several clouds
    ('massedcompute' in Shadeform's); None: every row of the file."""

    @property
    def label(self) -> str:
        owner = "gpuhunt" if self.catalog == "gpuhunt" else "SkyPilot"
        of = f" ({self.rows_of} rows)" if self.rows_of else ""
        return f"{owner}'s {self.file} catalog{of}"


class CatalogFeed(Struct, frozen=True):
    """How a provider's offers are read from the catalogs that list it."""

    sources: tuple[CatalogSource, ...]
    tier: Tier | None = None
    """Who hosts its offers (tiers.HOSTS): secure (the provider's own data centres), community,
    marketplace or decentralised; None for the providers whose direct feed says it per row."""
    ways: Ways = "both"
    """Which of a catalog's prices this provider sells: aws-ondemand the on-demand ones,
    aws-spot the spot ones."""
    price_kind: PriceKind = "list"
    instances: Instances | None = None
    """How a row's GPUs are found: None, by the catalogs' GPU names (providers/catalog_gpus.py);
    else by its instance type in this table (AWS, Azure: the same tables their own feeds use)."""
    gpu_overrides: Mapping[str, Choice] = field(default_factory=dict)
    """This provider's own reading of a name the shared table reads otherwise ('h100' is the
    PCIe card at Scaleway)."""
    via: str | None = None
    """The reseller its catalog rows are bought through ('Shadeform'), named in each offer."""
    cross_check_only: bool = False
    """True when a direct feed lists every offer of this provider, each with its own price:
    catalog rows then only cross-check the direct rows, never add offers (RunPod's rows differ
    from SkyPilot's in region and name, not in what they are)."""
