"""Saved bench results: a versioned schema, written atomically under the user data directory.

Rule kept here: no torch. `costcalc quick --bench latest` and the TUI load results through this
module without paying for `import torch`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from costcalc.errors import CostcalcError, DataFileError
from costcalc.models import Frozen, UtcDatetime

SCHEMA_VERSION = 1
LATEST = "latest"


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


class Profile(Frozen):
    """Where a step's time goes on this device (shares sum to 1); see costcalc.predict."""

    compute_share: float = Field(ge=0, le=1)
    memory_share: float = Field(ge=0, le=1)
    overhead_share: float = Field(ge=0, le=1)


class WorkloadResult(Frozen):
    name: str
    kind: Literal["cnn", "transformer", "rnn", "generic"]
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
    profile: Profile | None = None


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


def result_file_name(result: BenchResult) -> str:
    stamp = result.created_at.strftime("%Y%m%dT%H%M%SZ")
    return f"bench-{stamp}-{result.device}.json"


def save_result(result: BenchResult, directory: Path | None = None) -> Path:
    """Write `result` atomically under the bench directory; returns its path."""
    from costcalc.locations import bench_dir
    from costcalc.resources import write_atomic

    path = (directory or bench_dir()) / result_file_name(result)
    write_atomic(path, result.model_dump_json(indent=2) + "\n")
    return path


def load_result(path: Path) -> BenchResult:
    from costcalc.resources import validate

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataFileError(f"{path}: cannot read bench result ({exc.strerror or exc})") from exc
    import json

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{path}: not valid JSON (line {exc.lineno})") from exc
    return validate(data, BenchResult, str(path))


def saved_results(directory: Path | None = None) -> list[Path]:
    """Saved result files, oldest first (names carry a sortable UTC timestamp)."""
    from costcalc.locations import bench_dir

    folder = directory or bench_dir()
    return sorted(folder.glob("bench-*.json")) if folder.is_dir() else []


def load_latest(directory: Path | None = None) -> BenchResult | None:
    """The newest saved result, or None when there is none."""
    found = saved_results(directory)
    return load_result(found[-1]) if found else None


def resolve(spec: str) -> BenchResult:
    """'latest' or a path -> a result; a one-line error when there is none."""
    if spec == LATEST:
        result = load_latest()
        if result is None:
            raise CostcalcError("no saved bench result: run `costcalc bench --save` first")
        return result
    return load_result(Path(spec).expanduser())


def age_text(result: BenchResult, now: datetime) -> str:
    days = (now - result.created_at).total_seconds() / 86400
    return "today" if days < 1 else f"{days:.0f} days ago"
