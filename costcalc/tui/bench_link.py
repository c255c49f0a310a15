"""From a bench result to the run the comparison uses (costcalc.tui.calc.BenchRun).

Rule kept here: no textual, and no torch: saved results are read through
`costcalc.bench.results`, which must not import torch. A build without the bench module
simply has no bench run.
"""

from __future__ import annotations

import importlib
from typing import Any

from costcalc.loaders import AppData
from costcalc.settings import Settings
from costcalc.tui.calc import BenchRun


def latest_bench_run(data: AppData, settings: Settings) -> BenchRun | None:
    """The latest saved bench as a BenchRun, or None when there is none (or no bench module)."""
    try:
        results = importlib.import_module("costcalc.bench.results")
    except ImportError:
        return None
    result = results.load_latest()
    if result is None:
        return None
    return bench_run_from(result, data, settings)


def bench_run_from(result: Any, data: AppData, settings: Settings) -> BenchRun:
    device = str(getattr(result, "device", "this machine"))
    run_hours = None
    workloads = getattr(result, "workloads", None) or []
    found = [getattr(w, "items_per_s", None) for w in workloads]
    rates = [float(r) for r in found if isinstance(r, (int, float)) and r > 0]
    if settings.items_per_run and rates:
        run_hours = settings.items_per_run / max(rates) / 3600
    return BenchRun(label=f"bench on {device}", run_hours=run_hours, max_batch={})
