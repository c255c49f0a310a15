"""A bench result as people read it. No torch: shared by the CLI and the app."""

from __future__ import annotations

from costcalc.core.bench_results import BenchResult


def to_text(result: BenchResult) -> str:
    env = result.environment
    gpu = f" = catalog {env.gpu_key}" if env.gpu_key else ""
    lines = [
        f"Device: {env.device} ({env.device_name}{gpu}), torch {env.torch_version}"
        + (f", CUDA {env.cuda_version}" if env.cuda_version else "")
        + (f", driver {env.driver}" if env.driver else "")
        + f", {env.threads} threads",
        f"  CPU: {env.cpu_model}",
        "Matmul (best of sizes, median of repeats):",
    ]
    for probe in result.matmul:
        flag = "  (noisy)" if probe.spread.noisy else ""
        lines.append(f"  {probe.dtype:5} {probe.tflops:9.3f} TFLOPS at n={probe.size}{flag}")
    lines += [
        f"Memory bandwidth: {result.bandwidth_gbs:,.1f} GB/s (copy, read + write)",
        f"Launch overhead: {result.launch_overhead_us:.1f} us per kernel",
        "Training steps (forward + backward + AdamW):",
    ]
    for w in result.workloads:
        fit = (
            f", memory {w.memory_base_bytes / 1e6:,.1f} MB + {w.memory_per_item_bytes / 1e6:,.2f}"
            f" MB/item"
            if w.memory_base_bytes is not None and w.memory_per_item_bytes is not None
            else ""
        )
        biggest = f", max batch {w.max_batch} ({w.max_batch_method})" if w.max_batch else ""
        noisy = " (noisy)" if w.spread.noisy else ""
        lines.append(
            f"  {w.name:18} {w.kind:11} batch {w.batch_size:4}: {w.items_per_s:,.1f} items/s, "
            f"{w.step_s * 1000:,.1f} ms/step{noisy}{fit}{biggest}"
        )
    power = f"{result.power_w:.0f} W measured" if result.power_w is not None else "not measured"
    lines += [f"Power: {power}", f"Took {result.duration_s:.1f} s"]
    lines += [f"  warning: {w}" for w in result.warnings]
    return "\n".join(lines)
