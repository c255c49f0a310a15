"""Domain models: records (costcalc.core.records) for GPUs, offers, desktop builds,
assumptions and results.

Rule kept here: models describe facts and inputs, they compute nothing beyond trivial derived
properties. Every unit lives in the field name (`_usd`, `_w`, `_kwh`, `_gbs`, `_s`).
"""

from datetime import date, datetime
from typing import Annotated, Any, Literal, NamedTuple

from msgspec import Struct, field
from msgspec.structs import force_setattr

from costcalc.core.constants import (
    MIN_UTILISATION,
    TIER_NAMES,
    Dtype,
    Kind,
    Method,
    OfferKind,
    Optimizer,
    Sharding,
    TierName,
)
from costcalc.core.records import Meta, Record, plain
from costcalc.core.usage import MEASURED_TEXT

RESALE_BY_AGE = "age"
"""What `--resale` takes for the resale the cards' age gives (costcalc.core.owning)."""
RESALE_BY_AGE_TEXT = f"^{RESALE_BY_AGE}$"

Segment = Literal["consumer", "workstation", "datacenter"]
Condition = Literal["new", "used", "new or used"]
"""What a street price is for: a new card, a used one, or the cheapest of both (a tracker's
best deal across new and second-hand listings)."""
PriceKind = Literal["observed", "list", "estimate"]
"""observed: read from a feed or a dated page; list: a published list price; estimate: derived
(e.g. spot = on-demand x (1 - advisor savings)), which no one observed."""
OfferWay = Literal["on-demand", "spot", "committed"]
"""How an offer is bought: by the hour with no promise (on-demand), interruptible (spot), or for
a term paid every hour whether used or not (committed: a reservation, savings plan or
committed-use discount; CloudOffer.term_years says how long)."""
Tier = Literal["secure", "community", "marketplace", "decentralised"]
"""How a GPU is rented where it matters: a provider's own data centres (secure: the data-centre
tier), third-party hosts without a data-centre SLA (community), a marketplace of independent
hosts, or a decentralised network of anonymous operators paid through it."""


UtcDatetime = Annotated[datetime, Meta(tz=True)]
"""A time with its zone: naive timestamps in data files are read as UTC (records.validated), so
every age is computable."""


# --------------------------------------------------------------------------- GPU catalog


class CardReading(Record, frozen=True, kw_only=True):
    """One dated reading of what a card costs to buy, new or used, and where it was read."""

    condition: Literal["new", "used"]
    usd: Annotated[float, Meta(gt=0)]
    """The price; the middle of the range when the source gives a range."""
    low_usd: Annotated[float, Meta(gt=0)] | None = None
    high_usd: Annotated[float, Meta(gt=0)] | None = None
    """The range the source gives, when it gives one."""
    observed: date
    """The day the price was true: a listing's or an article's day, a monthly report's last day."""
    source: Annotated[str, Meta(min_length=1)]
    """Who said it, and what the figure is ('the average of the 3 cheapest eBay listings')."""
    url: Annotated[str, Meta(pattern=r"^https://")]

    def __post_init__(self) -> None:
        if (self.low_usd is None) != (self.high_usd is None):
            raise ValueError("a range needs both low_usd and high_usd")
        if self.low_usd is not None and self.high_usd is not None:
            middle = (self.low_usd + self.high_usd) / 2
            if not self.low_usd <= self.high_usd or abs(self.usd - middle) > 0.5:
                raise ValueError(f"usd {self.usd:g} is not the middle of its range ({middle:g})")


def median_reading(
    readings: tuple[CardReading, ...], condition: str
) -> tuple[float, date, int] | None:
    """The median price of the readings of `condition`, the newest reading's day and how many
    there are; None without one."""
    found = [r for r in readings if r.condition == condition]
    if not found:
        return None
    prices = sorted(r.usd for r in found)
    half = len(prices) // 2  # statistics.median's rule, without its imports on quick's path
    middle = prices[half] if len(prices) % 2 else (prices[half - 1] + prices[half]) / 2
    return middle, max(r.observed for r in found), len(found)


class GpuSpec(Record, frozen=True, kw_only=True):
    """One GPU model as its vendor specifies it (per GPU, dense figures, no sparsity)."""

    key: Annotated[str, Meta(pattern=r"^[a-z0-9_]+$")]
    """Stable catalog id, e.g. 'rtx3090'."""
    name: str
    """Marketing name, e.g. 'GeForce RTX 3090'."""
    vendor: Literal["nvidia", "amd", "intel", "apple"] = "nvidia"
    segment: Segment
    architecture: str
    """Micro-architecture, e.g. 'Ampere', 'Ada Lovelace'."""
    compute_capability: str | None = None
    """CUDA compute capability."""
    release_year: Annotated[int, Meta(ge=2010, le=2030)]
    memory_gb: Annotated[float, Meta(gt=0)]
    bandwidth_gbs: Annotated[float, Meta(gt=0)]
    """Peak memory bandwidth, GB/s."""
    fp32_tflops: Annotated[float, Meta(gt=0)]
    """Peak FP32 (non-tensor) TFLOPS."""
    fp16_tflops: Annotated[float, Meta(ge=0)] | None = None
    """Non-tensor FP16 TFLOPS."""
    fp16_tensor_tflops: Annotated[float, Meta(gt=0)] | None = None
    """Dense FP16 tensor TFLOPS, FP32 accumulate."""
    bf16_tensor_tflops: Annotated[float, Meta(gt=0)] | None = None
    """Dense BF16 tensor TFLOPS, FP32 accumulate."""
    tf32_tensor_tflops: Annotated[float, Meta(gt=0)] | None = None
    """Dense TF32 tensor TFLOPS."""
    cuda_cores: Annotated[int, Meta(gt=0)] | None = None
    board_power_w: Annotated[float, Meta(gt=0)]
    """Total board power (TDP) in watts."""
    idle_power_w: Annotated[float, Meta(ge=0)] | None = None
    """Idle draw, watts."""
    launch_price_usd: Annotated[float, Meta(gt=0)] | None = None
    street_price_usd: Annotated[float, Meta(gt=0)] | None = None
    street_price_date: date | None = None
    street_price_condition: Condition | None = None
    """Whether the street price is for a new or a used card."""
    used_price_usd: Annotated[float, Meta(gt=0)] | None = None
    """Second-hand price where one is sourced beside a new street price."""
    used_price_date: date | None = None
    price_readings: tuple[CardReading, ...] = ()
    """Dated readings, new and used, from more than one source where found: the street and used
    prices above are their medians, dated as the newest (checked when the catalog loads)."""
    aliases: tuple[str, ...] = ()
    """Other names people write."""
    sources: dict[str, str]
    """Where each group of figures comes from."""
    notes: str | None = None

    def __post_init__(self) -> None:
        if not self.price_readings:
            return
        street = self.street_price_condition
        stated = [(street, self.street_price_usd, self.street_price_date)]
        if street != "used":  # a used street price is the used price, checked once
            stated.append(("used", self.used_price_usd, self.used_price_date))
        for condition, usd, day in stated:
            if condition not in ("new", "used"):
                continue
            found = median_reading(self.price_readings, condition)
            if found is None:
                if usd is not None:
                    raise ValueError(f"a {condition} price of ${usd:g} and no {condition} reading")
                continue
            middle, newest, count = found
            if usd is None or abs(usd - middle) > 0.5 or day != newest:
                raise ValueError(
                    f"its {condition} price should be the median of its {count} {condition} "
                    f"readings, ${middle:g} of {newest}, not ${usd} of {day}"
                )

    @property
    def short_name(self) -> str:
        """The name people read in tables: 'RTX 3090', 'V100 SXM2 16GB', 'Quadro P4000'."""
        name = self.name
        for brand in ("NVIDIA ", "GeForce ", "Tesla "):
            name = name.removeprefix(brand)
        return name.replace(" Generation", "")

    @property
    def form_factor(self) -> str | None:
        """'SXM', 'PCIe' or 'NVL' for datacenter cards whose name says so."""
        for form in ("SXM", "NVL", "PCIe"):
            if form.lower() in self.name.lower():
                return form
        return None

    @property
    def desktop_price_usd(self) -> float | None:
        """What one card costs to buy today: street price, else launch price."""
        return self.street_price_usd or self.launch_price_usd


class GpuCatalogFile(Record, frozen=True, kw_only=True):
    """The bundled GPU catalog file (costcalc/data/gpus.yaml)."""

    schema_version: Literal[1] = 1
    as_of: date
    """Date the figures were last checked."""
    sources: dict[str, str]
    """Source id -> citation, with licence."""
    gpus: tuple[GpuSpec, ...]


# --------------------------------------------------------------------------- cloud offers


class CloudOffer(Record, frozen=True, kw_only=True):
    """A way to rent GPU time: one instance type, machine or plan, in one region."""

    provider: str
    """'paperspace', 'aws-spot', 'aws-ondemand', 'colab', ..."""
    name: str
    """Instance type, machine or plan name."""
    region: str
    gpu: str
    """GPU catalog key."""
    gpu_count: Annotated[int, Meta(ge=1)] = 1
    usd_per_hour: Annotated[float, Meta(ge=0)]
    """Price of the whole instance per hour."""
    spot: bool = False
    interruption_bucket: Annotated[int, Meta(ge=0, le=4)] | None = None
    """AWS Spot Advisor bucket: 0 <5 % ... 4 >20 %."""
    savings_pct: Annotated[float, Meta(ge=0, le=100)] | None = None
    billing_increment_s: Annotated[int, Meta(ge=1)] = 1
    """Billing granularity."""
    billing_minimum_s: Annotated[int, Meta(ge=0)] = 0
    """Minimum billed time per run."""
    monthly_fee_usd: Annotated[float, Meta(ge=0)] = 0.0
    """Plan or subscription fee."""
    included_usd_per_month: Annotated[float, Meta(ge=0)] = 0.0
    """Usage the monthly fee already pays for (Colab units)."""
    plan: str | None = None
    """Plan the offer needs, if any."""
    guaranteed: bool = True
    """False when a GPU is not guaranteed."""
    limits: str | None = None
    """Usage limits worth telling the user."""
    vcpus: Annotated[int, Meta(ge=1)] | None = None
    ram_gb: Annotated[float, Meta(gt=0)] | None = None
    price_kind: PriceKind = "list"
    """observed, list or estimate."""
    tier: Tier | None = None
    """secure, community or marketplace."""
    summary: str | None = None
    """What the figure is when it summarises many prices: 'median of 37 verified offers'."""
    currency: str = "USD"
    """Currency the provider prices in (converted to USD here)."""
    price_in_currency: Annotated[float, Meta(ge=0)] | None = None
    """The hourly price as the provider states it, in currency."""
    setup_fee_usd: Annotated[float, Meta(ge=0)] = 0.0
    """One-off fee to start renting."""
    term_years: Annotated[int, Meta(ge=1, le=5)] | None = None
    """A commitment's term (reservation, savings plan, committed use), no upfront: usd_per_hour is
    owed for every hour of it, used or not. None: pay as you go."""
    fetched_at: UtcDatetime
    """When this price was observed (UTC)."""
    source: str

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.usd_per_hour / self.gpu_count

    @property
    def way(self) -> OfferWay:
        """'committed' for a term, else 'spot' or 'on-demand'."""
        if self.term_years is not None:
            return "committed"
        return "spot" if self.spot else "on-demand"


class OfferRow(Record, frozen=True, kw_only=True):
    """An offer as written in a snapshot file: provenance may be inherited from the file."""

    name: str
    region: str
    gpu: str
    gpu_count: Annotated[int, Meta(ge=1)] = 1
    usd_per_hour: Annotated[float, Meta(ge=0)]
    spot: bool | None = None
    interruption_bucket: Annotated[int, Meta(ge=0, le=4)] | None = None
    savings_pct: Annotated[float, Meta(ge=0, le=100)] | None = None
    billing_increment_s: Annotated[int, Meta(ge=1)] | None = None
    billing_minimum_s: Annotated[int, Meta(ge=0)] | None = None
    plan: str | None = None
    guaranteed: bool = True
    limits: str | None = None
    vcpus: Annotated[int, Meta(ge=1)] | None = None
    ram_gb: Annotated[float, Meta(gt=0)] | None = None
    price_kind: PriceKind | None = None
    """None: the snapshot's `price_kind`."""
    tier: Tier | None = None
    summary: str | None = None
    currency: str | None = None
    price_in_currency: Annotated[float, Meta(ge=0)] | None = None
    setup_fee_usd: Annotated[float, Meta(ge=0)] = 0.0
    term_years: Annotated[int, Meta(ge=1, le=5)] | None = None
    """A commitment's term in years (CloudOffer.term_years); None: pay as you go."""
    fetched_at: UtcDatetime | None = None
    source: str | None = None


class Plan(Record, frozen=True, kw_only=True):
    """A subscription plan an offer may need (Paperspace Gradient plans)."""

    name: str
    monthly_fee_usd: Annotated[float, Meta(ge=0)]
    notes: str | None = None


class PriceSnapshot(Record, frozen=True, kw_only=True):
    """One provider's dated price snapshot (prices/<provider>.yaml or a refreshed copy)."""

    schema_version: Literal[1] = 1
    provider: str
    source: str
    """Where the prices come from."""
    source_url: str | None = None
    licence: str | None = None
    fetched_at: UtcDatetime
    """When the prices were true / observed (UTC)."""
    spot: bool = False
    billing_increment_s: Annotated[int, Meta(ge=1)] = 1
    billing_minimum_s: Annotated[int, Meta(ge=0)] = 0
    price_kind: PriceKind = "list"
    """The kind of every row that does not say otherwise."""
    currency: str = "USD"
    plans: tuple[Plan, ...] = ()
    notes: str | None = None
    offers: tuple[OfferRow, ...]


# --------------------------------------------------------------------------- Colab


class ColabRate(Record, frozen=True, kw_only=True):
    """Compute units one hour of a Colab accelerator burns, as observed on a date."""

    gpu: str
    """GPU catalog key."""
    label: str
    """Accelerator as Colab names it, e.g. 'A100 (40GB)'."""
    units_per_hour: Annotated[float, Meta(gt=0)]
    observed: date
    source: str


class ColabTier(Record, frozen=True, kw_only=True):
    """A Colab tier: monthly fee, compute units it includes, what it gives access to."""

    key: str
    name: str
    monthly_fee_usd: Annotated[float, Meta(ge=0)]
    compute_units_per_month: Annotated[float, Meta(ge=0)]
    usd_per_unit: Annotated[float, Meta(ge=0)]
    """Price of one extra compute unit."""
    gpus: tuple[str, ...]
    """GPU keys the tier can use."""
    guaranteed: bool
    """False when GPUs are offered only when available."""
    limits: str
    source: str
    observed: date


class ColabSnapshot(Record, frozen=True, kw_only=True):
    """prices/colab.yaml: tiers and per-accelerator unit rates."""

    schema_version: Literal[1] = 1
    provider: Literal["colab"] = "colab"
    source: str
    source_url: str | None = None
    licence: str | None = None
    fetched_at: UtcDatetime
    region: str = "global"
    notes: str | None = None
    tiers: tuple[ColabTier, ...]
    rates: tuple[ColabRate, ...]


# --------------------------------------------------------------------------- desktop


class DesktopPart(Record, frozen=True, kw_only=True):
    """One line of a base system's parts list: what it is, what it cost, when, and who said so."""

    category: Literal["cpu", "motherboard", "ram", "ssd", "psu", "case", "cooler"]
    item: str
    usd: Annotated[float, Meta(gt=0)]
    observed: date
    """The date the price was true (the latest, for a range)."""
    source: str
    """Where the price comes from, or 'estimate: ...'."""
    estimate: bool = False
    """True when no dated price was found and the figure is judgement."""


BaseTier = Literal["lean", "standard", "workstation"]
"""Base systems (everything but the GPUs): lean (few cores, 32-64 GB), standard (16 cores,
64-128 GB), workstation (Threadripper PRO, ECC RDIMM, room for four cards)."""
BASE_TIERS: tuple[BaseTier, ...] = ("lean", "standard", "workstation")


class BaseSystem(Record, frozen=True, kw_only=True):
    """One base system: its parts list and their sum rounded to $50."""

    summary: str
    """What it is, in a few words: cores, memory, PSU."""
    usd: Annotated[float, Meta(gt=0)]
    parts: Annotated[tuple[DesktopPart, ...], Meta(min_length=1)]


class DesktopDefaults(Record, frozen=True, kw_only=True):
    """prices/desktop.yaml: what a desktop costs around the GPUs, and what it draws."""

    schema_version: Literal[1] = 1
    source: str
    as_of: date
    base_system_as_of: date
    """Date of the newest price in the parts lists."""
    base_default: dict[int, BaseTier]
    """The tier a desktop of each GPU count is priced on unless one is chosen."""
    base_systems: dict[BaseTier, dict[int, BaseSystem]]
    """Everything but the GPUs, by tier and by the GPU count it is built for."""
    rest_of_system_w: dict[int, float]
    """Load draw of CPU, board, disks, fans, by GPU count."""
    idle_system_w: dict[int, float]
    """Whole-system idle draw at the wall (GPUs idle), by GPU count."""
    psu_efficiency_typical: Annotated[float, Meta(gt=0, le=1)]
    electricity_usd_per_kwh: Annotated[float, Meta(ge=0)]
    """Default electricity price when the user gives none."""
    embodied_kgco2e_system: Annotated[float, Meta(ge=0)]
    """Embodied carbon, PC without GPUs."""
    embodied_kgco2e_per_gpu: Annotated[float, Meta(ge=0)]
    life_years: Annotated[float, Meta(gt=0)]
    """Years to amortise embodied carbon over."""
    notes: dict[str, str] = field(default_factory=dict)
    """Source of each figure."""

    @property
    def base_system_usd(self) -> dict[int, float]:
        """The default tier's price for each GPU count (1, 2, 4)."""
        return {n: self.base_systems[tier][n].usd for n, tier in self.base_default.items()}

    @property
    def base_system_parts(self) -> dict[int, tuple[DesktopPart, ...]]:
        """The default tier's parts list for each GPU count."""
        return {n: self.base_systems[tier][n].parts for n, tier in self.base_default.items()}


class DesktopBuild(Record, frozen=True, kw_only=True):
    """The desktop the user considers buying."""

    gpu: str
    gpu_count: Annotated[int, Meta(ge=1)] = 1
    price_usd: Annotated[float, Meta(ge=0)] | None
    """Whole machine, up front; None when no price is known for its GPU (every figure but break-even
    still follows)."""
    gpu_watts: Annotated[float, Meta(ge=0)]
    """Draw of one GPU under load, W."""
    system_watts: Annotated[float, Meta(ge=0)]
    """Draw of everything else under load, W."""
    idle_watts: Annotated[float, Meta(ge=0)] = 0.0
    """Whole-system draw when idle, W."""
    embodied_kgco2e: Annotated[float, Meta(ge=0)] = 0.0
    life_years: Annotated[float, Meta(gt=0)] = 4.0


# --------------------------------------------------------------------------- multi-GPU


class KindScaling(Record, frozen=True, kw_only=True):
    speedup_8: Annotated[float, Meta(gt=1, le=8)]
    """8-GPU / 1-GPU throughput over NVLink."""
    source: str


class ScalingData(Record, frozen=True, kw_only=True):
    """costcalc/data/scaling.yaml: how training throughput grows with the GPU count."""

    schema_version: Literal[1] = 1
    as_of: date
    sources: dict[str, str]
    kinds: dict[str, KindScaling]
    pcie_factor: Annotated[float, Meta(gt=0, le=1)]
    """Share of the NVLink efficiency per doubling."""
    pcie_source: str

    def efficiency_per_doubling(self, kind: str, nvlink: bool) -> float:
        scaling = self.kinds.get(kind) or self.kinds["generic"]
        share: float = (scaling.speedup_8 / 8) ** (1 / 3)
        return share if nvlink else share * self.pcie_factor


# --------------------------------------------------------------------------- carbon


CarbonBasis = Literal["lifecycle", "direct"]
"""lifecycle: gCO2e per kWh over the plants' life cycle (construction, fuel supply, combustion),
so hydro, nuclear, wind and solar count a few to a few tens of grams; direct (operational):
combustion at the plant only, so they count zero."""


class GridIntensity(Record, frozen=True, kw_only=True):
    """Carbon intensity of a grid: a country, a sub-national region or a cloud region."""

    code: str
    """'US', 'DE', 'US-CA', 'aws:us-east-1', ..."""
    name: str
    gco2_per_kwh: Annotated[float, Meta(ge=0)]
    """On the file's basis (CarbonData.basis)."""
    basis: CarbonBasis
    year: int
    source: str
    grid: str | None = None
    """The grid a cloud region draws from ('US-OR'), if mapped."""
    gco2_per_kwh_direct: Annotated[float, Meta(ge=0)] | None = None
    """The same grid on the direct (operational) basis."""
    direct_year: int | None = None
    direct_source: str | None = None
    pue: Annotated[float, Meta(ge=1)] | None = None
    """Data-centre PUE (cloud regions)."""


class CarbonData(Record, frozen=True, kw_only=True):
    """prices/carbon.yaml: grid intensities and PUE defaults."""

    schema_version: Literal[1] = 1
    source: str
    as_of: date
    basis: CarbonBasis
    """The basis of every row's gco2_per_kwh."""
    default_home_region: str
    pue_defaults: dict[str, float]
    """Provider -> PUE when a region has none."""
    cloud_host_w_per_gpu: Annotated[float, Meta(ge=0)]
    """Host (CPU, memory, network) draw per GPU in a cloud server."""
    regions: tuple[GridIntensity, ...]


# --------------------------------------------------------------------------- regions

CurrencyCode = Annotated[str, Meta(pattern=r"^[A-Z]{3}$")]
"""ISO 4217: 'USD', 'EUR', 'GBP'."""


class RegionAlias(Record, frozen=True, kw_only=True):
    """A name people type for a region and the code(s) it means; two codes make it ambiguous."""

    alias: str
    codes: Annotated[tuple[str, ...], Meta(min_length=1)]
    note: str | None = None


class RegionNames(Record, frozen=True, kw_only=True):
    """prices/regions.yaml: the names and codes people type for home regions."""

    schema_version: Literal[1] = 1
    source: str
    as_of: date
    aliases: tuple[RegionAlias, ...]


# --------------------------------------------------------------------------- electricity


class PriceSource(Record, frozen=True, kw_only=True):
    """Who publishes a price, under which terms."""

    label: str
    """Short name shown beside a price: 'Eurostat', 'EIA'."""
    citation: str
    url: str | None = None
    licence: str


class ElectricityPrice(Record, frozen=True, kw_only=True):
    """What a household pays per kWh in one region, in its own currency."""

    code: str
    """'DE', 'US-CA', 'CA-QC', 'GB', 'EU'."""
    name: str
    price_per_kwh: Annotated[float, Meta(gt=0)]
    """Unit price in `currency`, taxes included."""
    currency: CurrencyCode
    period: str
    """When the price was true, as its source names it."""
    as_of: date
    """The last day of that period (or the tariff's start)."""
    source: str
    """Key into ElectricityData.sources."""
    standing_charge_per_day: Annotated[float, Meta(ge=0)] | None = None
    """Fixed daily charge billed on top, in `currency`."""
    notes: str | None = None


class ElectricityData(Record, frozen=True, kw_only=True):
    """prices/electricity.yaml: household electricity prices by home region."""

    schema_version: Literal[1] = 1
    source: str
    as_of: date
    default_region: str
    """The region a user who names none lives in."""
    sources: dict[str, PriceSource]
    missing: dict[str, str] = field(default_factory=dict)
    """Regions with no price here, and why."""
    prices: tuple[ElectricityPrice, ...]


# --------------------------------------------------------------------------- currencies


class CurrencyPeg(Record, frozen=True, kw_only=True):
    """A currency the reference rates leave out, fixed to one they include."""

    currency: CurrencyCode
    anchor: CurrencyCode
    per_anchor: Annotated[float, Meta(gt=0)]
    """Units of `currency` per unit of `anchor`."""
    source: str


class FxRates(Record, frozen=True, kw_only=True):
    """prices/fx.yaml (or a refreshed copy): euro reference rates of one day."""

    schema_version: Literal[1] = 1
    source: str
    licence: str
    as_of: date
    """The day the reference rates were published for."""
    fetched_at: UtcDatetime | None = None
    """When `costcalc refresh` downloaded them (None: bundled)."""
    per_eur: dict[CurrencyCode, float]
    """Units of currency for one euro."""
    pegs: tuple[CurrencyPeg, ...] = ()


# --------------------------------------------------------------------------- the scenario
#
# Every input of a comparison, as the flags, the app's fields and the settings files give it. It
# is declared here, with real annotations, because msgspec checks a user's values against it on
# every run: resolving string annotations cost more than the check (scenario.py, which runs the
# comparison, writes its annotations as strings).


AT_THE_WALL = 1.0
"""The default PSU efficiency: watts are counted as drawn at the wall."""

DEFAULT_GPU = "rtx3090"
"""The reference desktop of the canonical break-even example (DOMAIN.md section 1): the app's
desktop until the user names one or nvidia-smi finds one."""


def _tiers_once(value: tuple[TierName, ...]) -> tuple[TierName, ...]:
    """Each tier once, in the vocabulary's order: the same exclusion reads the same."""
    return tuple(t for t in TIER_NAMES if t in value)


class Scenario(Record, frozen=True, kw_only=True):
    """Every input of the comparison. Field names are the keys of the settings file."""

    # -- the desktop
    gpu: str | None = None
    """Desktop GPU: a catalog key or any name the catalog resolves."""
    gpu_count: Annotated[int, Meta(ge=1, le=16)] = 1
    """GPUs in the desktop."""
    desktop_price_usd: Annotated[float, Meta(ge=0, le=100_000_000)] | None = None
    """Whole machine, up front, in the chosen currency (default: GPU street price + base system)."""
    base: BaseTier | None = None
    """Base system around the GPUs: lean, standard or workstation (default: lean for 1 GPU, standard
    for 2, workstation for 3-4)."""
    used: bool = False
    """Price the cards on the second-hand market (where a dated used price exists)."""
    gpu_watts: Annotated[float, Meta(ge=0, le=3000)] | None = None
    """Draw of one GPU under load, W (default: TDP)."""
    system_watts: Annotated[float, Meta(ge=0, le=5000)] | None = None
    """Draw of the rest of the system under load, W."""
    idle_watts: Annotated[float, Meta(ge=0, le=5000)] | None = None
    """Whole-system idle draw, W (with always_on)."""
    psu_efficiency: Annotated[float, Meta(ge=0.5, le=1)] = AT_THE_WALL
    """1 counts watts at the wall; 0.9 adds PSU losses."""
    resale_share: (
        Annotated[float, Meta(ge=0, lt=1)] | Annotated[str, Meta(pattern=RESALE_BY_AGE_TEXT)]
    ) = 0.0
    """Share of the price you get back after the horizon, or `age`: the cards' resale from the
    depreciation by age their class's dated used prices show (costcalc.core.owning)."""
    horizon_years: Annotated[float, Meta(ge=0.1, le=20)] = 3.0
    """Years you will use the desktop."""
    embodied: bool = False
    """Add the desktop's manufacturing carbon over its life."""
    loan_apr: Annotated[float, Meta(ge=0, le=1)] | None = None
    """The loan's annual percentage rate when the desktop is financed (0.08 or 8%); None: paid
    in cash."""
    loan_term_years: Annotated[float, Meta(gt=0, le=10)] | None = None
    """The loan's term in years: the whole price repaid in equal monthly payments."""
    repairs: bool = False
    """Count an allowance for failed cards: the card class's sourced failure rate a year times
    the card's price (costcalc/data/ownership.yaml)."""
    failure_rate: Annotated[float, Meta(ge=0, le=1)] | None = None
    """Share of cards that fail a year, instead of the class's sourced figure (counts repairs)."""
    # -- how it is used
    utilisation: (
        Annotated[float, Meta(ge=MIN_UTILISATION, le=1)]
        | Annotated[str, Meta(pattern=MEASURED_TEXT)]
    ) = 0.15
    """Share of all hours the GPU works (0.1-100 %), or `measured` (`measured:14d`): the busy
    share of the GPU's samples (costcalc.core.usage), which the caller reads and passes in."""
    always_on: bool = False
    """The machine idles between jobs instead of being off."""
    runs_per_year: Annotated[float, Meta(gt=0, le=100_000)] | None = None
    """Training runs a year: with a run's hours (given or a model's) it sets the utilisation as
    runs x hours / 8,760, and it prices what each run adds on the rent side (setup, transfer)."""
    hybrid: bool = False
    """Answer how many desktops to own and what to rent above them (costcalc.core.hybrid)."""
    profile: Annotated[str, Meta(max_length=400)] | None = None
    """Busy desktop-hours per month for the hybrid plan ('jan:400,feb:300,...'); None: the
    utilisation, the same every month."""
    max_owned: Annotated[int, Meta(ge=0, le=64)] | None = None
    """The most desktops the hybrid plan weighs (default: enough for the busiest month)."""
    # -- where it runs
    home_region: str | None = None
    """Home region: country, state or cloud region; sets the electricity price and the grid's carbon
    (default: US)."""
    usd_per_kwh: Annotated[float, Meta(ge=0, le=1000)] | None = None
    """Your electricity price per kWh, in the chosen currency (default: the home region's household
    price)."""
    currency: Annotated[str, Meta(pattern=r"^[A-Za-z]{3}$")] | None = None
    """Currency of every amount shown and typed (default: the home region's, else USD)."""
    # -- the run
    run_hours: Annotated[float, Meta(ge=0.001, le=1_000_000)] | None = None
    """Hours one training run takes on the desktop."""
    items_per_run: Annotated[float, Meta(ge=1, le=1e15)] | None = None
    """Items (samples) one run processes."""
    memory_gb: Annotated[float, Meta(ge=0.1, le=10_000)] | None = None
    """GPU memory the run needs, GB."""
    dataset_gb: Annotated[float, Meta(ge=0, le=10_000_000)] | None = None
    """The dataset the runs read, GB: uploaded to the provider and kept on its volume."""
    checkpoint_gb: Annotated[float, Meta(ge=0, le=10_000_000)] | None = None
    """The checkpoint (or model) downloaded after each run, GB."""
    egress_gb: Annotated[float, Meta(ge=0, le=10_000_000)] | None = None
    """Other data downloaded after each run (results, logs, samples), GB."""
    storage_gb: Annotated[float, Meta(ge=0, le=10_000_000)] | None = None
    """What stays on the provider's volume between runs, GB (default: the dataset and one
    checkpoint; 0 uploads the dataset for every run)."""
    setup_minutes: Annotated[float, Meta(ge=0, le=1440)] = 0.0
    """Minutes of boot and setup a rented run pays for before it trains."""
    kind: Kind = "generic"
    """Workload kind used to compare GPUs."""
    dtype: Dtype | Literal["auto"] = "auto"
    """Training precision used to compare GPUs; auto: mixed precision (fp16) on a desktop GPU with
    tensor cores, fp32 otherwise."""
    batch: Annotated[int, Meta(ge=1, le=1_000_000)] | None = None
    """Batch per GPU of the run on the desktop: at a small batch what a step costs whatever its
    size (launches, the host, the optimizer's update) weighs more and a big GPU gains less
    (default: the speed model's reference batch)."""
    target_batch: Literal["same", "max"] | Annotated[int, Meta(ge=1, le=1_000_000)] = "same"
    """Batch per GPU on each offer's GPU: same (the run unchanged), max (the largest that fits
    each GPU, from the job's memory at its batch or a bench's memory fit) or a number."""
    bench: str | None = None
    """A saved bench result to use: 'latest' or a file path."""
    # -- the job (`quick --model`): the run's hours and memory from costcalc job's models
    model: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    """A training job of this model (costcalc/data/models.yaml, found however it is spelt):
    its time model gives the run's hours on the desktop and every offer, its memory model the
    fit; the caller loads the model list (costcalc.core.job_quick.JobFiles)."""
    method: Method = "full"
    """full, lora or qlora."""
    tokens: Annotated[float, Meta(gt=0, le=1e16)] | None = None
    """Tokens one run reads (every epoch counted)."""
    epochs: Annotated[float, Meta(gt=0, le=100_000)] | None = None
    """Epochs of `dataset_items` each (instead of `tokens`)."""
    dataset_items: Annotated[float, Meta(gt=0, le=1e13)] | None = None
    """Sequences, images or audio windows in one epoch."""
    seq: Annotated[int, Meta(ge=1, le=1_048_576)] | None = None
    """Tokens per sequence (default: the model's pretraining sequence)."""
    optimizer: Optimizer = "adamw"
    """adamw, adamw-8bit or sgd: its state takes memory."""
    checkpointing: bool = False
    """Full activation recomputation."""
    sharding: Sharding = "none"
    """ZeRO stage or FSDP over the desktop's GPUs."""
    lora_rank: Annotated[int, Meta(ge=1, le=4096)] = 16
    """The adapters' rank (lora and qlora)."""
    # -- the offers
    cloud_prices: tuple[float, ...] = ()
    """Your own offers on the desktop's GPUs, per hour, in the chosen currency."""
    providers: tuple[str, ...] = ()
    """Only offers from these providers; empty: all."""
    offer_kind: OfferKind = "all"
    """all, spot or on-demand offers."""
    exclude_tiers: tuple[TierName, ...] = ()
    """Leave out offers in these tiers (community, marketplace, spot, free, ...)."""
    cloud_regions: tuple[str, ...] = ()
    """Only offers in these cloud regions; empty: all."""
    cloud_gpus: tuple[str, ...] = ()
    """Only offers with these GPUs; a family name matches every variant (a100)."""
    min_memory_gb: Annotated[float, Meta(ge=0, le=10_000)] | None = None
    """Only offers with at least this memory per GPU."""
    offer_match: Annotated[str, Meta(max_length=200)] | None = None
    """Only offers whose provider, name, GPU or region contain these words; | separates alternatives
    ('a100|h100', 'rtx 4090|l40s')."""
    scale_out: bool = False
    """Let offers with more GPUs than the desktop be the verdict (their speed assumes the sourced
    multi-GPU scaling)."""
    spot_checkpoint_minutes: Annotated[float, Meta(ge=0, le=600)] = 5
    """Time one checkpoint takes to write (spot risk)."""
    spot_restart_minutes: Annotated[float, Meta(ge=0, le=1440)] = 30
    """Time to resume after a spot interruption."""

    def __post_init__(self) -> None:
        force_setattr(self, "exclude_tiers", _tiers_once(self.exclude_tiers))

    def changed(self) -> dict[str, Any]:
        """The inputs that differ from the defaults."""
        return plain(self, omit_defaults=True)


def upgrade_settings(data: Any) -> Any:
    """Settings files written before `bench` existed said `run_from_bench: true`."""
    if isinstance(data, dict) and "run_from_bench" in data:
        data = dict(data)
        if data.pop("run_from_bench") and not data.get("bench"):
            data["bench"] = "latest"
    return data


# --------------------------------------------------------------------------- inputs


class OwningCosts(Record, frozen=True, kw_only=True):
    """What owning costs beyond the price, its electricity and its resale, when counted
    (costcalc.core.owning): both enter break-even as the price and the electricity do."""

    interest_share: Annotated[float, Meta(ge=0)] = 0.0
    """Loan interest paid within the horizon, per dollar of the desktop's price (the loan is the
    whole price, so the interest grows with it)."""
    repairs_usd_per_year: Annotated[float, Meta(ge=0)] = 0.0
    """The allowance for failed cards a year: failure rate x cards x the card's price."""


class Assumptions(Record, frozen=True, kw_only=True):
    """How the user will work: utilisation, electricity, grid, horizon."""

    utilisation: Annotated[float, Meta(ge=MIN_UTILISATION, le=1)]
    """Share of all hours the GPU works."""
    usd_per_kwh: Annotated[float, Meta(ge=0)]
    home_region: str = "US"
    home_gco2_per_kwh: Annotated[float, Meta(ge=0)]
    home_pue: Annotated[float, Meta(ge=1)] = 1.0
    psu_efficiency: Annotated[float, Meta(gt=0, le=1)] = 1.0
    """1.0 counts the watts as drawn at the wall (the reference convention)."""
    always_on: bool = False
    """Machine idles (not off) between jobs."""
    horizon_years: Annotated[float, Meta(gt=0)] = 3.0
    resale_share: Annotated[float, Meta(ge=0, lt=1)] = 0.0
    embodied: bool = False
    owning: OwningCosts | None = None
    """A loan's interest and the repairs allowance, when counted; None: neither."""


class Workload(Record, frozen=True, kw_only=True):
    """One training run as the user knows it, measured or guessed on their own GPU."""

    run_hours: Annotated[float, Meta(gt=0)] | None = None
    """Hours per run on the desktop."""
    items_per_run: Annotated[float, Meta(gt=0)] | None = None
    memory_gb: Annotated[float, Meta(gt=0)] | None = None
    """GPU memory the run needs."""
    max_batch: dict[str, int] = field(default_factory=dict)
    """Largest batch per GPU key (from a bench)."""
    kind: Kind = "generic"
    dtype: Dtype = "fp32"
    batch: Annotated[int, Meta(ge=1)] | None = None
    """Batch per GPU the predicted speeds are scaled to (cnn work); None: the speed model's
    reference batch."""


class StepProfile(Record, frozen=True, kw_only=True):
    """Where a training step's time goes on one GPU (shares sum to 1): math on the tensor or CUDA
    cores, element-wise work, memory traffic, and fixed overhead. Measured by a bench or derived
    by the predictor."""

    compute_share: Annotated[float, Meta(ge=0, le=1)]
    memory_share: Annotated[float, Meta(ge=0, le=1)]
    overhead_share: Annotated[float, Meta(ge=0, le=1)]
    elementwise_share: Annotated[float, Meta(ge=0, le=1)] | None = None
    """Element-wise kernels, when told apart from memory traffic (a bench measures them together:
    None, and memory_share holds both)."""


# --------------------------------------------------------------------------- results
#
# Results are plain frozen Structs: the engine builds one per offer on every keystroke in the app.
# Their inputs were validated at the edge; tests check their invariants (no NaN, no negative money).


class DesktopResult(Struct, frozen=True):
    gpu: str
    gpu_count: int
    price_usd: float | None
    """None: not known, so no break-even."""
    load_w: float
    """Wall draw while working."""
    kwh_per_year: float
    electricity_usd_per_year: float
    co2_kg_per_year: float
    embodied_co2_kg_per_year: float


class RunCost(Struct, frozen=True):
    hours: float
    billed_hours: float
    usd: float
    usd_per_item: float | None
    kwh: float
    co2_kg: float


# The fields in the functional form, with their types as objects: in a class body under
# `from __future__ import annotations` they are text, which typing compiles one by one for a
# NamedTuple (13 compiles, a fortieth of `costcalc quick`'s start-up).
_OfferResultFields = NamedTuple(  # noqa: UP014 - the class form is what costs
    "_OfferResultFields",
    [
        ("offer", CloudOffer),
        ("spec", GpuSpec),  # the offer's GPU, from the catalog
        ("relative_speed", float),  # offer throughput / desktop throughput
        # 'comparable' (the desktop's GPU count, enough memory per GPU), 'scale-out' (more
        # GPUs, enough memory each), 'less memory' or 'fewer GPUs'
        ("role", str),
        # factor on hours for spot interruptions (checkpoints, lost work, restarts); 1 otherwise
        ("overhead", float),
        ("hours_per_year", float),
        ("usd_per_year", float),
        # None: the desktop never pays back against this offer, or its price is not known
        ("break_even_days", float | None),
        ("co2_kg_per_year", float),
        ("price_age_days", float),
        ("fits", bool | None),  # None when the workload's memory need is unknown
        ("usd_per_batch_item", float | None),
        ("run", RunCost | None),
        # batch per GPU the offer's GPU runs where it differs by GPU (--target-batch), else None
        ("batch", int | None),
    ],
)


class OfferResult(_OfferResultFields):
    """One offer against the desktop (its fields: _OfferResultFields above).

    A named tuple, not a frozen dataclass as elsewhere: `compare` makes one per offer on every
    keystroke in the app, and a frozen dataclass's __init__ (one object.__setattr__ per field)
    took 10-14 ms of a 25 ms evaluation with 5,000 offers; a tuple is built in 2 ms. Compare
    results with `is` or by field, never as tuples."""

    __slots__ = ()

    @property
    def effective_speed(self) -> float:
        """Relative speed once spot interruptions have taken their share of the hours."""
        return self.relative_speed / self.overhead


_new_tuple = tuple.__new__


def offer_result(
    *,
    offer: CloudOffer,
    spec: GpuSpec,
    relative_speed: float,
    role: str,
    overhead: float,
    hours_per_year: float,
    usd_per_year: float,
    break_even_days: float | None,
    co2_kg_per_year: float,
    price_age_days: float,
    fits: bool | None,
    usd_per_batch_item: float | None,
    run: RunCost | None,
    batch: int | None = None,
) -> OfferResult:
    """An OfferResult built by keyword at the cost of a positional call.

    Calling the class with keywords goes through type.__call__, which packs them into a dict
    for __new__: 1.3-2 us against 0.5-0.8 us here, 10-15 ms of the engine's ~50 ms for 10,000
    offers. A function's keywords are matched in place. tests/core/test_compare.py checks that the
    parameters are OfferResult's fields, in order."""
    return _new_tuple(
        OfferResult,
        (
            offer,
            spec,
            relative_speed,
            role,
            overhead,
            hours_per_year,
            usd_per_year,
            break_even_days,
            co2_kg_per_year,
            price_age_days,
            fits,
            usd_per_batch_item,
            run,
            batch,
        ),
    )
