"""GPU memory a training job needs per GPU: weights, gradients, optimizer state, adapters and
activations, each term with its formula and source, as `fixed + per_item x batch`.

Rule kept here: pure, and every term names the paper its bytes come from:
- weights, gradients and optimizer state per parameter (ZeRO, Rajbhandari et al. 2020, sec. 3):
  mixed-precision AdamW holds 2 + 2 + 12 bytes (16-bit weights and gradients; an FP32 master
  copy, momentum and variance); 8-bit AdamW keeps its two moments in one byte each (Dettmers et
  al. 2022); SGD with momentum one FP32 moment; FP32 training has no master copy. ZeRO stage 1
  divides the optimizer state by the GPU count, stage 2 the gradients too, stage 3 (and FSDP's
  FULL_SHARD) the weights too;
- LoRA adapters of rank r on every linear layer of attention and MLP (QLoRA found all are
  needed), r x (inputs + outputs) parameters each, trained as above; the frozen base in 16 bits,
  or for QLoRA in 4-bit NF4 with double quantisation, 4.127 bits a parameter (Dettmers et al.
  2023, sec. 3; embeddings stay 16-bit), and its optimizer state pages to CPU memory when the
  GPU runs short (QLoRA's paged optimizers), so it does not count against the fit;
- activations per layer of a transformer (Korthikanti et al. 2022, sec. 4.1: 34 s b h bytes
  for a GPT layer in 16 bits), written out for the model's own attention widths (grouped-query
  keys and values) and feed-forward kind (SwiGLU keeps four ffn-wide tensors, an MLP two), with
  memory-efficient attention (FlashAttention, PyTorch's SDPA) so no s^2 attention scores are
  kept; with full checkpointing each layer keeps only its input (2 s b h) and one layer is
  recomputed at a time; the output layer keeps its FP32 logits for the loss, 4 s b V.

What grows with the batch is `per_item_gb`; the rest is `fixed_gb`. `fixed_and_per_item_gb` is
the pair issue 39's `--target-batch max` asks for; `costcalc.core.memfit.max_batch` (the same
reserve for the CUDA context the bench uses) turns it into the largest batch a GPU holds.
"""

from __future__ import annotations

from msgspec import Struct

from costcalc.core import memfit
from costcalc.core.job import Job, ModelSpec
from costcalc.core.models import GpuSpec

GB = 1e9
NF4_BITS = 4.127
"""QLoRA's 4-bit NormalFloat with double quantisation: 4 bits plus 0.127 bits of constants."""
ZERO_SOURCE = "Rajbhandari et al. 2020 (ZeRO), sec. 3"
LORA_SOURCE = "Hu et al. 2021 (LoRA); all linear layers, as Dettmers et al. 2023 (QLoRA) found"
QLORA_SOURCE = "Dettmers et al. 2023 (QLoRA), sec. 3: NF4 + double quantisation"
ACTIVATION_SOURCE = "Korthikanti et al. 2022, sec. 4.1 (34 s b h per GPT layer in 16 bits)"


class MemoryTerm(Struct, frozen=True):
    key: str
    """weights, gradients, optimizer, adapters, activations, logits."""
    label: str
    fixed_gb: float
    per_item_gb: float
    formula: str
    """The term's arithmetic with the job's numbers."""
    source: str
    pageable: bool = False
    """Can move to CPU memory under pressure (QLoRA's paged optimizer state)."""
    known: bool = True
    """False where no published formula covers the model (a CNN's or a UNet's activations)."""

    def gb_at(self, batch: int) -> float:
        return self.fixed_gb + self.per_item_gb * batch


class MemoryPlan(Struct, frozen=True):
    """Memory per GPU for one job on `gpus` GPUs, at `batch` items per GPU."""

    terms: tuple[MemoryTerm, ...]
    gpus: int
    batch: int

    @property
    def fixed_gb(self) -> float:
        return sum(t.fixed_gb for t in self.terms if not t.pageable)

    @property
    def per_item_gb(self) -> float:
        return sum(t.per_item_gb for t in self.terms if not t.pageable)

    @property
    def total_gb(self) -> float:
        """What the GPU must hold at the job's batch (pageable terms left out)."""
        return self.fixed_gb + self.per_item_gb * self.batch

    @property
    def complete(self) -> bool:
        """False when a term is not modelled (its GB then count as zero)."""
        return all(t.known for t in self.terms)


def usable_gb(spec: GpuSpec) -> float:
    """What a training process gets of a GPU's memory (memfit's share and CUDA reserve)."""
    return spec.memory_gb * memfit.USABLE_SHARE - memfit.RESERVE_BYTES / GB


def fits(plan: MemoryPlan, spec: GpuSpec) -> bool:
    return plan.total_gb <= usable_gb(spec)


def largest_batch(plan: MemoryPlan, spec: GpuSpec) -> int:
    """Largest batch per GPU that fits (0: not even one item)."""
    return memfit.max_batch(plan.fixed_gb * GB, plan.per_item_gb * GB, spec.memory_gb)


def fixed_and_per_item_gb(job: Job, gpus: int = 1) -> tuple[float, float]:
    """(fixed GB, GB per item of batch) per GPU: what `--target-batch max` needs (issue 39)."""
    plan = job_memory(job, gpus)
    return plan.fixed_gb, plan.per_item_gb


def job_memory(job: Job, gpus: int = 1) -> MemoryPlan:
    """Every term of the job's memory per GPU, on `gpus` GPUs sharded as the job says."""
    terms = [*_state_terms(job, gpus), *_activation_terms(job)]
    return MemoryPlan(tuple(terms), gpus, job.batch)


# --------------------------------------------------------------------------- model state


def state_bytes(job: Job) -> tuple[float, float, float, float]:
    """Bytes per trained parameter: (weights, gradients, master copy, optimizer moments)."""
    sixteen = job.precision in ("fp16", "bf16")
    weight = 2.0 if sixteen else 4.0
    master = 4.0 if sixteen else 0.0
    moments = {"adamw": 8.0, "adamw-8bit": 2.0, "sgd": 4.0}[job.optimizer]
    return weight, weight, master, moments


def _divisors(job: Job, gpus: int) -> tuple[int, int, int]:
    """(weights, gradients, optimizer state) are divided by these under the job's sharding."""
    stage = {"none": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3}[job.sharding]
    return (
        gpus if stage >= 3 else 1,
        gpus if stage >= 2 else 1,
        gpus if stage >= 1 else 1,
    )


def _split(job: Job, gpus: int, what: str) -> str:
    weights, grads, optimizer = _divisors(job, gpus)
    n = {"weights": weights, "gradients": grads, "optimizer": optimizer}[what]
    return f" / {n} GPUs ({job.sharding})" if n > 1 else ""


def _state_terms(job: Job, gpus: int) -> list[MemoryTerm]:
    m = job.model
    params = float(m.params or 0)
    weight_b, grad_b, master_b, moments_b = state_bytes(job)
    div_w, div_g, div_o = _divisors(job, gpus)
    if not job.trains_adapters:
        opt_b = master_b + moments_b
        return [
            _term("weights", params, weight_b, div_w, job, gpus, ZERO_SOURCE),
            _term("gradients", params, grad_b, div_g, job, gpus, ZERO_SOURCE),
            _term("optimizer", params, opt_b, div_o, job, gpus, ZERO_SOURCE, label=_opt(job)),
        ]
    adapters = lora_params(m, job.lora_rank)
    if job.method == "qlora":
        embed = embedding_params(m)
        base_b = ((params - embed) * NF4_BITS / 8 + embed * 2) / div_w
        formula = (
            f"({_p(params - embed)} x {NF4_BITS} bits + {_p(embed)} embedding x 2 bytes)"
            f"{_split(job, gpus, 'weights')}"
        )
        base = MemoryTerm("weights", "frozen 4-bit base", base_b / GB, 0.0, formula, QLORA_SOURCE)
    else:
        base = _term(
            "weights", params, weight_b, div_w, job, gpus, LORA_SOURCE, label="frozen base"
        )
    trained = weight_b + grad_b
    adapter = MemoryTerm(
        "adapters",
        f"adapters, rank {job.lora_rank}",
        adapters * trained / GB,
        0.0,
        f"{_p(adapters)} x {trained:g} bytes (weights and gradients)",
        LORA_SOURCE,
    )
    opt_b = master_b + moments_b
    optimizer = MemoryTerm(
        "optimizer",
        _opt(job) + (" (paged to CPU when short)" if job.method == "qlora" else ""),
        adapters * opt_b / GB,
        0.0,
        f"{_p(adapters)} adapter parameters x {opt_b:g} bytes",
        ZERO_SOURCE + ("; paged optimizers: Dettmers et al. 2023" if job.method == "qlora" else ""),
        pageable=job.method == "qlora",
    )
    return [base, adapter, optimizer]


def _opt(job: Job) -> str:
    return {
        "adamw": "AdamW state",
        "adamw-8bit": "8-bit AdamW state",
        "sgd": "SGD momentum",
    }[job.optimizer]


def _term(
    key: str,
    params: float,
    per_param_b: float,
    divisor: int,
    job: Job,
    gpus: int,
    source: str,
    label: str | None = None,
) -> MemoryTerm:
    shared = _split(job, gpus, key if key in ("weights", "gradients") else "optimizer")
    return MemoryTerm(
        key,
        label or key,
        params * per_param_b / divisor / GB,
        0.0,
        f"{_p(params)} x {per_param_b:g} bytes{shared}",
        source,
    )


def embedding_params(m: ModelSpec) -> float:
    """The token embedding (and an untied output layer): kept in 16 bits by QLoRA."""
    if not (m.vocab and m.hidden):
        return 0.0
    return float(m.vocab * m.hidden * (1 if m.tied_embeddings in (True, None) else 2))


def lora_params(m: ModelSpec, rank: int) -> float:
    """Adapter parameters: rank x (inputs + outputs) of every linear layer of attention (q, k,
    v, o) and feed-forward (three matrices in a SwiGLU block, two in an MLP; each expert's)."""
    if not (m.layers and m.hidden):
        return 0.0
    h = m.hidden
    q = m.attention_width or h
    kv = m.kv_width or h
    attention = (h + q) + 2 * (h + kv) + (q + h)
    ffn = m.ffn_hidden or 4 * h
    mlp = (3 if m.ffn_kind == "glu" else 2) * (h + ffn) * (m.experts or 1)
    layers = m.layers + (m.decoder_layers or 0)
    return float(rank * (attention + mlp) * layers)


# --------------------------------------------------------------------------- activations


def layer_activation_bytes(m: ModelSpec, seq: int, bytes_per_value: float) -> float:
    """Bytes one sequence leaves in one layer for the backward pass (Korthikanti et al.'s
    accounting in 16 bits, scaled for FP32): attention 2h (input) + 2q (queries) + 4kv (keys,
    values) + 2q (context) + h (dropout mask); feed-forward 2h + 8 ffn (SwiGLU) or 4 ffn (MLP)
    + h; two norms 4h. A GPT layer (q = kv = h, MLP of 4h) gives Korthikanti's 34 s h."""
    h = m.hidden or 0
    q = m.attention_width or h
    kv = m.kv_width or h
    ffn = m.ffn_hidden or 4 * h
    attention = 2 * h + 2 * q + 4 * kv + 2 * q + h
    feed_forward = 2 * h + (8 if m.ffn_kind == "glu" else 4) * ffn + h
    return seq * (attention + feed_forward + 4 * h) * bytes_per_value / 2


def stacks(job: Job) -> list[tuple[int, int]]:
    """(layers, tokens per item) of each stack: an encoder-decoder's encoder reads its own
    positions (Whisper's 1,500 for 30 s of audio), its decoder the job's sequence."""
    m = job.model
    if m.decoder_layers and m.encoder_seq and m.layers:
        return [(m.layers, m.encoder_seq), (m.decoder_layers, job.sequence)]
    return [((m.layers or 0) + (m.decoder_layers or 0), job.sequence)]


def _activation_terms(job: Job) -> list[MemoryTerm]:
    m = job.model
    if not (m.hidden and m.layers) or m.kind in ("cnn",) or m.architecture == "unet":
        return [
            MemoryTerm(
                "activations",
                "activations (not modelled)",
                0.0,
                0.0,
                f"no published per-layer formula for a {m.architecture}: give --memory-gb "
                "or measure with costcalc bench",
                "-",
                known=False,
            )
        ]
    value_b = 2.0 if job.precision in ("fp16", "bf16") else 4.0
    scale = "" if value_b == 2 else " x 2 (FP32)"
    per_item, parts = 0.0, []
    for layers, seq in stacks(job):
        per_layer = layer_activation_bytes(m, seq, value_b)
        if job.checkpointing:
            per_item += layers * seq * m.hidden * value_b + per_layer
            parts.append(
                f"{layers} layers x 2 s h (s = {seq:,}, h = {m.hidden:,}){scale} + one layer "
                f"recomputed ({per_layer / GB:.2f} GB)"
            )
        else:
            per_item += layers * per_layer
            coefficient = per_layer / seq / value_b * 2
            parts.append(f"{layers} layers x {coefficient:,.0f} s bytes (s = {seq:,}){scale}")
    formula = " + ".join(parts)
    terms = [
        MemoryTerm(
            "activations",
            "activations" + (" (checkpointed)" if job.checkpointing else ""),
            0.0,
            per_item / GB,
            formula,
            ACTIVATION_SOURCE
            + ("; full recomputation, sec. 5" if job.checkpointing else "; FlashAttention"),
        )
    ]
    outputs = m.vocab if m.reads_tokens or m.architecture == "encoder-decoder" else None
    if outputs:
        logit_seq = stacks(job)[-1][1]
        terms.append(
            MemoryTerm(
                "logits",
                "FP32 logits for the loss",
                0.0,
                4 * logit_seq * outputs / GB,
                f"4 bytes x {logit_seq:,} tokens x {outputs:,} vocabulary",
                "Korthikanti et al. 2022, sec. 4.1 (4 s b v)",
            )
        )
    return terms


def _p(value: float) -> str:
    """8.03B, 42M: parameter counts in formulas."""
    if value >= 1e9:
        return f"{value / 1e9:.3g}B"
    if value >= 1e6:
        return f"{value / 1e6:.3g}M"
    return f"{value:,.0f}"
