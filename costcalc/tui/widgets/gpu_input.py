"""The GPU field: type part of a name, see the completion, press Enter.

Completion matches the start of any name the catalog knows (key, marketing name, the name
without brand words, aliases); Enter takes the completion when what was typed is not itself a
GPU, and a name that matches several GPUs is refused with the candidates, never guessed.
"""

from __future__ import annotations

from typing import Any

from textual.suggester import Suggester

from costcalc.core.catalog import GpuCatalog, compact
from costcalc.core.errors import UnknownGpu
from costcalc.core.models import GpuSpec
from costcalc.tui.widgets.field import FieldInput

_BRANDS = ("NVIDIA ", "GeForce ", "Tesla ", "Quadro ")


def search_names(catalog: GpuCatalog) -> list[tuple[str, str]]:
    """(name as people write it, catalog key) for every spelling worth completing."""
    names: list[tuple[str, str]] = []
    for spec in catalog:
        short = spec.name
        for brand in _BRANDS:
            short = short.replace(brand, "")
        for name in (short, spec.name, spec.key, *spec.aliases):
            names.append((name, spec.key))
    return names


class GpuSuggester(Suggester):
    """Completes a GPU name from the start of any catalog spelling, case-insensitively."""

    def __init__(self, catalog: GpuCatalog) -> None:
        super().__init__(use_cache=True, case_sensitive=False)
        self.names = search_names(catalog)

    def best(self, value: str) -> str | None:
        wanted = value.casefold()
        if not wanted:
            return None
        for name, _ in self.names:
            if name.casefold().startswith(wanted) and len(name) > len(wanted):
                return value + name[len(value) :]
        return None

    async def get_suggestion(self, value: str) -> str | None:
        return self.best(value)

    def containing(self, value: str) -> list[str]:
        """Catalog keys with a spelling that contains what was typed (spacing ignored)."""
        wanted = compact(value)
        keys: list[str] = []
        for name, key in self.names:
            if wanted and wanted in compact(name) and key not in keys:
                keys.append(key)
        return keys


class GpuInput(FieldInput):
    """An Input that resolves to one catalog GPU."""

    def __init__(self, catalog: GpuCatalog, **kwargs: Any) -> None:
        self.catalog = catalog
        self.gpu_suggester = GpuSuggester(catalog)
        super().__init__(
            suggester=self.gpu_suggester, placeholder="rtx 3090", compact=True, **kwargs
        )

    def resolve(self) -> GpuSpec:
        """What was typed -> one GpuSpec; UnknownGpu (with candidates) otherwise."""
        typed = self.value.strip()
        try:
            return self.catalog.resolve(typed)
        except UnknownGpu as exc:
            completion = self.gpu_suggester.best(typed)
            candidates = self.gpu_suggester.containing(typed)
            if completion is not None:
                try:
                    return self.catalog.resolve(completion)
                except UnknownGpu:
                    pass
            if len(candidates) == 1:
                return self.catalog.get(candidates[0])
            raise UnknownGpu(typed, candidates[:5] or exc.suggestions) from None
