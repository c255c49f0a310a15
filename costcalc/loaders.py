"""Everything a comparison needs from disk, loaded once: catalog, calibration, grid, desktop
defaults and prices.

Rule kept here: this is the IO layer between the pure core and the front ends. It reads bundled
and user files (through `snapshots` and `resources`) and hands back validated, immutable data;
the core never reads a file itself.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from costcalc.catalog import GpuCatalog
from costcalc.electricity import ElectricityIndex
from costcalc.errors import CostcalcError, DataFileError
from costcalc.fx import Converter
from costcalc.grid import GridIndex
from costcalc.models import GpuCatalogFile, GpuSpec, ScalingData
from costcalc.predict import Calibration, Prediction, Predictor
from costcalc.regions import RegionIndex
from costcalc.resources import load_yaml_resource
from costcalc.scenario import AppData
from costcalc.snapshots import (
    load_carbon,
    load_desktop_defaults,
    load_electricity,
    load_fx,
    load_price_book,
    load_region_names,
)

if TYPE_CHECKING:
    from costcalc.hardware import DesktopHardware

NOW_ENV = "COSTCALC_NOW"
"""Pins the clock (an ISO 8601 time) so a report can be reproduced byte for byte."""


@functools.cache
def load_catalog() -> GpuCatalog:
    """The bundled catalog (costcalc/data/gpus.yaml), validated once per process."""
    data = load_yaml_resource("costcalc.data", "gpus.yaml", GpuCatalogFile)
    return GpuCatalog(data.gpus)


@functools.cache
def load_desktop_hardware() -> DesktopHardware:
    """The bundled physical facts for desktop builds (costcalc/data/desktop_builds.yaml): cards'
    slot widths and coolers, the assumed board, PSU sizes and wall circuits. Every card in it
    must be in the catalog: a stray key is a data error, reported as one line. (Imported here:
    only `costcalc desktops` needs it, and `quick` starts without it.)"""
    from costcalc.hardware import DesktopHardware

    data = load_yaml_resource("costcalc.data", "desktop_builds.yaml", DesktopHardware)
    catalog = load_catalog()
    stray = [c.gpu for c in data.cards if c.gpu not in catalog]
    if stray:
        raise DataFileError(
            f"costcalc.data/desktop_builds.yaml: cards not in the GPU catalog: {', '.join(stray)}"
        )
    return data


@functools.cache
def load_calibration() -> Calibration:
    return load_yaml_resource("costcalc.data", "predict_calibration.yaml", Calibration)


@functools.cache
def load_scaling() -> ScalingData:
    return load_yaml_resource("costcalc.data", "scaling.yaml", ScalingData)


@functools.cache
def load_predictor() -> Predictor:
    return Predictor.build(load_catalog(), load_calibration())


@functools.cache
def load_region_index() -> RegionIndex:
    """Every home region by code and name: the carbon grids, the electricity prices, the aliases."""
    carbon = load_carbon()
    prices = load_electricity()
    known = [(p.code, p.name) for p in prices.prices] + [(r.code, r.name) for r in carbon.regions]
    return RegionIndex(load_region_names(), known)


def load_grid() -> GridIndex:
    return GridIndex(load_carbon(), load_region_index())


def load_converter() -> Converter:
    """Exchange rates: the refreshed ECB file if there is a good one, else the bundled rates."""
    return Converter(load_fx().rates)


def load_electricity_index(fx: Converter | None = None) -> ElectricityIndex:
    """Household electricity prices, converted with `fx` (the current rates by default); regions
    without a price fall back to the desktop defaults' electricity price."""
    defaults = load_desktop_defaults()
    return ElectricityIndex(
        load_electricity(),
        load_region_index(),
        fx or load_converter(),
        default_usd_per_kwh=defaults.electricity_usd_per_kwh,
    )


def load_app_data(providers: Sequence[str] | None = None) -> AppData:
    fx = load_converter()
    return AppData(
        catalog=load_catalog(),
        grid=load_grid(),
        desktop_defaults=load_desktop_defaults(),
        book=load_price_book(providers),
        predictor=load_predictor(),
        scaling=load_scaling(),
        electricity=load_electricity_index(fx),
        fx=fx,
    )


def utc_now() -> datetime:
    """The current time, or the time COSTCALC_NOW pins."""
    pinned = os.environ.get(NOW_ENV)
    if not pinned:
        return datetime.now(timezone.utc)
    try:
        moment = datetime.fromisoformat(pinned)
    except ValueError:
        raise CostcalcError(f"{NOW_ENV} must be an ISO 8601 time, got {pinned!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def predict_seconds(
    seconds: float,
    source_gpu: str | GpuSpec,
    target_gpu: str | GpuSpec,
    *,
    kind: str = "generic",
    dtype: str = "fp32",
) -> Prediction:
    """Time the work that takes `seconds` on `source_gpu` needs on `target_gpu`, for callers
    from Python: GPU names resolve the way the catalog resolves them (UnknownGpu otherwise)."""
    catalog = load_catalog()
    source = source_gpu if isinstance(source_gpu, GpuSpec) else catalog.resolve(source_gpu)
    target = target_gpu if isinstance(target_gpu, GpuSpec) else catalog.resolve(target_gpu)
    return load_predictor().predict(seconds, source, target, kind=kind, dtype=dtype)
