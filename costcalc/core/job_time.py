"""How long a training job takes on n GPUs: its FLOPs, over the GPUs' peak at the precision, times
the share of it public runs reach, times the scaling of n GPUs over their interconnect.

Rule kept here: pure; every figure is a sum the answer can print. The parts:
- FLOPs per token of a transformer: 6 N for training, 2 N forward and 4 N backward (Kaplan et al.
  2020; Narayanan et al. 2021 sec. 5.1: the backward pass costs two forwards, one for the inputs'
  gradients and one for the weights'), N counting the matrices a token passes through (an MoE's
  active experts, not the input embedding, which is a lookup), plus attention's 12 L s q
  (Chowdhery et al. 2022, PaLM, appendix B). A frozen base (LoRA, QLoRA) computes no weight
  gradients: 4 N, plus 6 N for the adapters. Full activation checkpointing repeats the forward
  pass, 2 N + 4 L s q more (Korthikanti et al. 2022).
- FLOPs per item of a vision or diffusion model: 3 x 2 x its published forward multiply-adds
  (costcalc/data/models.yaml's header says why they are multiply-adds).
- the rate the GPU's matmuls sustain at the precision (the speed predictor's, costcalc.core.predict:
  measured under load where it can be, the datasheet peak otherwise trimmed by its class and
  power limit), times the share of it public runs reach alone (costcalc.core.mfu), times the
  scaling efficiency of n GPUs: within
  one server, each doubling keeps costcalc/data/scaling.yaml's share for the kind of work over
  NVLink (SXM modules, NVL cards) or PCIe; across 8-GPU servers joined by RDMA, each doubling of
  servers keeps mfu.yaml's `across_servers` share (MosaicML: 16 nodes ran 14.4x one node);
- the share of a run's wall time that trains (mfu.yaml's `effective_time_share`: Llama 3's 90 %).
The band is the utilisation's: the hours at its highest and lowest row.
"""

from __future__ import annotations

import math

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.errors import CostcalcError
from costcalc.core.job import Job, ModelSpec
from costcalc.core.job_memory import lora_params, stacks
from costcalc.core.mfu import MfuEstimate, MfuFile, estimate
from costcalc.core.models import GpuSpec, ScalingData
from costcalc.core.predict import Predictor

GPUS_PER_SERVER = 8
"""An HGX server, and the most a desktop takes."""
MAX_CLUSTER_GPUS = 1024
"""The largest rented cluster a job is priced on."""


class Flops(Struct, frozen=True):
    """The training FLOPs of one job, and the arithmetic behind them."""

    model_flops: float
    """What the model needs (MFU counts these)."""
    hardware_flops: float
    """What the GPUs compute: recomputed forward passes included."""
    per_unit: float
    """Model FLOPs per token (text) or per item."""
    unit: str
    """'token' or 'item'."""
    units: float
    formula: str


class JobTime(Struct, frozen=True):
    """Wall hours of a job on `gpus` x one GPU, with the band."""

    gpu: str
    gpus: int
    peak_tflops: float
    """The datasheet's dense peak of the path."""
    rate_tflops: float
    """What the path's matmuls sustain (the speed predictor's rate)."""
    path: str
    """Which path: 'BF16 tensor cores', 'FP32 CUDA cores', ..."""
    mfu: MfuEstimate
    scaling: float
    """Throughput of the n GPUs over n x one GPU alone."""
    scaling_text: str
    effective_share: float
    hours: float
    hours_low: float
    hours_high: float

    @property
    def gpu_hours(self) -> float:
        return self.hours * self.gpus

    @property
    def share_of_peak(self) -> float:
        """The datasheet peak's share each GPU reaches in this run (HFU: hardware FLOPs)."""
        return self.rate_tflops * self.mfu.share * self.scaling / self.peak_tflops


class UnknownFlops(CostcalcError):
    """The model lacks a figure its FLOPs or its memory need (said in words, one line)."""


def matmul_params(m: ModelSpec) -> float:
    """Parameters a token multiplies by: active ones for an MoE, less a lookup-only input
    embedding (a tied one is also the output layer, so it counts)."""
    params = float(m.active_params or m.params or 0)
    if m.vocab and m.hidden and m.tied_embeddings is False:
        params -= m.vocab * m.hidden
    return params


def training_flops(job: Job) -> Flops:
    """The job's training FLOPs (UnknownFlops when a figure they need is missing)."""
    m = job.model
    if m.params is None:
        raise UnknownFlops(
            f"{m.name} has no parameter count on file (a gap in costcalc/data/models.yaml): "
            "give --params, --layers and --hidden"
        )
    if m.gflops_per_item is not None and not m.reads_tokens:
        items = job.items
        if items is None:
            raise UnknownFlops(f"{m.name} trains on images: give --epochs and --dataset-items")
        per_item = 3 * 2 * m.gflops_per_item * 1e9
        hardware = per_item * (4 / 3 if job.checkpointing else 1)
        formula = f"3 x 2 x {m.gflops_per_item:g} G multiply-adds per item x {items:,.0f} items"
        return Flops(per_item * items, hardware * items, per_item, "item", items, formula)
    if not (m.params and m.layers and m.hidden):
        missing = [n for n in ("params", "layers", "hidden") if getattr(m, n) is None]
        raise UnknownFlops(
            f"{m.name} has no {', '.join(missing)} on file (gaps in costcalc/data/models.yaml): "
            "give --params, --layers and --hidden"
            + ("" if m.kind == "transformer" else ", or --gflops-per-item with --epochs")
        )
    if m.architecture == "encoder-decoder":
        return _encoder_decoder_flops(job)
    tokens = job.total_tokens
    if tokens is None:
        raise UnknownFlops("give --tokens, or --epochs with --dataset-items")
    n = matmul_params(m)
    q = m.attention_width or m.hidden
    seq = job.sequence
    attention = 12 * m.layers * seq * q
    weights = 4 if job.trains_adapters else 6
    adapters = 6 * lora_params(m, job.lora_rank) if job.trains_adapters else 0.0
    per_token = weights * n + attention + adapters
    forward = 2 * n + attention / 3 + (adapters / 3)
    hardware = per_token + (forward if job.checkpointing else 0.0)
    formula = (
        f"({weights} x {n / 1e9:.3g}B parameters + 12 x {m.layers} layers x {seq:,} x {q:,}"
        + (f" + 6 x {lora_params(m, job.lora_rank) / 1e6:.3g}M adapters" if adapters else "")
        + f") per token x {tokens:,.4g} tokens"
    )
    return Flops(per_token * tokens, hardware * tokens, per_token, "token", tokens, formula)


def _encoder_decoder_flops(job: Job) -> Flops:
    """Whisper-style: each half of the parameters sees its own positions per item."""
    m = job.model
    items = job.items
    if items is None:
        raise UnknownFlops(f"{m.name} trains on audio windows: give --epochs and --dataset-items")
    half = (m.params or 0) / 2
    positions = sum(seq for _layers, seq in stacks(job))
    weights = 4 if job.trains_adapters else 6
    per_item = weights * half * positions
    hardware = per_item * (1 + 2 / weights if job.checkpointing else 1)
    formula = (
        f"{weights} x {half / 1e6:.3g}M parameters (half the model) x {positions:,} positions "
        f"per item x {items:,.0f} items"
    )
    return Flops(per_item * items, hardware * items, per_item, "item", items, formula)


# --------------------------------------------------------------------------- scaling


def work_kind(m: ModelSpec) -> str:
    """The kind whose multi-GPU scaling scaling.yaml gives (cnn or transformer)."""
    return "cnn" if m.kind == "cnn" else "transformer" if m.kind != "diffusion" else "generic"


def nvlink(spec: GpuSpec) -> bool:
    """GPUs that talk over NVLink in their server: SXM modules, NVL cards, Grace Hopper."""
    return spec.form_factor in ("SXM", "NVL") or spec.key.startswith(("gh200", "b200", "b300"))


def scaling_efficiency(
    spec: GpuSpec,
    count: int,
    scaling: ScalingData,
    mfu_data: MfuFile,
    kind: str = "transformer",
    per_server: int = GPUS_PER_SERVER,
) -> tuple[float, str]:
    """(throughput of `count` GPUs / `count` x one alone, how it was reached)."""
    in_server = min(count, per_server)
    servers = math.ceil(count / per_server)
    link = "NVLink" if nvlink(spec) else "PCIe"
    e_box = scaling.efficiency_per_doubling(kind, nvlink(spec))
    share = e_box ** math.log2(in_server) if in_server > 1 else 1.0
    text = (
        "one GPU" if count == 1 else f"{in_server} GPUs over {link}: {e_box:.3f}^log2({in_server})"
    )
    if servers > 1:
        e_net = mfu_data.across_servers.efficiency_per_doubling
        share *= e_net ** math.log2(servers)
        text += f" x {servers} servers over RDMA: {e_net:.3f}^log2({servers})"
    return share, text


def job_time(
    job: Job,
    flops: Flops,
    spec: GpuSpec,
    count: int,
    catalog: GpuCatalog,
    scaling: ScalingData,
    mfu_data: MfuFile,
    predictor: Predictor,
    *,
    per_server: int = GPUS_PER_SERVER,
) -> JobTime:
    """Wall hours of the job on `count` x `spec`."""
    kind = work_kind(job.model)

    def efficiency(other: GpuSpec, n: int) -> float:
        return scaling_efficiency(other, n, scaling, mfu_data, "transformer")[0]

    def rate_of(other: GpuSpec, precision: str) -> float:
        return predictor.rates(other, precision, "transformer").math_tflops

    found = _with_notes(estimate(spec, mfu_data.entries, catalog, efficiency, rate_of), job)
    rates = predictor.rates(spec, job.precision, kind)
    path = rates.path
    share, text = scaling_efficiency(spec, count, scaling, mfu_data, kind, per_server)
    effective = mfu_data.effective_time_share.value

    def hours_at(utilisation: float) -> float:
        rate = count * rates.math_tflops * 1e12 * utilisation * share
        return flops.hardware_flops / rate / 3600 / effective

    return JobTime(
        gpu=spec.key,
        gpus=count,
        peak_tflops=path.peak_tflops,
        rate_tflops=rates.math_tflops,
        path=path.describe(),
        mfu=found,
        scaling=share,
        scaling_text=text,
        effective_share=effective,
        hours=hours_at(found.share),
        hours_low=hours_at(found.high),
        hours_high=hours_at(found.low),
    )


def _with_notes(found: MfuEstimate, job: Job) -> MfuEstimate:
    from msgspec.structs import replace

    notes = []
    if job.precision in ("fp32", "tf32"):
        notes.append(
            f"no public {job.precision.upper()} training runs on file: the 16-bit share of peak "
            f"is applied to the {job.precision.upper()} peak"
        )
    if job.model.kind != "transformer":
        notes.append(
            f"the measurements are of transformers; a {job.model.kind} model may reach less"
        )
    return replace(found, note="; ".join(notes) or None)
