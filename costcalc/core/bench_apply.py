"""What a saved bench changes in a comparison: desktop GPU, run time, max batch, speed, watts.

Rule kept here: pure (no torch, no files, no printing). A bench on a catalog GPU makes that GPU
the desktop, its measured time split drives the predictions and its memory fit gives the
largest batch on every GPU. A CPU (or unknown GPU) bench cannot stand in for a GPU: the user
still names the desktop GPU; only the memory fit is used (activation memory per item does not
depend on the device).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from costcalc.core.bench_results import BenchResult, WorkloadResult
from costcalc.core.memfit import max_batch_by_gpu
from costcalc.core.models import GpuSpec
from costcalc.core.predict import Predictor, SpeedFn


def workload_for(bench: BenchResult, kind: str) -> WorkloadResult | None:
    """The measured workload that best stands for `kind` (same kind, else the first)."""
    same = [w for w in bench.workloads if w.kind == kind]
    candidates = same or list(bench.workloads)
    return candidates[0] if candidates else None


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


def speed_from(bench: BenchResult, kind: str, dtype: str, predictor: Predictor) -> SpeedFn | None:
    """Speeds predicted from the bench's measured time split, cached per GPU pair."""
    w = workload_for(bench, kind)
    if desktop_gpu(bench) is None or w is None or w.profile is None:
        return None
    profile = w.profile
    cache: dict[tuple[str, str], float] = {}

    def speed(source: GpuSpec, target: GpuSpec) -> float:
        key = (source.key, target.key)
        if key not in cache:
            cache[key] = predictor.speedup(source, target, kind, dtype, profile)
        return cache[key]

    return speed


@dataclass(frozen=True)
class BenchEffects:
    """Everything a saved bench changes in one comparison, for one desktop GPU."""

    max_batch: dict[str, int]
    """Largest batch on every catalog GPU: from the memory fit, whatever the bench ran on."""
    run_hours: float | None = None
    """Hours the user's items take: only when the bench ran on the desktop's own GPU."""
    speed: SpeedFn | None = None
    """Speeds from the measured time split: only when the bench ran on the desktop's GPU."""
    gpu_w: float | None = None
    """Measured watts under load (NVML): only when the bench ran on the desktop's GPU."""


def effects(
    bench: BenchResult,
    desktop_gpu_key: str,
    kind: str,
    dtype: str,
    items: float | None,
    specs: Iterable[GpuSpec],
    predictor: Predictor,
) -> BenchEffects:
    """What `bench` tells a comparison whose desktop has `desktop_gpu_key`.

    A bench measured on another GPU (or the CPU) still gives the memory fit, which does not
    depend on the device; its speed, watts and items per second belong to the GPU it ran on.
    """
    on_desktop = desktop_gpu(bench) == desktop_gpu_key
    return BenchEffects(
        max_batch=max_batch(bench, kind, specs),
        run_hours=run_hours_for(bench, kind, items) if on_desktop and items else None,
        speed=speed_from(bench, kind, dtype, predictor) if on_desktop else None,
        gpu_w=bench.power_w if on_desktop else None,
    )
