"""One normaliser from the GPU names providers write to catalog keys, through each provider's
table (its module's `GPU_NAMES`, the `gpu_names` field of its PROVIDER).

Rules kept here:
- a provider's GPU name reaches the catalog only through its table; providers spell the
  same GPU differently (RunPod 'NVIDIA H100 80GB HBM3', Vast.ai 'H100 SXM', Lambda 'H100 (80 GB
  SXM5)') and one spelling can name two GPUs (Vast.ai's 'A100 PCIE' is a 40 or an 80 GB card,
  told apart by the memory the offer reports);
- a name no table maps is skipped and reported once per refresh (`GpuNames.unknown`), never
  guessed: the refresh counts it in `refresh --json`, so a new GPU shows up as a visible gap;
- a provider's `ignored_gpus` holds the few names that are not a GPU offer at all
  (placeholders), with the reason;
- every value is a key of costcalc/data/gpus.yaml (tests/providers/test_gpu_names.py).
Azure names VM sizes, not GPUs: its table is costcalc/data/azure_sizes.yaml (providers/azure.py).
"""

from __future__ import annotations

from collections.abc import Mapping

Choice = str | dict[int, str]
"""A catalog key, or GPU memory in GB -> catalog key where one name covers two memory sizes."""

MEMORY_TOLERANCE = 0.1
"""Reported memory within 10 % of a nominal size matches it (feeds report MiB, or usable GiB)."""


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

    def __init__(
        self, table: Mapping[str, Choice], ignored: Mapping[str, str] | None = None
    ) -> None:
        self.table = table
        self.ignored = ignored or {}
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
