"""Grid carbon intensity and PUE lookups: home regions for the desktop, cloud regions for offers.

Rule kept here: the region is always an input. Lookups are case-insensitive; names people type
('UK', 'California') go through the same alias table as the electricity lookup
(costcalc.core.regions); an unknown home region raises UnknownRegion with the closest codes; an
offer in a region we have no figure for falls back to its provider's country-level default and says
so in `source`. Every figure is on the file's one basis (lifecycle); the direct figure, where a row
has one, is kept beside it and only ever used when asked for by name (`on_basis`)."""

from __future__ import annotations

from msgspec import Struct

from costcalc.core.errors import UnknownRegion
from costcalc.core.models import CarbonBasis, CarbonData, GridIntensity
from costcalc.core.regions import RegionIndex


def provider_family(provider: str) -> str:
    """'aws-spot' and 'aws-ondemand' are both AWS data centres."""
    return provider.split("-", 1)[0]


class OfferGrid(Struct, frozen=True):
    gco2_per_kwh: float
    pue: float
    source: str


def on_basis(region: GridIntensity, basis: CarbonBasis) -> float | None:
    """The region's intensity on `basis`: its figure, or its direct one (None when it has none)."""
    if basis == region.basis:
        return region.gco2_per_kwh
    return region.gco2_per_kwh_direct if basis == "direct" else None


def describe(region: GridIntensity) -> str:
    """'lifecycle, 2025': the basis and year the output states beside a figure."""
    return f"{region.basis}, {region.year}"


class GridIndex:
    def __init__(self, data: CarbonData, regions: RegionIndex | None = None) -> None:
        self.data = data
        self.regions = regions
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
        found = self._by_code.get(wanted) or self._bare.get(wanted)
        if found is None and self.regions is not None:
            # the alias table; raises for a name nobody knows or one that means two regions
            found = self._by_code.get(self.regions.resolve(code or wanted).lower())
        elif found is None:
            found = self._by_name.get(wanted)
        if found is None:
            raise UnknownRegion(code or "", self.suggest(wanted))
        return found

    @property
    def basis(self) -> CarbonBasis:
        return self.data.basis

    def suggest(self, code: str, limit: int = 3) -> list[str]:
        import difflib  # only to suggest a name

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
