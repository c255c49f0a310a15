"""Cross-GPU time prediction: how long the work measured on one GPU takes on another.

Rule kept here: pure and torch-free. A training step is split into three parts, each scaled by
the rate that bounds it (DOMAIN.md section 3):

- matmul / tensor-core time, scaled by the achievable math rate for the dtype (spec x efficiency
  per architecture; GeForce half-rate FP32-accumulate tensor math is already in the catalog;
  no tensor cores before Volta; BF16 only from Ampere; "tf32" is plain FP32 before Ampere);
- memory-bound time, scaled by the effective DRAM bandwidth (a large L2 cache serves part of
  the traffic, which is why an L4 beats its 300 GB/s);
- fixed overhead (kernel launches, the host), which does not scale with the GPU.

The split comes from a bench profile when one exists (measured on the source GPU), otherwise
from per-kind priors evaluated on the source GPU. Fitted figures live in
costcalc/data/predict_calibration.yaml with their provenance.
"""

from __future__ import annotations

import functools
import math
import statistics
from datetime import date
from typing import Literal

from pydantic import Field

from costcalc.models import Frozen, GpuSpec
from costcalc.resources import load_yaml_resource

Kind = Literal["cnn", "transformer", "rnn", "generic"]
Dtype = Literal["fp32", "tf32", "fp16", "bf16"]


class KindPrior(Frozen):
    """How a kind of workload spends its time, per TFLOP of work."""

    intensity_flop_per_byte: float = Field(gt=0, description="FLOPs per DRAM byte at FP32.")
    overhead_tflop_per_s: float | None = Field(
        default=None, gt=0, description="Work done per second of fixed overhead; None: none."
    )
    overhead_dtypes: tuple[str, ...] = Field(
        default=("fp32", "tf32", "fp16", "bf16"),
        description="Dtypes the overhead was observed in (the FP32 NeuSight steps show none).",
    )
    band_low: float = Field(gt=0, le=1, description="Low end of the band, x the prediction.")
    band_high: float = Field(ge=1, description="High end of the band, x the prediction.")
    basis: str = Field(description="What the figures were fitted on, or why they are priors.")


class Calibration(Frozen):
    """costcalc/data/predict_calibration.yaml."""

    schema_version: Literal[1] = 1
    as_of: date
    sources: dict[str, str]
    memory_bytes_factor: dict[str, float] = Field(
        description="DRAM bytes per dtype relative to FP32 (AMP keeps activations in 16 bits)."
    )
    tensor_efficiency: dict[str, float] = Field(
        description="Share of the dense tensor peak cuBLAS reaches, by architecture."
    )
    cuda_core_efficiency: dict[str, float] = Field(
        description="Share of the FP32 (non-tensor) peak reached, by architecture."
    )
    power_exponent: float = Field(
        ge=0, description="Clock throttling of cards with little power for their FLOPS."
    )
    l2_working_set_mb: float = Field(gt=0, description="Working set that halves DRAM traffic.")
    l2_cache_mb: dict[str, float] = Field(description="L2 cache per GPU key, MB.")
    l2_default_mb: dict[str, float] = Field(description="L2 by architecture when a key lacks one.")
    kinds: dict[str, KindPrior]
    accuracy: dict[str, float] = Field(description="Leave-one-GPU-out figures of this fit.")


class StepProfile(Frozen):
    """Where a step's time goes on the source GPU, as measured by a bench (shares sum to 1)."""

    compute_share: float = Field(ge=0, le=1)
    memory_share: float = Field(ge=0, le=1)
    overhead_share: float = Field(ge=0, le=1)


class Prediction(Frozen):
    seconds: float = Field(description="Predicted time on the target GPU.")
    low_s: float
    high_s: float
    source: str = Field(description="Source GPU key.")
    target: str = Field(description="Target GPU key.")
    kind: str
    dtype: str
    speedup: float = Field(description="Target throughput / source throughput.")
    profile: StepProfile = Field(description="Time split on the source GPU that was scaled.")


@functools.cache
def load_calibration() -> Calibration:
    return load_yaml_resource("costcalc.data", "predict_calibration.yaml", Calibration)


# --------------------------------------------------------------------------- achievable rates


def _efficiency(table: dict[str, float], spec: GpuSpec) -> float:
    return table.get(spec.architecture, table.get("default", 1.0))


def math_path(spec: GpuSpec, dtype: str) -> tuple[float, bool]:
    """Peak dense rate the framework uses for `dtype`, and whether it runs on tensor cores."""
    tensor = {
        "fp16": spec.fp16_tensor_tflops,
        "bf16": spec.bf16_tensor_tflops,
        "tf32": spec.tf32_tensor_tflops,
    }.get(dtype)
    if tensor:
        return tensor, True
    if dtype == "fp16" and spec.fp16_tflops and spec.fp16_tflops > spec.fp32_tflops:
        return spec.fp16_tflops, False  # packed half precision without tensor cores (P100)
    return spec.fp32_tflops, False


@functools.cache
def _typical_tflops_per_w() -> dict[str, float]:
    """Median FP32 TFLOPS per board watt per compute capability: a card well above its family
    cannot hold its boost clock under sustained load (the 70 W T4, L4 and P4)."""
    from costcalc.catalog import load_catalog

    by_family: dict[str, list[float]] = {}
    for spec in load_catalog():
        family = spec.compute_capability or spec.architecture
        by_family.setdefault(family, []).append(spec.fp32_tflops / spec.board_power_w)
    return {family: statistics.median(values) for family, values in by_family.items()}


def power_throttle(spec: GpuSpec, cal: Calibration) -> float:
    """Sustained share of the boost clock: 1 unless the card is power-starved for its family."""
    typical = _typical_tflops_per_w().get(spec.compute_capability or spec.architecture)
    if typical is None:
        return 1.0
    excess = spec.fp32_tflops / spec.board_power_w / typical
    return excess ** (-cal.power_exponent) if excess > 1 else 1.0


def achievable_tflops(spec: GpuSpec, dtype: str, cal: Calibration | None = None) -> float:
    cal = cal or load_calibration()
    peak, on_tensor = math_path(spec, dtype)
    table = cal.tensor_efficiency if on_tensor else cal.cuda_core_efficiency
    return peak * _efficiency(table, spec) * power_throttle(spec, cal)


def l2_cache_mb(spec: GpuSpec, cal: Calibration) -> float:
    return cal.l2_cache_mb.get(spec.key, cal.l2_default_mb.get(spec.architecture, 4.0))


def effective_gbs(spec: GpuSpec, cal: Calibration | None = None) -> float:
    """DRAM bandwidth as the step sees it: traffic the L2 absorbs never reaches DRAM."""
    cal = cal or load_calibration()
    working_set = cal.l2_working_set_mb
    dram_share = working_set / (working_set + l2_cache_mb(spec, cal))
    return spec.bandwidth_gbs / dram_share


# --------------------------------------------------------------------------- the split


def _kind(kind: str, cal: Calibration) -> KindPrior:
    return cal.kinds.get(kind) or cal.kinds["generic"]


def _part_seconds(spec: GpuSpec, kind: str, dtype: str, cal: Calibration) -> tuple[float, ...]:
    """Seconds for one TFLOP of this kind of work: (math, memory, overhead).

    The parts add up: a step's kernels mostly wait either on math or on memory, and the sum
    model fitted the public measurements better out of sample than a per-kernel roofline did.
    """
    prior = _kind(kind, cal)
    math_s = 1 / achievable_tflops(spec, dtype, cal)
    dram_bytes = 1e12 / prior.intensity_flop_per_byte * cal.memory_bytes_factor.get(dtype, 1.0)
    memory_s = dram_bytes / (effective_gbs(spec, cal) * 1e9)
    overhead_s = (
        1 / prior.overhead_tflop_per_s
        if prior.overhead_tflop_per_s and dtype in prior.overhead_dtypes
        else 0.0
    )
    return math_s, memory_s, overhead_s


def prior_profile(
    spec: GpuSpec, kind: str = "generic", dtype: str = "fp32", cal: Calibration | None = None
) -> StepProfile:
    """The time split a kind of work has on `spec`, from the priors alone."""
    math_s, memory_s, overhead_s = _part_seconds(spec, kind, dtype, cal or load_calibration())
    total = math_s + memory_s + overhead_s
    return StepProfile(
        compute_share=math_s / total,
        memory_share=memory_s / total,
        overhead_share=overhead_s / total,
    )


def speedup(
    source: GpuSpec,
    target: GpuSpec,
    kind: str = "generic",
    dtype: str = "fp32",
    profile: StepProfile | None = None,
    cal: Calibration | None = None,
) -> float:
    """Target throughput / source throughput; exactly 1.0 for the same GPU."""
    if source.key == target.key:
        return 1.0
    cal = cal or load_calibration()
    profile = profile or prior_profile(source, kind, dtype, cal)
    compute = achievable_tflops(source, dtype, cal) / achievable_tflops(target, dtype, cal)
    memory = effective_gbs(source, cal) / effective_gbs(target, cal)
    time_ratio = (
        profile.compute_share * compute + profile.memory_share * memory + profile.overhead_share
    )
    return 1 / time_ratio


def predict_seconds(
    seconds: float,
    source_gpu: str | GpuSpec,
    target_gpu: str | GpuSpec,
    *,
    kind: str = "generic",
    dtype: str = "fp32",
    profile: StepProfile | None = None,
) -> Prediction:
    """Time the work that takes `seconds` on `source_gpu` needs on `target_gpu`.

    GPU names resolve the way the catalog resolves them (UnknownGpu otherwise). `profile` is the
    time split measured by a bench on the source; without it the per-kind priors apply.
    """
    from costcalc.catalog import load_catalog
    from costcalc.errors import CostcalcError

    if not math.isfinite(seconds) or seconds <= 0:
        raise CostcalcError(f"seconds must be a positive number, got {seconds!r}")
    if kind not in ("cnn", "transformer", "rnn", "generic"):
        raise CostcalcError(f"unknown workload kind {kind!r} (cnn, transformer, rnn, generic)")
    if dtype not in ("fp32", "tf32", "fp16", "bf16"):
        raise CostcalcError(f"unknown dtype {dtype!r} (fp32, tf32, fp16, bf16)")
    catalog = load_catalog()
    source = source_gpu if isinstance(source_gpu, GpuSpec) else catalog.resolve(source_gpu)
    target = target_gpu if isinstance(target_gpu, GpuSpec) else catalog.resolve(target_gpu)
    used = profile or prior_profile(source, kind, dtype)
    factor = speedup(source, target, kind, dtype, used)
    predicted = seconds / factor
    low, high = _band(source, target, kind, dtype)
    return Prediction(
        seconds=predicted,
        low_s=predicted * low,
        high_s=predicted * high,
        source=source.key,
        target=target.key,
        kind=kind,
        dtype=dtype,
        speedup=factor,
        profile=used,
    )


def _band(source: GpuSpec, target: GpuSpec, kind: str, dtype: str) -> tuple[float, float]:
    """Uncertainty as multipliers of the prediction, from the leave-one-GPU-out errors.

    None for the same GPU; wider for precisions the public data could not test (the NeuSight
    measurements are FP32) and across GPU vendors' generations without tensor cores.
    """
    if source.key == target.key:
        return 1.0, 1.0
    prior = _kind(kind, load_calibration())
    low, high = prior.band_low, prior.band_high
    if dtype != "fp32":
        low, high = low**1.5, high**1.5
    return low, high
