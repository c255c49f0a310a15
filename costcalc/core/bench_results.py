"""What a bench measured: a versioned schema (costcalc.bench.store saves and loads it).

Rule kept here: models only, no torch and no files, so the pure core can read a loaded result.
"""

from __future__ import annotations

from typing import Literal

from costcalc.core.constants import Kind
from costcalc.core.models import Field, Frozen, StepProfile, UtcDatetime

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


class PowerReading(Frozen):
    """Board watts over a sustained window of one workload, and the idle draw before the run."""

    load_w: float = Field(gt=0, description="Mean draw over the window: energy / time.")
    idle_w: float | None = Field(default=None, ge=0, description="Draw before any work ran.")
    window_s: float = Field(gt=0, description="Seconds the workload ran back to back.")
    method: Literal["energy counter", "sampling"] = Field(
        description="NVML's total-energy counter (Volta and later), else the mean of samples."
    )


class SizePoint(Frozen):
    """One size tried while filling the device: its batch and what it reached."""

    batch_size: int = Field(ge=1)
    items_per_s: float = Field(ge=0, description="0 when the batch ran out of memory.")


SizedBy = Literal["plateau", "memory", "time budget", "limit", "given"]
"""Why a workload stopped at its batch: throughput stopped rising (within 5 % of the next
doubling), the next doubling ran out of memory, the time budget ran out, the mode's largest
batch, or the user gave the size (their own step)."""

SIZED_BY_WORDS: dict[str, str] = {
    "plateau": "throughput stopped rising",
    "memory": "the next doubling ran out of memory",
    "time budget": "the time budget ran out before throughput stopped rising",
    "limit": "the mode's largest batch",
    "given": "your size",
}


class WorkloadResult(Frozen):
    name: str
    kind: Kind
    dtype: str
    description: str | None = Field(
        default=None, description="What one step ran, e.g. 'forward + backward + AdamW'."
    )
    model: str | None = Field(default=None, description="The model and its size, in words.")
    dtype_source: Literal["given", "detected", "default"] | None = Field(
        default=None, description="Where the dtype came from (a user step's autocast is seen)."
    )
    sized_by: SizedBy | None = Field(
        default=None, description="Why the bench settled on batch_size; None: not sized."
    )
    sizes: tuple[SizePoint, ...] = Field(default=(), description="The sizes tried, in order.")
    power: PowerReading | None = None
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

    @property
    def filled(self) -> bool:
        """Whether the step ran at a size that fills the device: throughput had stopped rising
        or memory ran out, or it is the user's own step at the size they train with. A step
        cut short by the time budget, or saved before benches sized their steps, is not."""
        return self.sized_by in ("plateau", "memory", "given")


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
    power_w: float | None = Field(
        default=None,
        description="Board watts under load: the highest workload's sustained draw (NVML).",
    )
    idle_w: float | None = Field(default=None, ge=0, description="Board watts before the run.")
    energy_j: float | None = None
    duration_s: float = Field(ge=0)
    warnings: tuple[str, ...] = ()
