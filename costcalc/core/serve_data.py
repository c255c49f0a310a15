"""The records of serving a model's bundled data: published inference speeds
(costcalc/data/serve_measurements.yaml), the fit made from them (serve_calibration.yaml, written by
scripts/fit_serve.py) and hosted APIs' dated prices per million tokens (hosted_token_prices.yaml).

Rule kept here: declarations only; every figure carries its source and date, so an answer can say
where each one comes from. costcalc.store.bundled reads the files through the parse cache, and only
when a job asks to serve.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from costcalc.core.records import Meta, Record

Phase = Literal["decode", "prefill", "total"]
QuantClass = Literal["16-bit", "8-bit", "4-bit"]


class MeasurementSource(Record, frozen=True, kw_only=True):
    what: str
    url: str
    date: str

    @property
    def key(self) -> str:
        """One source as leave-one-source-out counts it: a thread or table on one date."""
        return f"{self.url} ({self.date})"


class ServeMeasurement(Record, frozen=True, kw_only=True):
    """One published inference speed of one model on one GPU."""

    gpu: str
    model: str
    model_tested: str
    quant: str
    engine: str
    phase: Phase
    batch: Annotated[int, Meta(ge=1)] | None = None
    prompt_tokens: Annotated[int, Meta(ge=1)] | None = None
    gen_tokens: Annotated[int, Meta(ge=1)] | None = None
    mean_context: Annotated[int, Meta(ge=0)] | None = None
    """Tokens in the KV cache on average while decoding, where the run's settings give it."""
    tokens_per_s: Annotated[float, Meta(gt=0)]
    notes: str | None = None
    source: MeasurementSource


class ServeMeasurementFile(Record, frozen=True, kw_only=True):
    schema_version: Literal[1] = 1
    as_of: date
    measurements: tuple[ServeMeasurement, ...]


class SourcedShare(Record, frozen=True, kw_only=True):
    value: Annotated[float, Meta(gt=0, le=1)]
    what: str
    source: str
    url: str
    date: str


class SourcedGb(Record, frozen=True, kw_only=True):
    value: Annotated[float, Meta(ge=0, le=100)]
    what: str
    source: str


class EngineFit(Record, frozen=True, kw_only=True):
    """One engine's fitted figures: a decode step is each layer's fixed time (kernel launches and
    synchronisation, per GPU generation) plus the bytes it reads at a share of the bandwidth (per
    quantisation class); prefill reaches a share of the GPU's sustained 16-bit matmul rate."""

    engine: str
    bandwidth_share: dict[QuantClass, Annotated[float, Meta(gt=0, le=1.5)]]
    layer_ms: dict[str, Annotated[float, Meta(ge=0, le=10)]]
    """Per GPU generation (costcalc.core.predict.generation)."""
    prefill_share: dict[QuantClass, dict[str, Annotated[float, Meta(gt=0, le=2)]]]
    """Per quantisation class, per GPU generation."""
    decode_rows: Annotated[int, Meta(ge=0)]
    prefill_rows: Annotated[int, Meta(ge=0)]
    sources: tuple[str, ...]


class ServeAccuracy(Record, frozen=True, kw_only=True):
    """Leave-one-source-out errors of batch-1 decode (and prefill), as the fit script wrote them."""

    phase: Phase
    grouping: str
    rows: Annotated[int, Meta(ge=0)]
    sources: Annotated[int, Meta(ge=0)]
    median_pct: Annotated[float, Meta(ge=0)]
    p90_pct: Annotated[float, Meta(ge=0)]
    within_20_pct: Annotated[float, Meta(ge=0, le=100)]
    in_sample_median_pct: Annotated[float, Meta(ge=0)]


class ServeCalibration(Record, frozen=True, kw_only=True):
    """costcalc/data/serve_calibration.yaml."""

    schema_version: Literal[1] = 1
    fitted: date
    measurements: str
    engines: tuple[EngineFit, ...]
    decode_power_share: SourcedShare
    engine_overhead_gb: SourcedGb
    accuracy: tuple[ServeAccuracy, ...] = ()

    def engine(self, name: str) -> EngineFit | None:
        return next((e for e in self.engines if e.engine == name), None)


class HostedSource(Record, frozen=True, kw_only=True):
    what: str
    url: str


class HostedPrice(Record, frozen=True, kw_only=True):
    """One hosted API's list price for one open model, per million tokens, on a date."""

    provider: str
    provider_model_id: str
    model: str
    input_usd_per_mtok: Annotated[float, Meta(ge=0, le=1000)]
    output_usd_per_mtok: Annotated[float, Meta(ge=0, le=1000)]
    date: str
    date_basis: str
    price_page: str
    notes: str | None = None
    source: HostedSource


class HostedPriceFile(Record, frozen=True, kw_only=True):
    schema_version: Literal[1] = 1
    as_of: date
    prices: tuple[HostedPrice, ...]
