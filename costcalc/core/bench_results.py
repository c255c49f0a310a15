"""What a bench measured: a versioned schema (costcalc.bench.store saves and loads it).

Rule kept here: models only, no torch and no files, so the pure core can read a loaded result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from costcalc.core.constants import Kind
from costcalc.core.models import Frozen, StepProfile, UtcDatetime

SCHEMA_VERSION = 1


class Spread(Frozen):
    """How repeatable a timing was: median and spread of the repeats."""

    median_s: float = Field(ge=0)
    iqr_s: float = Field(ge=0, description="Interquartile range of the repeats.")
    cv: float = Field(ge=0, description="Coefficient of variation (stdev / mean).")
    repeats: int = Field(ge=1)
    noisy: bool = Field(description="True when the spread is too wide to trust one figure.")


class Environment(Frozen):
    device: str = Field(description="'cuda', 'mps' or 'cpu'.")
    device_name: str = Field(description="GPU or CPU model.")
    gpu_key: str | None = Field(default=None, description="Catalog key when the GPU is known.")
    device_memory_gb: float | None = None
    driver: str | None = None
    torch_version: str
    cuda_version: str | None = None
    cpu_model: str
    threads: int = Field(ge=1, description="torch intra-op threads used.")
    python_version: str
    platform: str


class MatmulProbe(Frozen):
    dtype: str
    size: int = Field(description="Best square matrix size (n x n @ n x n).")
    tflops: float = Field(ge=0)
    spread: Spread


class WorkloadResult(Frozen):
    name: str
    kind: Kind
    dtype: str
    batch_size: int = Field(ge=1)
    items_per_s: float = Field(gt=0)
    step_s: float = Field(gt=0)
    spread: Spread
    flops_per_item: float | None = Field(default=None, ge=0)
    kernels_per_step: int | None = Field(default=None, ge=0)
    memory_base_bytes: float | None = Field(
        default=None, description="Memory fit a in a + b x batch (weights, grads, optimizer)."
    )
    memory_per_item_bytes: float | None = Field(default=None, description="Memory fit b.")
    max_batch: int | None = Field(default=None, description="Largest batch that fits here.")
    max_batch_method: str | None = Field(default=None, description="'search' or 'memory fit'.")
    profile: StepProfile | None = None


class BenchResult(Frozen):
    schema_version: Literal[1] = 1
    created_at: UtcDatetime
    mode: Literal["quick", "full", "step"]
    device: str
    environment: Environment
    matmul_tflops: dict[str, float] = Field(description="Best dense matmul TFLOPS per dtype.")
    matmul: tuple[MatmulProbe, ...] = ()
    bandwidth_gbs: float = Field(ge=0, description="Device copy, read + write counted.")
    bandwidth_spread: Spread | None = None
    launch_overhead_us: float = Field(ge=0, description="Per-kernel launch overhead.")
    workloads: tuple[WorkloadResult, ...]
    power_w: float | None = Field(default=None, description="Mean NVML draw during training.")
    energy_j: float | None = None
    duration_s: float = Field(ge=0)
    warnings: tuple[str, ...] = ()
