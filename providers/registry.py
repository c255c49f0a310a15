"""Every price provider costcalc knows, in display order: the single list the CLI choices,
`costcalc prices`, `refresh`, the app's provider filter and the docs come from.

Rules kept here:
- one line per provider in MODULES: its name and the module that defines its `PROVIDER`
  (providers/base.py). Nothing else in costcalc names a provider; what a provider is (label,
  snapshot, settings, GPU-name table) are fields of that object.
- a provider's module is imported when it is first asked for (as SkyPilot's catalog maps a
  cloud to its module, and Textual loads its widgets): `names()` imports nothing, `get(name)`
  one module, `every()` (or `PROVIDERS`) all of them. `costcalc quick --provider runpod`, the
  settings check and `--help` never load the other providers' modules, and a module describes
  its provider only: its fetching and parsing sit in providers/<name>_feed.py, which its
  `fetch=feed(...)` imports when `refresh` runs (providers/base.py), so no quick loads a feed.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from costcalc.core.errors import CostcalcError

if TYPE_CHECKING:
    from .base import Provider

MODULES: dict[str, str] = {
    "paperspace": ".paperspace",
    "aws-spot": ".aws_spot",
    "aws-ondemand": ".aws_ondemand",
    "aws-reserved": ".aws_reserved",
    "colab": ".colab",
    "runpod": ".runpod",
    "vast": ".vast",
    "lambda": ".lambda_cloud",
    "azure": ".azure",
    "oci": ".oci",
    "gcp": ".gcp",
    "coreweave": ".coreweave",
    "crusoe": ".crusoe",
    "nebius": ".nebius",
    "jarvislabs": ".jarvislabs",
    "hetzner": ".hetzner",
    "verda": ".catalog_providers:VERDA",
    "hyperbolic": ".catalog_providers:HYPERBOLIC",
    "massedcompute": ".catalog_providers:MASSEDCOMPUTE",
    "scaleway": ".catalog_providers:SCALEWAY",
    "hyperstack": ".catalog_providers:HYPERSTACK",
    "denvr": ".catalog_providers:DENVR",
    "seeweb": ".catalog_providers:SEEWEB",
    "cudo": ".catalog_providers:CUDO",
    "primeintellect": ".catalog_providers:PRIMEINTELLECT",
    "spheron": ".catalog_providers:SPHERON",
    "mithril": ".catalog_providers:MITHRIL",
    "excesssupply": ".catalog_providers:EXCESSSUPPLY",
    "cloudrift": ".catalog_providers:CLOUDRIFT",
    "lium": ".catalog_providers:LIUM",
    "yotta": ".catalog_providers:YOTTA",
}
"""Provider name -> the module defining its PROVIDER ('.x': costcalc.providers.x), or the module
and the constant ('.catalog_providers:VERDA') where one module describes several providers (those
known only through the field's catalogs), in the order tables, choices and the docs show them."""


@functools.cache
def _load(module: str) -> Provider:
    module, _, constant = module.partition(":")
    name = f"{__package__}{module}" if module.startswith(".") else module
    # __import__, not importlib.import_module: the same import, but `python -X importtime`
    # reports it, so a provider's start-up cost stays visible.
    __import__(name)
    provider: Provider = getattr(sys.modules[name], constant or "PROVIDER")
    return provider


def names() -> tuple[str, ...]:
    return tuple(MODULES)


def get(name: str) -> Provider:
    """The provider called `name`, or a one-line error with the closest name."""
    wanted = name.strip().lower()
    module = MODULES.get(wanted)
    if module is not None:
        return _load(module)
    import difflib  # only to word a mistake

    close = difflib.get_close_matches(wanted, names(), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise CostcalcError(f"unknown provider {name!r}{hint} (choose from {', '.join(names())})")


def every() -> tuple[Provider, ...]:
    """Every provider, in display order (imports each module)."""
    return tuple(_load(module) for module in MODULES.values())


def __getattr__(attribute: str) -> tuple[Provider, ...]:
    # `registry.PROVIDERS` reads as the constant it was before providers loaded lazily.
    if attribute == "PROVIDERS":
        return every()
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


def _chosen(only: Iterable[str] | None) -> Iterable[Provider]:
    return every() if only is None else (get(n) for n in only if n in MODULES)


def labels(only: Iterable[str] | None = None) -> dict[str, str]:
    """Each provider's name as people write it: 'AWS EC2 spot' for aws-spot (`only` those)."""
    return {p.name: p.label for p in _chosen(only)}


def short_labels(only: Iterable[str] | None = None) -> dict[str, str]:
    """What an offer table's provider column says: 'AWS spot' for aws-spot, and so on."""
    return {p.name: p.short or p.label for p in _chosen(only)}
