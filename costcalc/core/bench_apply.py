"""What a saved bench changes in a comparison: desktop GPU, run time, max batch, speed, watts.

Rule kept here: pure (no torch, no files, no printing), and a bench moves an answer only toward
what it measured. A bench on a catalog GPU makes that GPU the desktop; its memory fit gives the
largest batch on every GPU. Its time split drives the predictions only when it was measured on
a filled device (throughput had stopped rising, or memory ran out, or it is the user's own step)
and is not launch-bound: a step too small for the GPU measures kernel launches, and a split
like that made every GPU look like the benchmarked one (issue 23). Even then a GPU pair keeps
the predictor's speed where the bench's split would take it outside the predictor's band: one
device's split cannot know the other GPU better than the fit over many measured pairs does.
Its watts are the sustained draw of the work being priced, never a mean over the whole bench.
A CPU (or unknown GPU) bench cannot stand in for a GPU: only the memory fit is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core.bench_results import SIZED_BY_WORDS, BenchResult, WorkloadResult
from costcalc.core.memfit import max_batch_by_gpu
from costcalc.core.memory import JobMemory, from_bench
from costcalc.core.models import GpuSpec, StepProfile
from costcalc.core.predict import (
    STANDS_IN_FOR,
    Predictor,
    SpeedBreakdown,
    SpeedFn,
    precision_class,
)

LAUNCH_BOUND_SHARE = 0.2
"""A step that spends more than this share launching kernels is too small for its device (the
H100 bench of 2026-11-24 spent 35 % at batch 64 and 1-5 % filled)."""


def workload_for(bench: BenchResult, kind: str) -> WorkloadResult | None:
    """The measured workload that best stands for `kind`: the same kind, else the one the
    predictor treats it like, else the first."""
    for wanted in (kind, STANDS_IN_FOR.get(kind)):
        same = [w for w in bench.workloads if w.kind == wanted]
        if same:
            return same[0]
    return bench.workloads[0] if bench.workloads else None


def max_batch(bench: BenchResult, kind: str, specs: Iterable[GpuSpec]) -> dict[str, int]:
    w = workload_for(bench, kind)
    if w is None or w.memory_base_bytes is None or not w.memory_per_item_bytes:
        return {}
    return max_batch_by_gpu(specs, w.memory_base_bytes, w.memory_per_item_bytes)


def desktop_gpu(bench: BenchResult) -> str | None:
    return bench.environment.gpu_key if bench.device == "cuda" else None


def bench_label(bench: BenchResult) -> str:
    return f"bench on {bench.environment.device_name} ({bench.created_at:%Y-%m-%d})"


def run_hours_for(bench: BenchResult, kind: str, items: float) -> float | None:
    """Hours `items` take at the bench's measured rate (only when it ran on the desktop GPU)."""
    w = workload_for(bench, kind)
    if desktop_gpu(bench) is None or w is None:
        return None
    return items / w.items_per_s / 3600


def usable_profile(w: WorkloadResult, dtype: str) -> tuple[StepProfile | None, str]:
    """The workload's time split if it may move predictions of `dtype` work, and why (not)."""
    where = f"{w.name} at batch {w.batch_size}, {w.dtype}"
    if w.profile is None:
        return None, f"the bench measured no time split ({where})"
    if not w.filled:
        why = "saved before benches filled the device" if w.sized_by is None else w.sized_by
        return None, f"the bench's split ({where}) was not measured on a filled device ({why})"
    if w.profile.overhead_share > LAUNCH_BOUND_SHARE:
        return None, (
            f"the bench's split ({where}) is launch-bound ({w.profile.overhead_share:.0%} "
            "launching kernels): it would make every GPU look alike"
        )
    if precision_class(w.dtype) != precision_class(dtype):
        return None, f"the bench's split ({where}) is for another precision than {dtype}"
    size = SIZED_BY_WORDS.get(w.sized_by or "", "")
    return w.profile, f"time split measured by the bench: {where} ({size})"


def at_batch(profile: StepProfile, measured: int, batch: float) -> StepProfile:
    """A split measured at one batch per GPU, at another: a step's fixed cost (launches, the
    host) is the same at any batch while the rest of its time grows with the batch, the rule
    the predictor's reference split follows (Predictor.reference_times)."""
    overhead = profile.overhead_share * measured / batch
    work = 1.0 - profile.overhead_share
    total = work + overhead
    return StepProfile(
        compute_share=profile.compute_share / total,
        memory_share=profile.memory_share / total,
        overhead_share=overhead / total,
        elementwise_share=None
        if profile.elementwise_share is None
        else profile.elementwise_share / total,
    )


def scaled_profile(
    w: WorkloadResult, dtype: str, predictor: Predictor, kind: str, batch: float | None
) -> tuple[StepProfile | None, str]:
    """`usable_profile`, at `batch` per GPU where one is given and `kind`'s split depends on
    the batch (the scenario has said when it does not)."""
    profile, note = usable_profile(w, dtype)
    if profile is None or not batch or batch == w.batch_size or not predictor.uses_batch(kind):
        return profile, note
    return (
        at_batch(profile, w.batch_size, batch),
        f"{note}; its fixed cost scaled to your batch of {batch:g}",
    )


class BenchSpeed(Struct, frozen=True):
    """Speeds from a measured split, each GPU pair held to the predictor's band (the desktop at
    `batch` per GPU: the split has been scaled to it; a target at `target_batch(target)`, None:
    the same)."""

    predictor: Predictor
    kind: str
    dtype: str
    profile: StepProfile
    batch: float | None = None
    target_batch: Callable[[GpuSpec], int | None] | None = None

    def _there(self, target: GpuSpec) -> float | None:
        return self.target_batch(target) if self.target_batch is not None else None

    def measured(self, source: GpuSpec, target: GpuSpec) -> float:
        there = self._there(target)
        return self.predictor.speedup(
            source, target, self.kind, self.dtype, self.profile, self.batch, there
        )

    def predicted(self, source: GpuSpec, target: GpuSpec) -> float:
        there = self._there(target)
        return self.predictor.speedup(
            source, target, self.kind, self.dtype, batch=self.batch, target_batch=there
        )

    def within_band(self, source: GpuSpec, target: GpuSpec) -> bool:
        prior = self.predicted(source, target)
        low, high = self.predictor.band(source, target, self.kind, self.dtype)
        # the band multiplies predicted time, so it divides speed the other way round
        return prior / high <= self.measured(source, target) <= prior / low

    def __call__(self, source: GpuSpec, target: GpuSpec) -> float:
        if self.within_band(source, target):
            return self.measured(source, target)
        return self.predicted(source, target)


def speed_from(
    bench: BenchResult,
    kind: str,
    dtype: str,
    predictor: Predictor,
    batch: float | None = None,
    target_batch: Callable[[GpuSpec], int | None] | None = None,
) -> SpeedFn | None:
    """Speeds predicted from the bench's measured time split (the desktop at `batch` per GPU,
    a target at `target_batch(target)`), cached per GPU pair."""
    w = workload_for(bench, kind)
    if desktop_gpu(bench) is None or w is None:
        return None
    profile, _why = scaled_profile(w, dtype, predictor, kind, batch)
    if profile is None:
        return None
    fn = BenchSpeed(predictor, kind, dtype, profile, batch, target_batch)
    cache: dict[tuple[str, str], float] = {}

    def speed(source: GpuSpec, target: GpuSpec) -> float:
        key = (source.key, target.key)
        if key not in cache:
            cache[key] = fn(source, target)
        return cache[key]

    return speed


def load_w_for(bench: BenchResult, kind: str) -> float | None:
    """Sustained board watts of the work being priced; None where the bench has none (a bench
    saved before it metered each workload had only a whole-run mean, too low to use)."""
    w = workload_for(bench, kind)
    return w.power.load_w if w is not None and w.power is not None else None


class BenchEffects(Struct, frozen=True):
    """Everything a saved bench changes in one comparison, for one desktop GPU."""

    max_batch: dict[str, int]
    """Largest batch on every catalog GPU: from the memory fit, whatever the bench ran on."""
    run_hours: float | None = None
    """Hours the user's items take: only when the bench ran on the desktop's own GPU."""
    speed: SpeedFn | None = None
    """Speeds from the measured time split: only when the bench ran on the desktop's GPU."""
    gpu_watts: float | None = None
    """Measured watts under load (NVML): only when the bench ran on the desktop's GPU."""
    profile: StepProfile | None = None
    """The split behind `speed`, for "why this number"."""
    speed_note: str | None = None
    """Where the split was measured, or why the bench did not move the speeds."""
    memory: JobMemory | None = None
    """The job's memory as a fixed part and a part per item (its peak at two batches), for
    --target-batch max: the memory fit does not depend on the device."""


def effects(
    bench: BenchResult,
    desktop_gpu_key: str,
    kind: str,
    dtype: str,
    items: float | None,
    specs: Iterable[GpuSpec],
    predictor: Predictor,
    batch: float | None = None,
) -> BenchEffects:
    """What `bench` tells a comparison whose desktop has `desktop_gpu_key` (at `batch` per
    GPU, to which its measured split is scaled).

    A bench measured on another GPU (or the CPU) still gives the memory fit, which does not
    depend on the device; its speed, watts and items per second belong to the GPU it ran on.
    """
    on_desktop = desktop_gpu(bench) == desktop_gpu_key
    w = workload_for(bench, kind)
    profile, note = (
        scaled_profile(w, dtype, predictor, kind, batch)
        if on_desktop and w is not None
        else (None, None)
    )
    speed = speed_from(bench, kind, dtype, predictor, batch) if on_desktop else None
    return BenchEffects(
        max_batch=max_batch(bench, kind, specs),
        run_hours=run_hours_for(bench, kind, items) if on_desktop and items else None,
        speed=speed,
        gpu_watts=load_w_for(bench, kind) if on_desktop else None,
        profile=profile if speed is not None else None,
        speed_note=note,
        memory=memory_of(bench, kind),
    )


def memory_of(bench: BenchResult, kind: str) -> JobMemory | None:
    """The bench's memory fit of the workload that stands for `kind`, where it has one."""
    w = workload_for(bench, kind)
    if w is None or w.memory_base_bytes is None or w.memory_per_item_bytes is None:
        return None
    return from_bench(w.memory_base_bytes, w.memory_per_item_bytes)


def explain_speed(
    found: BenchEffects | None,
    predictor: Predictor,
    source: GpuSpec,
    target: GpuSpec,
    kind: str,
    dtype: str,
    batch: float | None = None,
    target_batch: float | None = None,
) -> SpeedBreakdown:
    """ "Why this number" for one GPU pair: from the bench's split where it made the speed,
    else the predictor's (the desktop at `batch` per GPU, the target at `target_batch`), with
    a note saying which and why."""
    if found is None or found.speed_note is None:
        return predictor.explain(
            source, target, kind, dtype, batch=batch, target_batch=target_batch
        )
    notes = [found.speed_note]
    profile = found.profile
    there = int(target_batch) if target_batch else None
    if profile is not None:
        fn = BenchSpeed(predictor, kind, dtype, profile, batch, lambda _t: there)
        if not fn.within_band(source, target):
            notes.append(
                f"the bench's split gives {fn.measured(source, target):.3g}x for this pair, "
                "outside the predictor's band: the predictor's speed is kept"
            )
            profile = None
    why = predictor.explain(source, target, kind, dtype, profile, batch, target_batch)
    return replace(why, **{"notes": (*notes, *why.notes)})
