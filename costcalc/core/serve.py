"""Serving a model: tokens per dollar on your desktop, on a rented GPU, or paid per token.

Rule kept here: pure, one function (`price_serving`) the CLI calls (and the app's Job panel may).
The same job description as training (costcalc.core.job's model), plus how it is served: the
quantisation, the prompt and output of a request, the context, the sequences in flight and the
daily volume. Each option is priced per million tokens from the same speeds
(costcalc.core.serve_speed):
- memory: the weights at the quantisation, plus the KV cache of every sequence in flight at its
  context, plus the engine's own memory, out of the card's binary gigabytes (a "24 GB" card has
  24 GiB); a model too big for one card is split by layers over the fewest that hold it, as
  llama.cpp does, which runs them one after another (the same speed as one card);
- the desktop: electricity while it serves (the GPUs at the calibration's share of board power,
  plus the rest of the system) and the purchase spread over the horizon at your daily volume;
- a rented offer: its price per hour over the tokens an hour its GPUs serve at your concurrency
  (or all it holds, if fewer), each GPU group that holds the model serving as one replica;
- a hosted API: its dated list price for the model, input and output weighed by your requests.
The verdict is the cheapest at your daily volume; the desktop's cost per token falls with volume
(its purchase is fixed), the others' do not, so the answer flips at one volume, which it names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Literal

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.errors import CostcalcError
from costcalc.core.feasibility import Feasibility, check_build
from costcalc.core.hardware import DesktopHardware
from costcalc.core.job import ModelSpec
from costcalc.core.models import CloudOffer, DesktopDefaults, GpuSpec
from costcalc.core.records import Meta, Record
from costcalc.core.serve_data import HostedPrice, ServeCalibration
from costcalc.core.serve_speed import (
    BITS,
    DEFAULT_ENGINE,
    GB,
    GIB,
    DecodeRate,
    PrefillRate,
    Quant,
    Shape,
    decode_rate,
    prefill_rate,
    prefill_tokens_per_s,
    quant_class,
    shape,
    step_s,
)

Where = Literal["desktop", "offer", "hosted"]
MAX_DESKTOP_GPUS = 8
HORIZON_YEARS = 3.0
"""The years a desktop's purchase is spread over: quick's default horizon (Scenario)."""
DEFAULT_TOKENS_PER_DAY = 1e6
SECONDS_PER_DAY = 86_400


class ServeJob(Record, frozen=True, kw_only=True):
    """A model served: how, how much, and to how many at once."""

    model: ModelSpec
    quant: Quant = "int4"
    engine: str = DEFAULT_ENGINE
    prompt_tokens: Annotated[int, Meta(ge=1, le=1_048_576)] = 512
    """Tokens of a request's prompt (default: llama-bench's pp512)."""
    output_tokens: Annotated[int, Meta(ge=1, le=1_048_576)] = 128
    """Tokens a request generates (default: llama-bench's tg128)."""
    context: Annotated[int, Meta(ge=1, le=1_048_576)] | None = None
    """Tokens of context each sequence holds (default: prompt + output)."""
    concurrency: Annotated[int, Meta(ge=1, le=4096)] = 1
    """Sequences in flight at once (a local assistant: 1)."""
    tokens_per_day: Annotated[float, Meta(gt=0, le=1e13)] | None = None
    """Input and output tokens a day (default: requests a day x a request's tokens, else 1M)."""
    requests_per_day: Annotated[float, Meta(gt=0, le=1e10)] | None = None

    @property
    def request_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens

    @property
    def context_tokens(self) -> int:
        return self.context or self.request_tokens

    @property
    def daily_tokens(self) -> float:
        if self.tokens_per_day is not None:
            return self.tokens_per_day
        if self.requests_per_day is not None:
            return self.requests_per_day * self.request_tokens
        return DEFAULT_TOKENS_PER_DAY

    @property
    def input_share(self) -> float:
        return self.prompt_tokens / self.request_tokens


class ServeSetup(Record, frozen=True, kw_only=True):
    gpu: str | None = None
    gpu_count: Annotated[int, Meta(ge=1, le=MAX_DESKTOP_GPUS)] | None = None
    usd_per_kwh: Annotated[float, Meta(ge=0, le=10)] | None = None
    horizon_years: Annotated[float, Meta(ge=0.1, le=20)] = HORIZON_YEARS
    watts_per_gpu: Annotated[float, Meta(gt=0, le=5000)] | None = None
    """A measured draw of one GPU while serving, in place of the calibration's share."""


class ServeData(Struct, frozen=True):
    catalog: GpuCatalog
    calibration: ServeCalibration
    matmul_tflops: Callable[[GpuSpec], float]
    """What a GPU's 16-bit matmuls sustain (the speed predictor's rate)."""
    offers: Sequence[CloudOffer]
    hosted: Sequence[HostedPrice]
    defaults: DesktopDefaults
    home_usd_per_kwh: float
    hardware: DesktopHardware | None = None
    labels: Mapping[str, str] = {}
    home_region: str = "US"
    """The grid region whose wall circuit a desktop is checked on."""


class Memory(Struct, frozen=True):
    """Memory per GPU of n GPUs splitting the model by layers."""

    weights_gb: float
    kv_gb: float
    """The cache of every sequence in flight at the context."""
    overhead_gb: float
    total_gb: float
    usable_gb: float
    """The card's binary gigabytes, in GB."""
    fits: bool
    max_concurrency: int
    """Sequences the GPUs hold at the context (0: not even one)."""


class Speed(Struct, frozen=True):
    decode_tokens_per_s: float
    """One sequence alone (batch 1)."""
    per_user_tokens_per_s: float
    """Each sequence at the concurrency served."""
    aggregate_tokens_per_s: float
    """Generated tokens a second, all sequences of one replica."""
    prefill_tokens_per_s: float
    ttft_s: float
    """Time to the first token: the prompt's prefill and one decode step."""
    concurrency: int
    request_gpu_s: float
    """GPU-seconds one request takes of a replica at that concurrency."""
    decode: DecodeRate
    prefill: PrefillRate


class ServeRun(Struct, frozen=True):
    """One way to serve the model, and what a million tokens cost there."""

    where: Where
    label: str
    spec: GpuSpec | None
    gpus: int
    memory: Memory | None
    speed: Speed | None
    replicas: int
    usd_per_mtok: float | None
    """Input and output as your requests mix them."""
    usd_per_mtok_input: float | None
    usd_per_mtok_output: float | None
    usd_per_day: float | None
    basis: str
    tokens_per_day_capacity: float | None = None
    """The most tokens a day it serves (24 hours busy); None when unbounded (rent more)."""
    busy_hours_per_day: float | None = None
    build_usd: float | None = None
    electricity_usd_per_mtok: float | None = None
    fixed_usd_per_day: float | None = None
    """The desktop's purchase spread over the horizon."""
    watts: float | None = None
    offer: CloudOffer | None = None
    hosted: HostedPrice | None = None
    feasibility: Feasibility | None = None

    @property
    def fits(self) -> bool:
        return self.memory is None or self.memory.fits


class Flip(Struct, frozen=True):
    tokens_per_day: float | None
    """The daily volume above which the desktop is the cheapest; None when it never is."""
    text: str


class ServeAnswer(Struct, frozen=True):
    job: ServeJob
    setup: ServeSetup
    chosen: ServeRun | None
    offers: tuple[ServeRun, ...]
    """Rented offers that hold the model, cheapest per million tokens first."""
    hosted: tuple[ServeRun, ...]
    desktops: tuple[ServeRun, ...]
    """Desktop builds that hold it and pass the fit checks, cheapest up front first."""
    offers_weighed: int
    cheapest: ServeRun | None
    flip: Flip
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- memory and speed


def memory(job: ServeJob, s: Shape, spec: GpuSpec, n: int, cal: ServeCalibration) -> Memory:
    bits = BITS[job.quant]
    weights = s.params * bits / 8 / GB / n
    kv_per_sequence = s.kv_bytes_per_token * job.context_tokens / GB / n
    overhead = cal.engine_overhead_gb.value
    usable = spec.memory_gb * GIB / GB
    total = weights + kv_per_sequence * job.concurrency + overhead
    room = usable - weights - overhead
    most = int(room // kv_per_sequence) if room > 0 and kv_per_sequence > 0 else 0
    return Memory(
        weights, kv_per_sequence * job.concurrency, overhead, total, usable, total <= usable, most
    )


def smallest_count(
    job: ServeJob, s: Shape, spec: GpuSpec, cal: ServeCalibration, limit: int
) -> int | None:
    """The fewest GPUs (up to `limit`) whose memory holds the model and one sequence."""
    one = job if job.concurrency == 1 else _with_concurrency(job, 1)
    for n in range(1, limit + 1):
        if memory(one, s, spec, n, cal).fits:
            return n
    return None


def _with_concurrency(job: ServeJob, concurrency: int) -> ServeJob:
    from msgspec.structs import replace

    return replace(job, concurrency=concurrency)


def speed(
    job: ServeJob, s: Shape, spec: GpuSpec, n: int, data: ServeData, concurrency: int
) -> Speed:
    cal = data.calibration
    qclass = quant_class(BITS[job.quant])
    decode = decode_rate(cal, job.engine, spec, qclass)
    prefill = prefill_rate(cal, job.engine, spec, qclass, data.matmul_tflops(spec))
    mean_context = job.prompt_tokens + job.output_tokens / 2
    alone = step_s(s, BITS[job.quant], spec, decode, prefill, 1, mean_context, n)
    step = step_s(s, BITS[job.quant], spec, decode, prefill, concurrency, mean_context, n)
    prefill_tps = prefill_tokens_per_s(s, prefill)
    request_s = job.prompt_tokens / prefill_tps + job.output_tokens * step / concurrency
    return Speed(
        decode_tokens_per_s=1 / alone,
        per_user_tokens_per_s=1 / step,
        aggregate_tokens_per_s=concurrency / step,
        prefill_tokens_per_s=prefill_tps,
        ttft_s=job.prompt_tokens / prefill_tps + step,
        concurrency=concurrency,
        request_gpu_s=request_s,
        decode=decode,
        prefill=prefill,
    )


def _split_per_mtok(job: ServeJob, sp: Speed, usd_per_replica_hour: float) -> tuple[float, float]:
    """(input, output) $ per million tokens: each pays for the replica's time it takes."""
    input_s = 1 / sp.prefill_tokens_per_s
    output_s = 1 / sp.aggregate_tokens_per_s
    per_s = usd_per_replica_hour / 3600
    return input_s * per_s * 1e6, output_s * per_s * 1e6


def blended(job: ServeJob, input_usd: float, output_usd: float) -> float:
    share = job.input_share
    return share * input_usd + (1 - share) * output_usd


# --------------------------------------------------------------------------- the options


def price_serving(job: ServeJob, setup: ServeSetup, data: ServeData) -> ServeAnswer:
    """Every way to serve the job, each per million tokens, and the verdict."""
    s = shape(job.model)
    offers, weighed = _offer_runs(job, s, data)
    hosted = _hosted_runs(job, data)
    desktops = _desktop_runs(job, s, setup, data)
    chosen, notes = _chosen(job, s, setup, data)
    if job.tokens_per_day is None and job.requests_per_day is None:
        notes.append(
            f"no --tokens-per-day: {DEFAULT_TOKENS_PER_DAY:,.0f} tokens a day assumed for the "
            "desktop's purchase"
        )
    options = [
        r
        for r in (chosen, offers[0] if offers else None, hosted[0] if hosted else None)
        if r is not None and r.usd_per_mtok is not None and _serves(r, job)
    ]
    cheapest = min(options, key=lambda r: r.usd_per_mtok or 0.0) if options else None
    flip = _flip(job, chosen, offers[0] if offers else None, hosted[0] if hosted else None)
    return ServeAnswer(
        job=job,
        setup=setup,
        chosen=chosen,
        offers=tuple(offers),
        hosted=tuple(hosted),
        desktops=tuple(desktops),
        offers_weighed=weighed,
        cheapest=cheapest,
        flip=flip,
        notes=tuple(notes),
    )


def _serves(run: ServeRun, job: ServeJob) -> bool:
    """Whether it serves the daily volume (a desktop has 24 hours a day)."""
    cap = run.tokens_per_day_capacity
    return run.fits and (cap is None or cap >= job.daily_tokens)


def desktop_run(
    job: ServeJob,
    s: Shape,
    setup: ServeSetup,
    data: ServeData,
    spec: GpuSpec,
    n: int,
    *,
    yours: bool = False,
) -> ServeRun:
    """The model on a desktop of n x `spec`: electricity while busy and the purchase over the
    horizon, at the daily volume."""
    from costcalc.core.scenario import by_gpu_count, default_price_usd

    cal = data.calibration
    mem = memory(job, s, spec, n, cal)
    label = f"{n}x {spec.short_name}" + (" (your desktop)" if yours else "")
    rest_w = by_gpu_count(data.defaults.rest_of_system_w, n)
    feasibility = None
    if data.hardware is not None:
        feasibility = check_build(
            spec,
            data.hardware.card(spec.key),
            n,
            data.hardware,
            gpu_watts=spec.board_power_w,
            system_watts=rest_w,
            psu_efficiency=1.0,
            circuit=data.hardware.circuit_for(data.home_region),
        )
    build = default_price_usd(spec, data.defaults, n)
    if not mem.fits or mem.max_concurrency < 1:
        return ServeRun(
            "desktop",
            label,
            spec,
            n,
            mem,
            None,
            1,
            None,
            None,
            None,
            None,
            "does not fit",
            build_usd=build,
            feasibility=feasibility,
        )
    concurrency = min(job.concurrency, mem.max_concurrency)
    sp = speed(job, s, spec, n, data, concurrency)
    gpu_w = (
        setup.watts_per_gpu
        if yours and setup.watts_per_gpu
        else spec.board_power_w * cal.decode_power_share.value
    )
    watts = gpu_w * n + rest_w
    kwh_usd = setup.usd_per_kwh if setup.usd_per_kwh is not None else data.home_usd_per_kwh
    per_hour = watts / 1000 * kwh_usd
    requests = job.daily_tokens / job.request_tokens
    busy_h = requests * sp.request_gpu_s / 3600
    capacity = 24 / (sp.request_gpu_s / 3600) * job.request_tokens
    fixed = (build or 0.0) / (setup.horizon_years * 365)
    electricity = busy_h * per_hour
    mtok = job.daily_tokens / 1e6
    in_usd, out_usd = _split_per_mtok(job, sp, per_hour)
    fixed_per_mtok = fixed / mtok
    price = f"${build:,.0f}" if build is not None else "no price on file"
    return ServeRun(
        where="desktop",
        label=label,
        spec=spec,
        gpus=n,
        memory=mem,
        speed=sp,
        replicas=1,
        usd_per_mtok=(electricity + fixed) / mtok,
        usd_per_mtok_input=in_usd + fixed_per_mtok,
        usd_per_mtok_output=out_usd + fixed_per_mtok,
        usd_per_day=electricity + fixed,
        basis=(
            f"electricity at ${kwh_usd:.3g}/kWh for {busy_h:.1f} h a day at {watts:,.0f} W, "
            f"plus {price} over {setup.horizon_years:g} years"
        ),
        tokens_per_day_capacity=capacity,
        busy_hours_per_day=busy_h,
        build_usd=build,
        electricity_usd_per_mtok=electricity / mtok,
        fixed_usd_per_day=fixed,
        watts=watts,
        feasibility=feasibility,
    )


def _chosen(
    job: ServeJob, s: Shape, setup: ServeSetup, data: ServeData
) -> tuple[ServeRun | None, list[str]]:
    if setup.gpu is None:
        return None, []
    spec = data.catalog.resolve(setup.gpu)
    if spec.segment == "datacenter":
        return None, [f"{spec.short_name} is a data-centre part: its offers are priced below"]
    n = setup.gpu_count or smallest_count(job, s, spec, data.calibration, MAX_DESKTOP_GPUS) or 1
    run = desktop_run(job, s, setup, data, spec, n, yours=True)
    notes = []
    if run.feasibility is not None and run.feasibility.failed:
        notes.append(f"{n}x {spec.short_name}: {run.feasibility.failed}")
    return run, notes


def _desktop_runs(job: ServeJob, s: Shape, setup: ServeSetup, data: ServeData) -> list[ServeRun]:
    hw = data.hardware
    if hw is None:
        return []
    found = []
    for card in hw.cards:
        spec = data.catalog.get(card.gpu)
        if spec.segment == "datacenter":
            continue
        n = smallest_count(job, s, spec, data.calibration, MAX_DESKTOP_GPUS)
        if n is None:
            continue
        run = desktop_run(job, s, setup, data, spec, n)
        if run.feasibility is not None and run.feasibility.fits is True and run.build_usd:
            found.append(run)
    return sorted(found, key=lambda r: (r.build_usd or 0.0, r.usd_per_mtok or 0.0))


def _offer_runs(job: ServeJob, s: Shape, data: ServeData) -> tuple[list[ServeRun], int]:
    best: dict[tuple[str, str, str], ServeRun] = {}
    weighed = 0
    counts: dict[str, int | None] = {}
    for offer in data.offers:
        if (
            not offer.guaranteed
            or offer.monthly_fee_usd > 0
            or offer.term_years is not None
            or offer.gpu not in data.catalog
        ):
            continue
        weighed += 1
        spec = data.catalog.get(offer.gpu)
        if offer.gpu not in counts:
            counts[offer.gpu] = smallest_count(job, s, spec, data.calibration, 8)
        k = counts[offer.gpu]
        if k is None or k > offer.gpu_count:
            continue
        run = offer_run(job, s, data, offer, spec, k)
        # 2, 4 and 8 of a GPU at the same price a GPU serve at the same price a token: the
        # smallest stands for them
        key = (offer.provider, offer.gpu, f"{offer.usd_per_hour / offer.gpu_count:.4f}")
        held = best.get(key)
        if held is None or (run.usd_per_mtok or 0, run.gpus) < (held.usd_per_mtok or 0, held.gpus):
            best[key] = run
    ranked = sorted(best.values(), key=lambda r: r.usd_per_mtok or 0.0)
    return ranked, weighed


def offer_run(
    job: ServeJob, s: Shape, data: ServeData, offer: CloudOffer, spec: GpuSpec, k: int
) -> ServeRun:
    """An instance serving the model: each k of its GPUs a replica, at your concurrency or all a
    replica holds, if fewer; billed for the hours it serves."""
    mem = memory(job, s, spec, k, data.calibration)
    replicas = offer.gpu_count // k
    concurrency = max(min(job.concurrency, mem.max_concurrency), 1)
    sp = speed(job, s, spec, k, data, concurrency)
    per_replica = offer.usd_per_hour / replicas
    in_usd, out_usd = _split_per_mtok(job, sp, per_replica)
    provider = data.labels.get(offer.provider, offer.provider)
    hours = job.daily_tokens / job.request_tokens * sp.request_gpu_s / 3600 / replicas
    total = blended(job, in_usd, out_usd)
    return ServeRun(
        where="offer",
        label=f"{provider} {offer.name}",
        spec=spec,
        gpus=offer.gpu_count,
        memory=mem,
        speed=sp,
        replicas=replicas,
        usd_per_mtok=total,
        usd_per_mtok_input=in_usd,
        usd_per_mtok_output=out_usd,
        usd_per_day=total * job.daily_tokens / 1e6,
        basis=(
            f"${offer.usd_per_hour:,.2f}/h for {replicas} replica(s) of {k} GPU(s), "
            f"{hours:.1f} h a day"
        ),
        busy_hours_per_day=hours,
        offer=offer,
    )


def _hosted_runs(job: ServeJob, data: ServeData) -> list[ServeRun]:
    runs = []
    for p in data.hosted:
        if p.model != job.model.key:
            continue
        total = blended(job, p.input_usd_per_mtok, p.output_usd_per_mtok)
        runs.append(
            ServeRun(
                where="hosted",
                label=f"{p.provider} {p.provider_model_id}",
                spec=None,
                gpus=0,
                memory=None,
                speed=None,
                replicas=0,
                usd_per_mtok=total,
                usd_per_mtok_input=p.input_usd_per_mtok,
                usd_per_mtok_output=p.output_usd_per_mtok,
                usd_per_day=total * job.daily_tokens / 1e6,
                basis=f"list price of {p.date} ({p.date_basis}), {p.price_page}",
                hosted=p,
            )
        )
    return sorted(runs, key=lambda r: r.usd_per_mtok or 0.0)


def _flip(
    job: ServeJob, desktop: ServeRun | None, offer: ServeRun | None, hosted: ServeRun | None
) -> Flip:
    """The daily volume above which the desktop is cheapest: its purchase a day over what each
    million tokens saves against the cheaper of renting and paying per token."""
    others = [r for r in (offer, hosted) if r is not None and r.usd_per_mtok is not None]
    if desktop is None or desktop.usd_per_mtok is None or not others:
        return Flip(None, "")
    best = min(others, key=lambda r: r.usd_per_mtok or 0.0)
    rate = best.usd_per_mtok or 0.0
    electricity = desktop.electricity_usd_per_mtok or 0.0
    capacity = desktop.tokens_per_day_capacity or math.inf
    if rate <= electricity:
        return Flip(
            None,
            f"the desktop never wins: its electricity alone is ${electricity:.3f} "
            f"per million tokens against {best.label}'s ${rate:.3f}",
        )
    volume = (desktop.fixed_usd_per_day or 0.0) / (rate - electricity) * 1e6
    if volume > capacity:
        return Flip(
            None,
            f"the desktop never wins: it would pay off above {_count(volume)} "
            f"tokens a day but serves at most {_count(capacity)} at concurrency "
            f"{desktop.speed.concurrency if desktop.speed else 1}",
        )
    return Flip(
        volume,
        f"the desktop is the cheapest above {_count(volume)} tokens a day "
        f"(up to the {_count(capacity)} it serves), {best.label} below",
    )


def _count(value: float) -> str:
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def named_gpu_fits(answer: ServeAnswer) -> str | None:
    """What would hold the model where the named GPU does not: the cheapest desktop build and
    the cheapest offer."""
    if answer.chosen is None or answer.chosen.fits:
        return None
    parts = []
    if answer.desktops:
        d = answer.desktops[0]
        parts.append(f"the smallest desktop that holds it is {d.label} (${d.build_usd:,.0f})")
    if answer.offers:
        parts.append(f"the cheapest offer that holds it is {answer.offers[0].label}")
    if not parts:
        raise CostcalcError("no desktop build or offer holds it")
    return "; ".join(parts)
