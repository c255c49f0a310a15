"""One normaliser from the GPU names providers write to catalog keys, with a table per provider.

Rules kept here:
- a provider's GPU name reaches the catalog only through its table below; providers spell the
  same GPU differently (RunPod 'NVIDIA H100 80GB HBM3', Vast.ai 'H100 SXM', Lambda 'H100 (80 GB
  SXM5)') and one spelling can name two GPUs (Vast.ai's 'A100 PCIE' is a 40 or an 80 GB card,
  told apart by the memory the offer reports);
- a name no table maps is skipped and reported once per refresh (`GpuNames.unknown`), never
  guessed: the refresh counts it in `refresh --json`, so a new GPU shows up as a visible gap;
- IGNORED holds the few names that are not a GPU offer at all (placeholders), with the reason;
- every value is a key of costcalc/data/gpus.yaml (tests/providers/test_gpu_names.py).
Azure names VM sizes, not GPUs: its table is costcalc/data/azure_sizes.yaml (providers/azure.py).
"""

from __future__ import annotations

Choice = str | dict[int, str]
"""A catalog key, or GPU memory in GB -> catalog key where one name covers two memory sizes."""

MEMORY_TOLERANCE = 0.1
"""Reported memory within 10 % of a nominal size matches it (feeds report MiB, or usable GiB)."""

TABLES: dict[str, dict[str, Choice]] = {
    # RunPod GraphQL `gpuTypes.id` (stable; `displayName` changes over time). The ids are those of
    # a recorded response (2025-06-21) and RunPod's docs table references/gpu-types.mdx.
    "runpod": {
        "nvidia geforce rtx 5090": "rtx5090",
        "nvidia geforce rtx 5080": "rtx5080",
        "nvidia geforce rtx 4090": "rtx4090",
        "nvidia geforce rtx 4080 super": "rtx4080_super",
        "nvidia geforce rtx 4080": "rtx4080",
        "nvidia geforce rtx 4070 ti": "rtx4070ti",
        "nvidia geforce rtx 3090 ti": "rtx3090ti",
        "nvidia geforce rtx 3090": "rtx3090",
        "nvidia geforce rtx 3080 ti": "rtx3080ti",
        "nvidia geforce rtx 3080": "rtx3080",
        "nvidia geforce rtx 3070": "rtx3070",
        "nvidia rtx a4000": "rtx_a4000",
        "nvidia rtx a4500": "rtx_a4500",
        "nvidia rtx a5000": "rtx_a5000",
        "nvidia rtx a6000": "rtx_a6000",
        "nvidia rtx 6000 ada generation": "rtx6000_ada",
        "nvidia rtx pro 6000 blackwell workstation edition": "rtx_pro6000",
        "nvidia l4": "l4",
        "nvidia l40": "l40",
        "nvidia l40s": "l40s",
        "nvidia a40": "a40",
        "nvidia a30": "a30",
        "nvidia a100 80gb pcie": "a100_pcie_80gb",
        "nvidia a100-sxm4-80gb": "a100_sxm4_80gb",
        "nvidia h100 pcie": "h100_pcie_80gb",
        "nvidia h100 80gb hbm3": "h100_sxm5_80gb",
        "nvidia h100 nvl": "h100_nvl_94gb",
        "nvidia h200": "h200_sxm_141gb",
        "nvidia b200": "b200",
        "tesla v100-pcie-16gb": "v100_pcie_16gb",
        # Not 'tesla v100-fhhl-16gb': the 150 W half-length card runs slower than the catalog's
        # 250 W V100 PCIe, so it is reported rather than priced as the faster card.
        "tesla v100-sxm2-16gb": "v100_sxm2_16gb",
        "tesla v100-sxm2-32gb": "v100_sxm2_32gb",
    },
    # Vast.ai `gpu_name` as offers spell it (real records, SkyPilot catalog rows, gpuhunt's map).
    "vast": {
        "rtx 5090": "rtx5090",
        "rtx 5080": "rtx5080",
        "rtx 5070 ti": "rtx5070ti",
        "rtx 5070": "rtx5070",
        "rtx 5060 ti": {16: "rtx5060ti_16gb"},
        "rtx 4090": "rtx4090",
        "rtx 4080s": "rtx4080_super",
        "rtx 4080": "rtx4080",
        "rtx 4070s ti": "rtx4070ti_super",
        "rtx 4070s": "rtx4070_super",
        "rtx 4070 ti": "rtx4070ti",
        "rtx 4070": "rtx4070",
        "rtx 4060 ti": {16: "rtx4060ti_16gb"},
        "rtx 4060": "rtx4060",
        "rtx 3090 ti": "rtx3090ti",
        "rtx 3090": "rtx3090",
        "rtx 3080 ti": "rtx3080ti",
        "rtx 3080": "rtx3080",
        "rtx 3070 ti": "rtx3070ti",
        "rtx 3070": "rtx3070",
        "rtx 3060 ti": "rtx3060ti",
        "rtx 3060": {12: "rtx3060_12gb"},
        "rtx 2080 ti": "rtx2080ti",
        "rtx a4000": "rtx_a4000",
        "rtx a4500": "rtx_a4500",
        "rtx a5000": "rtx_a5000",
        "rtx a6000": "rtx_a6000",
        "rtx 6000ada": "rtx6000_ada",
        "rtx 6000 ada": "rtx6000_ada",
        "q rtx 6000": "quadro_rtx6000",
        "q rtx 8000": "quadro_rtx8000",
        "rtx pro 6000 ws": "rtx_pro6000",
        # The Server Edition: same GB202 die and 96 GB, mapped like AWS g7e (aws_instances.yaml).
        "rtx pro 6000 s": "rtx_pro6000",
        "tesla t4": "t4",
        "tesla p100": "p100_pcie_16gb",
        "a10": "a10",
        "a30": "a30",
        "a40": "a40",
        "l4": "l4",
        "l40": "l40",
        "l40s": "l40s",
        "a100 pcie": {40: "a100_pcie_40gb", 80: "a100_pcie_80gb"},
        "a100 sxm4": {40: "a100_sxm4_40gb", 80: "a100_sxm4_80gb"},
        "h100 pcie": "h100_pcie_80gb",
        "h100 sxm": "h100_sxm5_80gb",
        "h100 nvl": "h100_nvl_94gb",
        "h200": "h200_sxm_141gb",
        "b200": "b200",
    },
    # Lambda `gpu_description` (or `description` without its 'Nx ' prefix).
    "lambda": {
        "h100 (80 gb sxm5)": "h100_sxm5_80gb",
        "h100 (80 gb pcie)": "h100_pcie_80gb",
        "a100 (80 gb sxm4)": "a100_sxm4_80gb",
        "a100 (40 gb sxm4)": "a100_sxm4_40gb",
        "a100 (40 gb pcie)": "a100_pcie_40gb",
        "b200 (180 gb sxm6)": "b200",
        "a10 (24 gb pcie)": "a10",
        "a6000 (48 gb)": "rtx_a6000",
        "rtx a6000 (48 gb)": "rtx_a6000",
        "rtx 6000 (24 gb)": "quadro_rtx6000",
        "quadro rtx 6000 (24 gb)": "quadro_rtx6000",
        # Lambda's 8x V100 machines are SXM2 (NVLink) servers; the text does not say so.
        "tesla v100 (16 gb)": "v100_sxm2_16gb",
        "v100 (16 gb)": "v100_sxm2_16gb",
    },
    # Oracle OCI shape names (the GPU model is in the name; the count is the shape's gpuQty).
    "oci": {
        "bm.gpu.h100.8": "h100_sxm5_80gb",
        "bm.gpu.h200.8": "h200_sxm_141gb",
        "bm.gpu.b200.8": "b200",
        "bm.gpu.a100-v2.8": "a100_sxm4_80gb",
        "bm.gpu4.8": "a100_sxm4_40gb",
        "bm.gpu.l40s.4": "l40s",
        "vm.gpu.a10.1": "a10",
        "vm.gpu.a10.2": "a10",
        "bm.gpu.a10.4": "a10",
        "vm.gpu3.1": "v100_sxm2_16gb",
        "vm.gpu3.2": "v100_sxm2_16gb",
        "vm.gpu3.4": "v100_sxm2_16gb",
        "bm.gpu3.8": "v100_sxm2_16gb",
        "vm.gpu2.1": "p100_pcie_16gb",
        "bm.gpu2.2": "p100_pcie_16gb",
    },
}

IGNORED: dict[str, dict[str, str]] = {
    "runpod": {"unknown": "RunPod's placeholder type: no GPU, every price 0"},
}
"""Names that are not a GPU offer at all; skipped without being reported."""


def compact(name: str) -> str:
    """How names are compared: lower case, runs of white space as one space."""
    return " ".join(name.lower().split())


def _by_memory(choices: dict[int, str], memory_gb: float | None) -> str | None:
    if memory_gb is None:
        return None
    for size, key in choices.items():
        if abs(memory_gb - size) <= MEMORY_TOLERANCE * size:
            return key
    return None


class GpuNames:
    """One parse's lookups in one provider's table, remembering the names it could not map."""

    def __init__(self, provider: str) -> None:
        self.table = TABLES[provider]
        self.ignored = IGNORED.get(provider, {})
        self._unknown: dict[str, None] = {}

    def key(self, name: str, memory_gb: float | None = None) -> str | None:
        """The catalog key for `name` (and its memory, where the name alone is ambiguous)."""
        wanted = compact(name)
        choice = self.table.get(wanted)
        if isinstance(choice, str):
            return choice
        if isinstance(choice, dict):
            found = _by_memory(choice, memory_gb)
            if found is None:
                size = f"{memory_gb:.0f} GB" if memory_gb is not None else "memory not given"
                self.skip(f"{name.strip()} ({size})")
            return found
        if wanted and wanted not in self.ignored:
            self.skip(name.strip())
        return None

    def skip(self, name: str) -> None:
        """Remember a GPU name (or VM size) no table maps; each is reported once."""
        self._unknown.setdefault(name[:80], None)

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(sorted(self._unknown))
