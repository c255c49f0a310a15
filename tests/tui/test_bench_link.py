"""The app's bench link: a saved bench changes the comparison the same way `quick --bench` does."""

from __future__ import annotations

from datetime import datetime, timezone

from costcalc.loaders import load_app_data
from costcalc.settings import Settings
from costcalc.tui.bench_link import bench_run_from
from costcalc.tui.calc import calculate
from tests.bench_results import gpu_bench

NOW = datetime(2026, 11, 22, tzinfo=timezone.utc)


def test_bench_on_the_desktop_gpu_sets_watts_speed_and_batches() -> None:
    data = load_app_data()
    settings = Settings(gpu="rtx3090", run_from_bench=True, kind="transformer", dtype="fp16")
    run = bench_run_from(gpu_bench(power_w=280.0), data, settings)
    assert run.gpu == "rtx3090" and run.gpu_w == 280.0 and run.speed is not None
    calc = calculate(settings, data, NOW, bench=run)
    assert calc.desktop.gpu_w == 280.0
    assert calc.workload.max_batch and calc.workload.max_batch["a100_sxm4_80gb"] > 0


def test_bench_on_another_gpu_keeps_the_desktops_board_power() -> None:
    data = load_app_data()
    settings = Settings(gpu="rtx4090", run_from_bench=True, kind="transformer")
    calc = calculate(settings, data, NOW, bench=bench_run_from(gpu_bench(), data, settings))
    assert calc.desktop.gpu_w == data.catalog.get("rtx4090").board_power_w
