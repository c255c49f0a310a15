"""Saved bench results as `costcalc bench --save` writes them, built without torch.

Builders for the tests that need a bench file: a CPU one (what this machine produces), a CUDA
one (the file can exist here even though the device cannot), and two H100 benches built from
what the bench and the same GPU measured on 2026-11-24 (/work/shared/data/gpu-h100-bench-
2026-11-24.md: NVIDIA H100 80GB HBM3, driver 580.159.04, torch 2.11.0+cu130): the launch-bound
one the old bench recorded, and one filled as the bench now fills the device.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from costcalc.core.bench_results import (
    BenchResult,
    Environment,
    PowerReading,
    SizePoint,
    Spread,
    WorkloadResult,
)
from costcalc.core.bench_split import fixed_step_s, split_of
from costcalc.core.models import StepProfile


def _spread(step_s: float) -> Spread:
    return Spread(median_s=step_s, iqr_s=0.0, cv=0.0, repeats=5, noisy=False)


def _environment(device: str, device_name: str, gpu_key: str | None) -> Environment:
    return Environment(
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


def bench_result(
    *, device: str, device_name: str, gpu_key: str | None, power_w: float | None, **workload: Any
) -> BenchResult:
    step_s = workload.get("step_s", 0.01)
    return BenchResult(
        created_at=datetime(2026, 11, 22, tzinfo=timezone.utc),
        mode="quick",
        device=device,
        environment=_environment(device, device_name, gpu_key),
        matmul_tflops={"fp16": 60.0} if device == "cuda" else {"fp32": 0.1},
        bandwidth_gbs=800.0 if device == "cuda" else 10.0,
        launch_overhead_us=5.0 if device == "cuda" else 2.0,
        workloads=(WorkloadResult(spread=_spread(step_s), **workload),),
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
    """A CUDA bench of the transformer step on a catalog GPU, filled (its throughput had
    stopped rising), with its watts under load and a profile."""
    return bench_result(
        device="cuda",
        device_name="NVIDIA GeForce RTX 3090",
        gpu_key=gpu_key,
        power_w=power_w,
        name="gpt_lm",
        kind="transformer",
        dtype="fp16",
        batch_size=64,
        sized_by="plateau",
        items_per_s=2000.0,
        step_s=0.032,
        memory_base_bytes=2e9,
        memory_per_item_bytes=0.25e9,
        profile=StepProfile(compute_share=0.7, memory_share=0.25, overhead_share=0.05),
        power=PowerReading(load_w=power_w, idle_w=30.0, window_s=3.0, method="energy counter"),
    )


# ----------------------------------------------------------------- the H100 of 2026-11-24

H100_FP16_TFLOPS = 692.0
H100_LAUNCH_US = 11.2
H100_IDLE_W = 76.0


def _h100(workloads: tuple[WorkloadResult, ...], power_w: float | None) -> BenchResult:
    return BenchResult(
        created_at=datetime(2026, 11, 24, tzinfo=timezone.utc),
        mode="full",
        device="cuda",
        environment=_environment("cuda", "NVIDIA H100 80GB HBM3", "h100_sxm5_80gb"),
        matmul_tflops={"fp16": H100_FP16_TFLOPS, "bf16": 719.0, "tf32": 349.0, "fp32": 51.5},
        bandwidth_gbs=2893.0,
        launch_overhead_us=H100_LAUNCH_US,
        workloads=workloads,
        power_w=power_w,
        duration_s=27.0,
    )


def _filled(
    name: str,
    kind: str,
    sweep: dict[int, float],
    batch: int,
    watts: float,
    flops_per_item: float,
    kernels: int,
) -> WorkloadResult:
    sizes = tuple(SizePoint(batch_size=b, items_per_s=r) for b, r in sweep.items())
    step_s = batch / sweep[batch]
    return WorkloadResult(
        name=name,
        kind=kind,  # type: ignore[arg-type]
        dtype="fp16",
        batch_size=batch,
        sized_by="plateau",
        sizes=sizes,
        items_per_s=sweep[batch],
        step_s=step_s,
        spread=_spread(step_s),
        flops_per_item=flops_per_item,
        kernels_per_step=kernels,
        profile=split_of(
            flops_per_item * batch,
            step_s,
            H100_FP16_TFLOPS,
            kernels,
            H100_LAUNCH_US,
            fixed_step_s(sizes, batch),
        ),
        power=PowerReading(load_w=watts, idle_w=H100_IDLE_W, window_s=2.5, method="energy counter"),
    )


def h100_filled_bench() -> BenchResult:
    """The bench's reference steps at fp16 where their throughput stopped rising: the shared
    file's sweep (items/s and watts at each batch). FLOPs per item and kernels per step are the
    old reference models' (counted with PyTorch's counters on this CPU, torch 2.13, autocast)."""
    cnn = _filled(
        "resnet_cnn", "cnn", {64: 7165, 256: 8501, 1024: 8805, 4096: 8916}, 1024, 472.0,
        10.09e9, 875,
    )  # fmt: skip
    transformer = _filled(
        "transformer_block", "transformer",
        {16: 1195, 64: 5029, 256: 8678, 1024: 9694, 4096: 9866}, 1024, 636.0, 19.33e9, 1312,
    )  # fmt: skip
    return _h100((cnn, transformer), power_w=636.0)


def h100_launch_bound_bench() -> BenchResult:
    """What the old bench recorded: the CNN at batch 64 (never sized), split 8 / 57 / 35 %,
    and 183 W averaged over the whole run, idle gaps included."""
    cnn = WorkloadResult(
        name="resnet_cnn",
        kind="cnn",
        dtype="fp16",
        batch_size=64,
        items_per_s=5608.0,
        step_s=64 / 5608,
        spread=_spread(64 / 5608),
        profile=StepProfile(compute_share=0.08, memory_share=0.57, overhead_share=0.35),
    )
    return _h100((cnn,), power_w=183.0)
