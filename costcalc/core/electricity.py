"""What a kWh costs at home: the household electricity price of a home region, with its source.

Rule kept here: pure (costcalc.store.loaders reads prices/electricity.yaml and the rates). A lookup
always answers, and always says what it answered with: the region's own price; else its
country's (a US state with no row gets the US average); else costcalc's default price, labelled
as such. Only a region nobody knows raises UnknownRegion, as the grid lookup does.
"""

from __future__ import annotations

from datetime import date

from msgspec import Struct

from costcalc.core.fx import Converter, UnknownCurrency, format_unit_price
from costcalc.core.models import ElectricityData, ElectricityPrice
from costcalc.core.regions import RegionIndex, country_of

DEFAULT = "default"
"""The `region` of a HouseholdPrice that is costcalc's default, not a region's price."""


class HouseholdPrice(Struct, frozen=True):
    """The price a home desktop pays per kWh, and where it comes from."""

    region: str
    """Code of the row used ('US' when 'US-PR' fell back to the US average)."""
    name: str
    price_per_kwh: float
    currency: str
    usd_per_kwh: float
    period: str | None
    as_of: date | None
    source: str
    """Short source name: 'Eurostat', 'EIA', 'Ofgem price cap', or 'costcalc default (...)'."""
    citation: str
    fallback: str | None = None
    """Why this is not the asked region's own price; None when it is."""

    @property
    def label(self) -> str:
        """'€0.387/kWh, Germany, Eurostat 2025-S2'."""
        price = f"{format_unit_price(self.price_per_kwh, self.currency)}/kWh"
        if self.fallback is not None and self.region == DEFAULT:
            return f"{price}, {self.source}"
        when = f" {self.period}" if self.period else ""
        return f"{price}, {self.name}, {self.source}{when}"


class ElectricityIndex:
    """Household electricity prices by home region."""

    def __init__(
        self,
        data: ElectricityData,
        regions: RegionIndex,
        fx: Converter,
        default_usd_per_kwh: float,
        default_source: str = "Dettmers 2020",
    ) -> None:
        self.data = data
        self.regions = regions
        self.fx = fx
        self.default_usd_per_kwh = default_usd_per_kwh
        self.default_source = default_source
        self._by_code = {p.code: p for p in data.prices}

    def row(self, code: str) -> ElectricityPrice | None:
        return self._by_code.get(code)

    def lookup(self, region: str | None = None) -> HouseholdPrice:
        """The household price for what the user typed ('DE', 'Germany', 'UK', 'US-CA',
        'California'); None means the default region. UnknownRegion for a region nobody knows."""
        wanted = region.strip() if region and region.strip() else self.data.default_region
        code = self.regions.resolve(wanted)
        found = self._by_code.get(code)
        if found is not None:
            return self._price(found, None)
        country = country_of(code)
        if country is not None and country in self._by_code:
            parent = self._by_code[country]
            why = f"no household price for {self.regions.name_of(code)}; {parent.name} used"
            return self._price(parent, why)
        return self.default(f"no household price for {self.regions.name_of(code)}")

    def default(self, why: str) -> HouseholdPrice:
        """costcalc's default price, with the reason it was used."""
        return HouseholdPrice(
            region=DEFAULT,
            name="costcalc default",
            price_per_kwh=self.default_usd_per_kwh,
            currency="USD",
            usd_per_kwh=self.default_usd_per_kwh,
            period=None,
            as_of=None,
            source=f"costcalc default ({self.default_source})",
            citation="prices/desktop.yaml electricity_usd_per_kwh",
            fallback=f"{why}; costcalc's default ${self.default_usd_per_kwh:.2f}/kWh used "
            "(pass --kwh-price for your own tariff)",
        )

    def _price(self, row: ElectricityPrice, fallback: str | None) -> HouseholdPrice:
        source = self.data.sources[row.source]
        try:
            usd = self.fx.to_usd(row.price_per_kwh, row.currency)
        except UnknownCurrency:
            return self.default(
                f"{row.name}'s price is in {row.currency}, which the ECB reference rates do not "
                "cover"
            )
        return HouseholdPrice(
            region=row.code,
            name=row.name,
            price_per_kwh=row.price_per_kwh,
            currency=row.currency,
            usd_per_kwh=usd,
            period=row.period,
            as_of=row.as_of,
            source=source.label,
            citation=source.citation,
            fallback=fallback,
        )
