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

from msgspec.structs import replace

from costcalc.core.electricity import ElectricityIndex
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.fx import Converter
from costcalc.core.grid import GridIndex
from costcalc.core.hardware import DesktopHardware
from costcalc.core.models import GpuCatalogFile, GpuSpec, ScalingData, Scenario
from costcalc.core.predict import Calibration
from costcalc.core.regions import RegionIndex
from costcalc.core.scenario import AppData
from costcalc.edge.resources import PRICES_PACKAGE
from costcalc.providers import registry
from costcalc.store import bundled
from costcalc.store.bundled import (
    DATA_PACKAGE,
    load_catalog,
    load_desktop_hardware,
    load_predictor,
    load_scaling,
)
from costcalc.store.snapshots import (
    BUNDLED_FILES,
    load_carbon,
    load_desktop_defaults,
    load_electricity,
    load_fx,
    load_price_book,
    load_region_names,
    load_storage,
)

if TYPE_CHECKING:
    from msgspec import Struct

    from costcalc.core.models import CarbonData, ElectricityData
    from costcalc.core.predict import Prediction

NOW_ENV = "COSTCALC_NOW"
"""Pins the clock (an ISO 8601 time) so a report can be reproduced byte for byte."""


@functools.cache
def load_region_index() -> RegionIndex:
    """Every home region by code and name: the carbon grids, the electricity prices, the aliases."""
    return _region_index(load_carbon(), load_electricity())


def _region_index(carbon: CarbonData, prices: ElectricityData) -> RegionIndex:
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
    """The data a comparison needs: the bundled files, the user's refreshed snapshots and
    exchange rates, and the user's own prices (of every provider, or of the named ones)."""
    rates = load_fx()
    fx = Converter(rates.rates)
    catalog = load_catalog()
    book = load_price_book(providers, catalog=catalog)
    if rates.warning is not None:  # a broken refreshed rates file is said, as a price file is
        book.problems.append(rates.warning)
    # each file read once (the grid and the electricity prices both name the regions)
    carbon, prices, defaults = load_carbon(), load_electricity(), load_desktop_defaults()
    regions = _region_index(carbon, prices)
    return AppData(
        catalog=catalog,
        grid=GridIndex(carbon, regions),
        desktop_defaults=defaults,
        book=book,
        predictor=load_predictor(),
        scaling=load_scaling(),
        electricity=ElectricityIndex(
            prices, regions, fx, default_usd_per_kwh=defaults.electricity_usd_per_kwh
        ),
        fx=fx,
        hardware=load_desktop_hardware(),
    )


def for_scenario(data: AppData, scenario: Scenario) -> AppData:
    """`data` with what the scenario's inputs need beyond every comparison's data: renting's
    storage and transfer rates when it gives the data its runs move, the published failure
    rates when it counts repairs at them. Read only then, so a plain `quick` never loads them."""
    storage = data.storage
    if storage is None and any(
        v is not None
        for v in (
            scenario.dataset_gb,
            scenario.checkpoint_gb,
            scenario.egress_gb,
            scenario.storage_gb,
        )
    ):
        storage = load_storage()
    ownership = data.ownership
    if ownership is None and scenario.repairs and scenario.failure_rate is None:
        ownership = bundled.load_ownership()
    if storage is data.storage and ownership is data.ownership:
        return data
    return replace(data, storage=storage, ownership=ownership)


def clear_caches() -> None:
    """Forget what this process has read (the bundled files are read once per process)."""
    for cached in (
        bundled.load_catalog,
        bundled.load_desktop_hardware,
        bundled.load_calibration,
        bundled.load_scaling,
        bundled.load_predictor,
        bundled.load_models,
        bundled.load_mfu,
        bundled.load_ownership,
        load_region_index,
    ):
        cached.cache_clear()


def bundled_files() -> list[tuple[str, str, type[Struct]]]:
    """Every YAML file the package ships, as (package, name, model) (tests/test_cache.py checks
    that none is left out and that each validates)."""
    # The job's data and two providers' own tables: a run that needs none never imports them.
    from costcalc.core.job import ModelFile
    from costcalc.core.mfu import MfuFile
    from costcalc.core.owning import OwnershipFile
    from costcalc.core.rent_extras import StorageFile
    from costcalc.core.serve_data import HostedPriceFile, ServeCalibration, ServeMeasurementFile
    from costcalc.providers.aws_instances import AwsInstanceTable
    from costcalc.providers.azure import AzureSizeTable

    data: list[tuple[str, type[Struct]]] = [
        ("gpus.yaml", GpuCatalogFile),
        ("predict_calibration.yaml", Calibration),
        ("scaling.yaml", ScalingData),
        ("desktop_builds.yaml", DesktopHardware),
        ("aws_instances.yaml", AwsInstanceTable),
        ("azure_sizes.yaml", AzureSizeTable),
        ("models.yaml", ModelFile),
        ("mfu.yaml", MfuFile),
        ("serve_measurements.yaml", ServeMeasurementFile),
        ("serve_calibration.yaml", ServeCalibration),
        ("hosted_token_prices.yaml", HostedPriceFile),
        ("ownership.yaml", OwnershipFile),
    ]
    files = [(DATA_PACKAGE, name, model) for name, model in data]
    files += [(PRICES_PACKAGE, name, model) for name, model in BUNDLED_FILES]
    files.append((PRICES_PACKAGE, "storage.yaml", StorageFile))
    files += [(p.snapshot_package, p.snapshot_file, p.snapshot_model) for p in registry.every()]
    return files


def utc_now() -> datetime:
    """The current time, or the time COSTCALC_NOW pins."""
    pinned = os.environ.get(NOW_ENV)
    if not pinned:
        return datetime.now(timezone.utc)
    try:
        moment = datetime.fromisoformat(pinned)
    except ValueError:
        raise CostcalcError(f"{NOW_ENV} must be an ISO 8601 time, got {quoted(pinned)}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def predict_seconds(
    seconds: float,
    source_gpu: str | GpuSpec,
    target_gpu: str | GpuSpec,
    *,
    kind: str = "generic",
    dtype: str = "fp32",
    batch: int | None = None,
    target_batch: int | str | None = None,
    memory_gb: float | None = None,
    sequence: float | None = None,
) -> Prediction:
    """Time the work that takes `seconds` on `source_gpu` needs on `target_gpu`, for callers
    from Python: GPU names resolve the way the catalog resolves them (UnknownGpu otherwise).

    `batch` is the batch per GPU the work ran at on the source (None: the speed model's
    reference); `target_batch` the target's: a number, "same" (the default: the job
    unchanged) or "max", the largest that fits the target, which needs `memory_gb`, the
    memory the job takes at `batch` on the source; `sequence` the tokens per item."""
    from costcalc.core.batching import BatchPlan, parse_target_batch
    from costcalc.core.memory import from_one_batch
    from costcalc.core.models import GpuSpec
    from costcalc.store.bundled import load_catalog, load_predictor

    catalog = load_catalog()
    source = source_gpu if isinstance(source_gpu, GpuSpec) else catalog.resolve(source_gpu)
    target = target_gpu if isinstance(target_gpu, GpuSpec) else catalog.resolve(target_gpu)
    policy = parse_target_batch(target_batch if target_batch is not None else "same")
    memory = None
    if memory_gb is not None:
        memory = from_one_batch(memory_gb, batch or _reference_batch(kind), kind)
    plan = BatchPlan(batch, policy, memory, source.key)
    there = plan.on(target)
    if there == 0:
        raise CostcalcError(f"{plan.why(target)}: the {target.name} cannot run it")
    return load_predictor().predict(
        seconds,
        source,
        target,
        kind=kind,
        dtype=dtype,
        batch=batch,
        target_batch=there,
        sequence=sequence,
    )


def _reference_batch(kind: str) -> int:
    from costcalc.store.bundled import load_predictor

    return int(load_predictor().kind_calibration(kind).reference_batch or 1)
