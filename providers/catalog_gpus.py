"""What the catalogs call each GPU -> the catalog key, for every provider read from them.

gpuhunt writes short names without vendor or spaces ('H100', 'A100' with its memory, 'RTX4090',
'RTXPRO6000', 'A6000'); SkyPilot's files use their clouds' own spellings ('A100-80GB', 'H100-SXM',
'RTX-6000-Ada', 'RTX PRO 6000 96GB', 'H100_PCIE'). Names are compared as
costcalc.providers.gpu_names.compact writes them (lower case).

Rules kept here:
- one spelling can name two cards: the form factor, where the instance type names it ('sxm',
  'pcie', 'pci', 'nvl'), picks the entry '<name> <form>'; the memory a row reports picks
  between 40 and 80 GB; without either, an H100 or A100 is the SXM card, the way most clouds
  rent it (a provider whose cards are PCIe says so in its own overrides);
- a name no table maps is skipped and reported, never guessed (a TPU, Gaudi, an A800, a GPU
  slice);
- every value is a key of costcalc/data/gpus.yaml (tests/providers/test_gpu_names.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .gpu_names import Choice, GpuNames, compact

CATALOG_GPUS: dict[str, Choice] = {
    "t4": "t4",
    "a10": "a10",
    "a10g": "a10g",
    "a30": "a30",
    "a40": "a40",
    "l4": "l4",
    "l40": "l40",
    "l40s": "l40s",
    "l40s_pcie": "l40s",
    "v100": {16: "v100_sxm2_16gb", 32: "v100_sxm2_32gb"},
    "v100 pcie": {16: "v100_pcie_16gb", 32: "v100_pcie_32gb"},
    "v100-32gb": "v100_sxm2_32gb",
    "a100": {40: "a100_sxm4_40gb", 80: "a100_sxm4_80gb"},
    "a100 pcie": {40: "a100_pcie_40gb", 80: "a100_pcie_80gb"},
    "a100 pci": {40: "a100_pcie_40gb", 80: "a100_pcie_80gb"},
    "a100-80gb": "a100_sxm4_80gb",
    "a100-80gb pcie": "a100_pcie_80gb",
    "a100-80gb-sxm": "a100_sxm4_80gb",
    "a100-80gb sxm": "a100_sxm4_80gb",
    "a100 sxm": {40: "a100_sxm4_40gb", 80: "a100_sxm4_80gb"},
    "a100_80g_sxm4": "a100_sxm4_80gb",
    "a100_80g_pcie": "a100_pcie_80gb",
    "h100": "h100_sxm5_80gb",
    "h100 pcie": "h100_pcie_80gb",
    "h100 sxm": "h100_sxm5_80gb",
    "h100 nvl": "h100_nvl_94gb",
    "h100-sxm": "h100_sxm5_80gb",
    "h100_sxm5": "h100_sxm5_80gb",
    "h100_pcie": "h100_pcie_80gb",
    "h100_pcie_baremetal": "h100_pcie_80gb",
    "h100_nvl": "h100_nvl_94gb",
    "h100nvl": "h100_nvl_94gb",
    "h100-mega": "h100_sxm5_80gb",
    "h200": "h200_sxm_141gb",
    "gh200": "gh200_96gb",
    "b200": "b200",
    "b300": "b300",
    "mi300x": "mi300x",
    "rtx3090": "rtx3090",
    "rtx4090": "rtx4090",
    "rtx5090": "rtx5090",
    "rtx5090_pcie": "rtx5090",
    "rtx5090_pcie_baremetal": "rtx5090",
    "a4000": "rtx_a4000",
    "rtxa4000": "rtx_a4000",
    "a5000": "rtx_a5000",
    "rtxa5000": "rtx_a5000",
    "a6000": "rtx_a6000",
    "rtxa6000": "rtx_a6000",
    "rtx6000": "quadro_rtx6000",
    "rtx6000ada": "rtx6000_ada",
    "rtx6000-ada": "rtx6000_ada",
    "rtx-6000-ada": "rtx6000_ada",
    "rtxpro6000": "rtx_pro6000",
    "rtx-pro-6000": "rtx_pro6000",
    "rtxpro6000-wk": "rtx_pro6000",
    "rtx pro 6000 96gb": "rtx_pro6000",
}
"""The catalogs' GPU names -> catalog keys (gpuhunt's and SkyPilot's spellings together)."""

IGNORED: dict[str, str] = {
    "a800": "the A800 is the export variant of the A100 sold in China; not in the GPU catalog",
    "gaudi2": "Intel Gaudi 2 is no GPU the catalog compares",
    "a16": "an A16 board is four 16 GB GPUs sold as slices; not comparable with a whole GPU",
}

_FORMS = re.compile(r"(?<![a-z])(sxm|pcie|pci|nvl)", re.I)


def form_factor(instance: str) -> str | None:
    """'sxm', 'pcie', 'pci' or 'nvl' when the instance type names a form factor."""
    found = _FORMS.search(instance)
    return found[1].lower() if found else None


def catalog_key(
    names: GpuNames, gpu_name: str, instance: str, memory_gb: float | None
) -> str | None:
    """The catalog key for a catalog row's GPU: the form factor's entry first, then the name."""
    form = form_factor(instance)
    if form is not None:
        special = f"{compact(gpu_name)} {form}"
        if special in names.table:
            return names.key(special, memory_gb)
    return names.key(gpu_name, memory_gb)


def table(overrides: Mapping[str, Choice] | None = None) -> dict[str, Choice]:
    """CATALOG_GPUS with a provider's own readings of ambiguous names."""
    return {**CATALOG_GPUS, **(overrides or {})}
