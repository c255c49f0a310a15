"""A bench result as people read it. No torch: shared by the CLI and the app."""

from __future__ import annotations

from costcalc.core.bench_results import SIZED_BY_WORDS, BenchResult, DecodeBench, WorkloadResult


def _head(result: BenchResult) -> list[str]:
    env = result.environment
    gpu = f" = catalog {env.gpu_key}" if env.gpu_key else ""
    return [
        f"Device: {env.device} ({env.device_name}{gpu}), torch {env.torch_version}"
        + (f", CUDA {env.cuda_version}" if env.cuda_version else "")
        + (f", driver {env.driver}" if env.driver else "")
        + f", {env.threads} threads",
        f"  CPU: {env.cpu_model}",
        "Matmul (best of sizes, median of repeats):",
        *(
            f"  {p.dtype:5} {p.tflops:9.3f} TFLOPS at n={p.size}"
            + ("  (noisy)" if p.spread.noisy else "")
            for p in result.matmul
        ),
        f"Memory bandwidth: {result.bandwidth_gbs:,.1f} GB/s (copy, read + write)",
        f"Launch overhead: {result.launch_overhead_us:.1f} us per kernel",
    ]


def workload_lines(w: WorkloadResult) -> list[str]:
    """A step's figures, then what it ran, at which size and why, its split and its watts."""
    noisy = " (noisy)" if w.spread.noisy else ""
    dtype = f"{w.dtype}, {w.dtype_source}" if w.dtype_source in ("given", "detected") else w.dtype
    lines = [
        f"  {w.name:18} {w.kind:11} {dtype:14} batch {w.batch_size:5}: "
        f"{w.items_per_s:,.1f} items/s, {w.step_s * 1000:,.1f} ms/step{noisy}"
    ]
    what = ", ".join(x for x in (w.model, w.description) if x)
    if what:
        lines.append(f"    ran: {what}")
    if w.sized_by is not None:
        tried = ", ".join(f"{p.batch_size}" for p in w.sizes)
        lines.append(
            f"    batch {w.batch_size}: {SIZED_BY_WORDS[w.sized_by]}"
            + (f" (tried {tried})" if len(w.sizes) > 1 else "")
        )
    if w.profile is not None:
        p = w.profile
        lines.append(
            f"    time split at batch {w.batch_size}: math {p.compute_share:.0%} (at the matmul "
            f"rate), memory and element-wise {p.memory_share:.0%}, launches "
            f"{p.overhead_share:.0%}"
        )
    if w.memory_base_bytes is not None and w.memory_per_item_bytes is not None:
        biggest = f", max batch {w.max_batch} ({w.max_batch_method})" if w.max_batch else ""
        lines.append(
            f"    memory {w.memory_base_bytes / 1e6:,.1f} MB + "
            f"{w.memory_per_item_bytes / 1e6:,.2f} MB/item{biggest}"
        )
    if w.power is not None:
        lines.append(
            f"    power: {w.power.load_w:,.0f} W under load over {w.power.window_s:.1f} s "
            f"({w.power.method})"
        )
    return lines


def to_text(result: BenchResult) -> str:
    lines = _head(result)
    lines.append("Training steps:" if result.mode != "step" else "Your step:")
    for w in result.workloads:
        lines += workload_lines(w)
    if result.power_w is None:
        power = "not measured"
    else:
        idle = f", {result.idle_w:.0f} W idle" if result.idle_w is not None else ""
        power = f"{result.power_w:.0f} W measured under load{idle}"
    lines += [f"Power: {power}", f"Took {result.duration_s:.1f} s"]
    lines += [f"  warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def decode_text(result: DecodeBench, width: int | None = None) -> str:
    """`bench --serve` as people read it, wrapped to `width` (80 if None): the device, the
    model, the decode rate and what it reads of the memory."""
    import textwrap

    env = result.environment
    noisy = ", noisy" if result.spread.noisy else ""
    share = result.bandwidth_share
    lines = [
        f"Device: {env.device} ({env.device_name}), torch {env.torch_version}, "
        f"{env.threads} threads",
        f"Model: a {result.layers}-layer decoder, hidden {result.hidden}, {result.heads} "
        f"heads, vocabulary {result.vocab:,}: {result.params / 1e6:.1f}M parameters, "
        f"{result.weight_bytes / 1e6:,.0f} MB of {result.dtype} weights (random: nothing "
        "downloaded)",
        f"Decode, batch 1: {result.decode_tokens_per_s:,.1f} tokens/s "
        f"({result.ms_per_token:.2f} ms a token{noisy}), {result.decode_tokens} tokens after "
        f"a {result.prompt_tokens}-token prompt",
        f"  weights read at {result.weights_read_gbs:,.1f} GB/s against a measured copy rate "
        f"of {result.copy_bandwidth_gbs:,.1f} GB/s (read + write)"
        + (f": {share:.0%} of it" if share is not None else ""),
    ]
    return "\n".join(
        textwrap.fill(line, width or 80, subsequent_indent="    " if line[0] == " " else "  ")
        for line in lines
    )
