"""Saved bench results as `costcalc bench --save` writes them, built without torch.

One builder for the tests that need a bench file: a CPU one (what this machine produces) and a
CUDA one (the file can exist here even though the device cannot).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from costcalc.core.bench_results import BenchResult, Environment, Spread, WorkloadResult
from costcalc.core.models import StepProfile


def bench_result(
    *, device: str, device_name: str, gpu_key: str | None, power_w: float | None, **workload: Any
) -> BenchResult:
    spread = Spread(median_s=0.01, iqr_s=0.0, cv=0.0, repeats=5, noisy=False)
    env = Environment(
        device=device,
        device_name=device_name,
        gpu_key=gpu_key,
        torch_version="2.13.0",
        cuda_version="12.8" if device == "cuda" else None,
        cpu_model="Test CPU",
        threads=2,
        python_version="3.11",
        platform="linux",
    )
    return BenchResult(
        created_at=datetime(2026, 11, 22, tzinfo=timezone.utc),
        mode="quick",
        device=device,
        environment=env,
        matmul_tflops={"fp16": 60.0} if device == "cuda" else {"fp32": 0.1},
        bandwidth_gbs=800.0 if device == "cuda" else 10.0,
        launch_overhead_us=5.0 if device == "cuda" else 2.0,
        workloads=(WorkloadResult(spread=spread, **workload),),
        power_w=power_w,
        duration_s=5.0,
    )


def cpu_bench(base_bytes: float, per_item_bytes: float) -> BenchResult:
    """A CPU bench of the CNN step with the given memory fit (a + b x batch)."""
    return bench_result(
        device="cpu",
        device_name="Test CPU",
        gpu_key=None,
        power_w=None,
        name="resnet_cnn",
        kind="cnn",
        dtype="fp32",
        batch_size=16,
        items_per_s=1600,
        step_s=0.01,
        memory_base_bytes=base_bytes,
        memory_per_item_bytes=per_item_bytes,
    )


def gpu_bench(gpu_key: str = "rtx3090", power_w: float = 280.0) -> BenchResult:
    """A CUDA bench of the transformer step on a catalog GPU, with NVML watts and a profile."""
    return bench_result(
        device="cuda",
        device_name="NVIDIA GeForce RTX 3090",
        gpu_key=gpu_key,
        power_w=power_w,
        name="transformer_block",
        kind="transformer",
        dtype="fp16",
        batch_size=64,
        items_per_s=2000.0,
        step_s=0.032,
        memory_base_bytes=2e9,
        memory_per_item_bytes=0.25e9,
        profile=StepProfile(compute_share=0.7, memory_share=0.25, overhead_share=0.05),
    )
