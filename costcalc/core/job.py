"""A training job as every front end describes it: the model (named from the bundled list or
given by its shape), the data it sees, and how it is trained.

Rule kept here: pure. The model list arrives as an argument (costcalc.store.bundled reads
costcalc/data/models.yaml only when a job names a model, through the parse cache); a name
resolves forgivingly (case, spaces, dots and dashes), and one nobody knows is a one-line
UnknownModel with the closest names. Every figure a job derives (its sequence, its tokens) says
where it came from, so "why this number" can repeat it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Annotated, Literal

from msgspec import Struct

from costcalc.core.constants import Dtype, Method, Optimizer, Sharding  # shared with Scenario
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.records import Meta, Record

ModelKind = Literal["transformer", "cnn", "diffusion", "speech"]

DEFAULT_SEQ = 2048
"""The sequence of a model given by its shape when none is named (GPT-3's and OPT's
pretraining sequence); the bundled models use their own."""
DEFAULT_VOCAB = 32_000
"""The vocabulary of a model given by its shape when none is named (Llama 1 and 2, Mistral)."""
LONGEST_DEFAULT_SEQ = 8192
"""A model whose pretraining sequence is not on file trains at its context, up to this."""


class ModelSources(Record, frozen=True, kw_only=True):
    architecture: str | None = None
    params: str | None = None
    gflops: str | None = None
    url: str
    retrieved: date


class ModelSpec(Record, frozen=True, kw_only=True):
    """One model's architecture as its config, card or paper gives it (costcalc/data/models.yaml),
    or as the user gives it (`key` 'custom')."""

    key: Annotated[str, Meta(pattern=r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")]
    name: str
    family: str = "custom"
    kind: ModelKind = "transformer"
    architecture: str = "decoder"
    params: Annotated[int, Meta(gt=0)] | None = None
    params_basis: Literal["published", "derived", "given"] = "published"
    params_published: str | None = None
    active_params: Annotated[int, Meta(gt=0)] | None = None
    """Parameters one token passes through (a mixture of experts)."""
    experts: Annotated[int, Meta(gt=1)] | None = None
    experts_per_token: Annotated[int, Meta(ge=1)] | None = None
    layers: Annotated[int, Meta(gt=0)] | None = None
    decoder_layers: Annotated[int, Meta(gt=0)] | None = None
    hidden: Annotated[int, Meta(gt=0)] | None = None
    ffn_hidden: Annotated[int, Meta(gt=0)] | None = None
    ffn_kind: Literal["glu", "mlp"] | None = None
    heads: Annotated[int, Meta(gt=0)] | None = None
    kv_heads: Annotated[int, Meta(gt=0)] | None = None
    head_dim: Annotated[int, Meta(gt=0)] | None = None
    vocab: Annotated[int, Meta(gt=0)] | None = None
    max_seq: Annotated[int, Meta(gt=0)] | None = None
    train_seq: Annotated[int, Meta(gt=0)] | None = None
    encoder_seq: Annotated[int, Meta(gt=0)] | None = None
    """Positions an encoder-decoder's encoder reads per item (Whisper: 1,500 for 30 s)."""
    tied_embeddings: bool | None = None
    image_size: Annotated[int, Meta(gt=0)] | None = None
    patch_size: Annotated[int, Meta(gt=0)] | None = None
    gflops_per_item: Annotated[float, Meta(gt=0)] | None = None
    """Forward multiply-adds of one item, in billions (as torchvision and the DiT README count)."""
    notes: str | None = None
    licence: str | None = None
    gaps: tuple[str, ...] = ()
    sources: ModelSources | None = None

    @property
    def source_text(self) -> str:
        """Where the architecture comes from, in one line."""
        if self.sources is None:
            return "as you gave it"
        return f"{self.sources.url} (retrieved {self.sources.retrieved:%Y-%m-%d})"

    @property
    def attention_width(self) -> int | None:
        """heads x head dim: the width of the attention's queries (hidden where not stated)."""
        if self.heads and self.head_dim:
            return self.heads * self.head_dim
        return self.hidden

    @property
    def kv_width(self) -> int | None:
        """KV heads x head dim: the width of keys and values (grouped-query attention)."""
        if self.kv_heads and self.head_dim:
            return self.kv_heads * self.head_dim
        if self.kv_heads and self.heads and self.hidden:
            return self.kv_heads * self.hidden // self.heads
        return self.attention_width

    @property
    def reads_tokens(self) -> bool:
        """Text models train on tokens; vision, diffusion and speech models on items."""
        return self.kind == "transformer" and self.architecture in (
            "decoder",
            "decoder-moe",
            "encoder",
        )


class ModelFile(Record, frozen=True, kw_only=True):
    """costcalc/data/models.yaml."""

    schema_version: Literal[1] = 1
    as_of: date
    sources: dict[str, str]
    models: tuple[ModelSpec, ...]


class UnknownModel(CostcalcError):
    def __init__(self, name: str, suggestions: list[str], *, shape: bool = True) -> None:
        self.name, self.suggestions = name, suggestions
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        other = "; or give --params, --layers and --hidden" if shape else ""
        super().__init__(
            f"unknown model {quoted(name)}{hint} (`costcalc job --list-models` lists them{other})"
        )


def _squeezed(name: str) -> str:
    return "".join(c for c in name.casefold() if c.isalnum())


class ModelList:
    """The bundled models, found by key or name however it is spelt."""

    def __init__(self, data: ModelFile) -> None:
        self.data = data
        self._by_form: dict[str, ModelSpec] = {}
        for spec in data.models:
            for form in (spec.key, spec.name):
                self._by_form.setdefault(_squeezed(form), spec)

    def __iter__(self) -> Iterator[ModelSpec]:
        return iter(self.data.models)

    def resolve(self, name: str) -> ModelSpec:
        found = self._by_form.get(_squeezed(name))
        if found is not None:
            return found
        import difflib  # only to suggest a name

        keys = [m.key for m in self.data.models]
        close = difflib.get_close_matches(name.casefold(), keys, n=3, cutoff=0.5)
        if not close:
            wanted = _squeezed(name)
            close = [m.key for m in self.data.models if wanted and wanted in _squeezed(m.key)][:3]
        raise UnknownModel(name, close)


def custom_model(
    *,
    params: float,
    layers: int,
    hidden: int,
    heads: int | None = None,
    vocab: int | None = None,
    ffn_hidden: int | None = None,
    seq: int | None = None,
    gflops_per_item: float | None = None,
) -> ModelSpec:
    """A decoder given by its shape. The feed-forward width, where not given, is what makes the
    parameters add up with a SwiGLU block (three h x ffn matrices, as Llama and Mistral have):
    per layer (params - 2 x vocab x hidden) / layers = 4 h^2 + 3 h x ffn."""
    vocab = vocab or DEFAULT_VOCAB
    if ffn_hidden is None:
        per_layer = (params - 2 * vocab * hidden) / layers
        ffn = (per_layer - 4 * hidden * hidden) / (3 * hidden)
        ffn_hidden = max(int(ffn), hidden)
    heads = heads or max(hidden // 128, 1)
    return ModelSpec(
        key="custom",
        name=f"a {params / 1e9:.3g}B-parameter model",
        params=int(params),
        params_basis="given",
        layers=layers,
        hidden=hidden,
        ffn_hidden=ffn_hidden,
        ffn_kind="glu",
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        vocab=vocab,
        max_seq=seq,
        train_seq=seq,
        tied_embeddings=False,
        gflops_per_item=gflops_per_item,
    )


class Job(Record, frozen=True, kw_only=True):
    """One training run: the model, what it reads, and how it trains."""

    model: ModelSpec
    method: Method = "full"
    tokens: Annotated[float, Meta(gt=0, le=1e16)] | None = None
    """Tokens the run reads (every epoch counted)."""
    epochs: Annotated[float, Meta(gt=0, le=100_000)] | None = None
    dataset_items: Annotated[float, Meta(gt=0, le=1e13)] | None = None
    """Sequences, images or audio windows in one epoch."""
    seq: Annotated[int, Meta(ge=1, le=1_048_576)] | None = None
    """Tokens per sequence (default: the model's pretraining sequence)."""
    precision: Dtype = "bf16"
    optimizer: Optimizer = "adamw"
    checkpointing: bool = False
    """Full activation recomputation: each layer keeps only its input (Korthikanti et al.)."""
    sharding: Sharding = "none"
    batch: Annotated[int, Meta(ge=1, le=1_000_000)] = 1
    """Sequences (or items) per GPU per step."""
    lora_rank: Annotated[int, Meta(ge=1, le=4096)] = 16

    def __post_init__(self) -> None:
        if self.tokens is None and (self.epochs is None or self.dataset_items is None):
            raise ValueError("give the tokens, or the epochs and the items in one epoch")

    @property
    def sequence(self) -> int:
        """Tokens per sequence: given, else the model's pretraining sequence, else its context
        (up to LONGEST_DEFAULT_SEQ); a vision transformer's patches plus its class token."""
        m = self.model
        if self.seq is not None:
            return self.seq
        if m.patch_size and m.image_size:
            if m.architecture == "dit":  # patches of the 8x smaller latent (Peebles and Xie)
                side = m.image_size // 8 // m.patch_size
                return side * side
            side = m.image_size // m.patch_size
            return side * side + 1  # and the class token
        if m.train_seq is not None:
            return m.train_seq
        if m.max_seq is not None:
            return min(m.max_seq, LONGEST_DEFAULT_SEQ)
        return DEFAULT_SEQ

    @property
    def sequence_basis(self) -> str:
        m = self.model
        if self.seq is not None:
            return "as you gave it"
        if m.patch_size and m.image_size:
            return f"{m.image_size}x{m.image_size} pixels in {m.patch_size}-pixel patches"
        if m.train_seq is not None:
            return "the model's pretraining sequence"
        if m.max_seq is not None:
            return "the model's context" + (
                f", at most {LONGEST_DEFAULT_SEQ:,}" if m.max_seq > LONGEST_DEFAULT_SEQ else ""
            )
        return "GPT-3's pretraining sequence (no sequence given)"

    @property
    def items(self) -> float | None:
        """Items the run reads: epochs x items per epoch (None when only tokens are given)."""
        if self.epochs is None or self.dataset_items is None:
            return None
        return self.epochs * self.dataset_items

    @property
    def total_tokens(self) -> float | None:
        """Tokens the run reads: given, or epochs x items x the sequence (text models)."""
        if self.tokens is not None:
            return self.tokens
        items = self.items
        return items * self.sequence if items is not None and self.model.reads_tokens else None

    @property
    def trains_adapters(self) -> bool:
        return self.method != "full"


class JobText(Struct, frozen=True):
    """How a job reads in one line, for the answer's first line and the app."""

    model: str
    how: str


def describe(job: Job) -> JobText:
    """'Llama 3.1 8B', 'LoRA rank 16 on 200M tokens at sequence 8,192, bf16, AdamW'."""
    method = {"full": "full training", "lora": "LoRA", "qlora": "QLoRA"}[job.method]
    if job.trains_adapters:
        method += f" rank {job.lora_rank}"
    tokens = job.total_tokens
    if job.items is not None:
        data = f"{job.epochs:g} epochs of {_count(job.dataset_items or 0)} items"
    else:
        data = f"{_count(tokens or 0)} tokens"
    what = [f"{method} on {data}"]
    if job.model.kind == "transformer" and job.model.reads_tokens:
        what[0] += f" at sequence {job.sequence:,}"
    what.append(job.precision)
    what.append({"adamw": "AdamW", "adamw-8bit": "8-bit AdamW", "sgd": "SGD"}[job.optimizer])
    if job.checkpointing:
        what.append("activation checkpointing")
    if job.sharding != "none":
        what.append(job.sharding.upper() if job.sharding != "fsdp" else "FSDP")
    return JobText(job.model.name, ", ".join(what))


def _count(value: float) -> str:
    """200M, 2T, 1.28M: counts as people say them."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:g}"
