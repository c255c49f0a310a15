"""What a bench measured: a versioned schema (costcalc.bench.store saves and loads it).

Rule kept here: models only, no torch and no files, so the pure core can read a loaded result.
"""

from __future__ import annotations

from typing import Annotated, Literal

from costcalc.core.constants import Kind
from costcalc.core.models import StepProfile, UtcDatetime
from costcalc.core.records import Meta, Record

SCHEMA_VERSION = 1


class Spread(Record, frozen=True, kw_only=True):
    """How repeatable a timing was: median and spread of the repeats."""

    median_s: Annotated[float, Meta(ge=0)]
    iqr_s: Annotated[float, Meta(ge=0)]
    """Interquartile range of the repeats."""
    cv: Annotated[float, Meta(ge=0)]
    """Coefficient of variation (stdev / mean)."""
    repeats: Annotated[int, Meta(ge=1)]
    noisy: bool
    """True when the spread is too wide to trust one figure."""


class Environment(Record, frozen=True, kw_only=True):
    device: str
    """'cuda', 'mps' or 'cpu'."""
    device_name: str
    """GPU or CPU model."""
    gpu_key: str | None = None
    """Catalog key when the GPU is known."""
    device_memory_gb: float | None = None
    driver: str | None = None
    torch_version: str
    cuda_version: str | None = None
    cpu_model: str
    threads: Annotated[int, Meta(ge=1)]
    """torch intra-op threads used."""
    python_version: str
    platform: str


class MatmulProbe(Record, frozen=True, kw_only=True):
    dtype: str
    size: int
    """Best square matrix size (n x n @ n x n)."""
    tflops: Annotated[float, Meta(ge=0)]
    spread: Spread


class PowerReading(Record, frozen=True, kw_only=True):
    """Board watts over a sustained window of one workload, and the idle draw before the run."""

    load_w: Annotated[float, Meta(gt=0)]
    """Mean draw over the window: energy / time."""
    idle_w: Annotated[float, Meta(ge=0)] | None = None
    """Draw before any work ran."""
    window_s: Annotated[float, Meta(gt=0)]
    """Seconds the workload ran back to back."""
    method: Literal["energy counter", "sampling"]
    """NVML's total-energy counter (Volta and later), else the mean of samples."""


class SizePoint(Record, frozen=True, kw_only=True):
    """One size tried while filling the device: its batch and what it reached."""

    batch_size: Annotated[int, Meta(ge=1)]
    items_per_s: Annotated[float, Meta(ge=0)]
    """0 when the batch ran out of memory."""


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


class WorkloadResult(Record, frozen=True, kw_only=True):
    name: str
    kind: Kind
    dtype: str
    description: str | None = None
    """What one step ran, e.g. 'forward + backward + AdamW'."""
    model: str | None = None
    """The model and its size, in words."""
    dtype_source: Literal["given", "detected", "default"] | None = None
    """Where the dtype came from (a user step's autocast is seen)."""
    sized_by: SizedBy | None = None
    """Why the bench settled on batch_size; None: not sized."""
    sizes: tuple[SizePoint, ...] = ()
    """The sizes tried, in order."""
    power: PowerReading | None = None
    batch_size: Annotated[int, Meta(ge=1)]
    items_per_s: Annotated[float, Meta(gt=0)]
    step_s: Annotated[float, Meta(gt=0)]
    spread: Spread
    flops_per_item: Annotated[float, Meta(ge=0)] | None = None
    kernels_per_step: Annotated[int, Meta(ge=0)] | None = None
    memory_base_bytes: float | None = None
    """Memory fit a in a + b x batch (weights, grads, optimizer)."""
    memory_per_item_bytes: float | None = None
    """Memory fit b."""
    max_batch: int | None = None
    """Largest batch that fits here."""
    max_batch_method: str | None = None
    """'search' or 'memory fit'."""
    profile: StepProfile | None = None

    @property
    def filled(self) -> bool:
        """Whether the step ran at a size that fills the device: throughput had stopped rising
        or memory ran out, or it is the user's own step at the size they train with. A step
        cut short by the time budget, or saved before benches sized their steps, is not."""
        return self.sized_by in ("plateau", "memory", "given")


class BenchResult(Record, frozen=True, kw_only=True):
    schema_version: Literal[1] = 1
    created_at: UtcDatetime
    mode: Literal["quick", "full", "step"]
    device: str
    environment: Environment
    matmul_tflops: dict[str, float]
    """Best dense matmul TFLOPS per dtype."""
    matmul: tuple[MatmulProbe, ...] = ()
    bandwidth_gbs: Annotated[float, Meta(ge=0)]
    """Device copy, read + write counted."""
    bandwidth_spread: Spread | None = None
    launch_overhead_us: Annotated[float, Meta(ge=0)]
    """Per-kernel launch overhead."""
    workloads: tuple[WorkloadResult, ...]
    power_w: float | None = None
    """Board watts under load: the highest workload's sustained draw (NVML)."""
    idle_w: Annotated[float, Meta(ge=0)] | None = None
    """Board watts before the run."""
    energy_j: float | None = None
    duration_s: Annotated[float, Meta(ge=0)]
    warnings: tuple[str, ...] = ()


class DecodeBench(Record, frozen=True, kw_only=True):
    """`costcalc bench --serve`: batch-1 decoding of a small decoder with random weights on this
    device (costcalc.bench.decode), in the terms of serving's speed model."""

    created_at: UtcDatetime
    mode: Literal["tiny", "quick", "full"]
    environment: Environment
    layers: Annotated[int, Meta(ge=1)]
    hidden: Annotated[int, Meta(ge=1)]
    heads: Annotated[int, Meta(ge=1)]
    vocab: Annotated[int, Meta(ge=1)]
    params: Annotated[int, Meta(ge=1)]
    weight_bytes: Annotated[int, Meta(ge=1)]
    """Every weight, read once per generated token."""
    dtype: str
    prompt_tokens: Annotated[int, Meta(ge=0)]
    """Tokens already in the KV cache when the timed decoding starts."""
    decode_tokens: Annotated[int, Meta(ge=1)]
    """Tokens generated per timed repeat."""
    decode_tokens_per_s: Annotated[float, Meta(gt=0)]
    ms_per_token: Annotated[float, Meta(gt=0)]
    spread: Spread
    """Of one repeat of `decode_tokens` tokens."""
    weights_read_gbs: Annotated[float, Meta(ge=0)]
    """weight_bytes x tokens a second: the rate the weights are read at."""
    copy_bandwidth_gbs: Annotated[float, Meta(ge=0)]
    """The device's copy rate measured in the same run (read + write counted, as the bench's)."""
    bandwidth_share: Annotated[float, Meta(ge=0)] | None = None
    """weights_read_gbs / copy_bandwidth_gbs: what decoding achieves of the device's memory
    rate, the fraction serving's speed model calibrates per GPU generation."""
