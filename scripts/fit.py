"""Fitting the predictor's calibration to measured speed ratios between GPUs.

Rule kept here: pure and deterministic; the fit is never run by the product, only by the scripts
that regenerate costcalc/data/predict_calibration.yaml and measure its accuracy
(benchmarks/predict_accuracy.py). The measurements arrive as text (the bundled
scripts/speed_measurements.csv); pairs of GPUs measured on the same workload at the same
requested precision are what the fit matches.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core.catalog import GpuCatalog
from costcalc.core.models import GpuSpec
from costcalc.core.predict import (
    PRE_TENSOR_ARCHITECTURES,
    Calibration,
    CellBias,
    KindCalibration,
    Predictor,
    Split,
    _log_speedup,
    generation,
    precision_class,
)

FITTED_KINDS = ("transformer", "cnn", "rnn")

MEASUREMENTS_CSV = Path(__file__).with_name("speed_measurements.csv")
"""Public per-GPU measurements the predictor is fitted on (not shipped: only fitting reads it)."""
SWEEPS_CSV = Path(__file__).with_name("batch_sweeps.csv")
"""Public throughput of one workload on one GPU at several batches (scripts/
derive_batch_sweeps.py, docs/data/batch-sweeps.md): the fixed cost of a step is fitted on its
same-GPU pairs; DeepBench's recurrent layers on three GPUs add cross-GPU rnn pairs."""
MATMUL_CSV = Path(__file__).with_name("matmul_measurements.csv")
"""Measured torch.mm TFLOPS per GPU (scripts/derive_matmul_rates.py); their medians ship in the
calibration as the math rates of the GPUs measured."""
SUSTAINED_CSV = Path(__file__).with_name("sustained_matmul_measurements.csv")
"""Matmul rates measured with the power limit binding (T4, L4, RTX 2080 Ti); their medians ship
in the calibration as those GPUs' sustained tensor rates (and set their families' cap)."""
REFERENCE_BATCHES = {"cnn": 256.0, "transformer": 32.0, "generic": 32.0, "rnn": 128.0}
"""Batch per GPU a kind's split is stated for, and what `predict` assumes without --batch: for a
CNN, the 256 images per GPU NVIDIA's ResNet-50 v1.5 recipes train at on an A100, the reference
GPU; for a transformer, 32 sequences of 1,024 tokens, the batch at which costcalc's bench fills
an H100 with GPT-2 small (docs/bench.md); for a recurrent net, GNMT's 128 sentences
(DeepLearningExamples). What a step costs whatever its size (Split.overhead: launches and the
host; Split.step_memory: per-step memory traffic) is spread over the step's items, or tokens,
so its share scales as reference / batch; two GPUs may run different batches (issue 39).
Issue 26 set the CNN's term (leave-one-source-out cnn fp32 / 16-bit 13.3 / 10.4 % without it,
11.8 / 10.1 % with it; the exponent is the physics' 1). Issue 39 gave transformers and recurrent
nets theirs, fitted with the batch sweeps (SWEEPS_CSV). Leave-one-source-out on each source's
own batches per GPU, cnn / transformer, before the 16-bit math factor was held: without the
per-step memory traffic 11.0 / 15.7 %, with it 10.8 / 12.7 % at a transformer reference of 8
sequences and 11.0 / 12.8 % at 32 (the shrinkage makes the reference matter a little); with
the factor held, at 32, 10.8 / 12.4 %. 32 keeps the default near what published large-batch
ratios measure (H100 / A100 on MPT, RTX 4090 / 3090)."""
REFERENCE_SEQUENCES = {"transformer": 1024.0, "generic": 1024.0}
"""Tokens per item a transformer's split is stated for, and what `predict` assumes without a
sequence: GPT-2 small's context, the transformer costcalc's bench trains; with the reference
batch of 8, 8,192 tokens a step."""
REFERENCE_STEP_S = {"cnn": 256 / 909}
"""Seconds the reference step takes on the reference GPU: for a CNN, ResNet-50 v1.5 at 256
images on an A100 SXM4 40GB with FP32 math run as TF32, 909 images/s (DeepLearningExamples'
TensorFlow ResNet-50 v1.5 README, 2020-06; in speed_measurements.csv). A table whose step time
is known then gets the fixed cost's seconds, not its batch's share of the reference: CNN
workloads' work per item spans 1,000x (CIFAR images to 3D volumes). Transformers' tokens and
recurrent nets' sequences are work per item alike enough to go by the batch."""
REFERENCE_WIDTHS = {"transformer": 768.0, "generic": 768.0}
"""d_model of the typical transformer a split is stated for, and what `predict` assumes: GPT-2
small, the reference transformer costcalc's bench trains on a GPU (costcalc/bench/workloads.py)."""


class Measurement(Struct, frozen=True):
    """One row of speed_measurements.csv: a workload's throughput on one GPU."""

    group: str
    source: str
    kind: str
    dtype: str
    gpu: str
    batch: int | None
    speed: float
    workload: str = ""
    unit: str = ""


class Pair(Struct, frozen=True):
    """Two GPUs measured on the same workload: target speed / source speed."""

    source: GpuSpec
    target: GpuSpec
    ratio: float
    kind: str
    dtype: str
    group: str = ""
    origin: str = ""
    """The measurement source id."""
    width: float | None = None
    """The model's width (d_model) where WIDTHS knows it: the matmul share grows with it."""
    batch: float | None = None
    """Batch per GPU the source ran, where the table gives one."""
    target_batch: float | None = None
    """Batch per GPU the target ran (None: the source's, or none given)."""
    sequence: float | None = None
    """Tokens per item where SEQUENCES knows them (transformers)."""
    optimizer: bool = True
    """The step timed includes an optimizer update (NO_OPTIMIZER_STEP)."""
    step_s: float | None = None
    """Seconds a step took on the source GPU, where the table's unit gives it (step_seconds)."""

    @property
    def cell(self) -> tuple[str, str]:
        """Kind and precision class, the cells accuracy is reported in."""
        return self.kind, precision_class(self.dtype)

    @property
    def same_gpu(self) -> bool:
        """A batch sweep: one GPU at two batches, for the fixed cost of a step."""
        return self.source.key == self.target.key

    @property
    def same_batch(self) -> bool:
        """Both GPUs ran the same batch (or the table gives none)."""
        return self.target_batch is None or self.target_batch == self.batch


def read_measurements(text: str) -> list[Measurement]:
    """Rows of speed_measurements.csv (its '#' lines are the provenance header)."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    rows = csv.DictReader(io.StringIO(body))
    return [
        Measurement(
            group=row["group"],
            source=row["source"],
            kind=row["kind"],
            dtype=row["dtype"],
            gpu=row["gpu"],
            batch=int(row["batch"]) if row["batch"] else None,
            speed=float(row["speed"]),
            workload=row["workload"],
            unit=row["unit"],
        )
        for row in rows
    ]


def pairs_from(measurements: Iterable[Measurement], catalog: GpuCatalog) -> list[Pair]:
    """Every ordered pair of GPUs within a group, one per pair of GPUs, each GPU at the batch it
    ran: its largest in the table (what fits it, where a table grows the batch with the card),
    so the pair holds each source's own batches per GPU; none where a GPU's row gives none."""
    groups: dict[str, dict[str, dict[int | None, float]]] = {}
    about: dict[str, Measurement] = {}
    for m in measurements:
        groups.setdefault(m.group, {}).setdefault(m.gpu, {})[m.batch] = m.speed
        about[m.group] = m
    pairs = []
    for group, by_gpu in groups.items():
        m = about[group]
        transformer = m.kind == "transformer"
        for a, b in itertools.permutations(sorted(by_gpu), 2):
            batch_a = max(by_gpu[a], key=lambda x: x or 0)
            batch_b = max(by_gpu[b], key=lambda x: x or 0)
            known = batch_a is not None and batch_b is not None
            many = math.inf if m.source in AMORTIZED else None
            pairs.append(
                Pair(
                    catalog.get(a),
                    catalog.get(b),
                    by_gpu[b][batch_b] / by_gpu[a][batch_a],
                    m.kind,
                    m.dtype,
                    group,
                    m.source,
                    workload_width(m.workload) if transformer else None,
                    float(batch_a) if known and batch_a else many,
                    float(batch_b) if known and batch_b else many,
                    workload_sequence(m.workload) if transformer else None,
                    has_optimizer(m.source, m.workload),
                    step_seconds(
                        by_gpu[a][batch_a],
                        batch_a,
                        m.unit,
                        workload_sequence(m.workload) if transformer else None,
                    ),
                )
            )
    return pairs


ITEM_UNITS = ("img/s", "images/s", "volumes/s", "sequences/s", "samples/s", "frames/s")
AUDIO_SEGMENT_SAMPLES = 8000
"""WaveGlow trains on segments of 8,000 audio samples (DeepLearningExamples' Tacotron 2 /
WaveGlow README and Lambda's configs, --segment-length 8000): its throughput in audio samples
a second over that gives its items."""


def step_seconds(
    speed: float, batch: int | None, unit: str, sequence: float | None
) -> float | None:
    """Seconds one step took, from a throughput in items (or tokens, with the tokens per item)
    a second or in steps a second; None where the unit does not give it (scores, TFLOPS,
    mel frames, 8-GPU totals)."""
    if unit == "steps/s":
        return 1 / speed
    if batch is None:
        return None
    if unit in ITEM_UNITS:
        return batch / speed
    if unit == "tokens/s" and sequence:
        return batch * sequence / speed
    if unit == "audio samples/s":
        return batch * AUDIO_SEGMENT_SAMPLES / speed
    return None


AMORTIZED = {
    "llmfoundry_mpt_bench": (
        "8-GPU FSDP runs with micro-batches of 1-96 sequences of 512-65,536 tokens per GPU and "
        "gradients accumulated over 1-21 of them (its README's MicroBatchSize and GradAccum)"
    ),
    "mli_transformers_benchmarks": "its README's figure is each block's best over batches 2-128",
}
"""Sources that give no batch but ran ones large enough for a step's fixed costs not to show:
their pairs are taken at an unbounded batch, not at the reference."""

NO_OPTIMIZER_STEP = {
    "neusight": "forward and backward of the whole model, no optimizer step (its trace.py)",
    "mli_transformers_benchmarks": "one block's forward and backward",
    "u39kun_dl_benchmark": "forward and backward passes",
    "deepbench": "one recurrent layer's forward and both backward passes",
}
"""Sources whose timed step has no optimizer update: their steps carry no per-step memory
traffic (Split.step_memory); inference rows (NeuSight's 'inf') have none either."""


def has_optimizer(source: str, workload: str) -> bool:
    return source not in NO_OPTIMIZER_STEP and " inf " not in f" {workload} "


WIDTHS = [
    # (pattern in the workload's name, d_model), first match wins; from each model's published
    # configuration (llm-foundry's mpt-*.yaml, the BERT/GPT-2/GPT-3/OPT/T5/ViT/ELECTRA/RoBERTa
    # papers and model cards, DeepLearningExamples' READMEs for Transformer-XL and FastPitch).
    ("MPT-760m", 1536), ("MPT-1b", 2048), ("MPT-3b", 2560), ("MPT-7b", 4096),
    ("MPT-13b", 5120), ("MPT-30b", 7168),
    ("gpt3_27", 2560), ("gpt3_xl", 2048), ("opt_13", 2048), ("gpt2_large", 1280),
    ("switchxl4", 2048),  # NeuSight's Switch Transformer "XL": T5-XL's width, inferred
    ("bert_large", 1024), ("BERT-large", 1024), ("GPT-2-medium", 1024), ("T5-large", 1024),
    ("Transformer-big", 1024), ("Transformer-XL [Large", 1024), ("Transformer-XL [Base", 512),
    ("ELECTRA-base", 768), ("RoBERTa-base", 768), ("ViT-Base", 768), ("vit_b_16", 768),
    ("FastPitch", 384),
    ("swin_v2_b", 512),  # its third stage, where 18 of its 24 blocks run
    # batch_sweeps.csv's model names (the same published configurations)
    ("Transformer-XL base", 512), ("Transformer-XL large", 1024), ("Transformer big", 1024),
    ("GPT-2 large", 1280), ("GPT-2 medium", 1024), ("GPT-3 2.7B", 2560), ("GPT-3 XL", 2048),
    ("OPT-1.3B", 2048), ("BART-large", 1024), ("ELECTRA-base", 768), ("FastSpeech", 384),
]  # fmt: skip
"""Transformer widths. A block's matmuls grow as d_model squared per token, its element-wise
work and activations as d_model: the wider the model, the larger the matmul share of a step."""


def workload_width(workload: str) -> float | None:
    for pattern, width in WIDTHS:
        if pattern.lower() in workload.lower():
            return float(width)
    return None


SEQUENCES = [
    # (pattern in the workload's name, tokens per item), first match wins; the largest batch a
    # table gives a GPU is its first pre-training phase where it gives two (BERT, ELECTRA:
    # sequence 128 at the larger batch, 512 at the smaller); SQuAD fine-tuning at 384
    # (DeepLearningExamples' run scripts); Transformer-XL's target length (base 192, large 384,
    # its READMEs); Transformer-big's batch is in tokens already; ViT-B/16 at 224 px sees 197.
    ("BERT-large [Pre-training]", 128), ("ELECTRA-base [Pre-training]", 128),
    ("Fine-tuning", 384), ("SQuAD", 384),
    ("Transformer-XL [Base", 192), ("Transformer-XL [Large", 384),
    ("Transformer-big", 1),
    ("ViT-Base/16", 197), ("vit_b_16", 197),
]  # fmt: skip
"""Tokens per item: a transformer's fixed cost of a step is spread over its tokens (batch x
sequence). A name that says "seq N" gives N; others not named here give none (the predictor
then takes the reference sequence)."""


def workload_sequence(workload: str) -> float | None:
    found = re.search(r"\bseq (\d+)", workload)
    if found:
        return float(found.group(1))
    for pattern, tokens in SEQUENCES:
        if pattern.lower() in workload.lower():
            return float(tokens)
    return None


SWEEP_DTYPES = {
    "fp32": "fp32",
    "tf32": "tf32",
    "amp_fp16": "fp16",
    "amp_bf16": "bf16",
    "fp16": "fp16",
}
"""batch_sweeps.csv's precision as the predictor's dtype (fp16: the model in half precision)."""


def read_sweeps(text: str, catalog: GpuCatalog) -> list[Pair]:
    """Pairs from batch_sweeps.csv: within each sweep (one workload on one GPU), each batch
    against the next larger one (throughput ratio, the same GPU on both sides); and DeepBench's
    recurrent layers across its GPUs, each at its largest batch (the only cross-GPU rnn pairs
    outside DeepLearningExamples)."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    sweeps: dict[tuple[str, ...], dict[int, float]] = {}
    rates_unit: dict[tuple[str, ...], str] = {}
    for row in csv.DictReader(io.StringIO(body)):
        if row["batch_policy"] != "sweep" or row["gpus"] != "1":
            continue
        key = (
            row["source"], row["model"], row["framework"], row["kind"], row["precision"],
            row["seq_len"], row["batch_unit"], row["gpu"],
        )  # fmt: skip
        sweeps.setdefault(key, {})[int(row["batch_per_gpu"])] = float(row["throughput"])
        rates_unit[key] = row["unit"]
    pairs = []
    for key, speeds in sweeps.items():
        source, model, _framework, kind, precision, seq, unit, gpu = key
        spec = catalog.get(gpu)
        transformer = kind == "transformer"
        sequence = (
            (1.0 if unit == "tokens" else float(seq) if seq else None) if transformer else None
        )
        per_s = rates_unit[key]
        width = workload_width(model) if transformer else None
        group = "/".join(key[:7])
        batches = sorted(speeds)
        for small, large in itertools.pairwise(batches):
            pairs.append(
                Pair(
                    spec,
                    spec,
                    speeds[large] / speeds[small],
                    kind,
                    SWEEP_DTYPES[precision],
                    f"{group}/{small}-{large}",
                    source,
                    width,
                    float(small),
                    float(large),
                    sequence,
                    has_optimizer(source, model),
                    step_seconds(speeds[small], small, per_s, sequence),
                )
            )
    pairs += _deepbench_across_gpus(sweeps, catalog)
    return pairs


def _deepbench_across_gpus(
    sweeps: dict[tuple[str, ...], dict[int, float]], catalog: GpuCatalog
) -> list[Pair]:
    by_layer: dict[tuple[str, ...], dict[str, tuple[int, float]]] = {}
    for key, speeds in sweeps.items():
        if key[0] == "deepbench":
            largest = max(speeds)
            by_layer.setdefault(key[:7], {})[key[7]] = (largest, speeds[largest])
    pairs = []
    for layer, by_gpu in by_layer.items():
        for a, b in itertools.permutations(sorted(by_gpu), 2):
            (batch_a, speed_a), (batch_b, speed_b) = by_gpu[a], by_gpu[b]
            pairs.append(
                Pair(
                    catalog.get(a),
                    catalog.get(b),
                    speed_b / speed_a,
                    "rnn",
                    SWEEP_DTYPES[layer[4]],
                    "/".join(layer),
                    "deepbench",
                    None,
                    float(batch_a),
                    float(batch_b),
                    None,
                    False,
                )
            )
    return pairs


def read_matmul_rates(text: str) -> dict[str, dict[str, float]]:
    """Median TFLOPS per GPU and precision of matmul_measurements.csv's submissions."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    found: dict[str, dict[str, list[float]]] = {}
    for row in csv.DictReader(io.StringIO(body)):
        for precision in ("fp32", "tf32", "fp16", "bf16"):
            if row[precision]:
                found.setdefault(row["gpu"], {}).setdefault(precision, []).append(
                    float(row[precision])
                )
    return {
        gpu: {p: round(statistics.median(values), 2) for p, values in rates.items()}
        for gpu, rates in sorted(found.items())
    }


HELD = {"tf32_convolution_efficiency": 0.625, "cuda_convolution_gain": 1.2}
"""Convolution figures held, not fitted (2026-11-26, issue 26). cuda_convolution_gain: FP32
convolutions on CUDA cores run faster than the FP32 matmul rate, as cuDNN computes 3x3 ones by
Winograd (F(2x2,3x3): 2.25x fewer multiplies); in training the forward and data-gradient
convolutions can (two thirds of the work), and 3x3 convolutions are 45 % of ResNet-50's
FLOPs: 1 / (0.7 + 0.3 / 2.25) = 1.2. tf32_convolution_efficiency: what FP32 convolutions run
as TF32 reach of the TF32 matmul rate. Fitted (add both to START), the pair settles at 0.855
and 1.11, a TF32 / CUDA convolution ratio (0.77) set by GPU-Insights' CIFAR-size (32x32)
ResNet-50, whose only mixed pairs are one RTX 2080 Ti against Ampere and later cards (the model
1.11x too fast on the TF32 side); the ImageNet-size measurements put TF32 convolutions lower:
DeepLearningExamples' A100 TF32 against V100 FP32 tables (1.52x too fast there), and the
independent Colab check of a T4, an L4 and an A100 (tests/core/test_predict.py: L4 / T4 2.43x
against 1.97x, A100 / T4 9.04x against 6.94x). Held at 0.625 / 1.2 (ratio 0.52),
leave-one-source-out reads cnn fp32 / 16-bit, transformer fp32 / 16-bit 13.3 / 10.4 / 11.8 / 10.8 %
against 12.2 / 9.7 / 11.8 / 11.1 % fitted, and no cell but Pascal FP32 transformers is biased beyond
10 % (fitted: Ampere data-centre FP32 CNNs -10.3 %, Hopper 16-bit transformers +10.1 % too). Those
figures are without the batch term (REFERENCE_BATCHES): with it, the pair fitted freely settles at
0.644 / 1.19, the held values, and leave-one-source-out reads 12.0 / 10.3 / 11.7 / 10.6 % against
11.8 / 10.1 / 11.7 / 10.6 % held: what the fit pulled toward 0.855 was small batches' launch-bound
steps, not the convolutions."""


def read_sustained(text: str) -> dict[str, float]:
    """Median sustained FP16 tensor TFLOPS per GPU of sustained_matmul_measurements.csv."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    found: dict[str, list[float]] = {}
    for row in csv.DictReader(io.StringIO(body)):
        found.setdefault(row["gpu"], []).append(float(row["tflops"]))
    return {gpu: round(statistics.median(v), 2) for gpu, v in sorted(found.items())}


def prepared(cal: Calibration) -> Calibration:
    """`cal` with what the fit does not fit but reads from files: the measured matmul rates
    (burst and sustained) and the reference widths and batches of the splits."""
    kinds = {
        kind: replace(
            kind_cal,
            **{
                "reference_width": REFERENCE_WIDTHS.get(kind),
                "reference_batch": REFERENCE_BATCHES.get(kind),
                "reference_sequence": REFERENCE_SEQUENCES.get(kind),
                "reference_step_s": REFERENCE_STEP_S.get(kind),
            },
        )
        for kind, kind_cal in cal.kinds.items()
    }
    rates = read_matmul_rates(MATMUL_CSV.read_text("utf-8"))
    sustained = read_sustained(SUSTAINED_CSV.read_text("utf-8"))
    return replace(
        cal, **{"matmul_tflops": rates, "sustained_tflops": sustained, "kinds": kinds, **HELD}
    )


# --------------------------------------------------------------------------- parameters

HELD_16BIT_MATH_TIME = 1.596
"""16-bit math time on the reference GPU over what its rate ratio to FP32 gives: real layers
reach a smaller share of the tensor peak than FP32 math does of its own. Held at issue 26's
fitted figure (2026-11-26), not refitted (issue 39): freed with the batch term, the search
settles at 1.16 (the shrinkage pulls it toward 1 along a direction the data barely tell
apart), where leave-one-source-out reads cnn / transformer 11.0 / 12.8 % against 10.8 / 12.4 %
held, and L4 / T4 at fp16 falls to 1.47x (transformer) and 1.57x (cnn) against the published
>= 1.6x (1.51x / 1.63x held)."""

START = {
    "launch_overlap": 1.0,
    "fixed_width_exponent": 1.0,
    "power_exponent": 1 / 3,
    "pre_volta_efficiency": 1.0,
    "tf32_efficiency": 1.0,
    "width_exponent": 0.5,
    "log_math_time_16bit": math.log(HELD_16BIT_MATH_TIME),
    "log_elementwise_time_16bit": 0.0,
    "log_overhead_time_16bit": 0.0,
    **{
        f"{k}.{p}": v
        for k in FITTED_KINDS
        for p, v in zip(
            ("math", "elementwise", "overhead", "step_memory"), (0.4, 0.15, 0.05, 0.05), strict=True
        )
    },
    # a transformer's reference step is 32 sequences, not 8: the same per-step cost
    "transformer.overhead": 0.0125,
    "transformer.step_memory": 0.0125,
}
"""Where every fit starts, so that nothing fitted before (the shipped figures) leaks into a
fold, and what every figure is shrunk toward (RIDGE): the cube law of dynamic power, no loss
before Volta, TF32 as efficient as FP16 on the tensor cores, a matmul share that grows as the
square root of the model's width, 16-bit parts whose time changes only with the rates (but
the held math factor, HELD_16BIT_MATH_TIME), an even-ish split with 5 % of a step of 8
sequences (256 images) fixed and 5 % spent on per-step memory traffic, fixed costs that add to
the work (launch_overlap 1) and spread over tokens as the width grows (fixed_width_exponent 1).
The 16-bit time factors are searched in log space (a step is a percentage)."""

RIDGE = 0.01
"""Weight of the shrinkage of every fitted figure toward START, per squared SCALES step. The
fit's loss (mean |log error|) is flat along several directions (how the 16-bit factors trade
against the split, the power exponent against the split of the cards it throttles): unshrunk,
each fold's data settles them differently (two fits of all pairs 0.00003 apart in loss had
16-bit element-wise factors 1.5x apart). Chosen by leave-one-source-out (2026-11-26; medians
cnn fp32 / 16-bit, transformer fp32 / 16-bit, and bias cells beyond 10 %): 0 gave 14.2 / 11.1 /
16.5 / 9.9 % (2), 0.007 13.0 / 10.2 / 12.8 / 10.6 % (2), 0.01 12.1 / 10.5 / 12.2 / 11.1 % (3),
0.013 12.5 / 10.3 / 11.6 / 11.8 % (5), 0.016 12.3 / 10.4 / 11.8 / 12.3 % (5)."""

SCALES = {
    "launch_overlap": 1.0,
    "fixed_width_exponent": 0.5,
    "power_exponent": 0.5,
    "width_exponent": 0.5,
    "tf32_efficiency": 0.3,
    "cuda_convolution_gain": 0.3,
}
"""What counts as one step of each figure for RIDGE: 0.3 for efficiencies, 0.5 for exponents,
1 for the log 16-bit factors, 0.2 for a share of the split."""


def _scale(name: str) -> float:
    if name in SCALES:
        return SCALES[name]
    if name.startswith("log_"):
        return 1.0
    return 0.3 if name.endswith("efficiency") else 0.2


PRIORS = {
    **{name: (value, RIDGE / _scale(name) ** 2) for name, value in START.items()},
}
"""Value and weight each parameter is shrunk toward: START by RIDGE, and recurrent nets'
split toward DOMAIN.md's (bound by memory bandwidth first), firmly, as a handful of pairs on
two GPUs is all there is."""

BOUNDS = {
    "log_math_time_16bit": (math.log(HELD_16BIT_MATH_TIME), math.log(HELD_16BIT_MATH_TIME)),
    "launch_overlap": (1.0, 8.0),
    "fixed_width_exponent": (0.0, 3.0),
    "power_exponent": (0.0, 1.0),
    "pre_volta_efficiency": (0.3, 1.5),
    "tf32_efficiency": (0.2, 1.5),
    "tf32_convolution_efficiency": (0.2, 1.5),
    "cuda_convolution_gain": (0.5, 2.5),
    "width_exponent": (0.0, 2.0),
    "log_elementwise_time_16bit": (-2.5, 1.5),
    "log_overhead_time_16bit": (-1.5, 2.0),
}


def params_of(cal: Calibration) -> dict[str, float]:
    out = {
        "launch_overlap": cal.launch_overlap,
        "fixed_width_exponent": cal.fixed_width_exponent,
        "power_exponent": cal.power_exponent,
        "pre_volta_efficiency": cal.cuda_core_efficiency.get("Pascal", 1.0),
        "tf32_efficiency": cal.tf32_efficiency,
        "width_exponent": cal.width_exponent,
        "log_math_time_16bit": math.log(cal.sixteen_bit.math_time),
        "log_elementwise_time_16bit": math.log(cal.sixteen_bit.elementwise_time),
        "log_overhead_time_16bit": math.log(cal.sixteen_bit.overhead_time),
    }
    for kind in FITTED_KINDS:
        split = cal.kinds[kind].fp32
        out |= {f"{kind}.math": split.math, f"{kind}.elementwise": split.elementwise}
        out[f"{kind}.overhead"] = split.overhead
        out[f"{kind}.step_memory"] = split.step_memory
    return out


def with_params(cal: Calibration, params: dict[str, float]) -> Calibration:
    """`cal` with `params` in place; generic work takes the transformer split.

    replace does not validate: callers check `feasible` first."""
    efficiency = dict(cal.cuda_core_efficiency)
    for architecture in PRE_TENSOR_ARCHITECTURES:
        efficiency[architecture] = params["pre_volta_efficiency"]
    kinds = dict(cal.kinds)
    for kind in (*FITTED_KINDS, "generic"):
        source = "transformer" if kind == "generic" else kind
        split = Split(
            math=params[f"{source}.math"],
            elementwise=params[f"{source}.elementwise"],
            overhead=params[f"{source}.overhead"],
            step_memory=params[f"{source}.step_memory"],
        )
        kinds[kind] = replace(kinds[kind], **{"fp32": split})
    sixteen = replace(
        cal.sixteen_bit,
        **{
            "math_time": math.exp(params["log_math_time_16bit"]),
            "elementwise_time": math.exp(params["log_elementwise_time_16bit"]),
            "overhead_time": math.exp(params["log_overhead_time_16bit"]),
        },
    )
    held = {name: params[name] for name in HELD if name in params}  # freed by adding to START
    return replace(
        cal,
        **{
            **held,
            "launch_overlap": params["launch_overlap"],
            "fixed_width_exponent": params["fixed_width_exponent"],
            "power_exponent": params["power_exponent"],
            "tf32_efficiency": params["tf32_efficiency"],
            "width_exponent": params["width_exponent"],
            "cuda_core_efficiency": efficiency,
            "sixteen_bit": sixteen,
            "kinds": kinds,
        },
    )


def feasible(params: dict[str, float]) -> bool:
    for kind in FITTED_KINDS:
        shares = [params[f"{kind}.{p}"] for p in ("math", "elementwise", "overhead", "step_memory")]
        if min(shares) < 0 or sum(shares) > 0.97:
            return False
    return all(low <= params[n] <= high for n, (low, high) in BOUNDS.items() if n in params)


# --------------------------------------------------------------------------- fitting


def log_predictions(predictor: Predictor, pairs: Sequence[Pair]) -> list[float]:
    """log(predicted target speed / source speed) for each pair; pairs of the same two GPUs,
    kind and precision (many workloads of one table) are predicted once."""
    found: dict[tuple[str, str, str, str, float | None, ...], float] = {}
    out = []
    for p in pairs:
        key = (p.source.key, p.target.key, p.kind, p.dtype, p.width, p.batch, p.target_batch)
        key += (p.sequence, p.optimizer, p.step_s)
        if key not in found:
            sides = predictor._both_sides(
                p.source, p.target, p.kind, p.dtype, None, p.width, p.batch, p.target_batch,
                p.sequence, p.optimizer, p.step_s,
            )  # fmt: skip
            found[key] = _log_speedup(*sides)
        out.append(found[key])
    return out


SWEEP_CAP = 100
"""What a cell of batch sweeps (one GPU at two batches) weighs at most, against CELL_CAP for a
cell of GPU pairs."""
CELL_CAP = 100


def cell_weights(pairs: Sequence[Pair], cap: int = CELL_CAP) -> list[float]:
    """Each kind x precision cell weighs as many pairs as it has, up to `cap`: the cells with
    few pairs still count, and no cell drowns the others."""
    counts: dict[tuple[str, str, bool], int] = {}
    for p in pairs:
        counts[(*p.cell, p.same_gpu)] = counts.get((*p.cell, p.same_gpu), 0) + 1
    return [
        min(counts[(*p.cell, p.same_gpu)], SWEEP_CAP if p.same_gpu else cap)
        / counts[(*p.cell, p.same_gpu)]
        for p in pairs
    ]


def fit(pairs: Sequence[Pair], predictor: Predictor, tolerance: float = 1e-3) -> Predictor:
    """Fit every parameter in START on `pairs`: the weighted mean absolute log error of the
    predicted ratios plus the shrinkage of PRIORS, by pattern search from START down to steps
    of `tolerance`."""
    weights = cell_weights(pairs)
    total = sum(weights)
    measured = [math.log(p.ratio) for p in pairs]
    cal = predictor.calibration

    def loss(params: dict[str, float]) -> float:
        if not feasible(params):
            return math.inf
        trial = predictor.with_calibration(with_params(cal, params))
        logs = log_predictions(trial, pairs)
        error = sum(w * abs(m - p) for w, m, p in zip(weights, measured, logs, strict=True))
        shrink = sum(w * (params[n] - v) ** 2 for n, (v, w) in PRIORS.items())
        return error / total + shrink

    fitted = pattern_search(loss, dict(START), list(START), tolerance=tolerance)
    return predictor.with_calibration(with_params(cal, fitted))


def pattern_search(
    loss: Callable[[dict[str, float]], float],
    start: dict[str, float],
    free: Sequence[str],
    step: float = 0.1,
    tolerance: float = 1e-3,
) -> dict[str, float]:
    """Try +-step on each free parameter; keep what lowers the loss; halve the step when nothing
    does. Deterministic, and enough for a score of smooth parameters."""
    best, best_loss = dict(start), loss(start)
    while step > tolerance:
        improved = False
        for name in free:
            for delta in (step, -step):
                trial = {**best, name: best[name] + delta}
                trial_loss = loss(trial)
                if trial_loss < best_loss - 1e-12:
                    best, best_loss, improved = trial, trial_loss, True
        if not improved:
            step /= 2
    return best


def leave_one_gpu_out(
    pairs: Sequence[Pair],
    predictor: Predictor,
    gpus: Iterable[str] | None = None,
    refit: Callable[[Sequence[Pair], Predictor], Predictor] = fit,
) -> list[tuple[Pair, float]]:
    """(pair, predicted ratio) for every pair whose target is a GPU the fit never saw.

    For each GPU g, everything is refitted on the pairs that do not involve g; then g's speed is
    predicted from every other GPU measured on the same workload.
    """
    held: list[tuple[Pair, float]] = []
    for gpu in sorted(gpus if gpus is not None else {p.target.key for p in pairs}):
        training = [p for p in pairs if gpu not in (p.source.key, p.target.key)]
        tested = [p for p in pairs if p.target.key == gpu]
        fold = refit(training, predictor)
        held += [
            (p, math.exp(x)) for p, x in zip(tested, log_predictions(fold, tested), strict=True)
        ]
    return held


def source_family(origin: str) -> str:
    """The source a whole leave-one-source-out fold holds back: every DeepLearningExamples
    README is one suite (one software stack and one set of machines), both server-gear pages
    one blog."""
    if origin.startswith("dle_"):
        return "DeepLearningExamples"
    if origin.startswith("servergear_"):
        return "server-gear"
    return origin


def leave_one_source_out(
    pairs: Sequence[Pair],
    predictor: Predictor,
    sources: Iterable[str] | None = None,
    refit: Callable[[Sequence[Pair], Predictor], Predictor] = fit,
) -> list[tuple[Pair, float]]:
    """(pair, predicted ratio) for every pair of a source the fit never saw.

    What a user meets: a new software stack, new batch sizes and models, not a new GPU inside
    tables the model already knows. For each source family everything is refitted on the other
    sources' pairs, then every pair of the held-out source is predicted.
    """
    held: list[tuple[Pair, float]] = []
    families = {source_family(p.origin) for p in pairs}
    for family in sorted(sources if sources is not None else families):
        training = [p for p in pairs if source_family(p.origin) != family]
        tested = [p for p in pairs if source_family(p.origin) == family]
        fold = refit(training, predictor)
        held += [
            (p, math.exp(x)) for p, x in zip(tested, log_predictions(fold, tested), strict=True)
        ]
    return held


def signed_error(pair: Pair, predicted: float) -> float:
    """(predicted time - measured time) / measured time on the pair's target: negative when
    the target is predicted too fast."""
    return pair.ratio / predicted - 1


def signed_errors_by_cell(
    held: Iterable[tuple[Pair, float]],
) -> dict[tuple[str, str, Literal["fp32", "16bit"]], list[float]]:
    """signed_error of each held-out pair by the target's generation, kind and precision."""
    cells: dict[tuple[str, str, Literal["fp32", "16bit"]], list[float]] = {}
    for pair, predicted in held:
        key = (generation(pair.target), pair.kind, precision_class(pair.dtype))
        cells.setdefault(key, []).append(signed_error(pair, predicted))
    return cells


def biased_cells(
    held: Iterable[tuple[Pair, float]], limit: float, min_pairs: int
) -> tuple[CellBias, ...]:
    """The cells whose median signed error is beyond `limit` (a fraction) over at least
    `min_pairs` held-out pairs, for the calibration: predict names them where they apply."""
    found = []
    for (gen, kind, precision), errors in sorted(signed_errors_by_cell(held).items()):
        median = statistics.median(errors)
        if abs(median) > limit and len(errors) >= min_pairs:
            found.append(
                CellBias(
                    generation=gen,
                    kind=kind,
                    precision=precision,
                    error=round(median, 3),
                    pairs=len(errors),
                )
            )
    return tuple(found)


def with_bands(
    cal: Calibration, held: Sequence[tuple[Pair, float]], min_pairs: int = 30
) -> Calibration:
    """The bands from held-out ratios (measured / predicted, 10th-90th percentile) per kind x
    precision (benchmarks/predict_accuracy.py passes leave-one-source-out's); cells with fewer
    than `min_pairs` pairs, and generic work, take the 5th-95th percentile of all pairs."""
    ratios: dict[tuple[str, str], list[float]] = {}
    for pair, predicted in held:
        ratios.setdefault(pair.cell, []).append(pair.ratio / predicted)
    everything = [r for values in ratios.values() for r in values]
    wide = (1 / _quantile(everything, 0.95), 1 / _quantile(everything, 0.05))

    def band(kind: str, precision: str) -> tuple[float, float]:
        values = ratios.get((kind, precision), [])
        if len(values) < min_pairs or kind == "generic":
            return wide
        # measured/predicted r means the time is predicted * (1 / r)
        return 1 / _quantile(values, 0.9), 1 / _quantile(values, 0.1)

    kinds: dict[str, KindCalibration] = {}
    for kind, kind_cal in cal.kinds.items():
        kinds[kind] = replace(
            kind_cal,
            **{
                "band_fp32": _round(band(kind, "fp32")),
                "band_16bit": _round(band(kind, "16bit")),
            },
        )
    return replace(cal, **{"kinds": kinds})


def pairs_by_generation(pairs: Sequence[Pair]) -> dict[str, int]:
    """How many measured pairs (each unordered pair of GPUs on a workload once) have a GPU of
    each generation on at least one side: what a prediction for that generation rests on."""
    counts: dict[str, int] = {}
    for p in pairs:
        if p.source.key < p.target.key:
            for name in {generation(p.source), generation(p.target)}:
                counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def _round(band: tuple[float, float]) -> tuple[float, float]:
    return round(min(band[0], 1.0), 2), round(max(band[1], 1.0), 2)


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]
