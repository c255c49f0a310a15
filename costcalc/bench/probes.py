"""Micro-probes of the device: dense matmul rate per dtype, memory bandwidth, launch overhead.

Rule kept here: random inputs (constant ones can be special-cased by hardware), the best of a few
tensor-core-friendly sizes (multiples of 128), and every figure timed by costcalc.bench.timing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch

from costcalc.bench.timing import measure
from costcalc.core.bench_results import MatmulProbe, Spread

TORCH_DTYPES = {
    "fp32": torch.float32,
    "tf32": torch.float32,
    "fp16": torch.float16,
    "bf16": torch.bfloat16,
}


def supported_dtypes(device: str) -> list[str]:
    """Dtypes worth probing: tf32 only where TF32 tensor cores exist (CUDA, Ampere on)."""
    dtypes = ["fp32"]
    if device == "cuda":
        major, _minor = torch.cuda.get_device_capability(0)
        dtypes += ["tf32"] if major >= 8 else []
        dtypes += ["fp16"] + (["bf16"] if major >= 8 else [])
    elif device == "mps":
        dtypes += ["fp16"]
    else:
        dtypes += ["bf16"]
    return dtypes


def tf32_allowed() -> bool:
    """Whether fp32 matmuls may run on TF32 tensor cores (torch.backends setting)."""
    return bool(torch.backends.cuda.matmul.allow_tf32)


def _set_tf32(enabled: bool) -> None:
    torch.backends.cuda.matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled


def matmul_tflops(
    device: str, dtype: str, sizes: Sequence[int], repeats: int = 5, min_repeat_s: float = 0.05
) -> MatmulProbe:
    """Best dense n x n @ n x n rate over `sizes` (2 n^3 FLOPs each)."""
    previous = torch.backends.cuda.matmul.allow_tf32
    _set_tf32(dtype == "tf32")
    try:
        best: MatmulProbe | None = None
        for n in sizes:
            a = torch.randn(n, n, device=device, dtype=TORCH_DTYPES[dtype])
            b = torch.randn(n, n, device=device, dtype=TORCH_DTYPES[dtype])
            spread = measure(
                functools.partial(torch.mm, a, b),
                device,
                warmup=1,
                repeats=repeats,
                min_repeat_s=min_repeat_s,
            )
            tflops = 2 * n**3 / spread.median_s / 1e12
            if best is None or tflops > best.tflops:
                best = MatmulProbe(dtype=dtype, size=n, tflops=tflops, spread=spread)
            del a, b
        assert best is not None
        return best
    finally:
        _set_tf32(previous)


def bandwidth_gbs(device: str, megabytes: int, repeats: int = 5) -> tuple[float, Spread]:
    """Device-to-device copy of a buffer far larger than the caches; read + write counted."""
    n = megabytes * 1024 * 1024 // 4
    src = torch.rand(n, device=device)
    dst = torch.empty_like(src)
    spread = measure(lambda: dst.copy_(src), device, warmup=2, repeats=repeats)
    moved = 2 * src.numel() * src.element_size()
    return moved / spread.median_s / 1e9, spread


def launch_overhead_us(device: str, repeats: int = 5) -> float:
    """Seconds per tiny kernel, back to back: what a step pays per op regardless of its size."""
    x = torch.zeros(1, device=device)
    spread = measure(lambda: x.add_(1.0), device, warmup=10, repeats=repeats, min_repeat_s=0.01)
    return spread.median_s * 1e6
