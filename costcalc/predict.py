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
costcalc/data/predict_calibration.yaml with their provenance (costcalc.loaders reads it;
costcalc.fit refits it). Everything here takes its data as arguments: a `Predictor` holds the
calibration and what it needs from the catalog, and caches speeds per GPU pair.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from pydantic import Field

from costcalc.constants import DTYPES, KINDS, Dtype, Kind
from costcalc.errors import CostcalcError
from costcalc.models import Frozen, GpuSpec, StepProfile

PRE_TENSOR_ARCHITECTURES = ("Kepler", "Maxwell", "Pascal")

SpeedFn = Callable[[GpuSpec, GpuSpec], float]
"""Per-GPU throughput of the second GPU relative to the first."""


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


def family(spec: GpuSpec) -> str:
    return spec.compute_capability or spec.architecture


def typical_tflops_per_w(specs: Iterable[GpuSpec]) -> dict[str, float]:
    """Median FP32 TFLOPS per board watt per compute capability: a card well above its family
    cannot hold its boost clock under sustained load (the 70 W T4, L4 and P4)."""
    by_family: dict[str, list[float]] = {}
    for spec in specs:
        by_family.setdefault(family(spec), []).append(spec.fp32_tflops / spec.board_power_w)
    return {name: _median(values) for name, values in by_family.items()}


def _median(values: list[float]) -> float:
    # Not statistics.median: importing statistics costs `costcalc quick` a few milliseconds.
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _speedup(
    profile: StepProfile, source: tuple[float, float], target: tuple[float, float]
) -> float:
    """Each part's rate ratio weighted by its time share, in log space; overhead's ratio is 1."""
    return math.exp(
        profile.compute_share * (target[0] - source[0])
        + profile.memory_share * (target[1] - source[1])
    )


def check_kind_dtype(kind: str, dtype: str) -> None:
    if kind not in KINDS:
        raise CostcalcError(f"unknown workload kind {kind!r} ({', '.join(KINDS)})")
    if dtype not in DTYPES:
        raise CostcalcError(f"unknown dtype {dtype!r} ({', '.join(DTYPES)})")


@dataclass(frozen=True)
class Predictor:
    """The calibrated model plus what it needs from the catalog; speeds cached per GPU pair."""

    calibration: Calibration
    reference: GpuSpec
    """The GPU the per-kind splits are stated on."""
    family_tflops_per_w: Mapping[str, float]
    _cache: dict[tuple[str, str, str, str], float] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def build(cls, specs: Iterable[GpuSpec], calibration: Calibration) -> Predictor:
        """From the catalog's GPUs (for the reference GPU and the power families)."""
        specs = list(specs)
        by_key = {s.key: s for s in specs}
        if calibration.reference_gpu not in by_key:
            raise CostcalcError(
                f"calibration reference GPU {calibration.reference_gpu!r} is not in the catalog"
            )
        return cls(calibration, by_key[calibration.reference_gpu], typical_tflops_per_w(specs))

    def with_calibration(self, calibration: Calibration) -> Predictor:
        """The same catalog figures with another calibration (used when fitting)."""
        return Predictor(calibration, self.reference, self.family_tflops_per_w)

    # ------------------------------------------------------------------ rates

    def power_throttle(self, spec: GpuSpec) -> float:
        """Sustained share of the boost clock: 1 unless the card is power-starved for its family.

        Dynamic power grows about as the cube of the clock, so a card with k times its family's
        FLOPS per watt holds about k ** -1/3 of its boost clock; the fit on NeuSight agrees (0.34).
        """
        typical = self.family_tflops_per_w.get(family(spec))
        if typical is None:
            return 1.0
        excess = spec.fp32_tflops / spec.board_power_w / typical
        return excess ** (-self.calibration.power_exponent) if excess > 1 else 1.0

    def achievable_tflops(self, spec: GpuSpec, dtype: str) -> float:
        cal = self.calibration
        peak, on_tensor = math_path(spec, dtype)
        table = cal.tensor_efficiency if on_tensor else cal.cuda_core_efficiency
        return peak * _efficiency(table, spec) * self.power_throttle(spec)

    def log_rates(self, spec: GpuSpec, dtype: str) -> tuple[float, float]:
        """log of the achievable math rate and of the DRAM bandwidth: what the shares weigh."""
        return math.log(self.achievable_tflops(spec, dtype)), math.log(spec.bandwidth_gbs)

    # ------------------------------------------------------------------ the split

    def kind_prior(self, kind: str) -> KindPrior:
        kinds = self.calibration.kinds
        return kinds.get(kind) or kinds["generic"]

    def prior_profile(self, kind: str = "generic", dtype: str = "fp32") -> StepProfile:
        """The time split of a kind of work in `dtype`, from its FP32 split on the reference GPU.

        Math time shrinks by the reference's FP32 / dtype rate (tensor cores make it small),
        memory time by the bytes factor (16-bit activations), and overhead stays: that is why
        16-bit steps are memory- and overhead-bound (DOMAIN.md section 3: ~30 % tensor-core
        utilisation).
        """
        prior = self.kind_prior(kind)
        fp32_rate = self.achievable_tflops(self.reference, "fp32")
        math_s = prior.compute_share * fp32_rate / self.achievable_tflops(self.reference, dtype)
        memory_share = 1 - prior.compute_share - prior.overhead_share
        memory_s = memory_share * self.calibration.memory_bytes_factor.get(dtype, 1.0)
        total = math_s + memory_s + prior.overhead_share
        return StepProfile(
            compute_share=math_s / total,
            memory_share=memory_s / total,
            overhead_share=prior.overhead_share / total,
        )

    # ------------------------------------------------------------------ speeds

    def speedup(
        self,
        source: GpuSpec,
        target: GpuSpec,
        kind: str = "generic",
        dtype: str = "fp32",
        profile: StepProfile | None = None,
    ) -> float:
        """Target throughput / source throughput; exactly 1.0 for the same GPU."""
        if source.key == target.key:
            return 1.0
        if profile is not None:
            return _speedup(profile, self.log_rates(source, dtype), self.log_rates(target, dtype))
        key = (source.key, target.key, kind, dtype)
        found = self._cache.get(key)
        if found is None:
            used = self.prior_profile(kind, dtype)
            found = _speedup(used, self.log_rates(source, dtype), self.log_rates(target, dtype))
            self._cache[key] = found
        return found

    def speed_fn(self, kind: Kind, dtype: Dtype, profile: StepProfile | None = None) -> SpeedFn:
        """What the comparison asks: per-GPU speed of a target relative to the desktop."""

        def speed(source: GpuSpec, target: GpuSpec) -> float:
            return self.speedup(source, target, kind, dtype, profile)

        return speed

    def band(self, source: GpuSpec, target: GpuSpec, kind: str, dtype: str) -> tuple[float, float]:
        """Uncertainty as multipliers of the prediction, from the leave-one-GPU-out errors.

        None for the same GPU; wider for precisions the public data could not test (the NeuSight
        measurements are FP32).
        """
        if source.key == target.key:
            return 1.0, 1.0
        prior = self.kind_prior(kind)
        low, high = prior.band_low, prior.band_high
        if dtype != "fp32":
            low, high = low**1.5, high**1.5
        return low, high

    def predict(
        self,
        seconds: float,
        source: GpuSpec,
        target: GpuSpec,
        *,
        kind: str = "generic",
        dtype: str = "fp32",
        profile: StepProfile | None = None,
    ) -> Prediction:
        """Time the work that takes `seconds` on `source` needs on `target`.

        `profile` is the time split measured by a bench on the source; without it the per-kind
        priors apply.
        """
        if not math.isfinite(seconds) or seconds <= 0:
            raise CostcalcError(f"seconds must be a positive number, got {seconds!r}")
        check_kind_dtype(kind, dtype)
        used = profile or self.prior_profile(kind, dtype)
        factor = self.speedup(source, target, kind, dtype, profile)
        predicted = seconds / factor
        low, high = self.band(source, target, kind, dtype)
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
