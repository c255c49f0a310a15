"""From a bench result to the run the comparison uses (costcalc.tui.calc.BenchRun).

Rule kept here: no textual, no torch, no arithmetic of its own: saved results are read through
`costcalc.bench.results` and turned into engine terms by `costcalc.bench.apply` (both
torch-free). A build without the bench simply has no bench run.
"""

from __future__ import annotations

from costcalc.loaders import AppData
from costcalc.settings import DEFAULT_GPU, Settings
from costcalc.tui.calc import BenchRun

try:
    from costcalc.bench import apply
    from costcalc.bench.results import BenchResult, load_latest
except ImportError:  # a build without the bench
    apply = None  # type: ignore[assignment]


def latest_bench_run(data: AppData, settings: Settings) -> BenchRun | None:
    """The latest saved bench as a BenchRun, or None when there is none (or no bench module)."""
    if apply is None:
        return None
    result = load_latest()
    return None if result is None else bench_run_from(result, data, settings)


def bench_run_from(result: BenchResult, data: AppData, settings: Settings) -> BenchRun:
    """Largest batch on every catalog GPU (memory fit) and, when the bench ran on the desktop's
    own GPU, the run's hours, the measured speed split and the measured watts."""
    desktop = data.catalog.resolve(settings.gpu or DEFAULT_GPU).key
    found = apply.effects(
        result, desktop, settings.kind, settings.dtype, settings.items_per_run, data.catalog
    )
    return BenchRun(
        label=f"bench on {result.environment.device_name} ({result.created_at:%Y-%m-%d})",
        run_hours=found.run_hours,
        max_batch=found.max_batch,
        speed=found.speed,
        gpu_w=found.gpu_w,
        gpu=apply.desktop_gpu(result),
    )
