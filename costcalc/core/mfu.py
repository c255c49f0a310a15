"""How much of a GPU's matmul rate a training run uses: public measurements per GPU and precision
(costcalc/data/mfu.yaml), turned into one GPU's utilisation with its band.

Rule kept here: pure, and every step says what it did. A row becomes one GPU's utilisation:
- the TFLOPS the run achieved per GPU: stated, or its MFU (or HFU, which counts recomputed
  activations and so is what the hardware did) times the peak it divided by (the datasheet's
  dense peak where it does not say); on a GeForce-style card whose source names no peak,
  6 x params x tokens/s (such cards accumulate in FP32 at half rate, and sources differ in which
  peak they divide by);
- over the rate that GPU's matmuls sustain at the precision (`costcalc.core.predict`'s: measured
  torch.mm under load where the calibration has it, else the peak x its class's measured share x
  its power limit), so the share transfers across cards whose datasheet peaks mean different
  things (a 300 W RTX 6000 Ada does not hold its 364 TFLOPS; a GeForce card boosts past its
  datasheet);
- divided by the scaling efficiency of its own run (a row measured on 64 GPUs carries their
  communication; costcalc.core.job_time applies the job's own), so rows of any size compare.
Rows of the job's GPU come first, then its generation, then its class (data-centre or desktop
cards), as long as two sources agree to be counted; the estimate is the median of each source's
median (one paper's eight rows count once), the band the lowest and highest row. Rows that
measure a best case rather than a whole model (`setting: benchmark`) and FP8 rows (the catalog
has no FP8 peak) are shown in the data but never used.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import date
from typing import Annotated, Literal

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.models import GpuSpec
from costcalc.core.predict import generation, half_rate_accumulate, math_path
from costcalc.core.records import Meta, Record

MIN_SOURCES = 2
"""Sources a pool of rows needs before it speaks for a GPU or a generation."""


class MfuSource(Record, frozen=True, kw_only=True):
    what: str
    url: str
    date: str
    date_basis: str | None = None


class MfuRow(Record, frozen=True, kw_only=True):
    """One public training measurement (costcalc/data/mfu.yaml)."""

    gpu: str
    precision: Literal["bf16", "fp16", "fp8"]
    model: str
    params: Annotated[int, Meta(gt=0)] | None = None
    gpus: Annotated[int, Meta(ge=1)] | None = None
    parallelism: str | None = None
    seq_len: Annotated[int, Meta(gt=0)] | None = None
    mfu: Annotated[float, Meta(gt=0, le=1)] | None = None
    hfu: Annotated[float, Meta(gt=0, le=1)] | None = None
    tokens_per_s_per_gpu: Annotated[float, Meta(gt=0)] | None = None
    achieved_tflops_per_gpu: Annotated[float, Meta(gt=0)] | None = None
    peak_tflops_assumed: Annotated[float, Meta(gt=0)] | None = None
    setting: Literal["pretraining", "pretraining benchmark", "benchmark", "fine-tuning"]
    notes: str | None = None
    gpu_note: str | None = None
    source: MfuSource


class SourcedFigure(Record, frozen=True, kw_only=True):
    value: Annotated[float, Meta(gt=0, le=1)]
    what: str
    source: str
    url: str
    date: str


class ServerScaling(Record, frozen=True, kw_only=True):
    """Throughput of `servers` eight-GPU servers joined by RDMA, against one."""

    servers: Annotated[int, Meta(ge=2)]
    speedup: Annotated[float, Meta(gt=1)]
    what: str
    source: str
    url: str
    date: str

    @property
    def efficiency_per_doubling(self) -> float:
        """The share of linear scaling each doubling of servers keeps."""
        share: float = (self.speedup / self.servers) ** (1 / math.log2(self.servers))
        return share


class MfuFile(Record, frozen=True, kw_only=True):
    schema_version: Literal[1] = 1
    as_of: date
    effective_time_share: SourcedFigure
    across_servers: ServerScaling
    entries: tuple[MfuRow, ...]


class UsedRow(Struct, frozen=True):
    """One row as the estimate used it."""

    row: MfuRow
    achieved_tflops: float
    """What the run reached per GPU."""
    rate_tflops: float
    """What its GPU's matmuls sustain at the precision (the speed predictor's rate)."""
    one_gpu: float
    """achieved / rate, divided by its own run's scaling efficiency."""
    basis: str
    """How `achieved_tflops` was read: 'HFU 0.64 x 312', 'achieved 150', ..."""


class MfuEstimate(Struct, frozen=True):
    """One GPU's share of its sustained matmul rate, alone (no communication), with its band."""

    share: float
    low: float
    high: float
    pool: str
    """Whose rows: 'A100 SXM4 80GB runs', 'Ada cards', 'desktop cards', 'every card'."""
    rows: tuple[UsedRow, ...]
    sources: int
    note: str | None = None
    """Said when the estimate stands in for what was not measured (FP32, CNNs)."""


RunEfficiency = Callable[[GpuSpec, int], float]
"""The scaling efficiency of `count` GPUs of a kind, against linear (costcalc.core.job_time)."""
MatmulRate = Callable[[GpuSpec, str], float]
"""TFLOPS a GPU's matmuls sustain at a precision (Predictor.rates(...).math_tflops)."""


def desktop_class(spec: GpuSpec) -> bool:
    return spec.segment in ("consumer", "workstation")


def generation_pool(spec: GpuSpec) -> str:
    """'Ada desktop cards', 'Hopper data-centre cards', 'Ampere consumer cards'."""
    name = generation(spec)
    if name.startswith("Ampere "):  # generation() splits Ampere by product line already
        return f"{name} cards"
    return f"{name} {'desktop' if desktop_class(spec) else 'data-centre'} cards"


def read_row(
    row: MfuRow, spec: GpuSpec, efficiency: RunEfficiency, rate_of: MatmulRate
) -> UsedRow | None:
    """A row as one GPU's share of its sustained matmul rate, or None when it cannot be read."""
    if row.precision == "fp8":
        return None
    peak = math_path(spec, row.precision, "transformer").peak_tflops
    label = "HFU" if row.hfu is not None else "MFU"
    stated = row.hfu if row.hfu is not None else row.mfu
    if row.achieved_tflops_per_gpu is not None and row.peak_tflops_assumed is None:
        achieved, basis = row.achieved_tflops_per_gpu, "achieved"
    elif stated is not None and (row.peak_tflops_assumed or not half_rate_accumulate(spec)):
        divided_by = row.peak_tflops_assumed or peak
        achieved, basis = stated * divided_by, f"{label} {stated:g} x {divided_by:g}"
    elif row.tokens_per_s_per_gpu and row.params:
        achieved = 6 * row.params * row.tokens_per_s_per_gpu / 1e12
        basis = f"6 x {row.params / 1e9:g}B x {row.tokens_per_s_per_gpu:,.0f} tokens/s"
    else:
        return None
    rate = rate_of(spec, row.precision)
    gpus = row.gpus or 1
    one = achieved / rate / efficiency(spec, gpus)
    on = "one GPU" if gpus == 1 else f"{gpus:,} GPUs"
    text = f"{basis} = {achieved:,.1f} TFLOPS / {rate:,.1f} sustained, on {on}"
    return UsedRow(row, achieved, rate, one, text)


def estimate(
    spec: GpuSpec,
    rows: Sequence[MfuRow],
    catalog: GpuCatalog,
    efficiency: RunEfficiency,
    rate_of: MatmulRate,
) -> MfuEstimate:
    """The share of its sustained matmul rate one `spec` reaches, from the closest rows."""
    usable: list[UsedRow] = []
    for row in rows:
        if row.setting == "benchmark" or row.gpu not in catalog:
            continue
        found = read_row(row, catalog.get(row.gpu), efficiency, rate_of)
        if found is not None:
            usable.append(found)
    pools: list[tuple[str, Callable[[GpuSpec], bool]]] = [
        (f"{spec.short_name} runs", lambda s: s.key == spec.key),
        (
            generation_pool(spec),
            lambda s: generation(s) == generation(spec) and desktop_class(s) == desktop_class(spec),
        ),
        (
            "desktop cards" if desktop_class(spec) else "data-centre cards",
            lambda s: desktop_class(s) == desktop_class(spec),
        ),
    ]
    for pool, member in pools:
        chosen = [u for u in usable if member(catalog.get(u.row.gpu))]
        if _sources(chosen) >= MIN_SOURCES:
            return _summary(pool, chosen)
    return _summary("every card", usable)


def _sources(rows: Sequence[UsedRow]) -> int:
    return len({u.row.source.url for u in rows})


def _summary(pool: str, rows: Sequence[UsedRow]) -> MfuEstimate:
    by_source: dict[str, list[float]] = {}
    for u in rows:
        by_source.setdefault(u.row.source.url, []).append(u.one_gpu)
    medians = [_median(values) for values in by_source.values()]
    values = [u.one_gpu for u in rows]
    return MfuEstimate(
        share=_median(medians),
        low=min(values),
        high=max(values),
        pool=pool,
        rows=tuple(sorted(rows, key=lambda u: u.one_gpu)),
        sources=len(by_source),
    )


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
