"""A saved bench as people read it (costcalc.bench.report), without torch."""

from __future__ import annotations

from costcalc.bench.report import to_text
from tests.bench_results import cpu_bench, gpu_bench


def test_a_gpu_bench_reads_with_its_device_figures_and_power() -> None:
    text = to_text(gpu_bench(power_w=280.0))
    lines = text.splitlines()
    assert lines[0].startswith("Device: cuda (NVIDIA GeForce RTX 3090 = catalog rtx3090)")
    assert "CUDA 12.8" in lines[0]
    assert "Power: 280 W measured" in lines
    assert any(line.startswith("Memory bandwidth:") and "GB/s" in line for line in lines)
    assert any("items/s" in line and "ms/step" in line for line in lines)


def test_a_cpu_bench_has_no_catalog_gpu_and_no_power() -> None:
    bench = cpu_bench(base_bytes=20e9, per_item_bytes=1e9)
    text = to_text(bench)
    assert "= catalog" not in text.splitlines()[0]
    assert "Power: not measured" in text
    workload = bench.workloads[0]
    assert f"memory {workload.memory_base_bytes / 1e6:,.1f} MB" in text
    assert f"+ {workload.memory_per_item_bytes / 1e6:,.2f} MB/item" in text
