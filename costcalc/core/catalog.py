"""The GPU catalog: resolving what people type to a catalog entry.

Rule kept here: pure (costcalc.store.loaders reads the bundled file). Lookup is forgiving about
spelling (case, spaces, hyphens, brand words, token order) but never guesses between two GPUs;
an unknown or ambiguous name raises UnknownGpu with the closest catalog names. One name is one
GPU in every command: `resolve` is the only lookup of a single card ('a100' is the A100 PCIe
40GB in quick, predict, desktops, history's readings and the app alike); a filter over offers
(`family`: --cloud-gpu, prices --gpu, history --gpu) takes every variant of a name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import date

from msgspec import Struct

from costcalc.core.errors import UnknownGpu
from costcalc.core.models import CardReading, GpuSpec

_BRAND_WORDS = ("nvidia", "geforce", "tesla", "quadro")
_MEMORY = r"^(\d+)(?:gb|g|gib)$"  # compiled by `re` when first used


def _tokens(text: str) -> list[str]:
    """Lower-case word tokens with memory sizes unified ('80G', '80 GB' -> '80gb')."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    merged: list[str] = []
    for word in words:
        if word in ("gb", "g", "gib") and merged and merged[-1].isdigit():
            merged[-1] += "gb"
            continue
        match = re.match(_MEMORY, word)
        merged.append(f"{match.group(1)}gb" if match else word)
    return merged


def compact(text: str) -> str:
    """'GeForce RTX-3090' -> 'geforcertx3090': what remains once spacing is ignored."""
    return "".join(_tokens(text))


def token_key(text: str) -> str:
    """Order-free form: 'A100 80GB SXM4' and 'a100 sxm4 80gb' give the same key."""
    return " ".join(sorted(_tokens(text)))


def _without_brand(text: str) -> str:
    return " ".join(t for t in _tokens(text) if t not in _BRAND_WORDS)


def _names_of(spec: GpuSpec) -> Iterable[str]:
    yield spec.key
    yield spec.key.replace("_", " ")
    yield spec.name
    yield _without_brand(spec.name)
    yield from spec.aliases


class CardPrice(Struct, frozen=True):
    """What one card costs to buy, and what that figure is."""

    usd: float
    observed: date | None
    """When the price was true; None for a launch price (it is not a price today)."""
    condition: str
    """'new', 'used', 'new or used' (a best deal across both), or 'launch price'."""
    source: str
    readings: tuple[CardReading, ...] = ()
    """The card's dated readings, new and used, when its prices are their medians."""


def card_price(spec: GpuSpec, *, used: bool = False) -> CardPrice | None:
    """The card's dated street price (its launch price when it has none); with `used`, its
    dated second-hand price, or None when no second-hand price is sourced."""
    cited = spec.sources.get("street_price", "")
    street = spec.street_price_usd
    readings = spec.price_readings
    if used:
        if spec.used_price_usd is not None:
            return CardPrice(spec.used_price_usd, spec.used_price_date, "used", cited, readings)
        if street is not None and spec.street_price_condition == "used":
            return CardPrice(street, spec.street_price_date, "used", cited, readings)
        return None
    if street is not None:
        condition = spec.street_price_condition or "new or used"
        return CardPrice(street, spec.street_price_date, condition, cited, readings)
    if spec.launch_price_usd is not None:
        return CardPrice(spec.launch_price_usd, None, "launch price", spec.sources.get("price", ""))
    return None


class GpuCatalog:
    """All known GPUs, indexed by every name people write for them."""

    def __init__(self, specs: Iterable[GpuSpec]) -> None:
        self._by_key: dict[str, GpuSpec] = {}
        self._names: dict[str, set[str]] | None = None
        for spec in specs:
            if spec.key in self._by_key:
                raise ValueError(f"duplicate GPU key {spec.key!r}")
            self._by_key[spec.key] = spec

    @property
    def _index(self) -> dict[str, set[str]]:
        """Every name form -> the keys it may mean; built on the first name that is not a key
        (`quick --gpu rtx3090` never needs it: a fifth of its run)."""
        if self._names is None:
            index: dict[str, set[str]] = {}
            for spec in self._by_key.values():
                for name in _names_of(spec):
                    for form in (compact(name), token_key(name)):
                        if form:
                            index.setdefault(form, set()).add(spec.key)
            self._names = index
        return self._names

    def __iter__(self) -> Iterator[GpuSpec]:
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def get(self, key: str) -> GpuSpec:
        """Exact catalog key; KeyError when absent (keys come from our own data)."""
        return self._by_key[key]

    def resolve(self, name: str) -> GpuSpec:
        """What the user typed -> one GpuSpec, or UnknownGpu with suggestions."""
        if name in self._by_key:
            return self._by_key[name]
        for form in (compact(name), token_key(name), compact(_without_brand(name))):
            keys = self._index.get(form, set())
            if len(keys) == 1:
                return self._by_key[next(iter(keys))]
            if len(keys) > 1:
                raise UnknownGpu(name, sorted(keys))
        raise UnknownGpu(name, self.suggest(name))

    def resolve_noted(self, name: str) -> tuple[GpuSpec, str | None]:
        """`resolve`, and a note when the name left a choice the catalog made.

        A name that does not say the form factor ('a100', 'H100 80GB') is the PCIe card, the
        one a desktop takes (the catalog's aliases say so, so `resolve` and `costcalc gpus`
        agree); where an SXM module of the same model and memory exists, the note names it."""
        spec = self.resolve(name)
        if name in self._by_key or spec.form_factor != "PCIe":
            return spec, None
        if any(t.startswith("pcie") for t in _tokens(name)):
            return spec, None
        model = _tokens(spec.short_name)[0]
        sxm = [
            s
            for s in self
            if s.form_factor == "SXM"
            and s.memory_gb == spec.memory_gb
            and s.architecture == spec.architecture
            and _tokens(s.short_name)[0] == model
        ]
        if len(sxm) != 1:
            return spec, None
        note = (
            f"{name!r} read as the {spec.short_name}, the desktop card; "
            f"say SXM for the {sxm[0].short_name} server module"
        )
        return spec, note

    def family(self, name: str) -> list[GpuSpec]:
        """Every GPU whose names contain all the words of `name`: 'a100' is every A100 variant,
        'A100 80GB' the PCIe and SXM 80 GB cards; an exact name or key is that GPU alone.
        UnknownGpu with suggestions when nothing matches."""
        if name in self._by_key:
            return [self._by_key[name]]
        wanted = set(_tokens(_without_brand(name)))
        found = [
            spec
            for spec in self
            if wanted
            and (
                wanted <= {t for n in _names_of(spec) for t in _tokens(n)}
                or compact(name) in {compact(n) for n in _names_of(spec)}
            )
        ]
        if found:
            return found
        return [self.resolve(name)]  # raises UnknownGpu with suggestions

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Closest catalog keys to a name nobody recognised."""
        import difflib  # only to suggest a name

        wanted = compact(_without_brand(name))
        forms = list(self._index)
        close = difflib.get_close_matches(wanted, forms, n=limit * 4, cutoff=0.5)
        keys: list[str] = []
        for form in close:
            for key in sorted(self._index[form]):
                if key not in keys:
                    keys.append(key)
        return keys[:limit]
