"""Providers costcalc knows only through the field's catalogs (gpuhunt, SkyPilot): each one a
PROVIDER-shaped constant the registry names as '.catalog_providers:<NAME>'.

Rule kept here: one entry per provider that rents the GPUs, never per catalog: its label, its
tier (who hosts its GPUs, as `--exclude` reads it), the catalog files that list it and, where the
shared GPU table reads a name otherwise, its own reading; its bundled snapshot is
prices/<name>.yaml, built by scripts/bundle_prices.py from the catalogs' recorded copies. Tiers:
- secure (data centres of its own): Verda, Massed Compute, Scaleway, Hyperstack, Denvr, Seeweb;
- marketplace (independent hosts or resold capacity at their own prices): Hyperbolic (partners'
  GPUs at Hyperbolic's price), Excess Supply (others' spare capacity), Cudo Compute (data-centre
  partners), Mithril (auction-priced), Prime Intellect and Spheron (aggregators of other clouds'
  machines, at their prices), CloudRift (hosts' GPUs);
- decentralised (anonymous operators of a decentralised network): Lium (Bittensor subnet 51),
  Yotta Labs (pooled operators' GPUs).
"""

from __future__ import annotations

from .base import CATALOG_ENV, FeedProvider
from .catalog_spec import CatalogFeed, CatalogSource


def _sky(cloud: str, rows_of: str | None = None) -> CatalogSource:
    return CatalogSource("skypilot", cloud, rows_of)


def _hunt(provider: str) -> CatalogSource:
    return CatalogSource("gpuhunt", provider)


def _shadeform(rows_of: str) -> CatalogSource:
    return _sky("shadeform", rows_of)


def _provider(name: str, label: str, feed: CatalogFeed, short: str = "") -> FeedProvider:
    return FeedProvider(
        name=name,
        label=label,
        short=short,
        snapshot_file=f"{name}.yaml",
        env=CATALOG_ENV,
        catalogs=feed,
    )


VERDA = _provider(
    "verda",
    "Verda (DataCrunch)",
    CatalogFeed(sources=(_hunt("verda"), _sky("verda")), tier="secure"),
    short="Verda",
)
HYPERBOLIC = _provider(
    "hyperbolic", "Hyperbolic", CatalogFeed(sources=(_sky("hyperbolic"),), tier="marketplace")
)
MASSEDCOMPUTE = _provider(
    "massedcompute",
    "Massed Compute",
    CatalogFeed(sources=(_shadeform("massedcompute"),), tier="secure", via="Shadeform"),
    short="Massed",
)
SCALEWAY = _provider(
    "scaleway",
    "Scaleway",
    CatalogFeed(
        sources=(_shadeform("scaleway"),),
        tier="secure",
        via="Shadeform",
        gpu_overrides={"h100": "h100_pcie_80gb"},  # H100-1-80G and H100-2-80G are PCIe cards
    ),
)
HYPERSTACK = _provider(
    "hyperstack",
    "Hyperstack",
    CatalogFeed(
        sources=(_shadeform("hyperstack"),),
        tier="secure",
        via="Shadeform",
        gpu_overrides={"h100": "h100_pcie_80gb"},  # n3-H100xN is PCIe; its SXM5 shapes say so
    ),
)
DENVR = _provider(
    "denvr",
    "Denvr Dataworks",
    CatalogFeed(sources=(_shadeform("denvr"),), tier="secure", via="Shadeform"),
    short="Denvr",
)
EXCESSSUPPLY = _provider(
    "excesssupply",
    "Excess Supply",
    CatalogFeed(sources=(_shadeform("excesssupply"),), tier="marketplace", via="Shadeform"),
    short="ExcessSupply",
)
CUDO = _provider(
    "cudo",
    "Cudo Compute",
    CatalogFeed(sources=(_sky("cudo"),), tier="marketplace"),
    short="Cudo",
)
LIUM = _provider("lium", "Lium", CatalogFeed(sources=(_sky("lium"),), tier="decentralised"))
MITHRIL = _provider(
    "mithril", "Mithril", CatalogFeed(sources=(_sky("mithril"),), tier="marketplace")
)
PRIMEINTELLECT = _provider(
    "primeintellect",
    "Prime Intellect",
    CatalogFeed(sources=(_sky("primeintellect"),), tier="marketplace"),
    short="PrimeIntel",
)
SPHERON = _provider(
    "spheron", "Spheron", CatalogFeed(sources=(_sky("spheron"),), tier="marketplace")
)
SEEWEB = _provider("seeweb", "Seeweb", CatalogFeed(sources=(_sky("seeweb"),), tier="secure"))
YOTTA = _provider(
    "yotta", "Yotta Labs", CatalogFeed(sources=(_sky("yotta"),), tier="decentralised")
)
CLOUDRIFT = _provider(
    "cloudrift", "CloudRift", CatalogFeed(sources=(_hunt("cloudrift"),), tier="marketplace")
)
