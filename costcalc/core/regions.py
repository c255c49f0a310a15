"""Home regions as people type them: 'UK', 'Germany', 'California', 'US-CA', 'aws:us-east-1'.

Rule kept here: pure (costcalc.store.loaders reads prices/regions.yaml). One table of names turns
what a user typed into the code the data files use; the grid and the electricity lookups both go
through it, so a name means the same region for the CO2 and for the price. A name that means two
regions ('Georgia') is refused with both codes, never guessed."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from costcalc.core.errors import UnknownRegion
from costcalc.core.models import RegionNames


def normal(text: str) -> str:
    """'  united   Kingdom ' -> 'united kingdom': how names are compared."""
    return " ".join(text.split()).casefold()


def country_of(code: str) -> str | None:
    """'US-CA' -> 'US'; 'DE' and 'aws:us-east-1' -> None (no country part)."""
    if ":" in code or "-" not in code:
        return None
    return code.split("-", 1)[0]


class RegionIndex:
    """Every code and name a home region is known by, from the alias table and the data files."""

    def __init__(self, names: RegionNames, regions: Iterable[tuple[str, str]] = ()) -> None:
        """`regions`: (code, name) pairs of the data files (carbon grids, electricity prices); their
        codes and names resolve as themselves, the alias table adds the rest."""
        self._codes: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._aliases = names.aliases
        for code, name in regions:
            self._codes.setdefault(code.casefold(), code)
            self._names.setdefault(code, name)

    @functools.cached_property
    def _by_name(self) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
        """Every name -> its codes, and how it is written; built the first time a region is
        asked for by name (a code, which most runs give, needs none of it)."""
        lookup: dict[str, tuple[str, ...]] = {}
        display: dict[str, str] = {}
        for code, name in self._names.items():
            key = normal(name)
            lookup[key] = tuple(dict.fromkeys((*lookup.get(key, ()), code)))
            display.setdefault(key, name)
        for entry in self._aliases:  # the alias table wins over a data file's own name
            lookup[normal(entry.alias)] = entry.codes
            display.setdefault(normal(entry.alias), entry.alias)
        return lookup, display

    @property
    def _lookup(self) -> dict[str, tuple[str, ...]]:
        return self._by_name[0]

    @property
    def _display(self) -> dict[str, str]:
        return self._by_name[1]

    def resolve(self, text: str) -> str:
        """What a user typed -> the region code; UnknownRegion (with suggestions) when no region or
        more than one region has that name."""
        code = self._codes.get(text.strip().casefold())
        if code is not None:
            return code
        found = self._lookup.get(normal(text), ())
        if len(found) == 1:
            return found[0]
        if found:
            raise UnknownRegion(text, list(found), ambiguous=True)
        raise UnknownRegion(text, self.suggest(text))

    def knows(self, text: str) -> bool:
        try:
            self.resolve(text)
        except UnknownRegion:
            return False
        return True

    def name_of(self, code: str) -> str:
        return self._names.get(code, code)

    def suggest(self, text: str, limit: int = 3) -> list[str]:
        """Closest codes to something nobody recognised, by code and by name."""
        import difflib  # only to suggest a name

        wanted = normal(text)
        found: list[str] = []
        for key in difflib.get_close_matches(wanted, list(self._lookup), n=limit * 2, cutoff=0.6):
            for code in self._lookup[key]:
                if code not in found:
                    found.append(code)
        return found[:limit]

    def complete(self, prefix: str, limit: int = 10) -> list[tuple[str, str]]:
        """(name, code) of the regions whose code or a name starts with `prefix`, one per
        region, for the app's region field: 'germ' -> [('Germany', 'DE')]."""
        wanted = normal(prefix)
        found: dict[str, str] = {}
        for code, name in sorted(self._names.items(), key=lambda item: item[1]):
            if code.casefold().startswith(wanted) or normal(name).startswith(wanted):
                found.setdefault(code, name)
        for key, codes in sorted(self._lookup.items()):
            if key.startswith(wanted) and len(codes) == 1:
                found.setdefault(codes[0], self._display[key])
        return [(name, code) for code, name in found.items()][:limit]
