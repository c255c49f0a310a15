"""Desktop versus every offer: the one computation the CLI and the app both show.

Rules kept here:
- pure: everything it needs (catalog, grid figures, offers, speeds, `now`) is passed in, so it
  runs in microseconds per offer and tests can pin every input; what does not change between
  offers (speed per GPU, grid per region, age per timestamp) is computed once per value;
- like with like: an offer is *comparable* when it has the desktop's number of GPUs, each with at
  least the memory the job needs (the desktop GPU's memory when the user gives none). Offers
  with more GPUs are *scale-out* options, costed with the sourced scaling of costcalc/data/
  scaling.yaml, and can be the verdict only when the user allows it;
- prices by kind: a stale estimate (older than its limit in costcalc.core.staleness) is never
  the verdict while a comparable observed or list price exists; a spot offer's hours carry its
  expected interruption overhead; a commitment is paid for every hour of its term whatever the
  utilisation, and decides the verdict only when the horizon covers its term
  (costcalc.core.commitment).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import Struct

from costcalc.core import commitment, engine
from costcalc.core.catalog import GpuCatalog
from costcalc.core.grid import GridIndex
from costcalc.core.models import (
    Assumptions,
    CloudOffer,
    DesktopBuild,
    DesktopResult,
    GpuSpec,
    OfferResult,
    RunCost,
    Workload,
    offer_result,
)
from costcalc.core.offers import age_days
from costcalc.core.predict import SpeedFn
from costcalc.core.staleness import is_stale_result, stale_kind

if TYPE_CHECKING:
    from costcalc.core.rent_extras import RentExtras

ScaleFn = Callable[[GpuSpec, int], float]
"""Throughput of n of this GPU relative to one."""
HoldsFn = Callable[[GpuSpec, int], bool]
"""Whether n of this GPU hold the job (a job's memory model: `quick --model`)."""

SPOT_RISK_BY_BUCKET = (0.025, 0.075, 0.125, 0.175, 0.25)
"""Share of instances reclaimed in a month, at the middle of each AWS Spot Advisor bucket
(<5 %, 5-10 %, 10-15 %, 15-20 %, >20 %: the last taken as 25 %)."""
SPOT_RISK_UNKNOWN = 0.25
"""A spot or interruptible offer whose provider publishes no risk: the worst bucket."""

COMPARABLE = "comparable"
SCALE_OUT = "scale-out"
LESS_MEMORY = "less memory"
FEWER_GPUS = "fewer GPUs"


class Rules(Struct, frozen=True):
    """What makes an offer a fair alternative to the desktop, and how spot risk is priced."""

    memory_gb: float
    """Per-GPU memory an offer needs to do the desktop's job."""
    memory_from_job: bool
    """True: the user said the job needs `memory_gb`; False: the desktop GPU's memory."""
    scale_out: bool = False
    """Offers with more GPUs than the desktop may be the verdict."""
    checkpoint_h: float = 5 / 60
    """Time to write one checkpoint (the spot overhead's assumption)."""
    restart_h: float = 0.5
    """Time to get capacity back and reload after an interruption."""
    extras: RentExtras | None = None
    """What renting adds beyond the GPU-hours (storage, transfer, setup), when the user gives
    the data it moves; None: nothing (costcalc.core.rent_extras)."""


class Comparison(Struct, frozen=True):
    desktop: DesktopResult
    desktop_run: RunCost | None
    offers: tuple[OfferResult, ...]
    best: OfferResult | None
    """The verdict's offer: the cheapest a year among guaranteed, fitting, comparable offers
    (scale-out too when allowed), not resting on a stale estimate when it can be helped."""
    break_even_utilisation: float | None
    """Where the verdict against `best` flips: above it the desktop pays back within the
    horizon (searched from the user's utilisation, so it agrees with their verdict); None when
    renting wins even at 100 %, the desktop has no price, or it has no Buy (it cannot hold the
    job here; `scenario.evaluate` clears it for a build that does not work as a desktop)."""
    desktop_fits: bool
    """False when the job needs more memory than the desktop's GPU has: it cannot be bought."""
    rules: Rules
    set_aside: tuple[OfferResult, ...] = ()
    """The stale spot, marketplace and estimated prices cheaper a year than `best` that the
    verdict did not weigh (`candidates`), cheapest first: the answer names them, so a user
    sees what a `costcalc refresh` could change."""


def desktop_result(desktop: DesktopBuild, a: Assumptions) -> tuple[DesktopResult, float]:
    """The desktop's yearly energy, money and carbon; also its wall draw under load."""
    load_w = engine.desktop_load_w(
        desktop.gpu_watts, desktop.gpu_count, desktop.system_watts, a.psu_efficiency
    )
    kwh = engine.desktop_kwh_per_year(load_w, a.utilisation, desktop.idle_watts, a.always_on)
    embodied = (
        engine.embodied_co2_kg_per_year(desktop.embodied_kgco2e, desktop.life_years)
        if a.embodied
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
    if w.run_hours is None or desktop.price_usd is None:
        return None  # no run, or the hardware's share of it is unknown
    kwh = result.load_w * w.run_hours / 1000
    busy_hours = a.utilisation * engine.HOURS_PER_YEAR * a.horizon_years
    runs_over_horizon = max(busy_hours / w.run_hours, 1.0)
    hardware = (
        desktop.price_usd * net_share(a) + repairs_per_year(a) * a.horizon_years
    ) / runs_over_horizon
    usd = engine.electricity_usd(kwh, a.usd_per_kwh) + hardware
    return RunCost(
        hours=w.run_hours,
        billed_hours=w.run_hours,
        usd=usd,
        usd_per_item=engine.usd_per_item(usd, w.items_per_run) if w.items_per_run else None,
        kwh=kwh,
        co2_kg=engine.co2_kg(kwh, a.home_gco2_per_kwh, a.home_pue),
    )


def spot_overhead(offer: CloudOffer, rules: Rules) -> float:
    """The factor on an offer's hours for expected interruptions (1 for on-demand)."""
    if not offer.spot:
        return 1.0
    bucket = offer.interruption_bucket
    share = SPOT_RISK_UNKNOWN if bucket is None else SPOT_RISK_BY_BUCKET[bucket]
    return 1 + engine.interruption_overhead(share, rules.checkpoint_h, rules.restart_h)


def role_of(
    spec: GpuSpec, gpu_count: int, desktop_count: int, rules: Rules, holds: HoldsFn | None = None
) -> str:
    short = not holds(spec, gpu_count) if holds is not None else spec.memory_gb < rules.memory_gb
    if short:
        return LESS_MEMORY
    if gpu_count == desktop_count:
        return COMPARABLE
    return SCALE_OUT if gpu_count > desktop_count else FEWER_GPUS


def compare(
    desktop: DesktopBuild,
    assumptions: Assumptions,
    workload: Workload,
    offers: Sequence[CloudOffer],
    catalog: GpuCatalog,
    grid: GridIndex,
    now: datetime,
    *,
    speed: SpeedFn,
    scale: ScaleFn | None = None,
    rules: Rules | None = None,
    holds: HoldsFn | None = None,
    batch_for: BatchFn | None = None,
) -> Comparison:
    """The desktop against every offer. `speed` gives each offer's per-GPU speed relative to
    the desktop's GPU (the predictor for the workload's kind and precision, or a bench's);
    `scale` the throughput of several GPUs relative to one (default: 0.95 of linear per
    doubling); `rules` what makes an offer comparable (default: the desktop GPU's memory);
    `holds` whether n of a GPU hold the job (a job's memory model, which then decides the fit
    and the role instead of the memory per GPU); `batch_for` the batch per GPU an offer's GPU
    runs, where GPUs run their own (0: the job does not fit it at any batch), which `speed` is
    at."""
    a, w = assumptions, workload
    desk, load_w = desktop_result(desktop, a)
    desk_spec = catalog.get(desktop.gpu)
    rules = rules or default_rules(desk_spec, w)
    cost = offer_coster(
        desktop,
        desk,
        a,
        w,
        catalog,
        grid,
        now,
        speed,
        scale or _default_scale,
        rules,
        holds,
        batch_for,
    )
    results = list(map(cost, offers))
    fits = (
        holds(desk_spec, desktop.gpu_count)
        if holds is not None
        else desktop_fits(desk_spec, desktop, w)
    )
    eligible = _eligible(results, rules, a.horizon_years)
    weighed = _weighed(eligible)
    best = min(weighed, key=_per_year, default=None)
    # a commitment costs the same at any utilisation: below some utilisation paying as you go is
    # the verdict's offer again, so the break-even utilisation weighs the cheapest of those too
    payg = (
        min((r for r in weighed if r.offer.term_years is None), key=_per_year, default=None)
        if best is not None and best.offer.term_years is not None
        else None
    )
    return Comparison(
        desktop=desk,
        desktop_run=desktop_run(desktop, desk, a, w) if fits else None,
        offers=tuple(results),
        best=best,
        break_even_utilisation=(
            _break_even_utilisation(desktop, a, load_w, best, payg, rules.extras)
            if best is not None and fits
            else None
        ),
        desktop_fits=fits,
        rules=rules,
        set_aside=_set_aside(eligible, best),
    )


def default_rules(desk_spec: GpuSpec, w: Workload) -> Rules:
    """Comparable means the job's memory per GPU when given, else the desktop GPU's."""
    need = w.memory_gb
    return Rules(need if need is not None else desk_spec.memory_gb, need is not None)


def desktop_fits(desk_spec: GpuSpec, desktop: DesktopBuild, w: Workload) -> bool:
    """False when the job needs more memory than the desktop's GPU has (or a bench found not
    even a batch of one fits it)."""
    if w.memory_gb is not None and desk_spec.memory_gb < w.memory_gb:
        return False
    return not (w.max_batch and w.max_batch.get(desktop.gpu, 1) < 1)


def desktop_break_even_days(
    price_usd: float | None,
    a: Assumptions,
    cloud_usd_per_year: float,
    electricity_usd_per_year: float,
) -> float | None:
    """The one break-even every figure rests on: the offers' column, the verdict, the curves
    and the break-even utilisation. Resale is in it (engine.break_even_days); None when the
    desktop never pays back, or when its price is not known."""
    if price_usd is None:
        return None
    owning = a.owning
    if owning is None:
        return engine.break_even_days(
            price_usd,
            cloud_usd_per_year / engine.DAYS_PER_YEAR,
            electricity_usd_per_year / engine.DAYS_PER_YEAR,
            a.resale_share,
        )
    return engine.break_even_days(
        price_usd,
        cloud_usd_per_year / engine.DAYS_PER_YEAR,
        (electricity_usd_per_year + owning.repairs_usd_per_year) / engine.DAYS_PER_YEAR,
        a.resale_share,
        owning.interest_share,
    )


def net_share(a: Assumptions) -> float:
    """The share of the desktop's price it costs over the horizon, running costs aside: less
    its resale, plus a loan's interest (1 - resale + interest)."""
    interest = a.owning.interest_share if a.owning is not None else 0.0
    return 1 - a.resale_share + interest


def repairs_per_year(a: Assumptions) -> float:
    """The repairs allowance a year (0 when not counted)."""
    return a.owning.repairs_usd_per_year if a.owning is not None else 0.0


OfferFacts = tuple[float, float, GpuSpec, str, int | None]
"""What an offer's GPU and count give, whatever its price: relative speed, server watts, the
GPU's spec, the offer's role and the batch per GPU it runs (None: the desktop's)."""
BatchFn = Callable[[GpuSpec], "int | None"]
"""The batch per GPU a GPU runs (0: the job fits it at no batch; None: the desktop's)."""


def offer_coster(
    desktop: DesktopBuild,
    desk: DesktopResult,
    a: Assumptions,
    w: Workload,
    catalog: GpuCatalog,
    grid: GridIndex,
    now: datetime,
    speed: SpeedFn,
    scale: ScaleFn,
    rules: Rules,
    holds: HoldsFn | None = None,
    batch_for: BatchFn | None = None,
) -> Callable[[CloudOffer], OfferResult]:
    """The function that costs one offer against the desktop.

    A closure, not a class: it runs once per offer on every keystroke, and what does not change
    between offers (speed per GPU and count, grid per region, age per timestamp, spot overhead
    per risk bucket) is looked up in its dictionaries, computed on first sight by the named
    steps below."""
    desk_spec = catalog.get(desktop.gpu)
    desk_scale = scale(desk_spec, desktop.gpu_count)
    # Read once: attribute look-ups on the models, repeated per offer, cost as much as a step.
    busy_hours = a.utilisation * engine.HOURS_PER_YEAR
    horizon_years = a.horizon_years
    price_usd, electricity_per_year = desktop.price_usd, desk.electricity_usd_per_year
    host_w = grid.data.cloud_host_w_per_gpu
    check_fit = bool(w.max_batch) or w.memory_gb is not None or holds is not None
    per_batch, run_hours = bool(w.max_batch), w.run_hours
    per_gpu: dict[tuple[str, int], OfferFacts] = {}
    grids: dict[tuple[str, str], tuple[float, float]] = {}
    ages: dict[int, float] = {}  # by the timestamp object: hashing aware datetimes is slow
    overheads: dict[int | None, float] = {}  # spot overhead by interruption bucket
    extras = rules.extras

    def gpu_facts(offer: CloudOffer) -> OfferFacts:
        spec = catalog.get(offer.gpu)
        rel = speed(desk_spec, spec) * scale(spec, offer.gpu_count) / desk_scale
        watts = engine.cloud_server_w(offer.gpu_count, spec.board_power_w, host_w)
        role = role_of(spec, offer.gpu_count, desktop.gpu_count, rules, holds)
        return rel, watts, spec, role, batch_for(spec) if batch_for is not None else None

    def grid_facts(offer: CloudOffer) -> tuple[float, float]:
        g = grid.for_offer(offer.provider, offer.region)
        return g.gco2_per_kwh, g.pue

    def cost(offer: CloudOffer) -> OfferResult:
        facts = per_gpu.get((offer.gpu, offer.gpu_count))
        if facts is None:
            facts = per_gpu[(offer.gpu, offer.gpu_count)] = gpu_facts(offer)
        rel, offer_w, spec, role, batch = facts
        found_grid = grids.get((offer.provider, offer.region))
        if found_grid is None:
            found_grid = grids[(offer.provider, offer.region)] = grid_facts(offer)
        gco2, pue = found_grid
        age = ages.get(id(offer.fetched_at))
        if age is None:
            age = ages[id(offer.fetched_at)] = age_days(offer.fetched_at, now)
        overhead = 1.0
        if offer.spot:
            found_overhead = overheads.get(offer.interruption_bucket)
            if found_overhead is None:
                found_overhead = overheads[offer.interruption_bucket] = spot_overhead(offer, rules)
            overhead = found_overhead
        effective = rel / overhead  # interruptions cost hours as a slower GPU would
        hours, usd_year = cloud_year(offer, busy_hours, effective, horizon_years, extras)
        fits: bool | None
        if holds is not None:
            fits = role != LESS_MEMORY  # the role asked `holds` once per GPU
        elif check_fit:  # a GPU with its own batch fits the job at it, or at none (0)
            fits = batch > 0 if batch is not None else _fits(spec, offer.gpu, w)
        else:
            fits = None
        return offer_result(
            offer=offer,
            spec=spec,
            relative_speed=rel,
            role=role,
            overhead=overhead,
            hours_per_year=hours,
            usd_per_year=usd_year,
            break_even_days=desktop_break_even_days(price_usd, a, usd_year, electricity_per_year),
            co2_kg_per_year=engine.co2_kg(hours * offer_w / 1000, gco2, pue),
            price_age_days=age,
            fits=fits,
            usd_per_batch_item=_usd_per_batch_item(offer, w) if per_batch else None,
            run=_offer_run(offer, effective, offer_w, gco2, pue, a, w, extras)
            if run_hours is not None and fits is not False
            else None,
            batch=batch,
        )

    return cost


def _default_scale(_spec: GpuSpec, count: int) -> float:
    return engine.multi_gpu_speedup(count)


def cloud_year(
    offer: CloudOffer,
    busy_hours: float,
    relative_speed: float,
    horizon_years: float = 3.0,
    extras: RentExtras | None = None,
) -> tuple[float, float]:
    """Hours a year the offer needs for the desktop's busy hours, and what a year of it costs
    (`relative_speed` already carries any interruption overhead): servers rented by the month
    bill whole months, a setup fee is spread over the horizon, and a commitment is paid for
    every hour of its term (costcalc.core.commitment). With `extras`, each run's boot and setup
    time is billed in the hours and the provider's storage and transfer a year are added."""
    hours = engine.cloud_hours_for(busy_hours, relative_speed)
    fixed = 0.0
    if extras is not None:
        hours += extras.setup_hours(busy_hours)
        fixed = extras.extra_usd(offer.provider, busy_hours)
    if offer.term_years is not None:
        usd = commitment.committed_usd_per_year(
            offer.usd_per_hour, hours, offer.term_years, horizon_years
        )
        return hours, usd + offer.setup_fee_usd / horizon_years + fixed
    billed = engine.billed_hours_per_year(hours, offer.billing_increment_s)
    usd = engine.cloud_usd_for_hours(
        billed, offer.usd_per_hour, offer.monthly_fee_usd, offer.included_usd_per_month
    )
    if offer.setup_fee_usd:
        usd += offer.setup_fee_usd / horizon_years
    return hours, usd + fixed


def is_stale_volatile(result: OfferResult) -> bool:
    """A price of a kind that moves within days or weeks (an estimate, an observed spot or
    marketplace price) past its kind's staleness limit: the GPU it priced may long be gone."""
    return stale_kind(result.offer) in ("estimate", "market") and is_stale_result(result)


def _eligible(
    results: Sequence[OfferResult], rules: Rules, horizon_years: float | None
) -> list[OfferResult]:
    roles = (COMPARABLE, SCALE_OUT) if rules.scale_out else (COMPARABLE,)
    return [
        r
        for r in results
        if r.offer.guaranteed
        and r.fits is not False
        and r.role in roles
        and (
            r.offer.term_years is None
            or horizon_years is None
            or commitment.fits_horizon(r.offer.term_years, horizon_years)
        )
    ]


def _per_year(result: OfferResult) -> float:
    return result.usd_per_year


def _weighed(eligible: list[OfferResult]) -> list[OfferResult]:
    """No stale estimate or stale spot or marketplace price while a price that is not both is
    among `eligible`."""
    trusted = [r for r in eligible if not is_stale_volatile(r)]
    return trusted or eligible


def candidates(
    results: Sequence[OfferResult], rules: Rules, horizon_years: float | None = None
) -> list[OfferResult]:
    """The offers the verdict may name: a guaranteed GPU that fits, comparable (or scale-out
    when allowed), no commitment longer than the horizon, and no stale estimate or stale spot or
    marketplace price while a price that is not both is among them."""
    return _weighed(_eligible(results, rules, horizon_years))


def _set_aside(eligible: list[OfferResult], best: OfferResult | None) -> tuple[OfferResult, ...]:
    """Comparison.set_aside: what `_weighed` left out of `eligible` and is cheaper than `best`."""
    if best is None or is_stale_volatile(best):
        return ()
    cheaper = [r for r in eligible if is_stale_volatile(r) and r.usd_per_year < best.usd_per_year]
    return tuple(sorted(cheaper, key=_per_year))


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
    extras: RentExtras | None = None,
) -> RunCost | None:
    if w.run_hours is None:
        return None
    hours = engine.cloud_hours_for(w.run_hours, rel)
    setup_s = extras.use.setup_h * 3600 if extras is not None else 0.0
    billed_s = engine.billed_seconds(
        hours * 3600 + setup_s, offer.billing_increment_s, offer.billing_minimum_s
    )
    share = 0.0
    if offer.monthly_fee_usd:
        runs = engine.runs_per_month(a.utilisation, w.run_hours)
        share = engine.plan_share_usd(offer.monthly_fee_usd, runs)
    usd = engine.billed_cost_usd(billed_s, offer.usd_per_hour, share)
    if extras is not None:
        usd += run_share_usd(extras, offer.provider, a.utilisation * engine.HOURS_PER_YEAR)
    if offer.term_years is not None:
        # the term is paid whether used or not: a run carries its share of the year's cost
        runs_a_year = engine.runs_per_month(a.utilisation, w.run_hours) * engine.MONTHS_PER_YEAR
        year = commitment.committed_usd_per_year(
            offer.usd_per_hour, hours * runs_a_year, offer.term_years, a.horizon_years
        )
        usd = max(usd, year / max(runs_a_year, 1.0))
    kwh = hours * offer_w / 1000
    return RunCost(
        hours=hours,
        billed_hours=billed_s / 3600,
        usd=usd,
        usd_per_item=engine.usd_per_item(usd, w.items_per_run) if w.items_per_run else None,
        kwh=kwh,
        co2_kg=engine.co2_kg(kwh, gco2, pue),
    )


def run_share_usd(extras: RentExtras, provider: str, busy_hours: float) -> float:
    """One run's share of a year's storage and transfer at `provider` (the year's figure over
    the runs a year; all of it when there is less than one run)."""
    year = extras.year(provider, busy_hours)
    return year.usd / max(year.runs, 1.0)


def _break_even_utilisation(
    desktop: DesktopBuild,
    a: Assumptions,
    load_w: float,
    best: OfferResult,
    payg: OfferResult | None = None,
    extras: RentExtras | None = None,
) -> float | None:
    """The utilisation at which the verdict against `best` flips, by the verdict's own rule
    (engine.pays_back on desktop_break_even_days) at each utilisation tried; None without a
    desktop price. When `best` is a commitment, `payg` (the cheapest comparable offer paid as
    you go) stands in wherever it costs less."""
    if desktop.price_usd is None:
        return None
    rivals = [(r.offer, r.effective_speed) for r in (best, payg) if r is not None]

    def pays_back_at(u: float) -> bool:
        kwh = engine.desktop_kwh_per_year(load_w, u, desktop.idle_watts, a.always_on)
        electricity = engine.electricity_usd(kwh, a.usd_per_kwh)
        cloud = min(
            cloud_year(offer, u * engine.HOURS_PER_YEAR, speed, a.horizon_years, extras)[1]
            for offer, speed in rivals
        )
        days = desktop_break_even_days(desktop.price_usd, a, cloud, electricity)
        return engine.pays_back(days, a.horizon_years)

    return engine.break_even_utilisation(pays_back_at, a.utilisation)
