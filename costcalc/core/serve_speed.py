"""How fast a GPU serves a model: decode from the bytes each step reads, prefill from the FLOPs
each prompt token costs, each calibrated on published measurements.

Rule kept here: pure, first principles with few fitted figures, each of which says where it came
from.
- Decode (one token for each sequence in flight) reads every weight once per step and each
  sequence's KV cache: bytes = the weights a token passes through (an MoE's active experts; not the
  input embedding, a lookup) at the quantisation's bits, plus batch x the cache at its mean
  context. A step takes layers x a fixed time per layer (kernel launches and synchronisation: the
  reason a small model on an A100 reaches a quarter of its bandwidth and a 70B one half) plus
  those bytes over a share of the memory bandwidth; at a large batch the step's 2 N FLOPs per
  sequence can take longer, and then they set it.
- Prefill costs 2 N FLOPs per prompt token (Kaplan et al. 2020), at a share of the rate the GPU's
  16-bit matmuls sustain (the speed predictor's, costcalc.core.predict).
- The shares (per engine and quantisation class), the time per layer (per engine and GPU
  generation) and the prefill shares are fitted by least squares (`fit`) on the rows of
  costcalc/data/serve_measurements.yaml; scripts/fit_serve.py writes them to serve_calibration.yaml,
  and benchmarks/serve_accuracy.py refits them without each source to judge them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence

from msgspec import Struct

from costcalc.core.constants import QUANTS as QUANTS  # in constants: the app's settings name them
from costcalc.core.constants import Quant as Quant
from costcalc.core.errors import CostcalcError
from costcalc.core.job import ModelSpec
from costcalc.core.models import GpuSpec
from costcalc.core.predict import generation
from costcalc.core.serve_data import EngineFit, QuantClass, ServeCalibration, ServeMeasurement

BITS: dict[str, float] = {
    "fp16": 16.0,
    "fp8": 8.0,
    "int8": 8.5,  # llama.cpp's Q8_0: 32 int8 weights and one fp16 scale (34 bytes)
    "int4": 4.5,  # llama.cpp's Q4_0: 32 4-bit weights and one fp16 scale (18 bytes)
    "F16": 16.0,
    "FP16": 16.0,
    "BF16": 16.0,
    "Q8_0": 8.5,
    "Q6_K": 6.5625,  # llama.cpp's k-quant: 210 bytes per 256 weights
    "Q4_0": 4.5,
    "Q4_K_M": 4.89,  # mixed 4/6-bit; llama.cpp prints 4.89 bits per weight for Llama 3 8B
}
"""Bits a weight takes in memory, scales included."""
KV_BYTES = 2
"""A KV cache in 16 bits, llama.cpp's and vLLM's default."""
DEFAULT_ENGINE = "llama.cpp"
GB = 1e9
GIB = 2**30


def bits_of(quant: str) -> float | None:
    """Bits per weight of a quantisation as a user or an engine names it ('4-bit ...' of MLC and
    ExLlama: group-of-32 4-bit weights with a 16-bit scale, as Q4_0), None when unknown."""
    if quant in BITS:
        return BITS[quant]
    return BITS["int4"] if quant.startswith("4-bit") else None


def quant_class(bits: float) -> QuantClass:
    """The class whose bandwidth share a quantisation takes: 16-bit, 8-bit (6 to 8.5 bits: Q6_K,
    Q8_0, FP8), 4-bit."""
    if bits >= 16:
        return "16-bit"
    return "8-bit" if bits >= 6 else "4-bit"


def engine_of(name: str) -> str:
    """'llama.cpp (CUDA, all layers offloaded)' -> 'llama.cpp'; 'MLC LLM' -> 'MLC'."""
    return "llama.cpp" if name.startswith("llama.cpp") else name.split()[0]


class Shape(Struct, frozen=True):
    """What serving needs of a model's architecture."""

    params: float
    read_params: float
    """Parameters a token reads: the active ones less a lookup-only input embedding."""
    layers: int
    kv_bytes_per_token: float
    """K and V of every layer, 16-bit."""


def shape(m: ModelSpec) -> Shape:
    """The model's serving shape; a model whose file lacks a figure says which, as one line."""
    missing = [
        name
        for name, value in (
            ("params", m.params),
            ("layers", m.layers),
            ("hidden", m.hidden),
            ("vocab", m.vocab),
        )
        if value is None
    ]
    if missing or m.kind != "transformer" or m.architecture not in ("decoder", "decoder-moe"):
        what = f"lacks {', '.join(missing)}" if missing else f"is a {m.kind} {m.architecture}"
        raise CostcalcError(
            f"{m.name} {what}: --serve prices text-generating decoders (`--list-models`)"
        )
    assert m.params and m.layers and m.hidden and m.vocab
    active = m.active_params or m.params
    embedding = 0 if m.tied_embeddings else m.vocab * m.hidden
    kv_width = m.kv_width or m.hidden
    return Shape(
        params=float(m.params),
        read_params=float(active - embedding),
        layers=m.layers,
        kv_bytes_per_token=2.0 * m.layers * kv_width * KV_BYTES,
    )


# --------------------------------------------------------------------------- the rates


class DecodeRate(Struct, frozen=True):
    """One decode step on one GPU, term by term."""

    layer_ms: float
    bandwidth_share: float
    layer_basis: str
    """'fitted on Ampere consumer cards', or the fallback taken."""
    share_basis: str


class PrefillRate(Struct, frozen=True):
    share: float
    basis: str
    matmul_tflops: float
    """What the GPU's 16-bit matmuls sustain (the speed predictor's rate)."""


def decode_rate(
    cal: ServeCalibration, engine: str, spec: GpuSpec, qclass: QuantClass
) -> DecodeRate:
    """The engine's time per layer on the GPU's generation and its bandwidth share for the class;
    a generation it was never measured on takes the median of those it was, a class it lacks
    llama.cpp's share for that class."""
    fit = _engine(cal, engine)
    gen = generation(spec)
    if gen in fit.layer_ms:
        layer, layer_basis = fit.layer_ms[gen], f"fitted on {gen} cards"
    else:
        layer = statistics.median(fit.layer_ms.values())
        layer_basis = f"no {gen} card measured: the median of {len(fit.layer_ms)} generations"
    base = _engine(cal, DEFAULT_ENGINE)
    if qclass in fit.bandwidth_share:
        share, share_basis = fit.bandwidth_share[qclass], f"{fit.engine}, {qclass} weights"
    elif qclass in base.bandwidth_share:
        share, share_basis = base.bandwidth_share[qclass], f"{base.engine}'s, {qclass} weights"
    else:
        share = statistics.median(fit.bandwidth_share.values())
        share_basis = f"no {qclass} row measured: the median of the other classes"
    return DecodeRate(layer, share, layer_basis, share_basis)


def prefill_rate(
    cal: ServeCalibration,
    engine: str,
    spec: GpuSpec,
    qclass: QuantClass,
    matmul_tflops: float,
) -> PrefillRate:
    """The engine's prefill share for the class on the GPU's generation (else the median of the
    generations measured; an engine with no prefill row takes llama.cpp's)."""
    fit = _engine(cal, engine)
    if not fit.prefill_share:
        fit = _engine(cal, DEFAULT_ENGINE)
    gen = generation(spec)
    by_gen = fit.prefill_share.get(qclass) or {}
    if gen in by_gen:
        return PrefillRate(by_gen[gen], f"fitted on {gen} cards, {qclass}", matmul_tflops)
    pooled = [v for shares in fit.prefill_share.values() for v in shares.values()]
    values = list(by_gen.values()) or pooled
    if not values:
        raise CostcalcError(f"{engine}: no prefill measurement on file")
    return PrefillRate(
        statistics.median(values),
        f"no {gen} card measured: the median of the measured generations",
        matmul_tflops,
    )


def _engine(cal: ServeCalibration, engine: str) -> EngineFit:
    fit = cal.engine(engine)
    if fit is None:
        names = ", ".join(e.engine for e in cal.engines)
        raise CostcalcError(f"unknown engine {engine!r}: the calibration has {names}")
    return fit


def step_s(
    s: Shape,
    bits: float,
    spec: GpuSpec,
    rate: DecodeRate,
    prefill: PrefillRate,
    batch: int,
    mean_context: float,
    gpus: int = 1,
) -> float:
    """Seconds of one decode step of `batch` sequences: each layer's fixed time plus the bytes
    read at the bandwidth share, or the step's FLOPs at the prefill rate where they take longer.
    Layers split over `gpus` cards run one card after another: the same bytes, the same time."""
    read = s.read_params * bits / 8 + batch * s.kv_bytes_per_token * mean_context
    memory_s = read / (rate.bandwidth_share * spec.bandwidth_gbs * GB)
    compute_s = 2 * s.read_params * batch / (prefill.share * prefill.matmul_tflops * 1e12)
    return s.layers * rate.layer_ms / 1000 + max(memory_s, compute_s / gpus)


def prefill_tokens_per_s(s: Shape, prefill: PrefillRate) -> float:
    """Prompt tokens a second: 2 N FLOPs each at the share of the sustained matmul rate (a layer
    split over several cards runs them one after another: one card's rate)."""
    return prefill.share * prefill.matmul_tflops * 1e12 / (2 * s.read_params)


# --------------------------------------------------------------------------- the fit


class Row(Struct, frozen=True):
    """One measurement with what the model needs of it."""

    m: ServeMeasurement
    spec: GpuSpec
    shape: Shape
    bits: float
    qclass: QuantClass
    engine: str
    generation: str


def usable_rows(
    rows: Iterable[ServeMeasurement],
    gpu: Callable[[str], GpuSpec],
    model: Callable[[str], ModelSpec],
) -> list[Row]:
    """The batch-1 decode and the prefill rows whose quantisation has a known width."""
    found = []
    for r in rows:
        bits = bits_of(r.quant)
        if bits is None or r.phase == "total" or (r.batch or 1) != 1:
            continue
        spec = gpu(r.gpu)
        found.append(
            Row(
                r,
                spec,
                shape(model(r.model)),
                bits,
                quant_class(bits),
                engine_of(r.engine),
                generation(spec),
            )
        )
    return found


def row_context(r: Row) -> float:
    """A decode row's mean context: stated, else half its generated tokens (from an empty one)."""
    if r.m.mean_context is not None:
        return float(r.m.mean_context)
    return (r.m.gen_tokens or 128) / 2


def fit(rows: Sequence[Row], matmul: Callable[[GpuSpec], float]) -> dict[str, EngineFit]:
    """Each engine's figures from its rows. Decode: weighted least squares of the step time,
    layers x t_gen + bytes / bandwidth x u_class (t per generation, 1/u the bandwidth share per
    class), each row weighted by its own time so every row counts by its relative error. Prefill:
    per class and generation, the median of each source's median of measured / (rate / 2 N)."""
    fits = {}
    for engine in sorted({r.engine for r in rows}):
        mine = [r for r in rows if r.engine == engine]
        decode = [r for r in mine if r.m.phase == "decode"]
        prefill = [r for r in mine if r.m.phase == "prefill"]
        gens = sorted({r.generation for r in decode})
        classes = sorted({r.qclass for r in decode})
        layer_ms: dict[str, float] = {}
        share: dict[QuantClass, float] = {}
        if decode:
            design, target = [], []
            for r in decode:
                seconds = 1 / r.m.tokens_per_s
                read = r.shape.read_params * r.bits / 8 + r.shape.kv_bytes_per_token * row_context(
                    r
                )
                x = read / (r.spec.bandwidth_gbs * GB)
                design.append(
                    [r.shape.layers / seconds * (g == r.generation) for g in gens]
                    + [x / seconds * (c == r.qclass) for c in classes]
                )
                target.append(1.0)
            solved = least_squares(design, target)
            layer_ms = {g: round(max(solved[i], 0.0) * 1000, 4) for i, g in enumerate(gens)}
            share = {c: round(1 / solved[len(gens) + j], 4) for j, c in enumerate(classes)}
        prefill_share: dict[QuantClass, dict[str, float]] = {}
        for c in sorted({r.qclass for r in prefill}):
            for g in sorted({r.generation for r in prefill if r.qclass == c}):
                cell = [r for r in prefill if r.qclass == c and r.generation == g]
                prefill_share.setdefault(c, {})[g] = round(
                    _median_of_sources(
                        cell,
                        lambda r: (
                            r.m.tokens_per_s * 2 * r.shape.read_params / (matmul(r.spec) * 1e12)
                        ),
                    ),
                    4,
                )
        fits[engine] = EngineFit(
            engine=engine,
            bandwidth_share=share,
            layer_ms=layer_ms,
            prefill_share=prefill_share,
            decode_rows=len(decode),
            prefill_rows=len(prefill),
            sources=tuple(sorted({r.m.source.key for r in mine})),
        )
    return fits


def _median_of_sources(rows: Sequence[Row], value: Callable[[Row], float]) -> float:
    by_source: dict[str, list[float]] = {}
    for r in rows:
        by_source.setdefault(r.m.source.key, []).append(value(r))
    return statistics.median(statistics.median(v) for v in by_source.values())


def least_squares(design: Sequence[Sequence[float]], target: Sequence[float]) -> list[float]:
    """The x minimising |A x - y|^2, by the normal equations (a dozen unknowns at most)."""
    n = len(design[0])
    m = [
        [sum(a[i] * a[j] for a in design) for j in range(n)]
        + [sum(a[i] * y for a, y in zip(design, target, strict=True))]
        for i in range(n)
    ]
    for i in range(n):
        pivot = max(range(i, n), key=lambda k: abs(m[k][i]))
        m[i], m[pivot] = m[pivot], m[i]
        if abs(m[i][i]) < 1e-300:
            raise ValueError("the rows do not determine every figure")
        for k in range(n):
            if k != i:
                f = m[k][i] / m[i][i]
                m[k] = [a - f * b for a, b in zip(m[k], m[i], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def predicted(r: Row, cal: ServeCalibration, matmul: Callable[[GpuSpec], float]) -> float:
    """What the calibration says a measured row should read (tokens/s), the way a user's answer
    is made; an engine the calibration lacks is taken as llama.cpp."""
    engine = r.engine if cal.engine(r.engine) is not None else DEFAULT_ENGINE
    prefill = prefill_rate(cal, engine, r.spec, r.qclass, matmul(r.spec))
    if r.m.phase == "prefill":
        return prefill_tokens_per_s(r.shape, prefill)
    rate = decode_rate(cal, engine, r.spec, r.qclass)
    return 1 / step_s(r.shape, r.bits, r.spec, rate, prefill, 1, row_context(r))


def errors(
    rows: Sequence[Row], cal: ServeCalibration, matmul: Callable[[GpuSpec], float]
) -> list[float]:
    """Signed relative error of each row's prediction (positive: predicted too fast)."""
    return [predicted(r, cal, matmul) / r.m.tokens_per_s - 1 for r in rows]


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def by_source(rows: Iterable[Row], merge: Mapping[str, str] | None = None) -> dict[str, list[Row]]:
    """Rows per source key (two keys merged into one where `merge` maps them)."""
    found: dict[str, list[Row]] = {}
    for r in rows:
        key = r.m.source.key
        found.setdefault((merge or {}).get(key, key), []).append(r)
    return found
