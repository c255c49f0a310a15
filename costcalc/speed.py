"""Relative speed of two GPUs: what the engine asks, answered by the calibrated predictor.

Rule kept here: speed is per GPU and dimensionless (target throughput / source throughput).
`predicted_speed` is what the engine uses: the model of costcalc.predict per workload kind and
dtype, cached per GPU pair so a comparison of thousands of offers pays for each pair once.
`matmul_tflops` is the peak-rate view the simple baselines in benchmarks/ are built from.
"""

from __future__ import annotations

from costcalc.models import GpuSpec


def matmul_tflops(spec: GpuSpec, dtype: str) -> float:
    """Peak dense matmul rate a framework can reach for `dtype` on this GPU.

    Falls back the way PyTorch does: no tensor cores -> plain FP32 (or packed FP16 where the
    GPU has fast half precision, like the P100); no BF16 before Ampere -> FP32.
    """
    if dtype == "fp16":
        if spec.fp16_tensor_tflops:
            return spec.fp16_tensor_tflops
        return max(spec.fp32_tflops, spec.fp16_tflops or 0.0)
    if dtype == "bf16":
        return spec.bf16_tensor_tflops or spec.fp32_tflops
    if dtype == "tf32":
        return spec.tf32_tensor_tflops or spec.fp32_tflops
    return spec.fp32_tflops


def predicted_speed(
    source: GpuSpec, target: GpuSpec, kind: str = "generic", dtype: str = "fp32"
) -> float:
    """Target throughput / source throughput from the calibrated predictor (1.0 for same GPU)."""
    if source.key == target.key:
        return 1.0
    key = (source.key, target.key, kind, dtype)
    found = _SPEED_CACHE.get(key)
    if found is None:
        from costcalc.predict import speedup

        found = _SPEED_CACHE[key] = speedup(source, target, kind, dtype)
    return found


_SPEED_CACHE: dict[tuple[str, str, str, str], float] = {}
"""Per GPU pair, kind and dtype: specs are frozen catalog entries, so a key identifies them."""
