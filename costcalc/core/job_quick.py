"""A training job inside quick's answer (`quick --model`): the run's hours on the desktop and on
every offer come from the job's time model, the memory fit from its memory model, and the
utilisation from its runs a year.

Rule kept here: pure, and no arithmetic of its own beyond the ratio of two hours. The model list
and the MFU table arrive as arguments (`JobFiles`: the store reads them only when a scenario
names a model, so `quick` without one never does); the hours are `costcalc.core.job_time`'s and
the memory `costcalc.core.job_memory`'s, the functions `costcalc job` answers with, so `quick
--model` and `costcalc job` give the same hours and memory for the same job on the same GPUs.
`compare` is handed the job's hours as a speed (an offer's speed is the desktop's hours over
the offer's) and the job's memory as a fit (`holds`): nothing else in the comparison changes.
"""

from __future__ import annotations

from msgspec import Struct

from costcalc.core import engine
from costcalc.core.catalog import GpuCatalog
from costcalc.core.constants import MIN_UTILISATION, Dtype, Kind
from costcalc.core.errors import CostcalcError
from costcalc.core.job import Job, JobText, ModelList, UnknownModel, describe
from costcalc.core.job_memory import MemoryPlan, fits, job_memory, usable_gb
from costcalc.core.job_time import (
    Flops,
    JobTime,
    UnknownFlops,
    job_time,
    training_flops,
    work_kind,
)
from costcalc.core.mfu import MfuFile
from costcalc.core.models import GpuSpec, ScalingData, Scenario
from costcalc.core.predict import Predictor

DEFAULT_PRECISION: Dtype = "bf16"
"""`--dtype auto` with a model: costcalc job's precision, so both answer for the same job."""


class JobFiles(Struct, frozen=True):
    """What a job needs beyond quick's data: the model list and the public runs' utilisation
    (costcalc.store.bundled reads both)."""

    models: ModelList
    mfu: MfuFile


class QuickJob(Struct, frozen=True, kw_only=True):
    """The job a `quick --model` answer weighs, as the desktop runs it."""

    job: Job
    text: JobText
    """How it reads: 'Llama 3.1 8B', 'LoRA rank 16 on 200M tokens at sequence 4,096, ...'."""
    flops: Flops
    desktop: JobTime
    """One run on the desktop's GPUs: its hours are the comparison's run hours."""
    memory: MemoryPlan
    """Per GPU on the desktop's GPUs."""
    fits: bool
    """Whether the desktop's GPUs hold it (its memory model; the usable share of each card)."""
    usable_gb: float
    """What a training process gets of one of the desktop's GPUs."""
    runs_per_year: float | None = None
    """Given: the utilisation is the runs' hours over the year's (`utilisation_from_runs`)."""
    utilisation_from_runs: float | None = None
    times: dict[str, JobTime] = {}
    """The job's time on every GPU and count the comparison weighed, by `time_key`."""

    @property
    def hours(self) -> float:
        return self.desktop.hours

    def runs_at(self, utilisation: float) -> float:
        """Runs a year a utilisation stands for on the desktop."""
        return utilisation * engine.HOURS_PER_YEAR / self.hours


def time_key(gpu: str, count: int) -> str:
    """'rtx4090x1': one key a (GPU, count) pair, plain for JSON."""
    return f"{gpu}x{count}"


def job_of(scenario: Scenario, files: JobFiles, precision: Dtype) -> Job:
    """The job the scenario describes, its model found in the list (one line when unknown)."""
    assert scenario.model is not None
    try:
        spec = files.models.resolve(scenario.model)
    except UnknownModel as exc:  # quick takes no model by its shape: no --params to suggest
        raise UnknownModel(exc.name, exc.suggestions, shape=False) from None
    if scenario.tokens is None and (scenario.epochs is None or scenario.dataset_items is None):
        raise CostcalcError(
            f"a job of {spec.name} needs its data: --tokens (2e8, 200M), or --epochs with "
            "--dataset-items"
        )
    return Job(
        model=spec,
        method=scenario.method,
        tokens=scenario.tokens,
        epochs=scenario.epochs,
        dataset_items=scenario.dataset_items,
        seq=scenario.seq,
        precision=precision,
        optimizer=scenario.optimizer,
        checkpointing=scenario.checkpointing,
        sharding=scenario.sharding,
        batch=scenario.batch or 1,
        lora_rank=scenario.lora_rank,
    )


class JobClock:
    """The job's hours on n x a GPU (each pair computed once) and whether n of them hold it:
    the speed, scaling and fit `compare` weighs offers by."""

    def __init__(
        self,
        job: Job,
        catalog: GpuCatalog,
        scaling: ScalingData,
        mfu: MfuFile,
        predictor: Predictor,
    ) -> None:
        self.job = job
        try:
            self.flops = training_flops(job)
        except UnknownFlops as exc:  # quick prices a bundled model as it is on file
            raise CostcalcError(
                f"{str(exc).split(': give')[0]}: `costcalc job` prices it with the missing figures "
                "given (--params, --layers, --hidden, --gflops-per-item)"
            ) from None
        self.kind: Kind = work_kind(job.model)  # type: ignore[assignment]
        self._catalog, self._scaling, self._mfu, self._predictor = catalog, scaling, mfu, predictor
        self.times: dict[str, JobTime] = {}
        self._plans: dict[int, MemoryPlan] = {}

    def time(self, spec: GpuSpec, count: int) -> JobTime:
        key = time_key(spec.key, count)
        found = self.times.get(key)
        if found is None:
            found = self.times[key] = job_time(
                self.job,
                self.flops,
                spec,
                count,
                self._catalog,
                self._scaling,
                self._mfu,
                self._predictor,
            )
        return found

    def memory(self, count: int) -> MemoryPlan:
        if count not in self._plans:
            self._plans[count] = job_memory(self.job, count)
        return self._plans[count]

    def speed(self, desktop: GpuSpec, other: GpuSpec) -> float:
        """One `other` GPU against one of the desktop's: the ratio of the job's hours."""
        return self.time(desktop, 1).hours / self.time(other, 1).hours

    def scale(self, spec: GpuSpec, count: int) -> float:
        """`count` GPUs against one: with `speed`, compare's ratio is the desktop's hours over
        the offer's, each on its own count."""
        return self.time(spec, 1).hours / self.time(spec, count).hours

    def holds(self, spec: GpuSpec, count: int) -> bool:
        """Whether `count` x `spec` hold the job (sharded as it says)."""
        return fits(self.memory(count), spec)


def quick_job(
    scenario: Scenario, clock: JobClock, spec: GpuSpec, gpu_count: int, *, times: bool = False
) -> QuickJob:
    """The job on the desktop, and the utilisation its runs a year make when given; with
    `times`, the clock's hours on every pair it was asked for (once `compare` has run)."""
    run = clock.time(spec, gpu_count)
    plan = clock.memory(gpu_count)
    runs = scenario.runs_per_year
    return QuickJob(
        job=clock.job,
        text=describe(clock.job),
        flops=clock.flops,
        desktop=run,
        memory=plan,
        fits=fits(plan, spec),
        usable_gb=usable_gb(spec),
        runs_per_year=runs,
        utilisation_from_runs=None if runs is None else runs_utilisation(runs, run, spec),
        times=dict(clock.times) if times else {},
    )


def runs_utilisation(runs: float, run: JobTime, spec: GpuSpec) -> float:
    """runs x the run's hours / 8,760: the share of the year the desktop works; one line when
    the runs do not fit in a year or are too few for costcalc to price."""
    hours = runs * run.hours
    where = f"{run.gpus}x {spec.short_name}"
    if hours > engine.HOURS_PER_YEAR:
        raise CostcalcError(
            f"{runs:g} runs a year of ~{run.hours:,.0f} h on your {where} take {hours:,.0f} h, "
            f"more than the year's {engine.HOURS_PER_YEAR:,.0f}: give fewer --runs-per-year or "
            "more GPUs (--gpu-count)"
        )
    share = hours / engine.HOURS_PER_YEAR
    if share < MIN_UTILISATION:
        raise CostcalcError(
            f"{runs:g} runs a year of ~{run.hours:.3g} h on your {where} keep it busy "
            f"{share * 100:.2g}% of the year, below the least costcalc prices "
            f"({MIN_UTILISATION * 100:g}%): more runs, or --util for the use you plan"
        )
    return share


def ignored_inputs(scenario: Scenario) -> str | None:
    """What a model makes unused, said once (its hours and memory replace them)."""
    unused = [
        flag
        for flag, given in (
            ("--run-hours", scenario.run_hours is not None),
            ("--memory-gb", scenario.memory_gb is not None),
            ("--kind", scenario.kind != "generic"),
            ("--bench's speeds and memory fit", scenario.bench is not None),
            ("--target-batch", scenario.target_batch != "same"),
        )
        if given
    ]
    if not unused:
        return None
    return (
        f"with --model the job's time and memory models give the run's hours and fit: "
        f"{', '.join(unused)} not used"
    )
