"""One bench run: probes, reference training steps, memory fit, power; progress as it goes.

Rule kept here: orchestration only. Each measurement lives in its own module; this one decides
sizes per mode, reports progress, and assembles the BenchResult.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from costcalc.bench import batch, probes, workloads
from costcalc.bench import device as dev
from costcalc.bench.power import PowerSampler
from costcalc.bench.timing import measure
from costcalc.core.bench_results import BenchResult, MatmulProbe, WorkloadResult
from costcalc.core.memfit import fit_line
from costcalc.core.models import StepProfile

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Plan:
    """Sizes and repeats of one bench mode."""

    size: str
    matmul_sizes: tuple[int, ...]
    bandwidth_mb: int
    repeats: int
    search_batch: bool


def plan_for(mode: str, device: str) -> Plan:
    gpu = device != "cpu"
    if mode == "tiny":  # the tests' mode: every code path, in a second or two
        return Plan("tiny", (64, 128), 8, 3, search_batch=gpu)
    if mode == "full":
        sizes = (2048, 4096, 8192) if gpu else (512, 1024, 2048)
        return Plan("full", sizes, 1024 if gpu else 256, 9, search_batch=gpu)
    return Plan(
        "quick",
        (1024, 2048, 4096) if gpu else (256, 512, 1024),
        512 if gpu else 128,
        5,
        search_batch=False,
    )


def run(
    device: str | None = None,
    mode: str = "quick",
    progress: Progress | None = None,
    dtype: str = "auto",
) -> BenchResult:
    report = progress or (lambda _message, _fraction: None)
    started = time.perf_counter()
    device = dev.pick_device(device)
    if dtype == "auto":
        dtype = "fp16" if dev.has_tensor_cores(device) else "fp32"
    plan = plan_for(mode, device)
    warnings: list[str] = []
    report(f"device {device}: {dev.device_name(device)}", 0.0)

    matmul: list[MatmulProbe] = []
    dtypes = probes.supported_dtypes(device)
    for i, name in enumerate(dtypes):
        report(f"matmul {name}", 0.05 + 0.3 * i / len(dtypes))
        sizes = plan.matmul_sizes if name == "fp32" or device != "cpu" else plan.matmul_sizes[:2]
        matmul.append(probes.matmul_tflops(device, name, sizes, repeats=plan.repeats))
    report("memory bandwidth", 0.35)
    bandwidth, bandwidth_spread = probes.bandwidth_gbs(device, plan.bandwidth_mb, plan.repeats)
    report("launch overhead", 0.4)
    launch_us = probes.launch_overhead_us(device, plan.repeats)

    rates = {p.dtype: p.tflops for p in matmul}
    sampler = PowerSampler(enabled=device == "cuda")
    results = []
    for i, name in enumerate(workloads.REFERENCES):
        report(f"training step: {name}", 0.45 + 0.25 * i)
        result = _workload(name, plan, device, dtype, rates, launch_us, sampler)
        results.append(result)
        if result.spread.noisy:
            warnings.append(f"{name}: step times vary by {result.spread.cv:.0%} (noisy machine?)")
    sampler.close()
    warnings += [f"matmul {p.dtype}: noisy ({p.spread.cv:.0%})" for p in matmul if p.spread.noisy]
    report("done", 1.0)
    return BenchResult(
        created_at=datetime.now(timezone.utc),
        mode="full" if mode == "full" else "quick",
        device=device,
        environment=dev.environment(device),
        matmul_tflops=rates,
        matmul=tuple(matmul),
        bandwidth_gbs=bandwidth,
        bandwidth_spread=bandwidth_spread,
        launch_overhead_us=launch_us,
        workloads=tuple(results),
        power_w=sampler.mean_w,
        energy_j=sampler.energy_j,
        duration_s=time.perf_counter() - started,
        warnings=tuple(warnings),
    )


def _workload(
    name: str,
    plan: Plan,
    device: str,
    dtype: str,
    rates: dict[str, float],
    launch_us: float,
    sampler: PowerSampler,
) -> WorkloadResult:
    ref = workloads.build(name, plan.size, device, dtype)
    size = ref.default_batch
    step = ref.step_for(size)
    with sampler:
        spread = measure(step, device, warmup=2, repeats=plan.repeats)
    flops = workloads.flops_per_item(ref)
    kernels = workloads.kernels_per_step(step)
    a, b = _memory_fit(ref, device, size)
    max_batch, method = _max_batch(ref, device, plan, a, b)
    return WorkloadResult(
        name=name,
        kind="cnn" if ref.kind == "cnn" else "transformer",
        dtype=dtype,
        batch_size=size,
        items_per_s=size / spread.median_s,
        step_s=spread.median_s,
        spread=spread,
        flops_per_item=flops,
        kernels_per_step=kernels,
        memory_base_bytes=a,
        memory_per_item_bytes=b,
        max_batch=max_batch,
        max_batch_method=method,
        profile=profile_of(
            flops * size, spread.median_s, rates.get(dtype, 0.0), kernels, launch_us
        ),
    )


def profile_of(
    flops_per_step: float, step_s: float, tflops: float, kernels: int, launch_us: float
) -> StepProfile:
    """Shares of the step: math at the measured matmul rate, launches, and the rest (memory)."""
    compute = min(flops_per_step / (tflops * 1e12) / step_s, 1.0) if tflops > 0 else 0.0
    overhead = min(kernels * launch_us / 1e6 / step_s, 1.0 - compute)
    return StepProfile(
        compute_share=compute,
        memory_share=max(1.0 - compute - overhead, 0.0),
        overhead_share=overhead,
    )


def _memory_at(ref: workloads.Reference, device: str, size: int) -> float:
    """Peak bytes of one step at `size`: the allocator's peak on CUDA, else saved tensors."""
    step = ref.step_for(size)
    dev.reset_peak_memory(device)
    if device == "cuda":
        step()
        dev.synchronize(device)
        peak = dev.peak_memory_bytes(device)
        return float(peak or 0)
    x, y = ref.batch(size)
    with workloads.saved_activation_bytes() as saved:
        ref.forward_backward(x, y)
    ref.optimizer.zero_grad(set_to_none=True)
    return float(ref.static_bytes() + saved[0])


def _memory_fit(ref: workloads.Reference, device: str, size: int) -> tuple[float, float]:
    small, large = max(1, size // 2), size
    return fit_line(small, _memory_at(ref, device, small), large, _memory_at(ref, device, large))


def _max_batch(
    ref: workloads.Reference, device: str, plan: Plan, a: float, b: float
) -> tuple[int | None, str]:
    if plan.search_batch:
        limit = 4096 if plan.size != "tiny" else 64
        found = batch.find_max_batch(lambda n: ref.step_for(n)(), device, ref.default_batch, limit)
        return found, "search"
    if b <= 0:
        return None, "memory fit"
    budget = dev.free_ram_bytes() * 0.8 if device == "cpu" else dev.total_memory_bytes(device)
    return max(int((budget - a) // b), 0), "memory fit"
