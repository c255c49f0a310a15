"""Every price provider costcalc knows, in display order: the single list the CLI choices,
`costcalc prices`, `refresh`, the app's provider filter and the docs come from.

Rule kept here: one line per provider. A provider module defines `PROVIDER` (providers/base.py);
nothing else in costcalc names a provider.
"""

from __future__ import annotations

import difflib

from costcalc.core.errors import CostcalcError
from costcalc.providers import (
    aws_ondemand,
    aws_spot,
    azure,
    colab,
    coreweave,
    gcp,
    hetzner,
    jarvislabs,
    lambda_cloud,
    nebius,
    oci,
    paperspace,
    runpod,
    vast,
)
from costcalc.providers.base import Provider

PROVIDERS: tuple[Provider, ...] = (
    paperspace.PROVIDER,
    aws_spot.PROVIDER,
    aws_ondemand.PROVIDER,
    colab.PROVIDER,
    runpod.PROVIDER,
    vast.PROVIDER,
    lambda_cloud.PROVIDER,
    azure.PROVIDER,
    oci.PROVIDER,
    gcp.PROVIDER,
    coreweave.PROVIDER,
    nebius.PROVIDER,
    jarvislabs.PROVIDER,
    hetzner.PROVIDER,
)


def names() -> tuple[str, ...]:
    return tuple(p.name for p in PROVIDERS)


def labels() -> dict[str, str]:
    """Each provider's name as people write it: 'AWS EC2 spot' for aws-spot."""
    return {p.name: p.label for p in PROVIDERS}


def short_labels() -> dict[str, str]:
    """What an offer table's provider column says: 'AWS spot' for aws-spot, and so on."""
    return {p.name: p.short or p.label for p in PROVIDERS}


def get(name: str) -> Provider:
    """The provider called `name`, or a one-line error with the closest name."""
    wanted = name.strip().lower()
    for provider in PROVIDERS:
        if provider.name == wanted:
            return provider
    close = difflib.get_close_matches(wanted, names(), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise CostcalcError(f"unknown provider {name!r}{hint} (choose from {', '.join(names())})")
