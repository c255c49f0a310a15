"""Which desktop? Builds of n x card side by side: price, memory, power, speed, cost of
ownership, break-even against the cloud, and whether the build physically works.

Rule kept here: pure, and no formula of its own. Each build is one `scenario.evaluate`, the
desktop costing `quick` and the app use (price with its base system, electricity at the same PSU
efficiency, resale, break-even against the same comparable offers, the fit on the same wall
circuit), so the two commands agree to the day; speed relative to the baseline comes from the
predictor times `engine.multi_gpu_speedup`. A build that does not fit, or whose GPUs cannot hold the
job, never wins.

Memory is per GPU: a multi-GPU build is assumed to train data-parallel, one copy of the model on
each GPU, so `--memory-gb` is checked against one card's memory, not the build's total.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core import engine
from costcalc.core.alternatives import Alternative
from costcalc.core.catalog import GpuCatalog
from costcalc.core.compare import ScaleFn
from costcalc.core.decision import Decision
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.feasibility import Feasibility
from costcalc.core.hardware import CardFacts, Circuit, DesktopHardware, ReliabilityClass
from costcalc.core.models import (
    AT_THE_WALL,
    Assumptions,
    DesktopBuild,
    DesktopResult,
    GpuSpec,
    OfferResult,
    Scenario,
    Workload,
)
from costcalc.core.predict import SpeedFn
from costcalc.core.scenario import (
    AppData,
    Calculation,
    batch_plan,
    evaluate,
    resolved_dtype,
    said,
    scale_fn,
    speed_batch,
)
from costcalc.core.usage import MeasuredUse

MAX_GPUS = 8
"""Largest GPU count asked about: past the assumed board's seven slots anyway."""


class BuildResult(Struct, frozen=True):
    """One build, n x one card, every figure the comparison shows."""

    spec: GpuSpec
    gpu_count: int
    card: CardFacts | None
    desktop: DesktopBuild
    price_known: bool
    """False when no card price is on file: price, TCO and break-even mean nothing then."""
    base_system_usd: float
    base_tier: str | None
    """The base system's tier (lean, standard, workstation)."""
    energy: DesktopResult
    """Wall draw, kWh, electricity and CO2 a year (compare.desktop_result)."""
    relative_speed: float
    """Throughput relative to one card of the comparison's first GPU (the baseline)."""
    tco_usd: float
    """Price - resale + electricity over the horizon."""
    tco_usd_per_work_hour: float
    """TCO / (relative speed x busy hours over the horizon): dollars per hour of work at the
    speed of one baseline card."""
    cloud: OfferResult | None
    """The cheapest comparable cloud offer for the same work, with its break-even."""
    holds_job: bool | None
    """Each GPU holds the job's memory (None: no memory need given)."""
    feasibility: Feasibility
    decision: Decision | None = None
    """The build's decision against the cloud, as `quick` gives it (Calculation.decision):
    never buy for a build that does not fit or hold the job."""
    decision_reason: str | None = None
    batch: int | None = None
    """Batch per GPU the build's speed is at, where each card runs its own (--target-batch);
    0: the job fits its card at no batch."""

    @property
    def label(self) -> str:
        return f"{self.gpu_count}x {self.spec.name}"

    @property
    def fits(self) -> bool | None:
        return self.feasibility.fits

    @property
    def can_win(self) -> bool:
        return self.fits is True and self.holds_job is not False and self.price_known

    @property
    def total_memory_gb(self) -> float:
        return self.spec.memory_gb * self.gpu_count

    @property
    def break_even_days(self) -> float | None:
        return self.cloud.break_even_days if self.cloud is not None else None


class DesktopsComparison(Struct, frozen=True):
    builds: tuple[BuildResult, ...]
    """Fitting builds first (cheapest per hour of work first), then unknown, then non-fitting."""
    best: BuildResult | None
    """Lowest TCO per hour of work among builds that fit and hold the job."""
    baseline: GpuSpec
    assumptions: Assumptions
    workload: Workload
    circuit: Circuit | None
    circuit_source: str
    """How the circuit was chosen: 'region US' or 'chosen'."""
    reliability: dict[str, ReliabilityClass]
    """The classes of the builds' cards, in order of first appearance."""
    notes: tuple[str, ...]
    nearest: tuple[Alternative, ...] = ()
    """When no build can win: the nearest builds that work for the first one asked about
    (Calculation.alternatives)."""


def parse_counts(texts: Sequence[str]) -> tuple[int, ...]:
    """'1,2,4' (repeatable) -> (1, 2, 4); each from 1 to MAX_GPUS."""
    counts: list[int] = []
    for text in texts:
        for part in text.replace(" ", "").split(","):
            # ASCII digits, and few: int() refuses '²' and 5,000 digits with a traceback
            if not (part.isascii() and part.isdigit() and len(part) <= 3) or not (
                1 <= int(part) <= MAX_GPUS
            ):
                raise CostcalcError(
                    f"GPU count must be a whole number from 1 to {MAX_GPUS}, got {quoted(part)}"
                )
            if int(part) not in counts:
                counts.append(int(part))
    return tuple(counts)


def resolve_gpus(names: Sequence[str], catalog: GpuCatalog) -> tuple[GpuSpec, ...]:
    specs: list[GpuSpec] = []
    for name in names:
        spec = catalog.resolve(name)  # the build's label names the card chosen
        if spec not in specs:
            specs.append(spec)
    if not specs:
        raise CostcalcError("say which desktop GPUs to compare with --gpu (repeatable)")
    return tuple(specs)


def choose_circuit(hw: DesktopHardware, region: str, key: str | None) -> tuple[Circuit | None, str]:
    """The circuit the user named, else the default of their grid region (None: not on file)."""
    if key is not None:
        found = hw.circuit(key)
        if found is None:
            known = ", ".join(c.key for c in hw.circuits)
            raise CostcalcError(f"unknown circuit {quoted(key)}; choose one of {known}")
        return found, "chosen"
    return hw.circuit_for(region), f"region {region}"


def compare_builds(
    scenario: Scenario,
    data: AppData,
    gpus: Sequence[GpuSpec],
    counts: Sequence[int],
    now: datetime,
    *,
    circuit_key: str | None = None,
    measured: MeasuredUse | None = None,
) -> DesktopsComparison:
    """Every build of `counts` x each of `gpus`, under the scenario's use, region and horizon.
    Each build is costed by `scenario.evaluate`, the one desktop costing `quick` and the app
    use: the same price, PSU efficiency, resale, circuit and break-even for the same build."""
    if not gpus or not counts:
        raise CostcalcError("give at least one GPU and one GPU count")
    hw = data.hardware
    if hw is None:
        raise CostcalcError("no desktop build facts are loaded: builds cannot be checked")
    calcs = [
        evaluate(
            replace(scenario, **{"gpu": spec.key, "gpu_count": n}),
            data,
            now,
            circuit=circuit_key,
            measured=measured,
        )
        for spec in gpus
        for n in counts
    ]
    first = calcs[0]
    a = first.assumptions
    dtype = resolved_dtype(scenario, gpus[0])
    batch, batch_note = speed_batch(scenario, data.predictor)
    w = Workload(memory_gb=scenario.memory_gb, kind=scenario.kind, dtype=dtype, batch=batch)
    circuit, circuit_source = choose_circuit(hw, a.home_region, circuit_key)
    # each card at the batch the scenario gives it: the baseline's, or its own (--target-batch)
    plan = batch_plan(scenario, data.predictor, gpus[0], batch, None)
    there = plan.speed_batch if plan.varies else None
    speed = data.predictor.speed_fn(scenario.kind, dtype, batch=w.batch, target_batch=there)
    scale = scale_fn(data.scaling, scenario.kind)
    builds = [
        _build(calc, gpus[0], hw, speed, scale, plan.on(calc.spec) if plan.varies else None)
        for calc in calcs
    ]
    ranked = sorted(builds, key=_rank)
    winners = [b for b in ranked if b.can_win]
    nearest = () if winners else next((c.alternatives for c in calcs if c.alternatives), ())
    return DesktopsComparison(
        builds=tuple(ranked),
        best=winners[0] if winners else None,
        nearest=nearest,
        baseline=gpus[0],
        assumptions=a,
        workload=w,
        circuit=circuit,
        circuit_source=circuit_source,
        reliability=_classes(builds, hw),
        notes=(
            *said(batch_note),
            *_notes(builds, calcs, a.psu_efficiency, circuit, circuit_source, scenario),
        ),
    )


def _build(
    calc: Calculation,
    baseline: GpuSpec,
    hw: DesktopHardware,
    speed: SpeedFn,
    scale: ScaleFn,
    batch: int | None = None,
) -> BuildResult:
    spec, desktop, a = calc.spec, calc.desktop, calc.assumptions
    n = desktop.gpu_count
    price_known = desktop.price_usd is not None
    # A build without a card price counts its price as 0 so its energy and speed still rank;
    # its price, TCO and break-even show as unknown (BuildResult.price_known).
    price_usd = desktop.price_usd if desktop.price_usd is not None else 0.0
    energy = calc.comparison.desktop
    relative = speed(baseline, spec) * scale(spec, n)
    tco = engine.horizon_cost_usd(
        price_usd, energy.electricity_usd_per_year, a.horizon_years, a.resale_share
    )
    busy_hours = a.utilisation * engine.HOURS_PER_YEAR * a.horizon_years
    w = calc.workload
    assert calc.fit is not None  # compare_builds hands evaluate the hardware
    return BuildResult(
        spec=spec,
        gpu_count=n,
        card=hw.card(spec.key),
        desktop=desktop,
        price_known=price_known,
        base_system_usd=calc.base.system.usd if calc.base is not None else 0.0,
        base_tier=calc.base.tier if calc.base is not None else None,
        energy=energy,
        relative_speed=relative,
        tco_usd=tco,
        tco_usd_per_work_hour=tco / (relative * busy_hours),
        cloud=calc.comparison.best if price_known else None,
        holds_job=(batch > 0 if batch is not None else None)
        if batch is not None and w.memory_gb is not None
        else spec.memory_gb >= w.memory_gb
        if w.memory_gb is not None
        else None,
        feasibility=calc.fit.feasibility,
        decision=calc.decision,
        decision_reason=calc.decision_reason,
        batch=batch,
    )


def _rank(b: BuildResult) -> tuple[int, int, float]:
    order = {True: 0, None: 1, False: 2}[b.fits]
    unusable = 0 if b.holds_job is not False and b.price_known else 1
    return order, unusable, b.tco_usd_per_work_hour


def _classes(builds: Sequence[BuildResult], hw: DesktopHardware) -> dict[str, ReliabilityClass]:
    found: dict[str, ReliabilityClass] = {}
    for b in builds:
        if b.spec.segment in hw.reliability and b.spec.segment not in found:
            found[b.spec.segment] = hw.reliability[b.spec.segment]
    return found


def _notes(
    builds: Sequence[BuildResult],
    calcs: Sequence[Calculation],
    psu_efficiency: float,
    circuit: Circuit | None,
    circuit_source: str,
    scenario: Scenario,
) -> list[str]:
    notes = []
    if scenario.psu_efficiency == AT_THE_WALL:  # the default, as quick and the app count
        notes.append(
            f"watts counted as drawn at the wall (PSU efficiency {psu_efficiency:.0%}), as in "
            "`quick` and the app; --psu-efficiency 0.9 adds the losses of an 80 PLUS Gold PSU "
            "(prices/desktop.yaml) to the electricity and the wall circuit alike"
        )
    if circuit is None:
        notes.append(
            f"no household circuit on file for {circuit_source}: the PSU and wall checks are "
            "left open; give --circuit"
        )
    if any(b.gpu_count > 1 for b in builds):
        notes.append(
            "multi-GPU speed assumes data-parallel training with the sourced per-kind scaling of "
            "costcalc/data/scaling.yaml (PCIe for desktop cards); the "
            "memory figure is per GPU: the model is not split across GPUs"
        )
    for calc in calcs:
        if calc.base is not None and calc.base.note is not None and calc.base.note not in notes:
            notes.append(calc.base.note)
    left_out = calcs[0].weighed.left_out if calcs else ()
    if left_out:
        notes.append(
            f"each break-even is against the cheapest comparable offer outside the tiers left "
            f"out ({', '.join(left_out)}; --exclude)"
        )
    unpriced = sorted({b.spec.name for b in builds if not b.price_known})
    if unpriced:
        notes.append(
            f"no card price on file for {', '.join(unpriced)}: price, TCO and break-even are "
            "left out"
        )
    return notes
