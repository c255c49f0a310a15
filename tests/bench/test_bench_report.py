"""A saved bench as people read it (costcalc.bench.report), without torch."""

from __future__ import annotations

from costcalc.bench.report import to_text
from tests.bench_results import cpu_bench, gpu_bench, h100_filled_bench


def test_a_gpu_bench_reads_with_its_device_figures_and_power() -> None:
    text = to_text(gpu_bench(power_w=280.0))
    lines = text.splitlines()
    assert lines[0].startswith("Device: cuda (NVIDIA GeForce RTX 3090 = catalog rtx3090)")
    assert "CUDA 12.8" in lines[0]
    assert "Power: 280 W measured under load" in lines
    assert "    power: 280 W under load over 3.0 s (energy counter)" in lines
    assert any(line.startswith("Memory bandwidth:") and "GB/s" in line for line in lines)
    assert any("items/s" in line and "ms/step" in line for line in lines)


def test_a_filled_bench_says_the_size_it_settled_on_why_and_its_split() -> None:
    lines = to_text(h100_filled_bench()).splitlines()
    assert "    batch 1024: throughput stopped rising (tried 64, 256, 1024, 4096)" in lines
    assert (
        "    time split at batch 1024: math 13% (at the matmul rate), memory and element-wise "
        "86%, launches 2%"
    ) in lines
    assert "    power: 472 W under load over 2.5 s (energy counter)" in lines


def test_a_cpu_bench_has_no_catalog_gpu_and_no_power() -> None:
    bench = cpu_bench(base_bytes=20e9, per_item_bytes=1e9)
    text = to_text(bench)
    assert "= catalog" not in text.splitlines()[0]
    assert "Power: not measured" in text
    workload = bench.workloads[0]
    assert f"memory {workload.memory_base_bytes / 1e6:,.1f} MB" in text
    assert f"+ {workload.memory_per_item_bytes / 1e6:,.2f} MB/item" in text
