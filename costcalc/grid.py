"""Grid carbon intensity and PUE lookups: home regions for the desktop, cloud regions for offers.

Rule kept here: the region is always an input. Lookups are case-insensitive; an unknown home
region raises UnknownRegion with the closest codes; an offer in a region we have no figure for
falls back to its provider's country-level default and says so in `source`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from costcalc.errors import UnknownRegion
from costcalc.models import CarbonData, GridIntensity


def provider_family(provider: str) -> str:
    """'aws-spot' and 'aws-ondemand' are both AWS data centres."""
    return provider.split("-", 1)[0]


@dataclass(frozen=True)
class OfferGrid:
    gco2_per_kwh: float
    pue: float
    source: str


class GridIndex:
    def __init__(self, data: CarbonData) -> None:
        self.data = data
        self._by_code = {r.code.lower(): r for r in data.regions}
        # Bare cloud region names ("us-east-1") when only one provider uses them.
        bare: dict[str, list[GridIntensity]] = {}
        for region in data.regions:
            if ":" in region.code:
                bare.setdefault(region.code.split(":", 1)[1].lower(), []).append(region)
        self._bare = {name: found[0] for name, found in bare.items() if len(found) == 1}
        # Country and region names ("Germany"), where a name is used once.
        names: dict[str, list[GridIntensity]] = {}
        for region in data.regions:
            names.setdefault(region.name.lower(), []).append(region)
        self._by_name = {name: found[0] for name, found in names.items() if len(found) == 1}

    def home(self, code: str | None = None) -> GridIntensity:
        """The grid a desktop draws from: a country ('US' or 'Germany'), a state ('US-CA') or a
        cloud region ('aws:us-east-1' or 'us-east-1')."""
        wanted = (code or self.data.default_home_region).strip().lower()
        found = self._by_code.get(wanted) or self._bare.get(wanted) or self._by_name.get(wanted)
        if found is None:
            raise UnknownRegion(code or "", self.suggest(wanted))
        return found

    def suggest(self, code: str, limit: int = 3) -> list[str]:
        wanted = code.lower()
        codes = difflib.get_close_matches(wanted, list(self._by_code), n=limit, cutoff=0.6)
        found = [self._by_code[c].code for c in codes]
        for name in difflib.get_close_matches(wanted, list(self._by_name), n=limit, cutoff=0.6):
            if self._by_name[name].code not in found:
                found.append(self._by_name[name].code)
        return found[:limit]

    def for_offer(self, provider: str, region: str) -> OfferGrid:
        family = provider_family(provider)
        found = self._by_code.get(f"{family}:{region}".lower())
        pue_default = self.data.pue_defaults.get(family, self.data.pue_defaults.get("custom", 1.5))
        if found is not None:
            return OfferGrid(found.gco2_per_kwh, found.pue or pue_default, found.source)
        fallback = self.home(self.data.default_home_region)
        return OfferGrid(
            fallback.gco2_per_kwh,
            pue_default,
            f"no figure for {family}:{region}; {fallback.name} average used ({fallback.source})",
        )
