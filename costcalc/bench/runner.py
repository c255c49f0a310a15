"""One bench run: probes, reference training steps filled to the device, power, memory fit.

Rule kept here: orchestration only. Each measurement lives in its own module; this one decides
sizes, budgets and windows per mode, reports progress, and assembles the BenchResult.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone

from msgspec import Struct

from costcalc.bench import batch, probes, workloads
from costcalc.bench import device as dev
from costcalc.bench.fill import fill
from costcalc.bench.power import PowerMeter, open_nvml
from costcalc.bench.timing import measure
from costcalc.core.bench_results import BenchResult, MatmulProbe, PowerReading, WorkloadResult
from costcalc.core.bench_split import fixed_step_s, split_of

Progress = Callable[[str, float], None]


class Plan(Struct, frozen=True):
    """Sizes, repeats and budgets of one bench mode on one kind of device."""

    size: str
    matmul_sizes: tuple[int, ...]
    bandwidth_mb: int
    repeats: int
    search_batch: bool
    fill_budget_s: float
    """Seconds each reference workload may spend growing its batch."""
    power_window_s: float
    """Seconds each reference workload runs back to back while its watts are metered."""


def plan_for(mode: str, device: str) -> Plan:
    gpu = device != "cpu"
    if mode == "tiny":  # the tests' mode: every code path, in a second or two
        return Plan("tiny", (64, 128), 8, 3, gpu, 0.5, 0.5)
    if mode == "full":
        full_sizes = (2048, 4096, 8192) if gpu else (512, 1024, 2048)
        return Plan("full", full_sizes, 1024 if gpu else 256, 9, gpu, 45.0 if gpu else 30.0, 10.0)
    # quick: under 20 s on a laptop CPU, about 30 s on a GPU (issue 23)
    quick_sizes = (1024, 2048, 4096) if gpu else (256, 512)
    return Plan("quick", quick_sizes, 512 if gpu else 128, 5, False, 6.0 if gpu else 3.0, 3.0)


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
    report(f"device {device}: {dev.device_name(device)}", 0.0)
    meter = PowerMeter(open_nvml() if device == "cuda" else None)
    idle_w = meter.idle_w()  # before any work warms the GPU up
    matmul = _probe_matmul(device, plan, report)
    report("memory bandwidth", 0.25)
    bandwidth, bandwidth_spread = probes.bandwidth_gbs(device, plan.bandwidth_mb, plan.repeats)
    report("launch overhead", 0.3)
    launch_us = probes.launch_overhead_us(device, plan.repeats)
    rates = {p.dtype: p.tflops for p in matmul}
    results = []
    for i, name in enumerate(workloads.REFERENCES):
        report(f"training step: {name}, filling the device", 0.35 + 0.3 * i)
        results.append(
            _workload(name, plan, device, dtype, rates.get(dtype, 0.0), launch_us, meter, idle_w)
        )
    meter.close()
    report("done", 1.0)
    loads = [w.power.load_w for w in results if w.power is not None]
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
        power_w=max(loads) if loads else None,
        idle_w=idle_w,
        energy_j=sum(w.power.load_w * w.power.window_s for w in results if w.power) or None,
        duration_s=time.perf_counter() - started,
        warnings=tuple(_warnings(matmul, results)),
    )


def _probe_matmul(device: str, plan: Plan, report: Progress) -> list[MatmulProbe]:
    found = []
    dtypes = probes.supported_dtypes(device)
    for i, name in enumerate(dtypes):
        report(f"matmul {name}", 0.05 + 0.2 * i / len(dtypes))
        sizes = plan.matmul_sizes if name == "fp32" or device != "cpu" else plan.matmul_sizes[:2]
        found.append(probes.matmul_tflops(device, name, sizes, repeats=plan.repeats))
    return found


def _warnings(matmul: list[MatmulProbe], results: list[WorkloadResult]) -> list[str]:
    out = [f"matmul {p.dtype}: noisy ({p.spread.cv:.0%})" for p in matmul if p.spread.noisy]
    for w in results:
        if w.spread.noisy:
            out.append(f"{w.name}: step times vary by {w.spread.cv:.0%} (noisy machine?)")
        if not w.filled:
            out.append(
                f"{w.name}: stopped at batch {w.batch_size} by the {w.sized_by} before its "
                "throughput stopped rising; its time split will not move predictions "
                "(try --full)"
            )
    return out


def _workload(
    name: str,
    plan: Plan,
    device: str,
    dtype: str,
    tflops: float,
    launch_us: float,
    meter: PowerMeter,
    idle_w: float | None,
) -> WorkloadResult:
    ref = workloads.build(name, plan.size, device, dtype)
    filled = fill(ref.step_for, device, ref.start_batch, ref.max_batch, plan.fill_budget_s)
    size = filled.batch_size
    step = ref.step_for(size)
    # quick keeps the sweep's timing of this size; full times it again with more repeats
    spread = filled.spread if plan.size != "full" else measure(step, device, repeats=plan.repeats)
    power = _power(meter, step, device, plan, idle_w)
    ops = workloads.ops_of(ref.step_for(2))  # FLOPs and kernels do not depend on the size
    flops, kernels = ops.flops / 2, ops.kernels
    a, b = _memory_fit(ref, device, size)
    max_batch, method = _max_batch(ref, device, plan, size, a, b)
    return WorkloadResult(
        name=name,
        kind="cnn" if ref.kind == "cnn" else "transformer",
        dtype=dtype,
        description=ref.description,
        model=ref.words,
        dtype_source="default",
        batch_size=size,
        sized_by=filled.sized_by,
        sizes=filled.sizes,
        items_per_s=size / spread.median_s,
        step_s=spread.median_s,
        spread=spread,
        flops_per_item=flops,
        kernels_per_step=kernels,
        memory_base_bytes=a,
        memory_per_item_bytes=b,
        max_batch=max_batch,
        max_batch_method=method,
        profile=split_of(
            flops * size,
            spread.median_s,
            tflops,
            kernels,
            launch_us,
            fixed_step_s(filled.sizes, size),
        ),
        power=power,
    )


def _power(
    meter: PowerMeter, step: Callable[[], None], device: str, plan: Plan, idle_w: float | None
) -> PowerReading | None:
    return meter.reading(step, lambda: dev.synchronize(device), plan.power_window_s, idle_w)


def _memory_fit(ref: workloads.Reference, device: str, size: int) -> tuple[float, float]:
    def run(n: int) -> None:
        ref.step_for(n)()

    # a CPU's saved activations are exactly linear in the batch: two small batches fit it for
    # a fraction of the time; a GPU's allocator peak needs sizes where activations dominate
    small, large = (2, 4) if device == "cpu" else (max(1, size // 2), max(size, 2))
    found = batch.memory_fit(run, device, small, large, ref.static_bytes())
    return found.fixed_gb * 1e9, found.per_item_gb * 1e9


def _max_batch(
    ref: workloads.Reference, device: str, plan: Plan, size: int, a: float, b: float
) -> tuple[int | None, str]:
    if plan.search_batch:
        found = batch.find_max_batch(lambda n: ref.step_for(n)(), device, size, 4 * ref.max_batch)
        return found, "search"
    if b <= 0:
        return None, "memory fit"
    budget = dev.free_ram_bytes() * 0.8 if device == "cpu" else dev.total_memory_bytes(device)
    return max(int((budget - a) // b), 0), "memory fit"
