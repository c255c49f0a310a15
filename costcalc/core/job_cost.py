"""The answer to a job: memory, time, cost, energy and CO2 of one run on the GPU the user names,
on every cloud offer that holds it, and on the desktop builds that can.

Rule kept here: pure, one function (`price_job`) the CLI, `quick --model` and the app call
alike. It uses the same pieces every other answer uses: the spot overhead of
`costcalc.core.compare`, the billing of `engine.run_cost_usd`, the server watts and carbon of
`engine`, the physical fit of `costcalc.core.feasibility`, the desktop price of
`costcalc.core.scenario.default_price_usd`. Counts: up to 1,024 GPUs of a cluster of 8-GPU
servers joined by RDMA (SXM and NVL parts, whose servers are sold with such a network); PCIe
cards up to one server (8), desktops up to 8 with the physical checks.

What the user brings replaces what the data assumes, for the chosen GPU's run only (the machines
they describe): `pue`, `grid_gco2_per_kwh` and `watts_per_gpu` (a measured whole-system draw per
GPU, as BLOOM's and Strubell et al.'s papers state theirs); a named GPU at their own price
(`cloud_gpu`, `cloud_price_usd` per GPU-hour or per instance).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Literal

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core import engine
from costcalc.core.catalog import GpuCatalog
from costcalc.core.compare import Rules, spot_overhead
from costcalc.core.errors import CostcalcError
from costcalc.core.feasibility import Feasibility, check_build
from costcalc.core.grid import GridIndex
from costcalc.core.hardware import Circuit, DesktopHardware
from costcalc.core.job import Job
from costcalc.core.job_memory import MemoryPlan, fits, job_memory, largest_batch
from costcalc.core.job_time import (
    GPUS_PER_SERVER,
    MAX_CLUSTER_GPUS,
    Flops,
    JobTime,
    job_time,
    nvlink,
    training_flops,
)
from costcalc.core.mfu import MfuFile
from costcalc.core.models import CloudOffer, DesktopDefaults, GpuSpec, ScalingData
from costcalc.core.predict import Predictor
from costcalc.core.records import Meta, Record

Where = Literal["offer", "desktop", "yours"]
TimeOn = Callable[[GpuSpec, int, int], JobTime]
"""The job's time on n GPUs of a kind, so many to a server (cached per answer)."""
MAX_DESKTOP_GPUS = 8
SPOT_RULES = Rules(memory_gb=0.0, memory_from_job=False)
"""compare's spot assumptions (5-minute checkpoints, 30-minute restarts)."""


class RunSetup(Record, frozen=True, kw_only=True):
    """Where the job runs and what the user knows about it, beside the job itself."""

    gpu: str | None = None
    """The GPU to answer for (a desktop card: the desktop; a data-centre part: a cluster)."""
    gpu_count: Annotated[int, Meta(ge=1, le=MAX_CLUSTER_GPUS)] | None = None
    """GPUs it runs on (default: the fewest that hold it)."""
    cloud_gpu: str | None = None
    """The GPU of your own offer (default: --gpu)."""
    cloud_price_usd: Annotated[float, Meta(gt=0, le=100_000)] | None = None
    price_per: Literal["gpu", "instance"] = "gpu"
    """Your price is per GPU-hour, or per hour of one server of up to 8 of the GPUs."""
    pue: Annotated[float, Meta(ge=1, le=3)] | None = None
    grid_gco2_per_kwh: Annotated[float, Meta(ge=0, le=2000)] | None = None
    watts_per_gpu: Annotated[float, Meta(gt=0, le=5000)] | None = None
    """Measured whole-system draw per GPU under load (host share included)."""
    runs_per_year: Annotated[float, Meta(gt=0, le=100_000)] | None = None
    home_region: str | None = None
    usd_per_kwh: Annotated[float, Meta(ge=0, le=10)] | None = None
    """The desktop's electricity price (default: the home region's household price)."""


class JobData(Struct, frozen=True):
    """What a job's answer is computed from (costcalc.store loads it)."""

    catalog: GpuCatalog
    scaling: ScalingData
    mfu: MfuFile
    predictor: Predictor
    grid: GridIndex
    offers: Sequence[CloudOffer]
    defaults: DesktopDefaults
    home_usd_per_kwh: float
    """The home region's household electricity price."""
    hardware: DesktopHardware | None = None
    labels: Mapping[str, str] = {}
    """Provider -> the name a table shows ('AWS spot')."""


class JobRun(Struct, frozen=True):
    """One way to run the job and what it costs."""

    where: Where
    label: str
    spec: GpuSpec
    gpus: int
    instances: int
    memory: MemoryPlan
    fits: bool
    max_batch: int
    time: JobTime
    overhead: float
    """Factor on hours for spot interruptions (1 on demand)."""
    usd: float | None
    usd_basis: str
    watts: float
    kwh: float
    pue: float
    gco2_per_kwh: float
    co2_kg: float
    grid_source: str
    offer: CloudOffer | None = None
    build_usd: float | None = None
    """A desktop build's price up front."""
    feasibility: Feasibility | None = None

    @property
    def hours(self) -> float:
        return self.time.hours * self.overhead

    @property
    def gpu_hours(self) -> float:
        return self.hours * self.gpus


class Yearly(Struct, frozen=True):
    runs_per_year: float
    usd_per_year: float | None
    hours_per_year: float
    utilisation: float
    """Share of the year's hours the chosen GPUs work: what `quick` weighs."""


class JobAnswer(Struct, frozen=True):
    job: Job
    setup: RunSetup
    flops: Flops
    chosen: JobRun | None
    would_fit: tuple[str, ...]
    """Without a fit: what would (a switch and the memory it leaves)."""
    offers: tuple[JobRun, ...]
    """Cloud offers that hold the job, cheapest first (one row per instance type)."""
    desktops: tuple[JobRun, ...]
    """Desktop builds that hold the job and pass the fit checks, cheapest up front first."""
    offers_weighed: int
    yearly: Yearly | None = None
    notes: tuple[str, ...] = ()

    @property
    def fastest(self) -> JobRun | None:
        runs = [*self.offers, *self.desktops]
        return min(runs, key=lambda r: r.hours) if runs else None


def yearly(run: JobRun, runs_per_year: float) -> Yearly:
    """What `runs_per_year` runs cost and how busy they keep the GPUs (quick's utilisation)."""
    hours = run.hours * runs_per_year
    usd = run.usd * runs_per_year if run.usd is not None else None
    return Yearly(runs_per_year, usd, hours, min(hours / engine.HOURS_PER_YEAR, 1.0))


def count_limit(spec: GpuSpec) -> int:
    """The most GPUs a job runs on: clusters of RDMA-joined servers for SXM/NVL parts, one
    server (or desktop) of 8 for anything else."""
    return MAX_CLUSTER_GPUS if nvlink(spec) else GPUS_PER_SERVER


def smallest_count(job: Job, spec: GpuSpec, step: int = 1, limit: int | None = None) -> int | None:
    """The fewest GPUs (a multiple of `step`) that hold the job, None when none up to the limit
    does. Without sharding every GPU holds it all, so one more never helps."""
    limit = limit or count_limit(spec)
    if fits(job_memory(job, step), spec):
        return step
    if job.sharding == "none" or not fits(job_memory(job, limit - limit % step or step), spec):
        return None
    lo, hi = 1, max(limit // step, 1)  # in steps: fails at lo, holds at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(job_memory(job, mid * step), spec):
            hi = mid
        else:
            lo = mid
    return hi * step


def price_job(job: Job, setup: RunSetup, data: JobData) -> JobAnswer:
    """Memory, time, cost, energy and CO2 of the job: chosen, on offers, on desktops."""
    flops = training_flops(job)
    times: dict[tuple[str, int, int], JobTime] = {}

    def time_on(spec: GpuSpec, n: int, per_server: int = GPUS_PER_SERVER) -> JobTime:
        key = (spec.key, n, per_server)
        if key not in times:
            times[key] = job_time(
                job,
                flops,
                spec,
                n,
                data.catalog,
                data.scaling,
                data.mfu,
                data.predictor,
                per_server=per_server,
            )
        return times[key]

    offers, weighed = _offer_runs(job, setup, data, time_on)
    desktops = _desktop_runs(job, setup, data, time_on)
    chosen, notes = _chosen(job, setup, data, time_on, offers)
    if chosen is None and offers:
        chosen = offers[0]  # no GPU named: the cheapest offer that holds it
    would = would_fit(job, chosen) if chosen is not None and not chosen.fits else ()
    runs_year = yearly(chosen, setup.runs_per_year) if chosen and setup.runs_per_year else None
    return JobAnswer(
        job=job,
        setup=setup,
        flops=flops,
        chosen=chosen,
        would_fit=would,
        offers=tuple(offers),
        desktops=tuple(desktops),
        offers_weighed=weighed,
        yearly=runs_year,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------- the runs


def run_energy(watts: float, hours: float, pue: float, gco2: float) -> tuple[float, float]:
    kwh = watts * hours / 1000
    return kwh, engine.co2_kg(kwh, gco2, pue)


def _offer_runs(
    job: Job, setup: RunSetup, data: JobData, time_on: TimeOn
) -> tuple[list[JobRun], int]:
    best: dict[tuple[str, str, int], JobRun] = {}
    weighed = 0
    counts: dict[tuple[str, int], int | None] = {}
    for offer in data.offers:
        if (
            not offer.guaranteed
            or offer.monthly_fee_usd > 0
            or offer.term_years is not None
            or offer.gpu not in data.catalog
        ):
            continue  # plans, free tiers and reservations are not bought for one run
        weighed += 1
        run = offer_run(job, setup, data, offer, time_on, counts)
        if run is None:
            continue
        key = (offer.provider, offer.name, run.gpus)
        if key not in best or (run.usd or 0) < (best[key].usd or 0):
            best[key] = run
    ranked = sorted(best.values(), key=lambda r: (r.usd is None, r.usd or 0.0, r.hours))
    return ranked, weighed


def offer_run(
    job: Job,
    setup: RunSetup,
    data: JobData,
    offer: CloudOffer,
    time_on: TimeOn,
    counts: dict[tuple[str, int], int | None] | None = None,
) -> JobRun | None:
    """The job on `offer`'s instances: as many as the chosen count needs, or the fewest that
    hold it; None when none do (or it would take more servers than the part is sold with)."""
    spec = data.catalog.get(offer.gpu)
    g = offer.gpu_count
    if setup.gpu_count is not None:
        n = math.ceil(setup.gpu_count / g) * g
    else:
        cache = counts if counts is not None else {}
        key = (offer.gpu, g)
        if key not in cache:
            cache[key] = smallest_count(job, spec, step=g)
        found = cache[key]
        if found is None:
            return None
        n = found
    instances = n // g
    if n > MAX_CLUSTER_GPUS or (instances > 1 and not (nvlink(spec) and g == GPUS_PER_SERVER)):
        return None  # a cluster is whole HGX servers: slices and PCIe boxes have no RDMA fabric
    plan = job_memory(job, n)
    if not fits(plan, spec):
        return None
    time = time_on(spec, n, g)
    overhead = spot_overhead(offer, SPOT_RULES)
    hours = time.hours * overhead
    usd = (
        engine.run_cost_usd(
            hours * 3600,
            offer.usd_per_hour * instances,
            offer.billing_increment_s,
            offer.billing_minimum_s,
        )
        + offer.setup_fee_usd * instances
    )
    site = data.grid.for_offer(offer.provider, offer.region)
    watts = instances * engine.cloud_server_w(
        g, spec.board_power_w, data.grid.data.cloud_host_w_per_gpu
    )
    kwh, co2 = run_energy(watts, hours, site.pue, site.gco2_per_kwh)
    provider = data.labels.get(offer.provider, offer.provider)
    label = f"{provider} {offer.name}" + (f" x {instances}" if instances > 1 else "")
    return JobRun(
        where="offer",
        label=label,
        spec=spec,
        gpus=n,
        instances=instances,
        memory=plan,
        fits=True,
        max_batch=largest_batch(plan, spec),
        time=time,
        overhead=overhead,
        usd=usd,
        usd_basis=f"{instances} x ${offer.usd_per_hour:,.2f}/h",
        watts=watts,
        kwh=kwh,
        pue=site.pue,
        gco2_per_kwh=site.gco2_per_kwh,
        co2_kg=co2,
        grid_source=site.source,
        offer=offer,
    )


def _desktop_runs(job: Job, setup: RunSetup, data: JobData, time_on: TimeOn) -> list[JobRun]:
    hw = data.hardware
    if hw is None:
        return []
    home = data.grid.home(setup.home_region)
    circuit = hw.circuit_for(home.code)
    found = []
    for card in hw.cards:
        spec = data.catalog.get(card.gpu)
        if spec.segment == "datacenter":
            continue
        for n in range(1, MAX_DESKTOP_GPUS + 1):
            plan = job_memory(job, n)
            if not fits(plan, spec):
                if job.sharding == "none":
                    break
                continue
            run = desktop_run(job, setup, data, spec, n, time_on, circuit=circuit)
            if run.feasibility is not None and run.feasibility.fits is True:
                found.append(run)
                break
    return sorted(found, key=lambda r: (r.build_usd is None, r.build_usd or 0.0, r.hours))


def desktop_run(
    job: Job,
    setup: RunSetup,
    data: JobData,
    spec: GpuSpec,
    n: int,
    time_on: TimeOn,
    *,
    circuit: Circuit | None = None,
    yours: bool = False,
) -> JobRun:
    """The job on a desktop of n x `spec`: electricity at the home price, the home grid."""
    from costcalc.core.scenario import by_gpu_count, default_price_usd

    plan = job_memory(job, n)
    time = time_on(spec, n, GPUS_PER_SERVER)
    rest_w = by_gpu_count(data.defaults.rest_of_system_w, n)
    watts = spec.board_power_w * n + rest_w
    home = data.grid.home(setup.home_region)
    pue, gco2, source = 1.0, home.gco2_per_kwh, f"{home.name} grid ({home.source})"
    if yours:
        watts, pue, gco2, source = _yours(setup, watts, n, pue, gco2, source)
    kwh, co2 = run_energy(watts, time.hours, pue, gco2)
    kwh_usd = setup.usd_per_kwh if setup.usd_per_kwh is not None else data.home_usd_per_kwh
    feasibility = None
    if data.hardware is not None and n <= MAX_DESKTOP_GPUS:
        feasibility = check_build(
            spec,
            data.hardware.card(spec.key),
            n,
            data.hardware,
            gpu_watts=spec.board_power_w,
            system_watts=rest_w,
            psu_efficiency=1.0,
            circuit=circuit or data.hardware.circuit_for(home.code),
        )
    return JobRun(
        where="desktop",
        label=f"{n}x {spec.short_name}" + (" (your desktop)" if yours else ""),
        spec=spec,
        gpus=n,
        instances=1,
        memory=plan,
        fits=fits(plan, spec),
        max_batch=largest_batch(plan, spec),
        time=time,
        overhead=1.0,
        usd=kwh * kwh_usd,
        usd_basis=f"electricity at ${kwh_usd:.3g}/kWh",
        watts=watts,
        kwh=kwh,
        pue=pue,
        gco2_per_kwh=gco2,
        co2_kg=co2,
        grid_source=source,
        build_usd=default_price_usd(spec, data.defaults, n),
        feasibility=feasibility,
    )


def _yours(
    setup: RunSetup, watts: float, n: int, pue: float, gco2: float, source: str
) -> tuple[float, float, float, str]:
    """The chosen run's watts, PUE and grid, as the user measured or knows them."""
    if setup.watts_per_gpu is not None:
        watts = setup.watts_per_gpu * n
    if setup.pue is not None:
        pue = setup.pue
    if setup.grid_gco2_per_kwh is not None:
        gco2, source = setup.grid_gco2_per_kwh, "your grid"
    return watts, pue, gco2, source


def _chosen(
    job: Job, setup: RunSetup, data: JobData, time_on: TimeOn, offers: Sequence[JobRun]
) -> tuple[JobRun | None, list[str]]:
    """The run on the GPU the user names (or prices), with their own figures: a desktop card is
    their desktop; a data-centre part the cheapest offer of it (or their price)."""
    name = setup.gpu or setup.cloud_gpu
    if name is None:
        return None, []
    spec = data.catalog.resolve(name)
    if setup.gpu and setup.cloud_gpu and data.catalog.resolve(setup.cloud_gpu).key != spec.key:
        raise CostcalcError(
            "--gpu and --cloud-gpu name two GPUs: give one (your price is for the GPU you run on)"
        )
    notes: list[str] = []
    limit = count_limit(spec)
    n = setup.gpu_count or smallest_count(job, spec) or 1
    if n > limit:
        raise CostcalcError(
            f"{n} x {spec.short_name}: a PCIe card runs at most {limit} to a server, and costcalc "
            "prices clusters of 8-GPU SXM servers joined by RDMA (a100_sxm4_80gb, h100_sxm5_80gb)"
        )
    if setup.cloud_price_usd is None and spec.segment != "datacenter" and n <= MAX_DESKTOP_GPUS:
        run = desktop_run(job, setup, data, spec, n, time_on, yours=True)
        if run.feasibility is not None and run.feasibility.failed:
            notes.append(f"{n}x {spec.short_name}: {run.feasibility.failed}")
        return run, notes
    if setup.cloud_price_usd is None:
        same = [r for r in offers if r.spec.key == spec.key and r.gpus >= n]
        if same:
            return _as_yours(min(same, key=lambda r: r.usd or 0.0), setup), notes
    time = time_on(spec, n, GPUS_PER_SERVER)
    plan = job_memory(job, n)
    per_server = min(n, GPUS_PER_SERVER)
    servers = math.ceil(n / per_server)
    watts = n * (spec.board_power_w + data.grid.data.cloud_host_w_per_gpu)
    site = data.grid.for_offer("custom", "-")
    if setup.cloud_price_usd is not None:
        hourly = setup.cloud_price_usd * (n if setup.price_per == "gpu" else servers)
        usd: float | None = hourly * time.hours
        per = "GPU-hour" if setup.price_per == "gpu" else f"server of {per_server}"
        basis = f"your ${setup.cloud_price_usd:,.2f} per {per}"
        label = f"{n}x {spec.short_name} at your price"
    else:
        usd, basis, label = None, "no offer on file: give --cloud-price", f"{n}x {spec.short_name}"
    watts, pue, gco2, source = _yours(setup, watts, n, site.pue, site.gco2_per_kwh, site.source)
    kwh, co2 = run_energy(watts, time.hours, pue, gco2)
    run = JobRun(
        where="yours",
        label=label,
        spec=spec,
        gpus=n,
        instances=servers,
        memory=plan,
        fits=fits(plan, spec),
        max_batch=largest_batch(plan, spec),
        time=time,
        overhead=1.0,
        usd=usd,
        usd_basis=basis,
        watts=watts,
        kwh=kwh,
        pue=pue,
        gco2_per_kwh=gco2,
        co2_kg=co2,
        grid_source=source,
    )
    return run, notes


def _as_yours(run: JobRun, setup: RunSetup) -> JobRun:
    """An offer's run as the chosen one: the user's watts, PUE and grid where they gave them."""
    watts, pue, gco2, source = _yours(
        setup, run.watts, run.gpus, run.pue, run.gco2_per_kwh, run.grid_source
    )
    kwh, co2 = run_energy(watts, run.hours, pue, gco2)
    return replace(
        run,
        where="yours",
        usd_basis=f"{run.usd_basis}, the cheapest offer of it",
        watts=watts,
        kwh=kwh,
        pue=pue,
        gco2_per_kwh=gco2,
        co2_kg=co2,
        grid_source=source,
    )


# --------------------------------------------------------------------------- what would fit


def would_fit(job: Job, run: JobRun) -> tuple[str, ...]:
    """Up to three changes (alone, else with checkpointing) that make the job fit the chosen
    GPUs, each with the memory it leaves per GPU."""
    spec, n = run.spec, run.gpus
    singles: list[tuple[str, Job, int]] = []
    if job.method == "lora":
        singles.append(("--method qlora", replace(job, method="qlora"), n))
    if job.method == "full":
        singles.append(("--method lora", replace(job, method="lora"), n))
    if job.sharding in ("none", "zero1", "zero2"):
        sharded = replace(job, sharding="zero3")
        count = smallest_count(sharded, spec)
        if count is not None:
            singles.append((f"--sharding zero3 --count {count}", sharded, count))
    else:
        more = smallest_count(job, spec)
        if more is not None and more > n:
            singles.append((f"--count {more}", job, more))
    if job.model.reads_tokens:
        seq = job.sequence // 2
        while seq >= 256:
            if fits(job_memory(replace(job, seq=seq), n), spec):
                singles.append((f"--seq {seq}", replace(job, seq=seq), n))
                break
            seq //= 2
    tries = list(singles)
    if not job.checkpointing:
        tries.insert(0, ("--checkpointing", replace(job, checkpointing=True), n))
        tries += [
            (f"--checkpointing {flag}", replace(changed, checkpointing=True), count)
            for flag, changed, count in singles
            if not flag.startswith("--seq")
        ]
        seq = job.sequence
        while job.model.reads_tokens and seq >= 256:
            if fits(job_memory(replace(job, seq=seq, checkpointing=True), n), spec):
                tries.append(
                    (f"--checkpointing --seq {seq}", replace(job, seq=seq, checkpointing=True), n)
                )
                break
            seq //= 2
    found = []
    for flag, changed, count in tries:
        plan = job_memory(changed, count)
        if fits(plan, spec):
            found.append(f"{flag} ({plan.total_gb:.1f} GB per GPU)")
    return tuple(found[:3])
