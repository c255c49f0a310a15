"""From the app's settings to one comparison: the only computation the app asks for.

Rule kept here: no textual, no arithmetic of its own. It turns Settings into the same
DesktopBuild, Assumptions and Workload the CLI builds (through costcalc.scenario) and calls
costcalc.compare.compare; a test imports it and asserts textual is not loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from costcalc.compare import Comparison, SpeedFn, compare
from costcalc.loaders import AppData
from costcalc.models import Assumptions, CloudOffer, DesktopBuild, GpuSpec, Workload
from costcalc.scenario import build_assumptions, build_desktop
from costcalc.settings import DEFAULT_GPU, Settings


@dataclass(frozen=True)
class BenchRun:
    """What the latest bench says about the user's run, already in the engine's terms."""

    label: str
    run_hours: float | None = None
    max_batch: Mapping[str, int] = field(default_factory=dict)
    speed: SpeedFn | None = None
    """Speeds from the measured time split (a bench on the desktop's own GPU)."""
    gpu_w: float | None = None
    """Measured watts of the desktop's GPU under load (NVML), replacing its board power."""
    gpu: str | None = None
    """Catalog key of the GPU the bench ran on, when it is one."""


@dataclass(frozen=True)
class Calculation:
    """Everything the screens show, computed at once from one set of settings."""

    settings: Settings
    spec: GpuSpec
    desktop: DesktopBuild
    assumptions: Assumptions
    workload: Workload
    offers: tuple[CloudOffer, ...]
    comparison: Comparison
    now: datetime
    bench: BenchRun | None = None


def offers_for(settings: Settings, offers: Sequence[CloudOffer]) -> tuple[CloudOffer, ...]:
    """Offers the comparison considers: the provider and spot/on-demand filters."""
    providers = set(settings.providers)
    spot = {"all": None, "spot": True, "on-demand": False}[settings.offer_kind]
    return tuple(
        o
        for o in offers
        if (not providers or o.provider in providers) and (spot is None or o.spot is spot)
    )


def workload_for(settings: Settings, bench: BenchRun | None) -> Workload:
    use_bench = settings.run_from_bench and bench is not None
    run_hours = settings.run_hours
    if use_bench and bench is not None and bench.run_hours is not None:
        run_hours = bench.run_hours
    return Workload(
        run_hours=run_hours,
        items_per_run=settings.items_per_run,
        memory_gb=settings.memory_gb,
        max_batch=dict(bench.max_batch) if use_bench and bench is not None else {},
        kind=settings.kind,
        dtype=settings.dtype,
    )


def calculate(
    settings: Settings,
    data: AppData,
    now: datetime,
    *,
    offers: Sequence[CloudOffer] | None = None,
    bench: BenchRun | None = None,
) -> Calculation:
    """Settings -> the comparison; raises CostcalcError with one line when an input is unusable."""
    spec = data.catalog.resolve(settings.gpu or DEFAULT_GPU)
    use_bench = bench if settings.run_from_bench else None
    desktop = build_desktop(
        spec,
        data.desktop_defaults,
        settings.gpu_count,
        price_usd=settings.desktop_price_usd,
        gpu_w=use_bench.gpu_w if use_bench else None,
    )
    assumptions = build_assumptions(
        data.grid,
        utilisation=settings.utilisation,
        usd_per_kwh=(
            data.default_usd_per_kwh if settings.usd_per_kwh is None else settings.usd_per_kwh
        ),
        region=settings.home_region,
        horizon_years=settings.horizon_years,
    )
    workload = workload_for(settings, bench)
    chosen = offers_for(settings, data.book.offers if offers is None else offers)
    speed = use_bench.speed if use_bench else None
    comparison = compare(
        desktop, assumptions, workload, chosen, data.catalog, data.grid, now, speed=speed
    )
    return Calculation(
        settings, spec, desktop, assumptions, workload, chosen, comparison, now, bench
    )


def default_desktop_price_usd(settings: Settings, data: AppData) -> float | None:
    """The prefilled desktop price: street price of the GPUs plus the base system."""
    spec = data.catalog.resolve(settings.gpu or DEFAULT_GPU)
    if spec.desktop_price_usd is None:
        return None
    return build_desktop(spec, data.desktop_defaults, settings.gpu_count).price_usd
