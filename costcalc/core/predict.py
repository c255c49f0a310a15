"""Cross-GPU time prediction: how long the work measured on one GPU takes on another.

Rule kept here: pure and torch-free. A training step's time is split into four parts, each
scaled by the rate that bounds it on each GPU (DOMAIN.md section 3):

- math (matmuls, convolutions): the achievable rate of the path the framework takes for the
  precision - tensor cores (dense, FP32 accumulate; GeForce cards at half rate), or CUDA cores
  where the GPU has no tensor path: FP16 without tensor cores runs at the FP32 rate (PyTorch
  accumulates in FP32), "tf32" before Ampere is plain FP32, BF16 before Ampere is emulated.
  With PyTorch's defaults FP32 convolutions (cnn, rnn) run as TF32 on Ampere and later; FP32
  matmuls do not. The rate is torch.mm's as measured on the GPU where the calibration has it
  (under load: the card's power limit and sustained clock are in it), else the peak times the
  measured median of its class (matmul_class), times its power throttle;
- element-wise work (normalisation, activations, softmax, optimizer, casts), at the rate the SMs
  issue instructions (SMs x clock, from the FP32 peak and the lanes per SM);
- memory traffic, at the DRAM bandwidth;
- fixed overhead (kernel launches, the host), which does not scale with the GPU.

Element-wise rates, and the math rates of GPUs not measured, fall on power-starved cards (a
70 W T4 or L4 cannot hold its boost clock). A measured torch.mm rate is a burst (its best size
runs for milliseconds); a card whose power limit binds under sustained load (T4, L4, RTX 2080
Ti) runs its 16-bit tensor math at the rate measured so, and no card of its family (compute
capability) above the most TFLOPS per watt one of them held; the power controller averages over
far longer than a kernel, so the whole 16-bit step of such a card runs at the clock that rate
implies. How a kind of work splits its time is stated for an
FP32 step on a reference GPU (for a transformer, of a reference width: a wider model spends more
of its step in matmuls, as (width / reference) ** width_exponent); a 16-bit
step changes each part's time by a fitted factor (its math reaches a smaller share of the tensor
peak than FP32 math does of the FP32 peak, AMP keeps element-wise work in FP32 and adds casts,
activations take half the bytes). Each GPU's split follows from the rates, and the speed-up is
the product of each part's rate ratio raised to its time share averaged over the two GPUs (a
Tornqvist index): symmetric, exactly 1 for the same GPU, and it lets a fast part's share shrink
on the GPU where it is fast - why a 4090 gains on a 3090 what a bandwidth ratio misses.

A bench profile (measured on the source GPU) replaces the prior split. Fitted figures live in
costcalc/data/predict_calibration.yaml with their provenance (costcalc.store.loaders reads it;
scripts.fit refits it on scripts/speed_measurements.csv, benchmarks/predict_accuracy.py).
Everything here takes its data as arguments: a `Predictor` holds the calibration and what it
needs from the catalog, and caches speeds per GPU pair.
"""

import math
from collections.abc import Callable, Iterable, Mapping
from datetime import date
from typing import Annotated, Literal, NamedTuple

from msgspec import Struct, field

from costcalc.core.constants import DTYPES, KINDS, Dtype, Kind
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.models import GpuSpec, StepProfile
from costcalc.core.records import Meta, Record

PRE_TENSOR_ARCHITECTURES = ("Kepler", "Maxwell", "Pascal")
PRE_AMPERE_ARCHITECTURES = (*PRE_TENSOR_ARCHITECTURES, "Volta", "Turing")
SIXTEEN_BIT = ("fp16", "bf16")
STANDS_IN_FOR = {"generic": "transformer"}
"""The predictor states generic work with the transformer's split (predict_calibration.yaml)."""

FP32_LANES_PER_SM = {"3": 192, "5": 128, "6.0": 64, "6": 128, "7": 64, "8.0": 64, "8": 128}
"""FP32 results per clock per SM by compute capability (CUDA C++ Programming Guide, arithmetic
instruction throughput); 128 from 8.6 on (Ampere GeForce, Ada, Hopper, Blackwell). Dividing the
FP32 peak by lanes / 64 gives the SMs x clock rate element-wise kernels see: the doubled FP32
pipes of recent GPUs do not double the rate of memory- and latency-bound kernels."""

MAX_FIXED_SHARE = 0.95
"""The most of a measured step its fixed cost is taken to be: a step is never all launches."""

STARVED_EXCESS = 1.25
"""A card with more than this times its family's FLOPS per watt (T4, L4, L40S, P4) is left out
of the matmul efficiencies unmeasured GPUs take: its own limit is in its measured rate."""

Part = Literal["math", "elementwise", "memory", "overhead", "batch"]
PARTS: tuple[Part, ...] = ("math", "elementwise", "memory", "overhead")
SpeedFn = Callable[[GpuSpec, GpuSpec], float]
"""Per-GPU throughput of the second GPU relative to the first."""


# --------------------------------------------------------------------------- calibration


class Split(Record, frozen=True, kw_only=True):
    """How an FP32 step of a kind of work spends its time on the reference GPU, at the kind's
    reference batch (the memory share is the rest: traffic that grows with the batch, plus
    `step_memory`)."""

    math: Annotated[float, Meta(ge=0, lt=1)]
    """Share in matmuls and convolutions."""
    elementwise: Annotated[float, Meta(ge=0, lt=1)]
    """Share in element-wise kernels."""
    overhead: Annotated[float, Meta(ge=0, lt=1)]
    """Share of fixed overhead: launches and the host, the same time per step on any GPU."""
    step_memory: Annotated[float, Meta(ge=0, lt=1)] = 0.0
    """Share of memory traffic paid once per step whatever its size: the optimizer reading
    and writing every weight and its state (about 16-30 bytes a parameter), at DRAM speed."""

    def __post_init__(self) -> None:
        if self.math + self.elementwise + self.overhead + self.step_memory >= 1:
            raise ValueError("math + elementwise + overhead must leave a memory share")

    @property
    def memory(self) -> float:
        """Memory traffic that grows with the batch (activations, weights read per item)."""
        return 1 - self.math - self.elementwise - self.overhead - self.step_memory


class KindCalibration(Record, frozen=True, kw_only=True):
    fp32: Split
    band_fp32: tuple[float, float]
    """Low and high multipliers of the prediction for fp32/tf32 (LOO 10-90 %)."""
    band_16bit: tuple[float, float]
    """The same for fp16/bf16."""
    basis: str
    """What the figures were fitted on, or why they are priors."""
    reference_width: Annotated[float, Meta(gt=0)] | None = None
    """Model width (d_model) of the typical workload the split is stated for."""
    reference_batch: Annotated[float, Meta(gt=0)] | None = None
    """Batch per GPU (items) the split is stated for; None: the split ignores the batch."""
    reference_step_s: Annotated[float, Meta(gt=0)] | None = None
    """Seconds the reference step (an FP32 step at the reference batch) takes on the
    reference GPU: turns a step time measured on another workload into the share of it the
    fixed cost takes (fitting only; None: the batch alone sets that share)."""
    reference_sequence: Annotated[float, Meta(gt=0)] | None = None
    """Tokens per item the split is stated for, where a step's work grows with its tokens
    (batch x sequence: transformers); what `predict` assumes where no sequence is given. None:
    the work per step grows with the items alone (images, recurrent sequences)."""


class SixteenBit(Record, frozen=True, kw_only=True):
    """How each part's time on the reference GPU changes from FP32 to 16-bit mixed precision,
    beyond the change of the math rate itself."""

    math_time: Annotated[float, Meta(gt=0)]
    """x the rate ratio: real layers vs the peak."""
    elementwise_time: Annotated[float, Meta(gt=0)]
    memory_time: Annotated[float, Meta(gt=0)]
    """16-bit activations: half the bytes."""
    overhead_time: Annotated[float, Meta(gt=0)]
    """Casts and loss scaling add kernels."""


class CellBias(Record, frozen=True, kw_only=True):
    """A generation x kind x precision cell whose held-out predictions lean one way: the median
    signed error of the predicted time (leave-one-source-out) beyond the accuracy run's limit,
    over enough pairs to be a pattern rather than noise."""

    generation: str
    """GPU generation of the target (predict.generation)."""
    kind: str
    precision: Literal["fp32", "16bit"]
    """fp32/tf32, or fp16/bf16."""
    error: Annotated[float, Meta(gt=-1)]
    """Median signed error of the predicted time; negative: too short."""
    pairs: Annotated[int, Meta(ge=1)]
    """Held-out pairs the median is over."""


class Calibration(Record, frozen=True, kw_only=True):
    """costcalc/data/predict_calibration.yaml."""

    schema_version: Literal[3] = 3
    as_of: date
    sources: dict[str, str]
    reference_gpu: str
    """GPU key the per-kind splits are stated on."""
    tensor_efficiency: dict[Literal["full_rate", "half_rate"], float]
    """Share of the tensor peak matmuls reach where no GPU of the class is measured."""
    tf32_efficiency: Annotated[float, Meta(gt=0, le=1.5)]
    """TF32 tensor matmuls relative to FP16/BF16 on the same cores."""
    tf32_convolution_efficiency: Annotated[float, Meta(gt=0, le=1.5)] | None = None
    """The same for FP32 convolutions run as TF32 (cnn, rnn); None: the above."""
    cuda_core_efficiency: dict[str, float]
    """Share of the FP32 (non-tensor) peak reached, by architecture."""
    emulated_bf16_efficiency: Annotated[float, Meta(gt=0, le=1)]
    """BF16 matmuls before Ampere, as a share of the FP32 rate."""
    power_exponent: Annotated[float, Meta(ge=0, le=1)]
    """Sustained clock = (power excess) ** -exponent for starved cards."""
    family_tflops_per_w: dict[str, float] = field(default_factory=dict)
    """Each family's fitted typical FP32 TFLOPS per watt; others from the catalog."""
    tf32_convolution_kinds: tuple[str, ...]
    """Kinds whose FP32 convolutions run as TF32 on Ampere+ (PyTorch default)."""
    sixteen_bit: SixteenBit
    kinds: dict[str, KindCalibration]
    accuracy: dict[str, dict[str, float]]
    """Leave-one-source-out figures of this fit, per kind x precision."""
    accuracy_leave_one_gpu_out: dict[str, dict[str, float]] = field(default_factory=dict)
    """Leave-one-GPU-out figures, per kind x precision."""
    pairs_by_generation: dict[str, int] = field(default_factory=dict)
    """Measured pairs with a GPU of each generation: what its predictions rest on."""
    min_trusted_pairs: Annotated[int, Meta(ge=0)] = 30
    """Fewer pairs than this and predict says so."""
    biased_cells: tuple[CellBias, ...] = ()
    """Cells whose held-out predictions lean one way; predict says so for them."""
    width_exponent: Annotated[float, Meta(ge=0, le=2)] = 0.0
    """Matmul time relative to the rest grows as (width / reference) ** this."""
    matmul_tflops: dict[str, dict[str, float]] = field(default_factory=dict)
    """Measured torch.mm TFLOPS per GPU key and precision (fp32/tf32/fp16/bf16)."""
    cuda_convolution_gain: Annotated[float, Meta(gt=0, le=3)] = 1.0
    """CNN convolutions on CUDA cores over the FP32 matmul rate (Winograd)."""
    sustained_tflops: dict[str, float] = field(default_factory=dict)
    """Per GPU key: dense FP16 tensor TFLOPS measured under sustained load."""
    fixed_width_exponent: Annotated[float, Meta(ge=0, le=3)] = 0.0
    """A transformer's fixed cost per token falls as (reference width / width) ** this: its
    kernels are per layer, the work per token per layer grows with the width."""
    launch_overlap: Annotated[float, Meta(ge=1, le=16)] = 1.0
    """How a step's fixed cost (launches, the host) and its GPU work combine per item:
    (work ** p + fixed ** p) ** (1 / p). 1 adds the fixed cost in full; a larger p lets
    launches queue ahead while the GPU works, so only the part that outlasts the work shows."""


# --------------------------------------------------------------------------- results


class Prediction(Record, frozen=True, kw_only=True):
    seconds: float
    """Predicted time on the target GPU."""
    low_s: float
    high_s: float
    source: str
    """Source GPU key."""
    target: str
    """Target GPU key."""
    kind: str
    dtype: str
    speedup: float
    """Target throughput / source throughput."""
    profile: StepProfile
    """Time split on the source GPU that was scaled."""
    batch: float | None = None
    """Batch per GPU on the source; None: the reference."""
    target_batch: float | None = None
    """Batch per GPU on the target; None: the source's."""
    sequence: float | None = None
    """Tokens per item (transformers); None: the reference."""


class SpeedPart(Record, frozen=True, kw_only=True):
    """One part of a step in a prediction: its time shares and the rates that scale it."""

    part: Part
    source_share: float
    """Share of the step on the source GPU."""
    target_share: float
    """Share of the step on the target GPU."""
    weight: float
    """The exponent of the ratio: the mean of the part's shares of the work on the two GPUs
    (for the fixed cost: the mean of its shares of the step, shown only)."""
    source_rate: float | None
    """Achievable rate on the source; None: fixed."""
    target_rate: float | None
    unit: str
    """'TFLOPS', 'GB/s' or '' for overhead."""
    rate_ratio: float
    """target_rate / source_rate; for the fixed cost, the target's step over the source's (its
    batch's items or tokens): how much more work the same fixed cost is spread over."""
    factor: float
    """This part's speed-up: rate_ratio ** weight; for the fixed cost, how much it stretches
    the source's work over how much it stretches the target's."""
    source_path: str
    """How the source's rate was set, in words."""
    target_path: str


class SpeedBreakdown(Record, frozen=True, kw_only=True):
    """Why a predicted speed-up is what it is: the product of the parts' factors."""

    source: str
    target: str
    kind: str
    dtype: str
    speedup: float
    band: tuple[float, float]
    parts: tuple[SpeedPart, ...]
    notes: tuple[str, ...]
    """Fallbacks and limits that shaped the rates."""
    batch: float | None = None
    """Batch per GPU on the source the split was scaled to; None: its reference."""
    target_batch: float | None = None
    """Batch per GPU on the target; None: the source's."""


# --------------------------------------------------------------------------- achievable rates


class MathPath(Struct, frozen=True):
    """The peak a framework's matmuls use on one GPU for one precision, and why."""

    peak_tflops: float
    unit: Literal["tensor", "cuda", "emulated"]
    precision: str
    half_rate: bool = False

    def describe(self) -> str:
        if self.unit == "tensor":
            rate = ", FP32 accumulate at half rate" if self.half_rate else ""
            return f"{self.precision.upper()} tensor cores{rate}"
        if self.unit == "emulated":
            return "BF16 emulated on CUDA cores"
        return "FP32 CUDA cores"


class Rates(Struct, frozen=True):
    """Achievable rates of one GPU for one kind and precision (the scalable parts)."""

    math_tflops: float
    elementwise_tflops: float
    memory_gbs: float
    path: MathPath

    def of(self, part: Part) -> float:
        return {
            "math": self.math_tflops,
            "elementwise": self.elementwise_tflops,
            "memory": self.memory_gbs,
        }.get(part, 1.0)


def fp32_lanes_per_sm(spec: GpuSpec) -> int:
    cc = spec.compute_capability or ""
    return FP32_LANES_PER_SM.get(cc, FP32_LANES_PER_SM.get(cc.split(".")[0], 128))


def half_rate_accumulate(spec: GpuSpec) -> bool:
    """GeForce-style tensor cores: FP32-accumulate math at half the FP16-accumulate rate.

    Read from the spec: such cards list a dense FP16 tensor rate only 4x their FP32 issue rate
    (2x their doubled FP32 peak on Ampere and later), full-rate cards 8x or more.
    """
    if not spec.fp16_tensor_tflops:
        return False
    issue_tflops = spec.fp32_tflops * 64 / fp32_lanes_per_sm(spec)
    return spec.fp16_tensor_tflops / issue_tflops < 6


def math_path(spec: GpuSpec, dtype: str, kind: str, tf32_kinds: Iterable[str] = ()) -> MathPath:
    """Peak dense rate the framework's matmuls use for `dtype` on `spec`, with the fallbacks."""
    if dtype == "fp32" and kind in tf32_kinds and spec.tf32_tensor_tflops:
        dtype = "tf32"  # cuDNN's default: FP32 convolutions run as TF32 from Ampere on
    tensor = {
        "fp16": spec.fp16_tensor_tflops,
        "bf16": spec.bf16_tensor_tflops,
        "tf32": spec.tf32_tensor_tflops,
    }.get(dtype)
    if tensor:
        return MathPath(tensor, "tensor", dtype, half_rate_accumulate(spec))
    if dtype == "bf16" and spec.architecture in PRE_AMPERE_ARCHITECTURES:
        return MathPath(spec.fp32_tflops, "emulated", dtype)
    return MathPath(spec.fp32_tflops, "cuda", "fp32")


def matmul_class(spec: GpuSpec, path: MathPath) -> str:
    """The hardware path of a matmul, for the efficiencies of unmeasured GPUs: tensor cores at
    full or half FP32-accumulate rate (TF32 with FP16/BF16: same cores), or FP32 CUDA cores by
    lanes per SM (64, or 128 of which Ampere GeForce and later share half with integer work)."""
    if path.unit == "tensor":
        return "tensor half-rate" if path.half_rate else "tensor full-rate"
    return f"fp32 {fp32_lanes_per_sm(spec)}-lane"


def default_dtype(spec: GpuSpec) -> Dtype:
    """The one default precision of quick, predict, bench and the app: mixed precision (fp16)
    where the GPU has tensor cores, fp32 where it has none."""
    return "fp16" if spec.fp16_tensor_tflops else "fp32"


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


def generation(spec: GpuSpec) -> str:
    """The GPU generation accuracy and data are counted by; Ampere split by product line, as
    its consumer (half-rate FP32 accumulate), workstation and data-centre cards behave apart."""
    if spec.architecture != "Ampere":
        return spec.architecture.split()[0]  # "Ada Lovelace" -> "Ada"
    line = {"consumer": "consumer", "workstation": "workstation"}.get(spec.segment, "data-centre")
    return f"Ampere {line}"


def check_kind_dtype(kind: str, dtype: str) -> None:
    if kind not in KINDS:
        raise CostcalcError(f"unknown workload kind {quoted(kind)} ({', '.join(KINDS)})")
    if dtype not in DTYPES:
        raise CostcalcError(f"unknown dtype {quoted(dtype)} ({', '.join(DTYPES)})")


def precision_class(dtype: str) -> Literal["fp32", "16bit"]:
    """The two precision columns of the calibration: fp32/tf32 and fp16/bf16."""
    return "16bit" if dtype in SIXTEEN_BIT else "fp32"


Times = tuple[float, float, float, float]
"""Time of math, element-wise, memory and overhead, in any one unit."""


def _shares(times: Times) -> Times:
    total = sum(times)
    return (times[0] / total, times[1] / total, times[2] / total, times[3] / total)


def _scaled(times: Times, at: Rates, to: Rates) -> Times:
    """The same work's part times on another GPU: each scalable part by its rate ratio."""
    return (
        times[0] * at.math_tflops / to.math_tflops,
        times[1] * at.elementwise_tflops / to.elementwise_tflops,
        times[2] * at.memory_gbs / to.memory_gbs,
        times[3],
    )


class Sides(NamedTuple):
    """One GPU pair's part times per item: the source at its batch and the target at its own,
    the rates behind them and how a step's fixed cost combines with its work
    (Calibration.launch_overlap); where the two batches differ, also the target at the
    source's batch and the source at the target's, the two ways from one to the other."""

    source: Times
    target: Times
    at: Rates
    to: Rates
    overlap: float = 1.0
    target_here: Times | None = None
    """The target GPU at the source's batch (None: the batches are the same)."""
    source_there: Times | None = None
    """The source GPU at the target's batch."""


def stretch(work: float, fixed: float, overlap: float = 1.0) -> float:
    """Step time over its work time when a fixed cost joins the work: 1 + fixed / work when
    they add (overlap 1); less when launches queue ahead and hide under the work."""
    if fixed <= 0 or work <= 0:
        return 1.0 if work > 0 else math.inf
    if overlap == 1.0:
        return 1.0 + fixed / work
    return float((1.0 + (fixed / work) ** overlap) ** (1.0 / overlap))


def step_time(times: Times, overlap: float = 1.0) -> float:
    """Time per item of a step whose part times are `times`."""
    work = times[0] + times[1] + times[2]
    return work * stretch(work, times[3], overlap)


def _across(source: Times, target: Times, at: Rates, to: Rates, overlap: float) -> float:
    """log(target / source throughput) of one GPU pair at one batch: the work's rate ratios
    weighted by each work part's share of the work averaged over the two GPUs (a Tornqvist
    index), and the fixed cost of a step as it stretches each side's work."""
    work_s, work_t = source[0] + source[1] + source[2], target[0] + target[1] + target[2]
    work = (
        (source[0] / work_s + target[0] / work_t) / 2 * math.log(to.math_tflops / at.math_tflops)
        + (source[1] / work_s + target[1] / work_t)
        / 2
        * math.log(to.elementwise_tflops / at.elementwise_tflops)
        + (source[2] / work_s + target[2] / work_t) / 2 * math.log(to.memory_gbs / at.memory_gbs)
    )
    fixed = math.log(stretch(work_s, source[3], overlap) / stretch(work_t, target[3], overlap))
    return work + fixed


def _log_speedup(
    source: Times,
    target: Times,
    at: Rates,
    to: Rates,
    overlap: float = 1.0,
    target_here: Times | None = None,
    source_there: Times | None = None,
) -> float:
    """log(target throughput / source throughput) per item. At one batch, `_across`; at two,
    the mean of the two ways from the source at its batch to the target at its own (across
    the GPUs at the source's batch then the target's own batch change, or the source's own
    batch change then across): symmetric, and on one GPU exactly its step times' ratio."""
    if target_here is None or source_there is None:
        return _across(source, target, at, to, overlap)
    first = _across(source, target_here, at, to, overlap) + math.log(
        step_time(target_here, overlap) / step_time(target, overlap)
    )
    second = math.log(step_time(source, overlap) / step_time(source_there, overlap)) + _across(
        source_there, target, at, to, overlap
    )
    return (first + second) / 2


def regrown(times: Times, step_memory: float, grown: float) -> Times:
    """One GPU's part times per item at a step `grown` times as large (in items or tokens):
    its fixed cost and its per-step memory traffic (`step_memory` of `times[2]`) are spread
    over that many more."""
    memory = times[2] - step_memory + step_memory / grown
    return (times[0], times[1], memory, times[3] / grown)


def profile_times(profile: StepProfile, prior: Times) -> Times:
    """A bench profile as part times; when the bench could not tell element-wise work from
    memory traffic, its memory share is divided between them as the prior divides them."""
    if profile.elementwise_share is not None:
        elementwise, memory = profile.elementwise_share, profile.memory_share
    else:
        both = prior[1] + prior[2]
        elementwise = profile.memory_share * (prior[1] / both if both else 0.0)
        memory = profile.memory_share - elementwise
    return (profile.compute_share, elementwise, memory, profile.overhead_share)


def as_profile(times: Times) -> StepProfile:
    math_s, elementwise, memory, overhead = _shares(times)
    return StepProfile(
        compute_share=math_s,
        memory_share=memory,
        overhead_share=overhead,
        elementwise_share=elementwise,
    )


# --------------------------------------------------------------------------- the predictor


class Predictor(Struct, frozen=True, eq=False):
    """The calibrated model plus what it needs from the catalog; speeds cached per GPU pair (so
    a predictor equals itself only: its caches fill as it is asked)."""

    calibration: Calibration
    reference: GpuSpec
    """The GPU the per-kind splits are stated on."""
    family_tflops_per_w: Mapping[str, float]
    matmul_efficiency: Mapping[str, float] = field(default_factory=dict)
    """Measured torch.mm TFLOPS over the spec peak, by matmul_class, for unmeasured GPUs."""
    sustained_per_w: Mapping[str, float] = field(default_factory=dict)
    """Per compute capability: the most sustained FP16 tensor TFLOPS per board watt measured on
    a card of the family (calibration.sustained_tflops): no card of it holds more."""
    _cache: dict[tuple[str, str, str, str, float | None, float | None, float | None], float] = (
        field(default_factory=dict)
    )
    _rates: dict[tuple[str, str, str], Rates] = field(default_factory=dict)
    _times: dict[tuple[str, str, str, float | None, float, bool], Times] = field(
        default_factory=dict
    )

    @classmethod
    def build(cls, specs: Iterable[GpuSpec], calibration: Calibration) -> "Predictor":
        """From the catalog's GPUs (for the reference GPU and the power families; a family's
        typical FLOPS per watt is the calibration's where it states one, as the power rule was
        fitted on it, so rows added to the catalog later move no other GPU's speed)."""
        specs = list(specs)
        by_key = {s.key: s for s in specs}
        if calibration.reference_gpu not in by_key:
            raise CostcalcError(
                f"calibration reference GPU {calibration.reference_gpu!r} is not in the catalog"
            )
        typical = {**typical_tflops_per_w(specs), **calibration.family_tflops_per_w}
        reference = by_key[calibration.reference_gpu]
        bare = cls(calibration, reference, typical)
        measured = [by_key[k] for k in calibration.matmul_tflops if k in by_key]
        per_w: dict[str, float] = {}
        for key, tflops in calibration.sustained_tflops.items():
            if key in by_key:
                spec = by_key[key]
                name = spec.compute_capability or spec.architecture
                per_w[name] = max(per_w.get(name, 0.0), tflops / spec.board_power_w)
        return cls(calibration, reference, typical, bare.matmul_efficiencies(measured), per_w)

    def with_calibration(self, calibration: Calibration) -> "Predictor":
        """The same catalog figures with another calibration (used when fitting)."""
        return Predictor(
            calibration,
            self.reference,
            self.family_tflops_per_w,
            self.matmul_efficiency,
            self.sustained_per_w,
        )

    def matmul_efficiencies(self, measured: Iterable[GpuSpec]) -> dict[str, float]:
        """Median measured / peak matmul rate per matmul_class, and per class and compute
        capability, over the measured GPUs that are not power-starved (STARVED_EXCESS): what
        an unmeasured GPU of the class reaches before its own power limit (power_throttle)."""
        ratios: dict[str, list[float]] = {}
        for spec in measured:
            if self.power_excess(spec) > STARVED_EXCESS:
                continue
            table = self.calibration.matmul_tflops[spec.key]
            for dtype in ("fp32", "fp16"):
                path = math_path(spec, dtype, "generic")
                if path.unit == "emulated" or path.precision not in table:
                    continue
                name = matmul_class(spec, path)
                for key in (name, f"{name} {spec.compute_capability}"):
                    ratios.setdefault(key, []).append(table[path.precision] / path.peak_tflops)
        return {key: round(_median(values), 4) for key, values in sorted(ratios.items())}

    # ------------------------------------------------------------------ rates

    def power_throttle(self, spec: GpuSpec) -> float:
        """Sustained share of the boost clock: 1 unless the card is power-starved for its family.

        Dynamic power grows about as the cube of the clock, so a card with k times its family's
        FLOPS per watt holds about k ** -1/3 of its boost clock; the fit puts the exponent
        higher (power_exponent), as these cards also run hot.
        """
        excess = self.power_excess(spec)
        return excess ** (-self.calibration.power_exponent) if excess > 1 else 1.0

    def power_excess(self, spec: GpuSpec) -> float:
        """The card's FP32 FLOPS per board watt over its family's typical (1 if unknown)."""
        typical = self.family_tflops_per_w.get(family(spec))
        return spec.fp32_tflops / spec.board_power_w / typical if typical else 1.0

    def _cuda_efficiency(self, spec: GpuSpec) -> float:
        table = self.calibration.cuda_core_efficiency
        return table.get(spec.architecture, table.get("default", 1.0))

    def rates(self, spec: GpuSpec, dtype: str, kind: str = "generic") -> Rates:
        """Achievable math, element-wise and memory rates of `spec` for this work."""
        key = (spec.key, dtype, kind)  # a catalog key names one spec, as for the speed cache
        found = self._rates.get(key)
        if found is not None:
            return found
        cal = self.calibration
        path = math_path(spec, dtype, kind, cal.tf32_convolution_kinds)
        clock = self.power_throttle(spec)
        cuda = self._cuda_efficiency(spec)
        math_tflops = self._math_tflops(spec, path, clock, cuda, kind)
        step_clock = min(clock, self.sustained_clock(spec, path))
        found = Rates(
            math_tflops=math_tflops,
            elementwise_tflops=spec.fp32_tflops * 64 / fp32_lanes_per_sm(spec) * cuda * step_clock,
            memory_gbs=spec.bandwidth_gbs,
            path=path,
        )
        self._rates[key] = found
        return found

    def _math_tflops(
        self, spec: GpuSpec, path: MathPath, clock: float, cuda: float, kind: str = "generic"
    ) -> float:
        """What the framework's matmuls reach on `path`: the torch.mm rate measured on this GPU
        (under load: its power limit and sustained clock are in it) where the calibration has
        one; else the peak x the measured median of its matmul_class (the same compute
        capability first) x its power throttle; 16-bit tensor math no faster than the card
        holds under sustained load (sustained_limit). TF32 then x tf32_efficiency (matmuls) or
        tf32_convolution_efficiency (convolutions), CUDA cores x the architecture's efficiency
        (and a CNN's convolutions x cuda_convolution_gain: Winograd); emulated BF16 runs at the
        FP32 rate x emulated_bf16_efficiency where it was not measured."""
        cal = self.calibration
        measured = self._measured_math(spec, path)
        if measured is None:
            if path.unit == "emulated":
                fp32 = MathPath(spec.fp32_tflops, "cuda", "fp32")
                emulated = self._math_tflops(spec, fp32, clock, cuda, kind)
                return emulated * cal.emulated_bf16_efficiency
            measured = path.peak_tflops * self._class_share(spec, path) * clock
        if path.unit == "tensor":
            measured = min(measured, self.sustained_limit(spec, path))
        if path.precision == "tf32":
            conv = kind in cal.tf32_convolution_kinds and cal.tf32_convolution_efficiency
            return measured * (conv or cal.tf32_efficiency)
        if path.unit == "cuda":
            gain = cal.cuda_convolution_gain if kind == "cnn" else 1.0
            return measured * cuda * gain
        return measured

    def sustained_clock(self, spec: GpuSpec, path: MathPath) -> float:
        """The share of its boost clock a card holds through a step whose matmuls run on the
        tensor cores at its sustained limit: the limit over the peak x the measured efficiency
        of its class (the power controller averages over far longer than a kernel, so the
        step's element-wise kernels run at that clock too); 1 off the tensor path, or where no
        sustained figure holds the card below its class's rate."""
        limit = self.sustained_limit(spec, path)
        if path.unit != "tensor" or math.isinf(limit):
            return 1.0
        share = self._class_share(spec, path, by_capability=False)
        return min(1.0, limit / (path.peak_tflops * share))

    def _class_share(self, spec: GpuSpec, path: MathPath, by_capability: bool = True) -> float:
        """The measured median / peak of `path`'s matmul_class (of the same compute capability
        first, `by_capability`); where no GPU of the class was measured, the prior: the tensor
        efficiency of its rate, 1 on CUDA cores."""
        name = matmul_class(spec, path)
        share = (
            self.matmul_efficiency.get(f"{name} {spec.compute_capability}")
            if by_capability
            else None
        )
        share = share or self.matmul_efficiency.get(name)
        if share is not None:
            return share
        if path.unit != "tensor":
            return 1.0
        return self.calibration.tensor_efficiency["half_rate" if path.half_rate else "full_rate"]

    def sustained_limit(self, spec: GpuSpec, path: MathPath) -> float:
        """The tensor rate `spec` holds under sustained load, its power limit binding: its own
        measurement where there is one, else its board watts x the most TFLOPS per watt a card
        of its family (the same compute capability) held so; scaled from FP16 to the path's
        peak (TF32 does half the FLOPs per cycle); inf where neither is known."""
        if path.unit != "tensor" or path.precision not in SIXTEEN_BIT:
            return math.inf
        per_w = self.sustained_per_w.get(spec.compute_capability or spec.architecture)
        limits = [per_w * spec.board_power_w] if per_w else []
        if spec.key in self.calibration.sustained_tflops:
            limits.append(self.calibration.sustained_tflops[spec.key])
        if not limits:
            return math.inf
        return min(limits) * path.peak_tflops / (spec.fp16_tensor_tflops or path.peak_tflops)

    def _measured_math(self, spec: GpuSpec, path: MathPath) -> float | None:
        """Measured torch.mm TFLOPS of `spec` on `path`, or None where none was measured."""
        table = self.calibration.matmul_tflops.get(spec.key)
        if not table:
            return None
        peaks = {"fp16": spec.fp16_tensor_tflops, "bf16": spec.bf16_tensor_tflops}
        if path.unit == "tensor":
            wanted = path.precision
            if wanted != "tf32" and wanted in table:
                return table[wanted]
            for other in ("fp16", "bf16"):
                peak = peaks[other]
                if other in table and peak:
                    return table[other] * path.peak_tflops / peak
            return None
        if path.unit == "emulated":
            return table.get("bf16")
        return table.get("fp32")

    # ------------------------------------------------------------------ the split

    def kind_calibration(self, kind: str) -> KindCalibration:
        kinds = self.calibration.kinds
        return kinds.get(kind) or kinds["generic"]

    def step_work(self, kind: str, batch: float | None, sequence: float | None = None) -> float:
        """A step's work relative to the kind's reference step, in what its fixed cost is
        spread over: items (images, recurrent sequences: a recurrent layer launches per time
        step, so its launches grow with the sequence as its work does), or tokens, batch x
        sequence, for a kind whose split names a reference sequence (a transformer's kernels
        are the same in number at any sequence); 1 where the kind ignores the batch."""
        kind_cal = self.kind_calibration(kind)
        if not kind_cal.reference_batch:
            return 1.0
        items = (batch or kind_cal.reference_batch) / kind_cal.reference_batch
        if kind_cal.reference_sequence and sequence:
            return items * sequence / kind_cal.reference_sequence
        return items

    def reference_parts(
        self,
        kind: str,
        dtype: str,
        width: float | None = None,
        batch: float | None = None,
        sequence: float | None = None,
        optimizer: bool = True,
    ) -> tuple[float, float, float, float, float]:
        """Math, element-wise, memory per item, memory per step (spread over the step's
        items) and fixed overhead of `kind` work in `dtype` on the reference GPU, per item (FP32
        step = 1 for the kind's reference width, batch and sequence). A wider model spends
        more of its step in matmuls; a smaller step (fewer items or tokens) more of it in what
        a step costs whatever its size: the fixed cost, and the optimizer's update of every
        weight (none in a step timed without one: `optimizer`)."""
        kind_cal = self.kind_calibration(kind)
        split = kind_cal.fp32
        fp32 = self.rates(self.reference, "fp32", kind)
        here = self.rates(self.reference, dtype, kind)
        math_s = split.math * fp32.math_tflops / here.math_tflops
        if width and kind_cal.reference_width:
            math_s *= (width / kind_cal.reference_width) ** self.calibration.width_exponent
        work = self.step_work(kind, batch, sequence)
        step_memory = split.step_memory / work if optimizer else 0.0
        # launches and the host cost the same per step whatever its size; the work does not
        overhead = split.overhead / work
        if width and kind_cal.reference_width:
            # its launches are per layer, its work per token per layer grows as the width**2
            overhead *= (kind_cal.reference_width / width) ** self.calibration.fixed_width_exponent
        if dtype not in SIXTEEN_BIT:
            return math_s, split.elementwise, split.memory, step_memory, overhead
        sixteen = self.calibration.sixteen_bit
        # the optimizer updates FP32 master weights at either precision
        return (
            math_s * sixteen.math_time,
            split.elementwise * sixteen.elementwise_time,
            split.memory * sixteen.memory_time,
            step_memory,
            overhead * sixteen.overhead_time,
        )

    def reference_times(
        self,
        kind: str,
        dtype: str,
        width: float | None = None,
        batch: float | None = None,
        sequence: float | None = None,
        optimizer: bool = True,
    ) -> Times:
        """Part times per item of `kind` work in `dtype` on the reference GPU: the
        reference_parts with both kinds of memory traffic as one."""
        math_s, elementwise, memory, step_memory, overhead = self.reference_parts(
            kind, dtype, width, batch, sequence, optimizer
        )
        return math_s, elementwise, memory + step_memory, overhead

    def times_on(
        self,
        spec: GpuSpec,
        kind: str,
        dtype: str,
        width: float | None = None,
        batch: float | None = None,
        sequence: float | None = None,
        optimizer: bool = True,
    ) -> Times:
        """Part times of the same work on `spec` (the reference's scaled by the rate ratios)."""
        work = self.step_work(kind, batch, sequence)
        key = (spec.key, kind, dtype, width, work, optimizer)
        found = self._times.get(key)
        if found is None:
            reference = self.rates(self.reference, dtype, kind)
            found = _scaled(
                self.reference_times(kind, dtype, width, batch, sequence, optimizer),
                reference,
                self.rates(spec, dtype, kind),
            )
            self._times[key] = found
        return found

    def prior_profile(self, kind: str = "generic", dtype: str = "fp32") -> StepProfile:
        """The time split of a kind of work in `dtype` on the reference GPU."""
        return as_profile(self.reference_times(kind, dtype))

    # ------------------------------------------------------------------ speeds

    def _both_sides(
        self,
        source: GpuSpec,
        target: GpuSpec,
        kind: str,
        dtype: str,
        profile: StepProfile | None,
        width: float | None = None,
        batch: float | None = None,
        target_batch: float | None = None,
        sequence: float | None = None,
        optimizer: bool = True,
        step_s: float | None = None,
    ) -> Sides:
        """Part times per item on the source at `batch` (a profile: as measured there) and on
        the target at `target_batch` (None: the same batch): the work scaled by the rate
        ratios, what a step costs whatever its size spread over each side's own step. A step
        time measured on the source (`step_s`, seconds) sets the share of it its fixed cost
        takes, for a kind whose split names the seconds of its reference step."""
        at, to = self.rates(source, dtype, kind), self.rates(target, dtype, kind)
        prior = self.times_on(source, kind, dtype, width, batch, sequence, optimizer)
        times = prior if profile is None else profile_times(profile, prior)
        if profile is None and step_s:
            times = self._measured_step(times, kind, dtype, step_s)
        overlap = self.calibration.launch_overlap
        if target_batch is None or target_batch == batch:
            return Sides(times, _scaled(times, at, to), at, to, overlap)
        grown = self.step_work(kind, target_batch, sequence) / self.step_work(kind, batch, sequence)
        parts = self.reference_parts(kind, dtype, width, batch, sequence, optimizer)
        step_memory = parts[3] * self.rates(self.reference, dtype, kind).memory_gbs / at.memory_gbs
        if profile is not None and prior[2] > 0:
            step_memory *= times[2] / prior[2]  # the bench's memory, divided as the prior's
        there = regrown(times, step_memory, grown)
        return Sides(times, _scaled(there, at, to), at, to, overlap, _scaled(times, at, to), there)

    def _measured_step(self, times: Times, kind: str, dtype: str, step_s: float) -> Times:
        """`times` with the fixed cost's share of a step measured to take `step_s` seconds:
        the same seconds on every workload (the reference step's share of its own seconds),
        so a workload of much work per item (a 3D volume) spends little of its step on it."""
        kind_cal = self.kind_calibration(kind)
        if not kind_cal.reference_step_s:
            return times
        fixed_s = kind_cal.fp32.overhead * kind_cal.reference_step_s
        if dtype in SIXTEEN_BIT:
            fixed_s *= self.calibration.sixteen_bit.overhead_time
        share = min(fixed_s / step_s, MAX_FIXED_SHARE)
        work = times[0] + times[1] + times[2]
        return times[0], times[1], times[2], work * share / (1 - share)

    def speedup(
        self,
        source: GpuSpec,
        target: GpuSpec,
        kind: str = "generic",
        dtype: str = "fp32",
        profile: StepProfile | None = None,
        batch: float | None = None,
        target_batch: float | None = None,
        sequence: float | None = None,
    ) -> float:
        """Target throughput / source throughput per item; exactly 1.0 for the same GPU at the
        same batch. `batch` is the source's batch per GPU (a profile was measured at it),
        `target_batch` the target's (None: the same), `sequence` the tokens per item."""
        if target_batch == batch:
            target_batch = None
        if source.key == target.key and target_batch is None:
            return 1.0
        if profile is not None:
            sides = self._both_sides(
                source, target, kind, dtype, profile, None, batch, target_batch, sequence
            )
            return math.exp(_log_speedup(*sides))
        key = (source.key, target.key, kind, dtype, batch, target_batch, sequence)
        found = self._cache.get(key)
        if found is None:
            sides = self._both_sides(
                source, target, kind, dtype, None, None, batch, target_batch, sequence
            )
            found = math.exp(_log_speedup(*sides))
            self._cache[key] = found
        return found

    def speed_fn(
        self,
        kind: Kind,
        dtype: Dtype,
        profile: StepProfile | None = None,
        batch: float | None = None,
        target_batch: Callable[[GpuSpec], float | None] | None = None,
        sequence: float | None = None,
    ) -> SpeedFn:
        """What the comparison asks: per-GPU speed of a target relative to the desktop, the
        desktop at `batch` per GPU and each target at `target_batch(target)` (None: the
        desktop's batch)."""

        def speed(source: GpuSpec, target: GpuSpec) -> float:
            there = target_batch(target) if target_batch is not None else None
            return self.speedup(source, target, kind, dtype, profile, batch, there, sequence)

        return speed

    def uses_batch(self, kind: str) -> bool:
        """Whether a batch per GPU moves `kind`'s speeds: its split names the batch it is
        stated at (the fixed cost of a step then weighs as reference / batch)."""
        return self.kind_calibration(kind).reference_batch is not None

    def batch_unused(self, kind: str, what: str = "the batch") -> str | None:
        """Why a batch per GPU (`what`: as the user gave it) does not move `kind`'s speeds, or
        None when it does."""
        if self.uses_batch(kind):
            return None
        kinds = [k for k, c in self.calibration.kinds.items() if c.reference_batch]
        return f"{what} is not used for {kind} work ({' and '.join(kinds) or 'no kind'} only)"

    def band(self, source: GpuSpec, target: GpuSpec, kind: str, dtype: str) -> tuple[float, float]:
        """Uncertainty as multipliers of the prediction: the 10th-90th percentile of measured /
        predicted for this kind and precision, leave-one-source-out. 1 for the same GPU."""
        if source.key == target.key:
            return 1.0, 1.0
        kind_cal = self.kind_calibration(kind)
        return kind_cal.band_16bit if dtype in SIXTEEN_BIT else kind_cal.band_fp32

    def measured_pairs(self, spec: GpuSpec) -> int | None:
        """Measured pairs behind the fit with a GPU of `spec`'s generation; None when the
        calibration does not say (one written before it counted them)."""
        counts = self.calibration.pairs_by_generation
        return counts.get(generation(spec), 0) if counts else None

    def thin_data(self, specs: Iterable[GpuSpec]) -> str | None:
        """One line naming the generations among `specs` with too few measurements behind the
        fit for their band to be trusted, or None when every one has enough."""
        thin: dict[str, int] = {}
        for spec in specs:
            count = self.measured_pairs(spec)
            if count is not None and count < self.calibration.min_trusted_pairs:
                thin[generation(spec)] = count
        if not thin:
            return None
        named = ", ".join(f"{name} ({count} pairs)" for name, count in sorted(thin.items()))
        return (
            f"few measurements behind the fit for {named}, fewer than "
            f"{self.calibration.min_trusted_pairs}: predictions for these GPUs may miss by "
            "more than their band"
        )

    def known_bias(self, specs: Iterable[GpuSpec], kind: str, dtype: str) -> str | None:
        """One line naming the generations among `specs` whose held-out predictions for this
        kind and precision leaned one way (calibration.biased_cells), or None; generic work
        those of the kind it stands in for (STANDS_IN_FOR)."""
        precision = precision_class(dtype)
        wanted = STANDS_IN_FOR.get(kind, kind)
        generations = {generation(spec) for spec in specs}
        found = [
            cell
            for cell in self.calibration.biased_cells
            if cell.generation in generations
            and cell.kind == wanted
            and cell.precision == precision
        ]
        if not found:
            return None
        said = " and ".join(
            f"{cell.generation} cards {abs(cell.error):.0%} too "
            f"{'fast' if cell.error < 0 else 'slow'} (median of {cell.pairs} pairs)"
            for cell in sorted(found, key=lambda c: c.generation)
        )
        label = "fp16/bf16" if precision == "16bit" else "fp32/tf32"
        return (
            f"on measurements the fit never saw, predictions for {wanted} {label} work put "
            f"{said}; these may lean the same way"
        )

    def predict(
        self,
        seconds: float,
        source: GpuSpec,
        target: GpuSpec,
        *,
        kind: str = "generic",
        dtype: str = "fp32",
        profile: StepProfile | None = None,
        batch: float | None = None,
        target_batch: float | None = None,
        sequence: float | None = None,
    ) -> Prediction:
        """Time the work that takes `seconds` on `source` needs on `target`.

        `profile` is the time split measured by a bench on the source; without it the per-kind
        priors apply. The source runs `batch` per GPU and the target `target_batch` (None: the
        same), `sequence` tokens per item; None: the kind's reference.
        """
        if not math.isfinite(seconds) or seconds <= 0:
            raise CostcalcError(f"seconds must be a positive number, got {seconds!r}")
        check_kind_dtype(kind, dtype)
        used = profile or as_profile(self.times_on(source, kind, dtype, None, batch, sequence))
        factor = self.speedup(source, target, kind, dtype, profile, batch, target_batch, sequence)
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
            batch=batch,
            target_batch=target_batch,
            sequence=sequence,
        )

    # ------------------------------------------------------------------ why this number

    def explain(
        self,
        source: GpuSpec,
        target: GpuSpec,
        kind: str = "generic",
        dtype: str = "fp32",
        profile: StepProfile | None = None,
        batch: float | None = None,
        target_batch: float | None = None,
        sequence: float | None = None,
    ) -> SpeedBreakdown:
        """The parts of a prediction for a "why this number" panel: each work part's share of
        the work on both GPUs, the rates that scale it and its factor, and the fixed cost of a
        step on each side at its own batch; the speed-up is the product of the factors (1 for
        the same GPU at the same batch, where every ratio is 1)."""
        check_kind_dtype(kind, dtype)
        shown = batch if batch and self.uses_batch(kind) else None
        there = target_batch if target_batch != batch and self.uses_batch(kind) else None
        sides = self._both_sides(source, target, kind, dtype, profile, None, batch, there, sequence)
        times = sides.source
        # across the GPUs at the source's batch, then the target's own batch
        scaled = sides.target if sides.target_here is None else sides.target_here
        if source.key == target.key:
            scaled = times
        speedup = self.speedup(source, target, kind, dtype, profile, batch, there, sequence)
        parts = tuple(self._part(part, times, scaled, sides, source, target) for part in PARTS)
        if sides.target_here is not None:
            across = math.prod(p.factor for p in parts)
            parts += (
                SpeedPart(
                    part="batch",
                    source_share=0.0,
                    target_share=0.0,
                    weight=0.0,
                    source_rate=None,
                    target_rate=None,
                    unit="",
                    rate_ratio=self.step_work(kind, there, sequence)
                    / self.step_work(kind, batch, sequence),
                    factor=speedup / across,
                    source_path=f"batch {batch:g}" if batch else "the reference batch",
                    target_path=f"batch {there:g}" if there else "the reference batch",
                ),
            )
        return SpeedBreakdown(
            source=source.key,
            target=target.key,
            kind=kind,
            dtype=dtype,
            speedup=speedup,
            band=self.band(source, target, kind, dtype),
            parts=parts,
            notes=tuple(self.notes(source, dtype, kind) + self.notes(target, dtype, kind)),
            batch=shown,
            target_batch=there,
        )

    def _part(
        self,
        part: Part,
        times: Times,
        scaled: Times,
        sides: Sides,
        source: GpuSpec,
        target: GpuSpec,
    ) -> SpeedPart:
        """One part's line: a work part's share of the work (its exponent), or the fixed
        cost's share of the whole step on each side and how it stretches each side's work."""
        at, to = sides.at, sides.to
        work_s, work_t = sum(times[:3]), sum(scaled[:3])
        step_s = work_s * stretch(work_s, times[3], sides.overlap)
        step_t = work_t * stretch(work_t, scaled[3], sides.overlap)
        if part == "overhead":
            source_share, target_share = 1 - work_s / step_s, 1 - work_t / step_t
            return SpeedPart(
                part=part,
                source_share=source_share,
                target_share=target_share,
                weight=(source_share + target_share) / 2,
                source_rate=None,
                target_rate=None,
                unit="",
                rate_ratio=times[3] / scaled[3] if scaled[3] else 1.0,
                factor=(step_s / work_s) / (step_t / work_t),
                source_path=self._path_words(part, at, source),
                target_path=self._path_words(part, to, target),
            )
        i = PARTS.index(part)
        weight = (times[i] / work_s + scaled[i] / work_t) / 2
        ratio = 1.0 if source.key == target.key else to.of(part) / at.of(part)
        return SpeedPart(
            part=part,
            source_share=times[i] / step_s,
            target_share=scaled[i] / step_t,
            weight=weight,
            source_rate=at.of(part),
            target_rate=to.of(part),
            unit={"math": "TFLOPS", "elementwise": "TFLOPS", "memory": "GB/s"}.get(part, ""),
            rate_ratio=ratio,
            factor=ratio**weight,
            source_path=self._path_words(part, at, source),
            target_path=self._path_words(part, to, target),
        )

    def _path_words(self, part: Part, rates: Rates, spec: GpuSpec) -> str:
        clock = min(self.power_throttle(spec), self.sustained_clock(spec, rates.path))
        held = f", {clock:.0%} of boost clock at {spec.board_power_w:g} W" if clock < 1 else ""
        if part == "math":
            limit = self.sustained_limit(spec, rates.path)
            if rates.math_tflops >= limit * 0.999:
                return rates.path.describe() + f", held to {limit:.3g} TFLOPS under sustained load"
            if self._measured_math(spec, rates.path) is not None:
                return rates.path.describe() + ", measured (torch.mm)"
            return rates.path.describe() + held
        if part == "elementwise":
            return f"SMs x clock ({spec.fp32_tflops:g} TFLOPS FP32 peak){held}"
        if part == "memory":
            return f"DRAM bandwidth {spec.bandwidth_gbs:g} GB/s"
        return "fixed: launches and the host do not scale with the GPU"

    def notes(self, spec: GpuSpec, dtype: str, kind: str) -> list[str]:
        """The fallbacks and limits behind `spec`'s rates for this work, in words."""
        path = self.rates(spec, dtype, kind).path
        name, out = spec.name, []
        if dtype == "tf32" and path.unit == "cuda":
            out.append(f"{name}: no TF32 before Ampere, so tf32 runs as plain FP32")
        if dtype == "fp32" and path.precision == "tf32":
            out.append(f"{name}: FP32 convolutions run as TF32 (PyTorch's cuDNN default)")
        if dtype == "fp16" and path.unit == "cuda":
            out.append(
                f"{name}: no tensor cores, so 16-bit matmuls run at the FP32 rate (FP32 "
                "accumulation); only memory traffic shrinks"
            )
        if path.unit == "emulated":
            out.append(f"{name}: no BF16 before Ampere; emulated BF16 runs below the FP32 rate")
        if path.half_rate:
            out.append(f"{name}: tensor math with FP32 accumulate at half the FP16-accumulate rate")
        limit = self.sustained_limit(spec, path)
        held = self.rates(spec, dtype, kind).math_tflops >= limit * 0.999
        if held:
            out.append(
                f"{name}: {spec.board_power_w:g} W under sustained load: its "
                f"{path.precision.upper()} tensor math runs at {limit:.3g} TFLOPS, and it holds "
                f"about {self.sustained_clock(spec, path):.0%} of its boost clock through the step"
            )
        clock = self.power_throttle(spec)
        if clock < 1 and not held:
            out.append(
                f"{name}: {spec.board_power_w:g} W for its FLOPS, so it holds about "
                f"{clock:.0%} of its boost clock under load"
            )
        thin = self.thin_data([spec])
        if thin:
            out.append(f"{name}: {thin}")
        bias = self.known_bias([spec], kind, dtype)
        if bias:
            out.append(f"{name}: {bias}")
        return out
