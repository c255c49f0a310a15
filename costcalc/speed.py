"""Relative speed of two GPUs from their specs: the simple estimate the engine starts from.

Rule kept here: speed is per GPU and dimensionless (target throughput / source throughput).
The estimate is the geometric mean of the matmul-throughput ratio for the chosen dtype and the
memory-bandwidth ratio: deep-learning steps spend their time partly in tensor-core math and
partly waiting on memory (DOMAIN.md section 3). `costcalc.predict` refines it per workload kind.
"""

from __future__ import annotations

import math

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


def relative_speed(source: GpuSpec, target: GpuSpec, dtype: str = "fp16") -> float:
    """How many times faster `target` runs the same work as `source` (1.0 for the same GPU)."""
    if source.key == target.key:
        return 1.0
    compute = matmul_tflops(target, dtype) / matmul_tflops(source, dtype)
    memory = target.bandwidth_gbs / source.bandwidth_gbs
    return math.sqrt(compute * memory)
