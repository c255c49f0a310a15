"""A user's whole question as one value, and the one function that answers it.

`Scenario` holds every input a user can give, from the CLI's flags, the app's fields, the saved
settings file or the environment (costcalc.inputs builds it, layer by layer). `evaluate` turns a
scenario plus the loaded data into the `Calculation` that the CLI's text, its JSON and the app
all render, so the three can never disagree.

Rule kept here: pure. Data (catalog, grid, prices, predictor, a loaded bench result) and `now`
are passed in; every default comes from them; every value the user gives is checked with a
message that says what a valid one looks like. The bounds of each input live on its field here
and nowhere else: the text parsers read them from the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from costcalc.catalog import GpuCatalog
from costcalc.compare import Comparison, compare
from costcalc.constants import CUSTOM_PROVIDER, Dtype, Kind, OfferKind
from costcalc.errors import CostcalcError
from costcalc.grid import GridIndex
from costcalc.models import (
    Assumptions,
    CloudOffer,
    DesktopBuild,
    DesktopDefaults,
    GpuSpec,
    Workload,
)
from costcalc.offers import PriceBook, custom_offer
from costcalc.predict import Predictor

if TYPE_CHECKING:
    from costcalc.bench.apply import BenchEffects
    from costcalc.bench.results import BenchResult

DEFAULT_GPU = "rtx3090"
"""The reference desktop of the canonical break-even example (DOMAIN.md section 1): the app's
desktop until the user names one or nvidia-smi finds one."""


class Scenario(BaseModel):
    """Every input of the comparison. Field names are the keys of the settings file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # -- the desktop
    gpu: str | None = Field(
        default=None, description="Desktop GPU: a catalog key or any name the catalog resolves."
    )
    gpu_count: int = Field(default=1, ge=1, le=16, description="GPUs in the desktop.")
    desktop_price_usd: float | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="Whole machine, up front, USD (default: GPU street price + base system).",
    )
    gpu_watts: float | None = Field(
        default=None, ge=0, le=3000, description="Draw of one GPU under load, W (default: TDP)."
    )
    system_watts: float | None = Field(
        default=None, ge=0, le=5000, description="Draw of the rest of the system under load, W."
    )
    idle_watts: float | None = Field(
        default=None, ge=0, le=5000, description="Whole-system idle draw, W (with always_on)."
    )
    psu_efficiency: float = Field(
        default=1.0, ge=0.5, le=1, description="1 counts watts at the wall; 0.9 adds PSU losses."
    )
    resale_share: float = Field(
        default=0.0, ge=0, lt=1, description="Share of the price you get back after the horizon."
    )
    horizon_years: float = Field(
        default=3.0, ge=0.1, le=20, description="Years you will use the desktop."
    )
    embodied: bool = Field(
        default=False, description="Add the desktop's manufacturing carbon over its life."
    )
    # -- how it is used
    utilisation: float = Field(
        default=0.15, ge=0.001, le=1, description="Share of all hours the GPU works (0.1-100 %)."
    )
    always_on: bool = Field(
        default=False, description="The machine idles between jobs instead of being off."
    )
    # -- where it runs
    home_region: str | None = Field(
        default=None, description="Home grid: country, state or cloud region (default: US)."
    )
    usd_per_kwh: float | None = Field(
        default=None, ge=0, le=10, description="Electricity price, USD/kWh (default: bundled)."
    )
    # -- the run
    run_hours: float | None = Field(
        default=None,
        ge=0.001,
        le=1_000_000,
        description="Hours one training run takes on the desktop.",
    )
    items_per_run: float | None = Field(
        default=None, ge=1, le=1e15, description="Items (samples) one run processes."
    )
    memory_gb: float | None = Field(
        default=None, ge=0.1, le=10_000, description="GPU memory the run needs, GB."
    )
    kind: Kind = Field(default="generic", description="Workload kind used to compare GPUs.")
    dtype: Dtype = Field(default="fp16", description="Training precision used to compare GPUs.")
    bench: str | None = Field(
        default=None, description="A saved bench result to use: 'latest' or a file path."
    )
    # -- the offers
    cloud_prices: tuple[float, ...] = Field(
        default=(), description="Your own offers on the desktop's GPUs, USD per hour."
    )
    providers: tuple[str, ...] = Field(
        default=(), description="Only offers from these providers; empty: all."
    )
    offer_kind: OfferKind = Field(default="all", description="all, spot or on-demand offers.")

    @model_validator(mode="before")
    @classmethod
    def _older_settings(cls, data: Any) -> Any:
        return upgrade_settings(data)

    def changed(self) -> dict[str, Any]:
        """The inputs that differ from the defaults."""
        return self.model_dump(exclude_defaults=True)


def upgrade_settings(data: Any) -> Any:
    """Settings files written before `bench` existed said `run_from_bench: true`."""
    if isinstance(data, dict) and "run_from_bench" in data:
        data = dict(data)
        if data.pop("run_from_bench") and not data.get("bench"):
            data["bench"] = "latest"
    return data


def validate_scenario(values: dict[str, Any], cls: type[Scenario] = Scenario) -> Scenario:
    """A scenario from plain values, or CostcalcError with one line naming the first bad input."""
    try:
        return cls.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "inputs"
        raise CostcalcError(f"{where}: {first['msg']}") from None


# --------------------------------------------------------------------------- data


@dataclass
class AppData:
    """Everything a comparison needs from disk, loaded once (costcalc.loaders reads it)."""

    catalog: GpuCatalog
    grid: GridIndex
    desktop_defaults: DesktopDefaults
    book: PriceBook
    predictor: Predictor

    @property
    def default_usd_per_kwh(self) -> float:
        return self.desktop_defaults.electricity_usd_per_kwh


# --------------------------------------------------------------------------- building blocks


def by_gpu_count(table: dict[int, float], gpu_count: int) -> float:
    """Value for the smallest build size that holds `gpu_count` GPUs (1, 2, 4 ...)."""
    sizes = sorted(table)
    for size in sizes:
        if size >= gpu_count:
            return table[size]
    return table[sizes[-1]]


def build_desktop(
    spec: GpuSpec,
    defaults: DesktopDefaults,
    gpu_count: int = 1,
    *,
    price_usd: float | None = None,
    gpu_w: float | None = None,
    rest_of_system_w: float | None = None,
    idle_w: float | None = None,
) -> DesktopBuild:
    if gpu_count < 1:
        raise CostcalcError(f"GPU count must be at least 1, got {gpu_count}")
    for label, value in (
        ("desktop price", price_usd),
        ("GPU watts", gpu_w),
        ("system watts", rest_of_system_w),
        ("idle watts", idle_w),
    ):
        if value is not None and not value >= 0:
            raise CostcalcError(f"{label} must be a number >= 0, got {value}")
    if price_usd is None:
        card = spec.desktop_price_usd
        if card is None:
            raise CostcalcError(f"no desktop price known for {spec.name}; pass --desktop-price USD")
        price_usd = card * gpu_count + by_gpu_count(defaults.base_system_usd, gpu_count)
    return DesktopBuild(
        gpu=spec.key,
        gpu_count=gpu_count,
        price_usd=price_usd,
        gpu_w=spec.board_power_w if gpu_w is None else gpu_w,
        rest_of_system_w=(
            by_gpu_count(defaults.rest_of_system_w, gpu_count)
            if rest_of_system_w is None
            else rest_of_system_w
        ),
        idle_w=by_gpu_count(defaults.idle_system_w, gpu_count) if idle_w is None else idle_w,
        embodied_kgco2e=defaults.embodied_kgco2e_system
        + defaults.embodied_kgco2e_per_gpu * gpu_count,
        life_years=defaults.life_years,
    )


def build_assumptions(
    grid: GridIndex,
    *,
    utilisation: float,
    usd_per_kwh: float,
    region: str | None = None,
    psu_efficiency: float = 1.0,
    stays_on: bool = False,
    horizon_years: float = 3.0,
    resale_fraction: float = 0.0,
    include_embodied: bool = False,
) -> Assumptions:
    if not 0 < utilisation <= 1:
        raise CostcalcError(
            f"utilisation must be in (0, 1] (e.g. 0.15 or 15%), got {utilisation:g}"
        )
    if not usd_per_kwh >= 0:
        raise CostcalcError(f"electricity price must be >= 0 USD/kWh, got {usd_per_kwh}")
    if not 0 < psu_efficiency <= 1:
        raise CostcalcError(f"PSU efficiency must be in (0, 1], got {psu_efficiency}")
    if not horizon_years > 0:
        raise CostcalcError(f"horizon must be > 0 years, got {horizon_years}")
    if not 0 <= resale_fraction < 1:
        raise CostcalcError(f"resale fraction must be in [0, 1), got {resale_fraction}")
    home = grid.home(region)
    return Assumptions(
        utilisation=utilisation,
        usd_per_kwh=usd_per_kwh,
        home_region=home.code,
        home_gco2_per_kwh=home.gco2_per_kwh,
        psu_efficiency=psu_efficiency,
        stays_on=stays_on,
        horizon_years=horizon_years,
        resale_fraction=resale_fraction,
        include_embodied=include_embodied,
    )


def offers_for(scenario: Scenario, offers: Sequence[CloudOffer]) -> list[CloudOffer]:
    """Offers the comparison considers: the provider and spot/on-demand filters. Your own offers
    (`cloud_prices`) are always compared: you priced them on purpose."""
    providers = set(scenario.providers) - {CUSTOM_PROVIDER}
    spot = {"all": None, "spot": True, "on-demand": False}[scenario.offer_kind]
    return [
        o
        for o in offers
        if (not providers or o.provider in providers) and (spot is None or o.spot is spot)
    ]


# --------------------------------------------------------------------------- the answer


@dataclass(frozen=True)
class Calculation:
    """Everything the CLI and the app show, computed at once from one scenario."""

    scenario: Scenario
    """As given, with the GPU and home region resolved to their catalog and grid codes."""
    spec: GpuSpec
    desktop: DesktopBuild
    assumptions: Assumptions
    workload: Workload
    offers: tuple[CloudOffer, ...]
    comparison: Comparison
    now: datetime
    bench: BenchEffects | None = None
    bench_label: str | None = None
    notes: tuple[str, ...] = ()
    """Things the user should know about how their inputs were used."""


def evaluate(
    scenario: Scenario,
    data: AppData,
    now: datetime,
    *,
    bench: BenchResult | None = None,
    fallback_gpu: str | None = None,
) -> Calculation:
    """The comparison for `scenario`. `bench` is the loaded result `scenario.bench` names;
    `fallback_gpu` is the desktop when neither the scenario nor the bench names one (the app
    uses the reference RTX 3090; the CLI asks)."""
    from costcalc.bench.apply import bench_label, desktop_gpu, effects

    notes: list[str] = []
    gpu_name = scenario.gpu or (desktop_gpu(bench) if bench is not None else None) or fallback_gpu
    if gpu_name is None:
        raise CostcalcError("say which desktop GPU with --gpu (or use a GPU bench with --bench)")
    spec = data.catalog.resolve(gpu_name)
    found = None
    if bench is not None:
        found = effects(
            bench,
            spec.key,
            scenario.kind,
            scenario.dtype,
            scenario.items_per_run,
            data.catalog,
            data.predictor,
        )
        if desktop_gpu(bench) is None:
            notes.append(
                f"the bench ran on {bench.environment.device_name} ({bench.device}), not a "
                "catalog GPU: only its memory fit (largest batch per GPU) is used; give the "
                "desktop GPU and the run time yourself"
            )
    desktop = build_desktop(
        spec,
        data.desktop_defaults,
        scenario.gpu_count,
        price_usd=scenario.desktop_price_usd,
        gpu_w=(
            scenario.gpu_watts if scenario.gpu_watts is not None or found is None else found.gpu_w
        ),
        rest_of_system_w=scenario.system_watts,
        idle_w=scenario.idle_watts,
    )
    assumptions = build_assumptions(
        data.grid,
        utilisation=scenario.utilisation,
        usd_per_kwh=(
            data.default_usd_per_kwh if scenario.usd_per_kwh is None else scenario.usd_per_kwh
        ),
        region=scenario.home_region,
        psu_efficiency=scenario.psu_efficiency,
        stays_on=scenario.always_on,
        horizon_years=scenario.horizon_years,
        resale_fraction=scenario.resale_share,
        include_embodied=scenario.embodied,
    )
    workload = Workload(
        run_hours=scenario.run_hours or (found.run_hours if found else None),
        items_per_run=scenario.items_per_run,
        memory_gb=scenario.memory_gb,
        max_batch=dict(found.max_batch) if found else {},
        kind=scenario.kind,
        dtype=scenario.dtype,
    )
    chosen = offers_for(scenario, data.book.offers)
    chosen += [custom_offer(spec.key, scenario.gpu_count, p, now) for p in scenario.cloud_prices]
    speed = (found.speed if found else None) or data.predictor.speed_fn(
        scenario.kind, scenario.dtype
    )
    comparison = compare(
        desktop, assumptions, workload, chosen, data.catalog, data.grid, now, speed=speed
    )
    resolved = scenario.model_copy(update={"gpu": spec.key, "home_region": assumptions.home_region})
    return Calculation(
        scenario=resolved,
        spec=spec,
        desktop=desktop,
        assumptions=assumptions,
        workload=workload,
        offers=tuple(chosen),
        comparison=comparison,
        now=now,
        bench=found,
        bench_label=bench_label(bench) if bench is not None else None,
        notes=tuple(notes),
    )


def default_desktop_price_usd(scenario: Scenario, data: AppData, gpu: str) -> float | None:
    """The prefilled desktop price: street price of the GPUs plus the base system."""
    spec = data.catalog.resolve(scenario.gpu or gpu)
    if spec.desktop_price_usd is None:
        return None
    return build_desktop(spec, data.desktop_defaults, scenario.gpu_count).price_usd
