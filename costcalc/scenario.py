"""Turning what the user said (or left out) into a DesktopBuild and Assumptions.

Rule kept here: every default comes from the catalog or the bundled data files, and every value
the user gives is checked with a message that says what a valid one looks like. Pure: the data
is passed in.
"""

from __future__ import annotations

from costcalc.errors import CostcalcError
from costcalc.grid import GridIndex
from costcalc.models import Assumptions, DesktopBuild, DesktopDefaults, GpuSpec


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
