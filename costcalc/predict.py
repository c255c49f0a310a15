"""Cross-GPU time prediction: how long the work measured on one GPU takes on another.

Rule kept here: pure and torch-free. A training step's time is split into three parts, each
scaled by the rate that bounds it (DOMAIN.md section 3):

- matmul / tensor-core time, scaled by the achievable math rate for the dtype: spec x efficiency
  per architecture x a power throttle (GeForce half-rate FP32-accumulate tensor math is already
  in the catalog; no tensor cores before Volta; BF16 only from Ampere; "tf32" is plain FP32
  before Ampere);
- memory-bound time, scaled by the DRAM bandwidth;
- fixed overhead (kernel launches, the host), which does not scale with the GPU.

The parts are combined in log space: speed-up = product of (rate ratio ** time share). A step is
hundreds of kernels that overlap and span a range of intensities, so its time responds to each
rate with an elasticity equal to that part's share; the plain sum of parts (one intensity for the
whole step) made low-bandwidth cards like the L4 far too slow out of sample (18 % median error
against 12 %, benchmarks/predict_accuracy.py).

The split comes from a bench profile when one exists (measured on the source GPU), otherwise from
the per-kind FP32 split on a reference GPU, converted to the dtype there. Fitted figures live in
costcalc/data/predict_calibration.yaml with their provenance; `fit_fp32` refits them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from datetime import date
from typing import Literal

from pydantic import Field

from costcalc.models import Frozen, GpuSpec
from costcalc.resources import load_yaml_resource

Kind = Literal["cnn", "transformer", "rnn", "generic"]
Dtype = Literal["fp32", "tf32", "fp16", "bf16"]
PRE_TENSOR_ARCHITECTURES = ("Kepler", "Maxwell", "Pascal")


class KindPrior(Frozen):
    """How a kind of workload spends an FP32 step on the reference GPU."""

    compute_share: float = Field(gt=0, lt=1, description="Share of FP32 time bound by math.")
    overhead_share: float = Field(
        ge=0, lt=1, description="Share of FP32 time that is fixed overhead (the rest is memory)."
    )
    band_low: float = Field(gt=0, le=1, description="Low end of the band, x the prediction.")
    band_high: float = Field(ge=1, description="High end of the band, x the prediction.")
    basis: str = Field(description="What the figures were fitted on, or why they are priors.")


class Calibration(Frozen):
    """costcalc/data/predict_calibration.yaml."""

    schema_version: Literal[2] = 2
    as_of: date
    sources: dict[str, str]
    reference_gpu: str = Field(description="GPU key the per-kind splits are stated on.")
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
        ge=0, le=1, description="Sustained clock = (power excess) ** -exponent for starved cards."
    )
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
    profile: StepProfile = Field(description="Time split that was scaled.")


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
    return {family: _median(values) for family, values in by_family.items()}


def _median(values: list[float]) -> float:
    # Not statistics.median: importing statistics costs `costcalc quick` a few milliseconds.
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def power_throttle(spec: GpuSpec, cal: Calibration) -> float:
    """Sustained share of the boost clock: 1 unless the card is power-starved for its family.

    Dynamic power grows about as the cube of the clock, so a card with k times its family's
    FLOPS per watt holds about k ** -1/3 of its boost clock; the fit on NeuSight agrees (0.34).
    """
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


# --------------------------------------------------------------------------- the split


def _kind(kind: str, cal: Calibration) -> KindPrior:
    return cal.kinds.get(kind) or cal.kinds["generic"]


@functools.cache
def _reference(key: str) -> GpuSpec:
    from costcalc.catalog import load_catalog

    return load_catalog().get(key)


def prior_profile(
    kind: str = "generic", dtype: str = "fp32", cal: Calibration | None = None
) -> StepProfile:
    """The time split of a kind of work in `dtype`, from its FP32 split on the reference GPU.

    Math time shrinks by the reference's FP32 / dtype rate (tensor cores make it small), memory
    time by the bytes factor (16-bit activations), and overhead stays: that is why 16-bit steps
    are memory- and overhead-bound (DOMAIN.md section 3: ~30 % tensor-core utilisation).
    """
    cal = cal or load_calibration()
    prior = _kind(kind, cal)
    reference = _reference(cal.reference_gpu)
    fp32_rate = achievable_tflops(reference, "fp32", cal)
    math_s = prior.compute_share * fp32_rate / achievable_tflops(reference, dtype, cal)
    memory_s = (1 - prior.compute_share - prior.overhead_share) * cal.memory_bytes_factor.get(
        dtype, 1.0
    )
    total = math_s + memory_s + prior.overhead_share
    return StepProfile(
        compute_share=math_s / total,
        memory_share=memory_s / total,
        overhead_share=prior.overhead_share / total,
    )


def log_rates(spec: GpuSpec, dtype: str, cal: Calibration) -> tuple[float, float]:
    """log of the achievable math rate and of the DRAM bandwidth: what the shares weigh."""
    return math.log(achievable_tflops(spec, dtype, cal)), math.log(spec.bandwidth_gbs)


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
    profile = profile or prior_profile(kind, dtype, cal)
    return _speedup(profile, log_rates(source, dtype, cal), log_rates(target, dtype, cal))


def _speedup(
    profile: StepProfile, source: tuple[float, float], target: tuple[float, float]
) -> float:
    """Each part's rate ratio weighted by its time share, in log space; overhead's ratio is 1."""
    return math.exp(
        profile.compute_share * (target[0] - source[0])
        + profile.memory_share * (target[1] - source[1])
    )


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
    used = profile or prior_profile(kind, dtype)
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
    measurements are FP32).
    """
    if source.key == target.key:
        return 1.0, 1.0
    prior = _kind(kind, load_calibration())
    low, high = prior.band_low, prior.band_high
    if dtype != "fp32":
        low, high = low**1.5, high**1.5
    return low, high


# --------------------------------------------------------------------------- fitting

Pair = tuple[GpuSpec, GpuSpec, float]
"""A measurement pair: source, target, measured target time / source time."""

FIT_PRIORS = {
    "compute_share": (0.5, 1.0),
    "power_exponent": (1 / 3, 1.0),
    "log_pre_tensor": (0, 0.3),
}
"""Value and weight each fitted parameter is shrunk toward: an even math/memory split (the
sqrt(FLOPS x bandwidth) rule), the cube law of dynamic power, and no extra loss before Volta."""


def fit_fp32(pairs: Sequence[Pair], cal: Calibration, kind: str = "transformer") -> Calibration:
    """Fit `kind`'s FP32 compute share, the power exponent and the pre-Volta FP32 efficiency.

    Minimises the mean absolute log error of the predicted time ratios plus the shrinkage of
    FIT_PRIORS, by pattern search. Parameters the pairs cannot see keep their prior: with no
    pre-Volta GPU among the pairs, the efficiency stays 1.
    """
    seen = {spec.architecture for a, b, _ in pairs for spec in (a, b)}
    free = ["compute_share", "power_exponent"]
    if seen & set(PRE_TENSOR_ARCHITECTURES):
        free.append("log_pre_tensor")

    specs = {spec.key: spec for a, b, _ in pairs for spec in (a, b)}

    def loss(params: dict[str, float]) -> float:
        trial = with_fp32_params(cal, params, kind)
        profile = prior_profile(kind, "fp32", trial)
        logs = {key: log_rates(spec, "fp32", trial) for key, spec in specs.items()}
        errors = [
            abs(math.log(_speedup(profile, logs[a.key], logs[b.key]) * r)) for a, b, r in pairs
        ]
        shrink = sum(w * (params[n] - v) ** 2 for n, (v, w) in FIT_PRIORS.items() if n in free)
        return sum(errors) / len(errors) + shrink

    start = {name: value for name, (value, _) in FIT_PRIORS.items()}
    return with_fp32_params(cal, pattern_search(loss, start, free), kind)


def with_fp32_params(cal: Calibration, params: dict[str, float], kind: str) -> Calibration:
    prior = cal.kinds[kind].model_copy(update={"compute_share": params["compute_share"]})
    efficiency = dict(cal.cuda_core_efficiency)
    for architecture in PRE_TENSOR_ARCHITECTURES:
        efficiency[architecture] = math.exp(params.get("log_pre_tensor", 0.0))
    return cal.model_copy(
        update={
            "kinds": {**cal.kinds, kind: prior},
            "power_exponent": params["power_exponent"],
            "cuda_core_efficiency": efficiency,
        }
    )


def pattern_search(
    loss: Callable[[dict[str, float]], float],
    start: dict[str, float],
    free: Sequence[str],
    step: float = 0.1,
    tolerance: float = 1e-3,
) -> dict[str, float]:
    """Try +-step on each free parameter; keep what lowers the loss; halve the step when nothing
    does. Deterministic, and enough for a handful of smooth parameters."""
    best, best_loss = dict(start), loss(start)
    while step > tolerance:
        improved = False
        for name in free:
            for delta in (step, -step):
                trial = {**best, name: best[name] + delta}
                if name == "compute_share" and not 0.05 <= trial[name] <= 0.95:
                    continue
                if name == "power_exponent" and not 0 <= trial[name] <= 1:
                    continue
                trial_loss = loss(trial)
                if trial_loss < best_loss - 1e-12:
                    best, best_loss, improved = trial, trial_loss, True
        if not improved:
            step /= 2
    return best
