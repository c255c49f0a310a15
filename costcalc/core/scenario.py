"""A user's whole question as one value, and the one function that answers it.

`Scenario` holds every input a user can give, from the CLI's flags, the app's fields, the saved
settings file or the environment (costcalc.core.inputs builds it, layer by layer). `evaluate` turns
a scenario plus the loaded data into the `Calculation` that the CLI's text, its JSON and the app all
render: the whole answer (the decision and its reason, what would flip it, the readings of its
price, the offers set aside, the notes), so the three can never disagree.

Rule kept here: pure. Data (catalog, grid, prices, predictor, a loaded bench result) and `now`
are passed in; every default comes from them; every value the user gives is checked with a
message that says what a valid one looks like. The bounds of each input live on its field here
and nowhere else: the text parsers read them from the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core import engine, memfit, tiers
from costcalc.core.catalog import CardPrice, GpuCatalog, card_price
from costcalc.core.commitment import term_label
from costcalc.core.compare import Comparison, Rules, ScaleFn, compare
from costcalc.core.constants import (
    CUSTOM_PROVIDER,
    MIN_UTILISATION,
    Dtype,
)
from costcalc.core.decision import NO_BUY, Decision, decision, reason
from costcalc.core.electricity import ElectricityIndex, HouseholdPrice
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.feasibility import Feasibility, check_build
from costcalc.core.fx import USD, Converter, Money, format_money, money_for
from costcalc.core.grid import GridIndex
from costcalc.core.models import (
    RESALE_BY_AGE,
    Assumptions,
    BaseSystem,
    BaseTier,
    CloudOffer,
    DesktopBuild,
    DesktopDefaults,
    GpuSpec,
    OwningCosts,
    ScalingData,
    Scenario,
    Workload,
    upgrade_settings,
)
from costcalc.core.offers import PriceBook, custom_offer
from costcalc.core.predict import Predictor, SpeedFn, default_dtype
from costcalc.core.ranges import PriceRange, ReadingsOf, verdict_range
from costcalc.core.records import ValidationError, problem, validated
from costcalc.core.staleness import MAX_AGE_DAYS
from costcalc.core.thresholds import Thresholds, thresholds
from costcalc.core.usage import MeasuredUse, MonthlyUse, is_measured

if TYPE_CHECKING:
    from costcalc.core.alternatives import Alternative, Asked
    from costcalc.core.batching import BatchPlan
    from costcalc.core.bench_apply import BenchEffects
    from costcalc.core.bench_results import BenchResult
    from costcalc.core.hardware import DesktopHardware
    from costcalc.core.hybrid import HybridPlan
    from costcalc.core.job_quick import JobClock, JobFiles, QuickJob
    from costcalc.core.owning import Loan, OwnershipFile, Repairs, ResaleByAge
    from costcalc.core.rent_extras import RentExtras, StorageFile


def validate_scenario(values: dict[str, Any], cls: type[Scenario] = Scenario) -> Scenario:
    """A scenario from plain values, or CostcalcError with one line naming the first bad input."""
    try:
        return validated(cls, upgrade_settings(values))
    except ValidationError as exc:
        raise CostcalcError(problem(exc)) from None


# --------------------------------------------------------------------------- data


class AppData(Struct):
    """Everything a comparison needs from disk, loaded once (costcalc.store.loaders reads it)."""

    catalog: GpuCatalog
    grid: GridIndex
    desktop_defaults: DesktopDefaults
    book: PriceBook
    predictor: Predictor
    scaling: ScalingData
    electricity: ElectricityIndex
    fx: Converter
    hardware: DesktopHardware | None = None
    """The physical facts of desktop builds (slots, PSUs, wall circuits); None: no fit check."""
    storage: StorageFile | None = None
    """Renting's storage and transfer rates (prices/storage.yaml), loaded by the caller when a
    scenario gives the data its runs move (costcalc.store.loaders.for_scenario)."""
    ownership: OwnershipFile | None = None
    """Published failure rates by card class (costcalc/data/ownership.yaml), loaded by the
    caller when a scenario counts repairs at the class's rate."""

    @property
    def default_usd_per_kwh(self) -> float:
        """The household price of the default home region (the US average)."""
        return self.electricity.lookup(None).usd_per_kwh


# --------------------------------------------------------------------------- building blocks


T = TypeVar("T")

Noted = tuple[T, str | None]
"""What a step of `evaluate` found, and what the user should know about it (None: nothing)."""


def by_gpu_count(table: dict[int, T], gpu_count: int) -> T:
    """Value for the smallest build size that holds `gpu_count` GPUs (1, 2, 4 ...)."""
    sizes = sorted(table)
    for size in sizes:
        if size >= gpu_count:
            return table[size]
    return table[sizes[-1]]


class BaseChoice(Struct, frozen=True):
    """The base system a desktop is priced on, and why that one."""

    tier: BaseTier
    system: BaseSystem
    note: str | None = None
    """Said when the chosen tier has no build for this many GPUs."""


def base_system(defaults: DesktopDefaults, tier: BaseTier | None, gpu_count: int) -> BaseChoice:
    """The chosen tier's base system for `gpu_count` GPUs (the default tier for that count when
    none is chosen); a tier built for fewer GPUs gives way to the default one, with a note."""
    default = by_gpu_count(defaults.base_default, gpu_count)
    wanted = tier or default
    sizes = defaults.base_systems[wanted]
    if gpu_count > max(sizes) and wanted != default:
        note = (
            f"the {wanted} base system holds at most {max(sizes)} GPUs: {gpu_count} GPUs are "
            f"priced on the {default} one"
        )
        return BaseChoice(default, by_gpu_count(defaults.base_systems[default], gpu_count), note)
    return BaseChoice(wanted, by_gpu_count(sizes, gpu_count))


def build_desktop(
    spec: GpuSpec,
    defaults: DesktopDefaults,
    gpu_count: int = 1,
    *,
    price_usd: float | None = None,
    gpu_watts: float | None = None,
    system_watts: float | None = None,
    idle_watts: float | None = None,
) -> DesktopBuild:
    """The desktop: what is given, the rest from the GPU's spec and the defaults for its GPU
    count. Values are checked once, on the Scenario; the model keeps the same bounds. The price
    stays None when none is given and the GPU has none: every figure but break-even follows."""
    if price_usd is None:
        price_usd = default_price_usd(spec, defaults, gpu_count)
    return DesktopBuild(
        gpu=spec.key,
        gpu_count=gpu_count,
        price_usd=price_usd,
        gpu_watts=spec.board_power_w if gpu_watts is None else gpu_watts,
        system_watts=(
            by_gpu_count(defaults.rest_of_system_w, gpu_count)
            if system_watts is None
            else system_watts
        ),
        idle_watts=by_gpu_count(defaults.idle_system_w, gpu_count)
        if idle_watts is None
        else idle_watts,
        embodied_kgco2e=defaults.embodied_kgco2e_system
        + defaults.embodied_kgco2e_per_gpu * gpu_count,
        life_years=defaults.life_years,
    )


def default_price_usd(
    spec: GpuSpec, defaults: DesktopDefaults, gpu_count: int, tier: BaseTier | None = None
) -> float | None:
    """The GPUs' price plus the base system for their count; None when the GPU has no price."""
    card = card_price(spec)
    if card is None:
        return None
    return card.usd * gpu_count + base_system(defaults, tier, gpu_count).system.usd


def build_assumptions(
    grid: GridIndex,
    *,
    utilisation: float,
    usd_per_kwh: float,
    region: str | None = None,
    psu_efficiency: float = 1.0,
    always_on: bool = False,
    horizon_years: float = 3.0,
    resale_share: float = 0.0,
    embodied: bool = False,
) -> Assumptions:
    """How the desktop is used, with the home grid's carbon. Values are checked once, on the
    Scenario; the Assumptions model keeps the same bounds."""
    home = grid.home(region)
    return Assumptions(
        utilisation=utilisation,
        usd_per_kwh=usd_per_kwh,
        home_region=home.code,
        home_gco2_per_kwh=home.gco2_per_kwh,
        psu_efficiency=psu_efficiency,
        always_on=always_on,
        horizon_years=horizon_years,
        resale_share=resale_share,
        embodied=embodied,
    )


def offers_for(
    scenario: Scenario, offers: Sequence[CloudOffer], catalog: GpuCatalog
) -> list[CloudOffer]:
    """Offers the comparison considers: every filter of the scenario (providers, tiers left out
    and spot or on-demand, cloud regions, GPU families, memory per GPU, words). Filters narrow
    the answer, not only the rows: the verdict is chosen among what passes."""
    providers = set(scenario.providers) - {CUSTOM_PROVIDER}
    excluded = tiers.left_out(scenario.exclude_tiers, scenario.offer_kind)
    regions = {r.casefold() for r in scenario.cloud_regions}
    gpus = {s.key for name in scenario.cloud_gpus for s in catalog.family(name)}
    words = match_words(scenario.offer_match)
    kept = []
    for o in offers:
        if providers and o.provider not in providers:
            continue
        if (excluded and not tiers.keeps(o, excluded)) or (
            regions and o.region.casefold() not in regions
        ):
            continue
        if gpus and o.gpu not in gpus:
            continue
        if (
            scenario.min_memory_gb is not None
            and catalog.get(o.gpu).memory_gb < scenario.min_memory_gb
        ):
            continue
        if words:
            text = offer_text(o, catalog)
            if not any(all(w in text for w in alternative) for alternative in words):
                continue
        kept.append(o)
    return kept


def match_words(text: str | None) -> tuple[tuple[str, ...], ...]:
    """'a100|rtx 4090' -> (('a100',), ('rtx', '4090')): an offer passes when it holds every word
    of one alternative (what people type: words narrow, | widens)."""
    if not text:
        return ()
    alternatives = (part.casefold().split() for part in text.split("|"))
    return tuple(tuple(words) for words in alternatives if words)


def offer_text(offer: CloudOffer, catalog: GpuCatalog) -> str:
    """What the words filter looks in: what the offers table shows of the offer, and nothing
    it hides (an offer must not match `free` through a plan name no column shows): the
    provider, the offer's name, its GPU as shown ('2x A100 SXM4 40GB'), the region, the
    plan/host words and the price kind. tests/tui/test_filter_words.py holds it to the cells."""
    spec = catalog.get(offer.gpu)
    count = f"{offer.gpu_count}x" if offer.gpu_count > 1 else ""
    if offer.monthly_fee_usd:
        host = "plan"
    elif tiers.is_free(offer):
        host = "free"
    elif offer.provider == "colab":
        host = "no plan"
    else:
        host = "vcpu" if offer.vcpus is not None else ""
    if offer.provider == CUSTOM_PROVIDER:
        kind = "yours"
    elif offer.term_years is not None:
        kind = term_label(offer.term_years)
    else:
        kind = offer.price_kind
    return " ".join(
        (
            offer.provider,
            offer.name,
            offer.region,
            count,
            spec.short_name,
            host,
            kind,
            "spot" if offer.spot else "",
        )
    ).casefold()


def resolved_dtype(scenario: Scenario, spec: GpuSpec) -> Dtype:
    """'auto' is mixed precision on a desktop GPU with tensor cores, fp32 otherwise; with a
    model, costcalc job's bf16, so both answer for the same job."""
    if scenario.dtype != "auto":
        return scenario.dtype
    if scenario.model is not None:
        return "bf16"
    return default_dtype(spec)


def scale_fn(scaling: ScalingData, kind: str) -> ScaleFn:
    """Throughput of n GPUs relative to one, for the kind of work, over NVLink (SXM) or PCIe."""

    def scale(spec: GpuSpec, count: int) -> float:
        nvlink = spec.form_factor == "SXM"
        return engine.multi_gpu_speedup(count, scaling.efficiency_per_doubling(kind, nvlink))

    return scale


# --------------------------------------------------------------------------- the answer


class Calculation(Struct, frozen=True, kw_only=True):
    """The whole answer to one scenario, computed at once: what the CLI's text, its JSON, the
    app and `serve` show. They word it and lay it out; none computes a part of it again."""

    scenario: Scenario
    """As given, with the GPU and home region resolved to their catalog and grid codes."""
    spec: GpuSpec
    desktop: DesktopBuild
    assumptions: Assumptions
    workload: Workload
    offers: tuple[CloudOffer, ...]
    comparison: Comparison
    now: datetime
    bench: BenchEffects | None = None
    bench_label: str | None = None
    notes: tuple[str, ...] = ()
    """Things the user should know about how their inputs were used."""
    money: Money = USD
    """The currency amounts are shown (and were typed) in."""
    electricity: HouseholdPrice | None = None
    """The home region's household price that was used; None when the user gave theirs."""
    card: CardPrice | None = None
    """The card price in the default desktop price; None when the user gave the price."""
    base: BaseChoice | None = None
    """The base system in the default desktop price; None when the user gave the price."""
    fit: DesktopFit | None = None
    """Whether the build physically works (slots, cooling, PSU, wall circuit); None when the
    hardware facts are not loaded."""
    decision: Decision | None = None
    """buy, rent, or no Buy (cannot_fit, cannot_build): costcalc.core.decision, made once here
    for every front end; None without a verdict (no desktop price, or no comparable offer)."""
    decision_reason: str | None = None
    """Why, in one line: '4x RTX 4090 needs 12 slots (the board has 7), ...' for no Buy."""
    alternatives: tuple[Alternative, ...] = ()
    """Without Buy, the nearest builds that work (costcalc.core.alternatives), nearest first."""
    thresholds: Thresholds
    """What would flip the decision, one input at a time (costcalc.core.thresholds)."""
    price_range: PriceRange | None = None
    """The readings of the verdict offer's price, low to high, and those at which the decision
    would flip (costcalc.core.ranges); None without a verdict offer or for the user's own."""
    measured: MeasuredUse | None = None
    """With `--util measured`: the busy share used, its window and spread, and whether its
    power under load became the desktop's GPU watts (`load_w_used`)."""
    extras: RentExtras | None = None
    """What renting adds beyond the GPU-hours (storage, transfer, setup) when the scenario
    gives the data its runs move; the comparison's rules carry the same (Rules.extras)."""
    loan: Loan | None = None
    """The loan the desktop is bought with (--apr, --term-years); None: paid in cash."""
    repairs: Repairs | None = None
    """The repairs allowance a year (--repairs, --failure-rate); None: not counted."""
    resale: ResaleByAge | None = None
    """The resale by the cards' age (--resale age); None: the flat share, if any."""
    hybrid: HybridPlan | None = None
    """With --hybrid: how many desktops to own and what to rent above them, every owned count
    weighed (costcalc.core.hybrid)."""
    cash_basis: str | None = None
    """What the verdict compares when owning is counted in full (a loan's cash flows, repairs,
    resale by age), in words; None: the price, electricity and a flat resale."""
    job: QuickJob | None = None
    """With `--model`: the training job whose hours on the desktop are the run's hours, its
    memory per GPU, whether the desktop holds it, and the utilisation its runs a year make
    (costcalc.core.job_quick)."""
    batch_plan: BatchPlan | None = None
    """Which batch each GPU runs and why (--target-batch); None: the desktop's everywhere."""

    @property
    def counts_whole_cost(self) -> bool:
        """Whether the scenario counts more than the GPU-hours and the desktop's price and power:
        storage and transfer, a loan, repairs, resale by age or the hybrid plan, which
        costcalc.present.whole_cost words (and only then imports)."""
        given = (self.extras, self.loan, self.repairs, self.resale, self.hybrid, self.cash_basis)
        return any(v is not None for v in given)

    @property
    def weighed(self) -> tiers.Weighed:
        """The tiers the answer weighed and those it left out (--exclude, --offers)."""
        s = self.scenario
        return tiers.weighed(self.offers, tiers.left_out(s.exclude_tiers, s.offer_kind))

    @property
    def electricity_text(self) -> str:
        """'€0.387/kWh, Germany, Eurostat 2025-S2', or the user's own price."""
        if self.electricity is not None:
            return self.electricity.label
        price = self.money.of(self.assumptions.usd_per_kwh)
        return f"{self.money.symbol}{price:.3g}/kWh, your price"


def evaluate(
    scenario: Scenario,
    data: AppData,
    now: datetime,
    *,
    bench: BenchResult | None = None,
    fallback_gpu: str | None = None,
    circuit: str | None = None,
    recorded: ReadingsOf | None = None,
    measured: MeasuredUse | None = None,
    job_files: JobFiles | None = None,
    monthly: MonthlyUse | None = None,
) -> Calculation:
    """The answer for `scenario`. `bench` is the loaded result `scenario.bench` names;
    `fallback_gpu` is the desktop when neither the scenario nor the bench names one (the app
    uses the reference RTX 3090; the CLI asks); `circuit` the wall circuit's key when the user
    names one (else the home region's); `recorded` the caller's reader of the readings of an
    offer's price beyond the prices in use (costcalc.store.readings), asked for the verdict's
    offer alone, once the comparison has chosen it (None: the prices in use alone); `measured`
    the busy share a `measured` utilisation names, read by the caller (costcalc.store.usage);
    `job_files` the model list and public runs a `model` needs (costcalc.store.bundled): the
    job's time and memory models then give the run's hours, the offers' speeds and the fit;
    `monthly` the busy share of each of the last twelve months a `--profile measured` names,
    read by the caller (costcalc.store.usage.monthly_use)."""
    spec, spec_note = desktop_spec(scenario, data.catalog, bench, fallback_gpu)
    dtype = resolved_dtype(scenario, spec)
    clock, job_note = job_clock(scenario, data, job_files, dtype)
    if clock is not None and scenario.runs_per_year is not None:
        measured = None  # the runs give the utilisation
    else:
        measured = measured_use(scenario, measured, spec, data.catalog)
    plan: BatchPlan | None = None
    if clock is None:
        batch, batch_note = speed_batch(scenario, data.predictor)
        found, bench_note = bench_effects(scenario, data, bench, spec, dtype, batch)
        plan = batch_plan(scenario, data.predictor, spec, batch, found)
        if found is not None and found.speed is not None and plan.varies and bench is not None:
            from costcalc.core.bench_apply import speed_from

            speed_at = speed_from(
                bench, scenario.kind, dtype, data.predictor, batch, target_batch=plan.speed_batch
            )
            found = replace(found, speed=speed_at)
        kind = scenario.kind
    else:  # the job's own models: its batch is the memory's, no speed split is read
        batch, batch_note, found, bench_note = scenario.batch, None, None, None
        kind = clock.kind
    lean = None if found or clock else data.predictor.known_bias([spec], kind, dtype)
    lean_note = f"speeds relative to the {spec.name}: {lean}" if lean else None
    household = data.electricity.lookup(scenario.home_region)
    money = money_for(data.fx, currency_of(scenario, household))
    price_note = household.fallback if scenario.usd_per_kwh is None else None
    priced = desktop_price(scenario, data, spec, money, now)
    desktop = build_desktop(
        spec,
        data.desktop_defaults,
        scenario.gpu_count,
        price_usd=priced.usd,
        gpu_watts=desktop_gpu_watts(scenario, measured, found),
        system_watts=scenario.system_watts,
        idle_watts=scenario.idle_watts,
    )
    job = None if clock is None else quick_job_on(scenario, clock, spec)
    from_runs = job.utilisation_from_runs if job is not None else None
    assumptions = scenario_assumptions(scenario, data, household, money, measured, from_runs)
    owned = owning_costs(scenario, data, spec, priced.usd, now)
    if owned.owning is not None or owned.resale is not None:
        assumptions = replace(
            assumptions,
            **{
                "owning": owned.owning,
                "resale_share": owned.resale.share
                if owned.resale is not None
                else assumptions.resale_share,
            },
        )
    fit, fit_note = desktop_fit(spec, desktop, assumptions, data.hardware, circuit)
    workload = Workload(
        run_hours=job_run_hours(scenario, found, job),
        items_per_run=scenario.items_per_run or (job.job.items if job is not None else None),
        memory_gb=job.memory.total_gb if job is not None else scenario.memory_gb,
        max_batch=dict(found.max_batch) if found else {},
        kind=kind,
        dtype=dtype,
        batch=batch,
    )
    chosen = chosen_offers(scenario, data, spec, money, now)
    if clock is not None:
        speed: SpeedFn = clock.speed
        scale: ScaleFn = clock.scale
    else:
        target = plan.speed_batch if plan is not None and plan.varies else None
        speed = (found.speed if found else None) or data.predictor.speed_fn(
            kind, dtype, batch=batch, target_batch=target
        )
        scale = scale_fn(data.scaling, kind)
    extras, extras_note = rent_extras(scenario, data, workload, chosen)
    comparison = compare(
        desktop,
        assumptions,
        workload,
        chosen,
        data.catalog,
        data.grid,
        now,
        speed=speed,
        scale=scale,
        rules=replace(scenario_rules(scenario, spec, job), **{"extras": extras}),
        holds=clock.holds if clock is not None else None,
        batch_for=plan.on if plan is not None and plan.varies else None,
    )
    decided, comparison, nearest = decide(
        scenario, data, spec, desktop, assumptions, comparison, fit, speed, scale
    )
    flips = thresholds(comparison, assumptions, decided)
    hybrid_found, hybrid_note = hybrid_plan(scenario, comparison, desktop, assumptions, monthly)
    basis = cash_basis(owned, assumptions, money)
    resolved = replace(
        scenario,
        **{
            "gpu": spec.key,
            "home_region": assumptions.home_region,
            "dtype": dtype,
            "batch": batch,
            "kind": kind,
            **({"model": job.job.model.key} if job is not None else {}),
        },
    )
    if job is not None and clock is not None:  # every GPU and count the comparison timed
        job = replace(job, times=dict(clock.times))
    return Calculation(
        scenario=resolved,
        spec=spec,
        desktop=desktop,
        assumptions=assumptions,
        workload=workload,
        offers=tuple(chosen),
        comparison=comparison,
        now=now,
        bench=found,
        bench_label=_bench_label(bench) if bench is not None else None,
        # what the user should know about how their inputs were used, in the order the
        # steps found it
        notes=said(
            spec_note,
            job_note,
            batch_note,
            bench_note,
            lean_note,
            price_note,
            *priced.notes,
            runs_note(scenario),
            *owned.notes,
            fit_note,
            extras_note,
            hybrid_note,
        ),
        money=money,
        electricity=household if scenario.usd_per_kwh is None else None,
        card=priced.card,
        base=priced.base,
        fit=fit,
        decision=decided,
        decision_reason=reason(
            decided,
            comparison,
            assumptions,
            spec,
            workload,
            fit.feasibility if fit else None,
            basis=basis,
        ),
        alternatives=nearest,
        thresholds=flips,
        price_range=verdict_range(comparison.best, data.book.offers, flips, recorded),
        measured=measured,
        extras=extras,
        loan=owned.loan,
        repairs=owned.repairs,
        resale=owned.resale,
        hybrid=hybrid_found,
        cash_basis=basis,
        job=job,
        batch_plan=plan if plan is not None and plan.varies else None,
    )


def job_clock(
    scenario: Scenario, data: AppData, files: JobFiles | None, dtype: Dtype
) -> Noted[JobClock | None]:
    """With a model, the job's clock (its hours on any GPUs, and whether they hold it) and a
    note of the inputs it makes unused; None without one."""
    if scenario.model is None:
        return None, None
    if files is None:
        raise CostcalcError("the model list was not loaded: a job cannot be priced")
    from costcalc.core.job_quick import JobClock, ignored_inputs, job_of  # only with a model

    job = job_of(scenario, files, dtype)
    clock = JobClock(job, data.catalog, data.scaling, files.mfu, data.predictor)
    return clock, ignored_inputs(scenario)


def quick_job_on(scenario: Scenario, clock: JobClock, spec: GpuSpec) -> QuickJob:
    from costcalc.core.job_quick import quick_job  # only with a model

    return quick_job(scenario, clock, spec, scenario.gpu_count)


def job_run_hours(
    scenario: Scenario, found: BenchEffects | None, job: QuickJob | None
) -> float | None:
    """One run's hours on the desktop: the job's time model, else the user's, else a bench's."""
    if job is not None:
        return job.hours
    return scenario.run_hours or (found.run_hours if found else None)


def measured_use(
    scenario: Scenario, measured: MeasuredUse | None, spec: GpuSpec, catalog: GpuCatalog
) -> MeasuredUse | None:
    """The measured use a `measured` utilisation asks for (None for a number), its power under
    load taken for the desktop's GPU watts when the user gave none and every GPU sampled is
    the desktop's GPU (another card's draw says nothing about this one)."""
    if not is_measured(scenario.utilisation):
        return None
    if measured is None:
        raise CostcalcError(
            "utilisation measured: no samples were read; run `costcalc monitor` first"
        )
    if measured.busy_share < MIN_UTILISATION:
        raise CostcalcError(
            f"the measured utilisation is {measured.busy_share * 100:.2g}% over "
            f"{measured.window_days} days, below the least costcalc prices "
            f"({MIN_UTILISATION * 100:g}%): give --util for the use you plan"
        )
    same = bool(measured.names) and all(
        _resolves_to(catalog, name, spec.key) for name in measured.names
    )
    used = scenario.gpu_watts is None and measured.load_w is not None and same
    return replace(measured, load_w_used=used)


def _resolves_to(catalog: GpuCatalog, name: str, key: str) -> bool:
    try:
        return catalog.resolve(name).key == key
    except CostcalcError:
        return False


def decide(
    scenario: Scenario,
    data: AppData,
    spec: GpuSpec,
    desktop: DesktopBuild,
    a: Assumptions,
    comparison: Comparison,
    fit: DesktopFit | None,
    speed: SpeedFn,
    scale: ScaleFn,
) -> tuple[Decision | None, Comparison, tuple[Alternative, ...]]:
    """The decision (costcalc.core.decision), the comparison as it stands then, and without
    Buy the nearest builds that work. A build that does not work as a desktop keeps its offers
    but loses what only a bought desktop has: the utilisation at which it pays back and the
    cost of a run on it (compare leaves both out for a desktop that cannot hold the job)."""
    feasibility = fit.feasibility if fit is not None else None
    decided = decision(comparison, a, feasibility)
    if decided == "cannot_build":
        comparison = replace(comparison, break_even_utilisation=None, desktop_run=None)
    if decided not in NO_BUY or feasibility is None or data.hardware is None:
        return decided, comparison, ()
    from costcalc.core.alternatives import Asked  # only without Buy

    need = comparison.rules.memory_gb
    if scenario.model is not None:  # a job's need is what a card's usable part must hold
        need = memfit.card_gb_holding(need)
    asked = Asked(spec, desktop.gpu_count, desktop.gpu_watts, desktop.price_usd, need, feasibility)
    return decided, comparison, nearest_for(scenario, data, asked, a, speed, scale)


def nearest_for(
    scenario: Scenario,
    data: AppData,
    asked: Asked,
    a: Assumptions,
    speed: SpeedFn,
    scale: ScaleFn,
) -> tuple[Alternative, ...]:
    """The nearest builds that work for `asked`, priced and powered as this scenario prices
    and powers a desktop (default card and base system prices, the rest of the system's draw),
    their speed relative to `asked` by the comparison's own speed and scaling."""
    from costcalc.core.alternatives import nearest_builds  # only without Buy

    assert data.hardware is not None
    base = scale(asked.spec, asked.gpu_count)

    def rest_w(n: int) -> float:
        if scenario.system_watts is not None:
            return scenario.system_watts
        return by_gpu_count(data.desktop_defaults.rest_of_system_w, n)

    def price_of(other: GpuSpec, n: int) -> float | None:
        return default_price_usd(other, data.desktop_defaults, n, scenario.base)

    def throughput(other: GpuSpec, n: int) -> float:
        return speed(asked.spec, other) * scale(other, n) / base

    return nearest_builds(
        asked,
        data.hardware,
        data.catalog,
        psu_efficiency=a.psu_efficiency,
        rest_w=rest_w,
        price_of=price_of,
        throughput=throughput,
    )


def desktop_gpu_watts(
    scenario: Scenario, measured: MeasuredUse | None, found: BenchEffects | None
) -> float | None:
    """One GPU's draw under load: the user's, else the monitor's measured median when busy
    (the user's own work), else a bench's measurement; None: the board power."""
    if scenario.gpu_watts is not None:
        return scenario.gpu_watts
    if measured is not None and measured.load_w_used:
        return measured.load_w
    return found.gpu_watts if found is not None else None


def _bench_label(bench: BenchResult) -> str:
    from costcalc.core.bench_apply import bench_label  # only with a bench

    return bench_label(bench)


def said(*notes: str | None) -> tuple[str, ...]:
    """The notes the steps of `evaluate` returned, in their order, without the steps that had
    nothing to say."""
    return tuple(note for note in notes if note is not None)


def desktop_spec(
    scenario: Scenario,
    catalog: GpuCatalog,
    bench: BenchResult | None,
    fallback_gpu: str | None,
) -> Noted[GpuSpec]:
    """The desktop's GPU: named, else the bench's, else the fallback; and a note when the
    desktop's name means a PCIe card."""
    gpu_name = scenario.gpu
    if not gpu_name and bench is not None:
        from costcalc.core.bench_apply import desktop_gpu  # only with a bench

        gpu_name = desktop_gpu(bench)
    gpu_name = gpu_name or fallback_gpu
    if gpu_name is None:
        raise CostcalcError("say which desktop GPU with --gpu (or use a GPU bench with --bench)")
    return catalog.resolve_noted(gpu_name)


def speed_batch(scenario: Scenario, predictor: Predictor) -> Noted[int | None]:
    """The batch per GPU the speeds are scaled to (the predictor's split, or a bench's measured
    one): the scenario's, unless the kind's split ignores the batch, which the note then says."""
    if scenario.batch is None:
        return None, None
    unused = predictor.batch_unused(scenario.kind)
    if unused:
        return None, unused
    return scenario.batch, None


def batch_plan(
    scenario: Scenario,
    predictor: Predictor,
    spec: GpuSpec,
    batch: int | None,
    found: BenchEffects | None,
) -> BatchPlan:
    """Which batch each offer's GPU runs: the desktop's on the desktop GPU, and on another by
    --target-batch; "max" from the bench's memory fit, else the job's --memory-gb at its batch
    (split by costcalc.core.memory's prior)."""
    from costcalc.core.batching import BatchPlan

    if scenario.target_batch == "same":
        return BatchPlan(batch, "same", None, spec.key)
    from costcalc.core.memory import from_one_batch

    memory = found.memory if found is not None else None
    if memory is None and scenario.memory_gb is not None:
        at = batch or int(predictor.kind_calibration(scenario.kind).reference_batch or 1)
        memory = from_one_batch(scenario.memory_gb, at, scenario.kind)
    return BatchPlan(batch, scenario.target_batch, memory, spec.key)


def bench_effects(
    scenario: Scenario,
    data: AppData,
    bench: BenchResult | None,
    spec: GpuSpec,
    dtype: Dtype,
    batch: int | None,
) -> Noted[BenchEffects | None]:
    """What a loaded bench changes (speeds, watts, run time, memory fit), or None; its split
    at `batch` per GPU; and a note when the bench ran on a GPU the catalog does not know."""
    if bench is None:
        return None, None
    from costcalc.core.bench_apply import desktop_gpu, effects  # only with a bench

    found = effects(
        bench,
        spec.key,
        scenario.kind,
        dtype,
        scenario.items_per_run,
        data.catalog,
        data.predictor,
        batch,
    )
    if desktop_gpu(bench) is not None:
        return found, None
    return found, (
        f"the bench ran on {bench.environment.device_name} ({bench.device}), not a "
        "catalog GPU: only its memory fit (largest batch per GPU) is used; give the "
        "desktop GPU and the run time yourself"
    )


class DesktopFit(Struct, frozen=True):
    """Whether the desktop physically works, checked against one wall circuit."""

    feasibility: Feasibility
    circuit_source: str
    """How the circuit was chosen: 'region US' or 'chosen'."""


def desktop_fit(
    spec: GpuSpec,
    desktop: DesktopBuild,
    a: Assumptions,
    hw: DesktopHardware | None,
    circuit_key: str | None,
) -> Noted[DesktopFit | None]:
    """The four fit checks of `desktop` (feasibility.check_build) on the named circuit or the
    home region's, at the wall draw the electricity is counted at; and a note that says the
    check that fails (the CLI, the JSON and the app show the notes)."""
    if hw is None:
        return None, None

    if circuit_key is not None:
        circuit = hw.circuit(circuit_key)
        if circuit is None:
            known = ", ".join(c.key for c in hw.circuits)
            raise CostcalcError(f"unknown circuit {quoted(circuit_key)}; choose one of {known}")
        source = "chosen"
    else:
        circuit, source = hw.circuit_for(a.home_region), f"region {a.home_region}"
    found = check_build(
        spec,
        hw.card(spec.key),
        desktop.gpu_count,
        hw,
        gpu_watts=desktop.gpu_watts,
        system_watts=desktop.system_watts,
        psu_efficiency=a.psu_efficiency,
        circuit=circuit,
    )
    failed = found.failed
    note = None if failed is None else f"{desktop.gpu_count}x {spec.short_name}: {failed}"
    return DesktopFit(found, source), note


class DesktopPrice(Struct, frozen=True):
    """The desktop's price and what it rests on."""

    usd: float | None
    """None when the user gave no price and the GPU has none."""
    card: CardPrice | None = None
    """The card price in a default price; None when the user gave the price."""
    base: BaseChoice | None = None
    """The base system in a default price; None when the user gave the price."""
    notes: tuple[str, ...] = ()
    """What the user should know about the card's price and the base system."""


def desktop_price(
    scenario: Scenario,
    data: AppData,
    spec: GpuSpec,
    money: Money,
    now: datetime,
) -> DesktopPrice:
    """The desktop's price in USD and the card price and base system it rests on: the user's,
    else the card's (new or used) plus the base system; no price when the GPU has none."""
    if scenario.desktop_price_usd is not None:
        price_usd = money.to_usd(scenario.desktop_price_usd)
        check_usd(price_usd, 1_000_000.0, "desktop price", "", money)
        return DesktopPrice(price_usd)
    card, card_notes = desktop_card(spec, scenario.used, now)
    base = base_system(data.desktop_defaults, scenario.base, scenario.gpu_count)
    notes = (*card_notes, *said(base.note))
    if card is None:
        return DesktopPrice(None, None, base, notes)
    return DesktopPrice(card.usd * scenario.gpu_count + base.system.usd, card, base, notes)


def scenario_assumptions(
    scenario: Scenario,
    data: AppData,
    household: HouseholdPrice,
    money: Money,
    measured: MeasuredUse | None = None,
    from_runs: float | None = None,
) -> Assumptions:
    """The scenario's use (a job's runs a year over the year's hours, `from_runs`; the measured
    busy share for a `measured` utilisation), horizon and home, with its electricity price in
    USD."""
    kwh_usd = (
        household.usd_per_kwh
        if scenario.usd_per_kwh is None
        else money.to_usd(scenario.usd_per_kwh)
    )
    check_usd(kwh_usd, 10.0, "electricity price", "per kWh", money)
    return build_assumptions(
        data.grid,
        utilisation=from_runs
        if from_runs is not None
        else measured.busy_share
        if measured is not None
        else float(scenario.utilisation),
        usd_per_kwh=kwh_usd,
        region=scenario.home_region,
        psu_efficiency=scenario.psu_efficiency,
        always_on=scenario.always_on,
        horizon_years=scenario.horizon_years,
        resale_share=0.0  # by age: set once the desktop's price is known (owning_costs)
        if isinstance(scenario.resale_share, str)
        else scenario.resale_share,
        embodied=scenario.embodied,
    )


def chosen_offers(
    scenario: Scenario, data: AppData, spec: GpuSpec, money: Money, now: datetime
) -> list[CloudOffer]:
    """The offers that pass the scenario's filters, and the user's own on the desktop's GPUs."""
    chosen = offers_for(scenario, data.book.offers, data.catalog)
    for price in scenario.cloud_prices:
        hourly = money.to_usd(price)
        check_usd(hourly, 10_000.0, "cloud price", "per hour", money)
        chosen.append(custom_offer(spec.key, scenario.gpu_count, hourly, now))
    return chosen


def scenario_rules(scenario: Scenario, spec: GpuSpec, job: QuickJob | None = None) -> Rules:
    """What makes an offer comparable to this desktop, and how spot risk is priced: a job's
    memory per GPU on the desktop (which its memory model, not this figure, checks), else the
    memory the user gave, else the desktop GPU's."""
    need = job.memory.total_gb if job is not None else scenario.memory_gb
    return Rules(
        memory_gb=need if need is not None else spec.memory_gb,
        memory_from_job=need is not None,
        scale_out=scenario.scale_out,
        checkpoint_h=scenario.spot_checkpoint_minutes / 60,
        restart_h=scenario.spot_restart_minutes / 60,
    )


CARD_PRICE_STALE_DAYS = MAX_AGE_DAYS["street"]
"""A card price older than this gets a warning (the staleness table, costcalc.core.staleness)."""


def desktop_card(spec: GpuSpec, used: bool, now: datetime) -> tuple[CardPrice | None, list[str]]:
    """The card price a default desktop price rests on, and what the user should know about it."""
    notes = []
    card = card_price(spec, used=used)
    if used and card is None:
        notes.append(
            f"no dated second-hand price for the {spec.short_name}: its street price is used"
        )
        card = card_price(spec)
    if card is None:
        return None, notes
    if card.observed is None:
        notes.append(
            f"the {spec.short_name} has no dated street price: its launch price "
            f"(${card.usd:,.0f}) is used; give --desktop-price for what it costs today"
        )
    elif (now.date() - card.observed).days > CARD_PRICE_STALE_DAYS:
        days = (now.date() - card.observed).days
        notes.append(
            f"the {spec.short_name}'s price (${card.usd:,.0f}, {card.condition}) is from "
            f"{card.observed:%Y-%m-%d}, {days} days old: give --desktop-price for today's"
        )
    return card, notes


def currency_of(scenario: Scenario, household: HouseholdPrice) -> str:
    """The currency amounts are in: asked for, else the home region's (when one is set)."""
    if scenario.currency:
        return scenario.currency.upper()
    if scenario.home_region and household.region != "default":
        return household.currency
    return "USD"


def check_usd(value: float, limit: float, what: str, per: str, money: Money) -> None:
    """An amount typed in any currency, bounded once it is in USD."""
    if not value <= limit:
        shown = f"{money.symbol}{money.of(limit):,.0f}"
        raise CostcalcError(f"{what} must be at most {shown}{' ' + per if per else ''}")


def default_desktop_price_usd(scenario: Scenario, data: AppData, gpu: str) -> float | None:
    """The prefilled desktop price: street price of the GPUs plus the chosen base system."""
    spec = data.catalog.resolve(scenario.gpu or gpu)
    return default_price_usd(spec, data.desktop_defaults, scenario.gpu_count, scenario.base)


# --------------------------------------------------------------------------- owning, in full


class Owned(Struct, frozen=True):
    """What owning costs beyond the price and its electricity, as the scenario asks."""

    owning: OwningCosts | None = None
    """A loan's interest and the repairs, for the engine; None: neither is counted."""
    loan: Loan | None = None
    repairs: Repairs | None = None
    resale: ResaleByAge | None = None
    notes: tuple[str, ...] = ()


def owns_in_full(scenario: Scenario) -> bool:
    """Whether the scenario counts any of a loan, repairs or resale by age."""
    return (
        scenario.loan_apr is not None
        or scenario.loan_term_years is not None
        or scenario.repairs
        or scenario.failure_rate is not None
        or scenario.resale_share == RESALE_BY_AGE
    )


def owning_costs(
    scenario: Scenario, data: AppData, spec: GpuSpec, price_usd: float | None, now: datetime
) -> Owned:
    """The loan, the repairs allowance and the resale by age the scenario asks for
    (costcalc.core.owning); what cannot be counted is said in a note."""
    if not owns_in_full(scenario):
        return Owned()
    from costcalc.core import owning  # only when owning is counted in full

    if scenario.loan_apr is not None and scenario.loan_term_years is None:
        raise CostcalcError(
            "--apr needs --term-years: the years the loan is repaid over (e.g. --term-years 3)"
        )
    if price_usd is None:
        return Owned(
            notes=(
                f"no price for the {spec.short_name}: the loan, repairs and resale by age "
                "need --desktop-price",
            )
        )
    notes: list[str] = []
    horizon = scenario.horizon_years
    loan = None
    if scenario.loan_term_years is not None:
        loan = owning.loan(price_usd, scenario.loan_apr or 0.0, scenario.loan_term_years, horizon)
    repairs = None
    if scenario.repairs or scenario.failure_rate is not None:
        found = owning.repairs(spec, scenario.gpu_count, scenario.failure_rate, data.ownership)
        if isinstance(found, str):
            notes.append(f"repairs are not counted: {found}")
        else:
            repairs = found
    resale = None
    if scenario.resale_share == RESALE_BY_AGE:
        aged = owning.resale_by_age(
            spec, scenario.gpu_count, price_usd, horizon, data.catalog, now.date()
        )
        if isinstance(aged, str):
            notes.append(f"resale is not counted: {aged}; give --resale SHARE")
        else:
            resale = aged
    costs = None
    if loan is not None or repairs is not None:
        costs = OwningCosts(
            interest_share=loan.interest_share if loan is not None else 0.0,
            repairs_usd_per_year=repairs.usd_per_year if repairs is not None else 0.0,
        )
    return Owned(costs, loan, repairs, resale, tuple(notes))


def cash_basis(owned: Owned, a: Assumptions, money: Money = USD) -> str | None:
    """What the verdict compares when owning is counted in full: the cash each way pays out
    over the horizon, undiscounted, with what it holds (amounts in `money`)."""
    if owned.owning is None and owned.resale is None:
        return None

    def amount(usd: float) -> str:
        return format_money(money.of(usd), money.code, 2)

    parts = []
    loan = owned.loan
    if loan is not None:
        parts.append(
            f"{loan.payments_within} loan payments of {amount(loan.monthly_payment_usd)} at "
            f"{loan.apr * 100:.3g}% APR ({amount(loan.interest_within_usd)} of interest)"
            + (
                f" and the {amount(loan.balance_at_horizon_usd)} still owed at its end"
                if loan.balance_at_horizon_usd > 0.005
                else ""
            )
        )
    parts.append("electricity")
    if owned.repairs is not None:
        parts.append(f"repairs ({amount(owned.repairs.usd_per_year)} a year)")
    resale = "the resale by age" if owned.resale is not None else "the resale"
    less = f", less {resale}" if a.resale_share else ""
    return (
        f"comparing the cash each way pays out over the {a.horizon_years:g}-year horizon, "
        f"undiscounted: {', '.join(parts)}{less}, against renting"
    )


# --------------------------------------------------------------------------- the rent side


def runs_note(scenario: Scenario) -> str | None:
    """How --runs-per-year and --run-hours bear on the utilisation (costcalc.core.inputs.merge
    sets it from them when no layer gives one)."""
    runs, hours = scenario.runs_per_year, scenario.run_hours
    if runs is None or hours is None or is_measured(scenario.utilisation):
        return None
    from costcalc.core.rent_extras import runs_from_hours  # only with runs

    made = runs_from_hours(runs, hours)
    used = float(scenario.utilisation)
    if abs(made - used) <= 1e-9 * max(made, 1e-12):
        return (
            f"utilisation {used * 100:.3g}% = {runs:g} runs a year x {hours:g} h / 8,760 h "
            "(--runs-per-year x --run-hours; --util sets it yourself)"
        )
    return (
        f"utilisation {used * 100:.3g}% is the one given; {runs:g} runs a year x {hours:g} h "
        f"would make {made * 100:.3g}%"
    )


def rent_extras(
    scenario: Scenario, data: AppData, workload: Workload, offers: Sequence[CloudOffer]
) -> Noted[RentExtras | None]:
    """What renting adds beyond the GPU-hours, when the scenario gives the data its runs move;
    and a note naming the providers whose storage and transfer are left out (no sourced
    rate)."""
    gb = (scenario.dataset_gb, scenario.checkpoint_gb, scenario.egress_gb, scenario.storage_gb)
    if all(v is None for v in gb) and not scenario.setup_minutes:
        return None, None
    from costcalc.core.rent_extras import RentExtras, data_use  # only with data to move

    use = data_use(
        dataset_gb=scenario.dataset_gb,
        checkpoint_gb=scenario.checkpoint_gb,
        egress_gb=scenario.egress_gb,
        storage_gb=scenario.storage_gb,
        setup_minutes=scenario.setup_minutes,
        runs_per_year=scenario.runs_per_year,
        run_hours=workload.run_hours,
    )
    assert use is not None
    if use.per_run and scenario.runs_per_year is None and workload.run_hours is None:
        raise CostcalcError(
            "--checkpoint-gb, --egress-gb and --setup-minutes count per run: give "
            "--runs-per-year N, or --run-hours H (the runs a year then follow from the "
            "utilisation)"
        )
    priced = any(v is not None for v in gb)
    if priced and data.storage is None:
        raise CostcalcError("the storage and transfer rates (prices/storage.yaml) were not loaded")
    file = data.storage
    rates = file.by_provider() if file is not None and priced else {}
    extras = RentExtras(
        use,
        rates,
        dict(file.left_out) if file is not None else {},
        file.as_of if file is not None else now_date_unknown(),
    )
    if not priced:
        return extras, None
    missing = extras.missing({o.provider for o in offers})
    if not missing:
        return extras, None
    labels = data.book.labels
    names = ", ".join(
        "your own offers" if p == CUSTOM_PROVIDER else labels.get(p, p) for p in missing
    )
    return extras, (
        f"storage and transfer are left out for {names}: no sourced rate in prices/storage.yaml"
    )


def now_date_unknown() -> date:
    """The rates' day when no rate file was needed (setup minutes alone)."""
    return date.min


# --------------------------------------------------------------------------- own and rent


def hybrid_plan(
    scenario: Scenario,
    comparison: Comparison,
    desktop: DesktopBuild,
    a: Assumptions,
    monthly: MonthlyUse | None = None,
) -> Noted[HybridPlan | None]:
    """With --hybrid (or a --profile): every owned count weighed against renting above it
    (costcalc.core.hybrid), on the profile given, the months `monthly` measured (--profile
    measured) or the utilisation every month; a note when no plan can be made."""
    if not scenario.hybrid and scenario.profile is None:
        return None, None
    from costcalc.core import hybrid  # only with --hybrid

    text = scenario.profile
    if hybrid.is_measured_profile(text):
        if monthly is None:  # read by the caller, as `quick` does (costcalc.store.usage)
            return None, "no hybrid plan: --profile measured needs the monitor's history"
        used = hybrid.measured_profile(monthly)
    elif text is not None:
        used = hybrid.Profile(hybrid.parse_profile(text), "your profile")
    else:
        used = hybrid.flat_profile(a.utilisation)
    found = hybrid.plan(used, comparison, desktop, a, scenario.max_owned)
    if isinstance(found, str):
        return None, f"no hybrid plan: {found}"
    return found, None
