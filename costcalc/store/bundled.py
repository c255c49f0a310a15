"""The bundled reference data that ships inside the package: the GPU catalog, the predictor's
calibration, the scaling table, the desktop parts, and for `costcalc job` the model list and the
measured utilisation. Read once per process, each only when first asked for.

Rule kept here: only costcalc.data, never a user's file; nothing else in the store is imported, so
every store module (snapshots, overrides, loaders) can ask for the catalog without a cycle.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from costcalc.core.catalog import GpuCatalog
from costcalc.core.errors import DataFileError
from costcalc.core.hardware import DesktopHardware
from costcalc.core.models import GpuCatalogFile, ScalingData
from costcalc.core.predict import Calibration, Predictor
from costcalc.edge.resources import load_yaml_resource

if TYPE_CHECKING:  # the job's data: loaded only by a command that prices a job
    from costcalc.core.job import ModelList
    from costcalc.core.job_cost import JobData
    from costcalc.core.job_quick import JobFiles
    from costcalc.core.mfu import MfuFile
    from costcalc.core.models import GpuSpec
    from costcalc.core.owning import OwnershipFile
    from costcalc.core.scenario import AppData
    from costcalc.core.serve import ServeData
    from costcalc.core.serve_data import HostedPriceFile, ServeCalibration, ServeMeasurementFile

DATA_PACKAGE = "costcalc.data"


@functools.cache
def load_catalog() -> GpuCatalog:
    """The bundled catalog (costcalc/data/gpus.yaml), validated once per process."""
    data = load_yaml_resource(DATA_PACKAGE, "gpus.yaml", GpuCatalogFile)
    return GpuCatalog(data.gpus)


@functools.cache
def load_desktop_hardware() -> DesktopHardware:
    """The bundled physical facts for desktop builds (costcalc/data/desktop_builds.yaml): cards'
    slot widths and coolers, the assumed board, PSU sizes and wall circuits. Every card in it
    must be in the catalog: a stray key is a data error, reported as one line. Every comparison
    checks its desktop's fit with it (`scenario.desktop_fit`)."""
    data = load_yaml_resource(DATA_PACKAGE, "desktop_builds.yaml", DesktopHardware)
    catalog = load_catalog()
    stray = [c.gpu for c in data.cards if c.gpu not in catalog]
    if stray:
        raise DataFileError(
            f"costcalc.data/desktop_builds.yaml: cards not in the GPU catalog: {', '.join(stray)}"
        )
    return data


@functools.cache
def load_calibration() -> Calibration:
    return load_yaml_resource(DATA_PACKAGE, "predict_calibration.yaml", Calibration)


@functools.cache
def load_scaling() -> ScalingData:
    return load_yaml_resource(DATA_PACKAGE, "scaling.yaml", ScalingData)


@functools.cache
def load_predictor() -> Predictor:
    return Predictor.build(load_catalog(), load_calibration())


@functools.cache
def load_models() -> ModelList:
    """The bundled model list (costcalc/data/models.yaml): read only when a job names a model,
    so `quick` without one never loads it."""
    from costcalc.core.job import ModelFile, ModelList

    return ModelList(load_yaml_resource(DATA_PACKAGE, "models.yaml", ModelFile))


def load_job_files() -> JobFiles:
    """What `quick --model` and the app's job need beyond quick's data: the model list and the
    public runs' utilisation."""
    from costcalc.core.job_quick import JobFiles

    return JobFiles(models=load_models(), mfu=load_mfu())


def job_data(app: AppData, region: str | None) -> JobData:
    """What a training job is priced from (`costcalc job`): the loaded prices, catalog, scaling
    and predictor, the MFU table, and the electricity and grid of `region` (one line when it
    is unknown)."""
    from costcalc.core.job_cost import JobData

    home = app.electricity.lookup(region)
    app.grid.home(region)  # an unknown region is one line now, not later
    return JobData(
        catalog=app.catalog,
        scaling=app.scaling,
        mfu=load_mfu(),
        predictor=app.predictor,
        grid=app.grid,
        offers=app.book.offers,
        defaults=app.desktop_defaults,
        home_usd_per_kwh=home.usd_per_kwh,
        hardware=app.hardware,
        labels=app.book.short_labels,
    )


def serve_data(app: AppData, region: str | None) -> ServeData:
    """What serving a model is priced from (`costcalc job --serve`, the app's Job panel): the
    loaded prices and catalog, the serving calibration and hosted prices, and the electricity
    and grid of `region` (one line when it is unknown)."""
    from costcalc.core.serve import ServeData

    home = app.electricity.lookup(region)
    grid_home = app.grid.home(region)  # an unknown region is one line now, not later
    predictor = app.predictor

    def matmul(spec: GpuSpec) -> float:
        return predictor.rates(spec, "fp16", "transformer").math_tflops

    return ServeData(
        catalog=app.catalog,
        calibration=load_serve_calibration(),
        matmul_tflops=matmul,
        offers=app.book.offers,
        hosted=load_hosted_prices().prices,
        defaults=app.desktop_defaults,
        home_usd_per_kwh=home.usd_per_kwh,
        hardware=app.hardware,
        labels=app.book.short_labels,
        home_region=grid_home.code,
    )


@functools.cache
def load_mfu() -> MfuFile:
    """Public training runs' utilisation per GPU and precision (costcalc/data/mfu.yaml), every
    row's GPU in the catalog (a stray key is a data error, reported as one line)."""
    from costcalc.core.mfu import MfuFile

    data = load_yaml_resource(DATA_PACKAGE, "mfu.yaml", MfuFile)
    catalog = load_catalog()
    stray = sorted({r.gpu for r in data.entries if r.gpu not in catalog})
    if stray:
        raise DataFileError(f"costcalc.data/mfu.yaml: GPUs not in the catalog: {', '.join(stray)}")
    return data


@functools.cache
def load_serve_measurements() -> ServeMeasurementFile:
    """Published inference speeds (costcalc/data/serve_measurements.yaml): what the serving fit
    and its tests read; `costcalc job --serve` reads the calibration made from them."""
    from costcalc.core.serve_data import ServeMeasurementFile

    return load_yaml_resource(DATA_PACKAGE, "serve_measurements.yaml", ServeMeasurementFile)


@functools.cache
def load_serve_calibration() -> ServeCalibration:
    """Serving's fitted figures (costcalc/data/serve_calibration.yaml), read only when a job
    serves a model."""
    from costcalc.core.serve_data import ServeCalibration

    return load_yaml_resource(DATA_PACKAGE, "serve_calibration.yaml", ServeCalibration)


@functools.cache
def load_hosted_prices() -> HostedPriceFile:
    """Hosted APIs' dated prices per million tokens (costcalc/data/hosted_token_prices.yaml)."""
    from costcalc.core.serve_data import HostedPriceFile

    return load_yaml_resource(DATA_PACKAGE, "hosted_token_prices.yaml", HostedPriceFile)


@functools.cache
def load_ownership() -> OwnershipFile:
    """Published GPU failure rates by card class (costcalc/data/ownership.yaml), read only when
    a scenario counts repairs."""
    from costcalc.core.owning import OwnershipFile

    return load_yaml_resource(DATA_PACKAGE, "ownership.yaml", OwnershipFile)
