"""Desktop versus every offer: the one computation the CLI and the TUI both show.

Rule kept here: pure. Everything it needs (catalog, grid figures, offers, `now`) is passed in, so
it runs in microseconds per offer and tests can pin every input. What does not change between
offers (speed per GPU, grid per region, age per timestamp) is computed once per distinct value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from costcalc import engine
from costcalc.catalog import GpuCatalog
from costcalc.grid import GridIndex
from costcalc.models import (
    Assumptions,
    CloudOffer,
    DesktopBuild,
    DesktopResult,
    GpuSpec,
    OfferResult,
    RunCost,
    Workload,
)
from costcalc.offers import age_days
from costcalc.predict import SpeedFn


@dataclass(frozen=True, slots=True)
class Comparison:
    desktop: DesktopResult
    desktop_run: RunCost | None
    offers: tuple[OfferResult, ...]
    best: OfferResult | None
    """Cheapest guaranteed offer that fits, per year."""
    break_even_utilisation: float | None
    """Above this utilisation the desktop beats `best` over the horizon."""


def desktop_result(desktop: DesktopBuild, a: Assumptions) -> tuple[DesktopResult, float]:
    """The desktop's yearly energy, money and carbon; also its wall draw under load."""
    load_w = engine.desktop_load_w(
        desktop.gpu_w, desktop.gpu_count, desktop.rest_of_system_w, a.psu_efficiency
    )
    kwh = engine.desktop_kwh_per_year(load_w, a.utilisation, desktop.idle_w, a.stays_on)
    embodied = (
        engine.embodied_co2_kg_per_year(desktop.embodied_kgco2e, desktop.life_years)
        if a.include_embodied
        else 0.0
    )
    result = DesktopResult(
        gpu=desktop.gpu,
        gpu_count=desktop.gpu_count,
        price_usd=desktop.price_usd,
        load_w=load_w,
        kwh_per_year=kwh,
        electricity_usd_per_year=engine.electricity_usd(kwh, a.usd_per_kwh),
        co2_kg_per_year=engine.co2_kg(kwh, a.home_gco2_per_kwh, a.home_pue) + embodied,
        embodied_co2_kg_per_year=embodied,
    )
    return result, load_w


def desktop_run(
    desktop: DesktopBuild, result: DesktopResult, a: Assumptions, w: Workload
) -> RunCost | None:
    """One run on the desktop: its electricity plus its share of the hardware over the horizon."""
    if w.run_hours is None:
        return None
    kwh = result.load_w * w.run_hours / 1000
    busy_hours = a.utilisation * engine.HOURS_PER_YEAR * a.horizon_years
    runs_over_horizon = max(busy_hours / w.run_hours, 1.0)
    hardware = desktop.price_usd * (1 - a.resale_fraction) / runs_over_horizon
    usd = engine.electricity_usd(kwh, a.usd_per_kwh) + hardware
    return RunCost(
        hours=w.run_hours,
        billed_hours=w.run_hours,
        usd=usd,
        usd_per_item=engine.usd_per_item(usd, w.items_per_run) if w.items_per_run else None,
        kwh=kwh,
        co2_kg=engine.co2_kg(kwh, a.home_gco2_per_kwh, a.home_pue),
    )


def compare(
    desktop: DesktopBuild,
    assumptions: Assumptions,
    workload: Workload,
    offers: Sequence[CloudOffer],
    catalog: GpuCatalog,
    grid: GridIndex,
    now: datetime,
    speed: SpeedFn,
) -> Comparison:
    """The desktop against every offer. `speed` gives each offer's per-GPU speed relative to
    the desktop's GPU (the predictor for the workload's kind and precision, or a bench's)."""
    a, w = assumptions, workload
    desk, load_w = desktop_result(desktop, a)
    desk_spec = catalog.get(desktop.gpu)
    desk_scale = engine.multi_gpu_speedup(desktop.gpu_count)
    busy_hours = a.utilisation * engine.HOURS_PER_YEAR
    electricity_per_day = desk.electricity_usd_per_year / engine.DAYS_PER_YEAR
    host_w = grid.data.cloud_host_w_per_gpu

    per_gpu: dict[tuple[str, int], tuple[float, float, GpuSpec]] = {}
    grids: dict[tuple[str, str], tuple[float, float]] = {}
    ages: dict[datetime, float] = {}
    results: list[OfferResult] = []
    check_fit = bool(w.max_batch) or w.memory_gb is not None
    append = results.append
    for offer in offers:
        gpu_key = (offer.gpu, offer.gpu_count)
        found_gpu = per_gpu.get(gpu_key)
        if found_gpu is None:
            spec = catalog.get(offer.gpu)
            scale = engine.multi_gpu_speedup(offer.gpu_count) / desk_scale
            watts = engine.cloud_server_w(offer.gpu_count, spec.board_power_w, host_w)
            found_gpu = per_gpu[gpu_key] = (speed(desk_spec, spec) * scale, watts, spec)
        rel, offer_w, spec = found_gpu
        region_key = (offer.provider, offer.region)
        found_grid = grids.get(region_key)
        if found_grid is None:
            g = grid.for_offer(offer.provider, offer.region)
            found_grid = grids[region_key] = (g.gco2_per_kwh, g.pue)
        gco2, pue = found_grid
        age = ages.get(offer.fetched_at)
        if age is None:
            age = ages[offer.fetched_at] = age_days(offer.fetched_at, now)

        hours, usd_year = cloud_year(offer, busy_hours, rel)
        fits = _fits(spec, offer.gpu, w) if check_fit else None
        append(
            OfferResult(
                offer,
                rel,
                hours,
                usd_year,
                engine.break_even_days(
                    desktop.price_usd, usd_year / engine.DAYS_PER_YEAR, electricity_per_day
                ),
                engine.co2_kg(hours * offer_w / 1000, gco2, pue),
                age,
                fits,
                _usd_per_batch_item(offer, w) if w.max_batch else None,
                _offer_run(offer, rel, offer_w, gco2, pue, a, w)
                if w.run_hours is not None and fits is not False
                else None,
            )
        )

    best = _best(results)
    return Comparison(
        desktop=desk,
        desktop_run=desktop_run(desktop, desk, a, w),
        offers=tuple(results),
        best=best,
        break_even_utilisation=(
            _break_even_utilisation(desktop, a, load_w, best) if best is not None else None
        ),
    )


def cloud_year(offer: CloudOffer, busy_hours: float, relative_speed: float) -> tuple[float, float]:
    """Hours a year the offer needs for the desktop's busy hours, and what a year of it costs."""
    hours = engine.cloud_hours_for(busy_hours, relative_speed)
    usd = engine.cloud_usd_for_hours(
        hours, offer.usd_per_hour, offer.monthly_fee_usd, offer.included_usd_per_month
    )
    return hours, usd


def _fits(spec: GpuSpec, gpu: str, w: Workload) -> bool | None:
    if w.max_batch:
        return w.max_batch.get(gpu, 0) >= 1 if gpu in w.max_batch else None
    if w.memory_gb is not None:
        return spec.memory_gb >= w.memory_gb
    return None


def _usd_per_batch_item(offer: CloudOffer, w: Workload) -> float | None:
    if offer.gpu not in w.max_batch:
        return None
    return engine.usd_per_batch_item(offer.usd_per_hour, w.max_batch[offer.gpu] * offer.gpu_count)


def _offer_run(
    offer: CloudOffer,
    rel: float,
    offer_w: float,
    gco2: float,
    pue: float,
    a: Assumptions,
    w: Workload,
) -> RunCost | None:
    if w.run_hours is None:
        return None
    hours = engine.cloud_hours_for(w.run_hours, rel)
    billed_s = engine.billed_seconds(
        hours * 3600, offer.billing_increment_s, offer.billing_minimum_s
    )
    share = 0.0
    if offer.monthly_fee_usd:
        runs = engine.runs_per_month(a.utilisation, w.run_hours)
        share = engine.plan_share_usd(offer.monthly_fee_usd, runs)
    usd = engine.billed_cost_usd(billed_s, offer.usd_per_hour, share)
    kwh = hours * offer_w / 1000
    return RunCost(
        hours=hours,
        billed_hours=billed_s / 3600,
        usd=usd,
        usd_per_item=engine.usd_per_item(usd, w.items_per_run) if w.items_per_run else None,
        kwh=kwh,
        co2_kg=engine.co2_kg(kwh, gco2, pue),
    )


def _best(results: Sequence[OfferResult]) -> OfferResult | None:
    candidates = [r for r in results if r.offer.guaranteed and r.fits is not False]
    return min(candidates, key=lambda r: r.usd_per_year, default=None)


def _break_even_utilisation(
    desktop: DesktopBuild, a: Assumptions, load_w: float, best: OfferResult
) -> float | None:
    offer = best.offer

    def desktop_cost(u: float) -> float:
        kwh = engine.desktop_kwh_per_year(load_w, u, desktop.idle_w, a.stays_on)
        yearly = engine.electricity_usd(kwh, a.usd_per_kwh)
        return engine.horizon_cost_usd(
            desktop.price_usd, yearly, a.horizon_years, a.resale_fraction
        )

    def cloud_cost(u: float) -> float:
        _, yearly = cloud_year(offer, u * engine.HOURS_PER_YEAR, best.relative_speed)
        return yearly * a.horizon_years

    return engine.break_even_utilisation(desktop_cost, cloud_cost)
