"""Fit serving's calibration (costcalc/data/serve_calibration.yaml) on the published measurements
of costcalc/data/serve_measurements.yaml.

Rule kept here: the product never fits; this script does, with the same pure function
(costcalc.core.serve_speed.fit) that benchmarks/serve_accuracy.py refits without each source.
The sourced figures beside the fit (the GPU's draw while decoding, the engine's memory) are
written here with their sources, so the file says where each figure came from.

    .venv/bin/python scripts/fit_serve.py            # print the fit
    .venv/bin/python benchmarks/serve_accuracy.py --write   # fit, judge, and write the YAML
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import yaml

from costcalc.core.models import GpuSpec
from costcalc.core.records import plain
from costcalc.core.serve_data import (
    ServeAccuracy,
    ServeCalibration,
    SourcedGb,
    SourcedShare,
)
from costcalc.core.serve_speed import Row, fit, usable_rows
from costcalc.store.bundled import (
    load_catalog,
    load_models,
    load_predictor,
    load_serve_measurements,
)

CALIBRATION = Path(__file__).resolve().parents[1] / "costcalc" / "data" / "serve_calibration.yaml"
FITTED = date(2026, 11, 28)
"""The day the measurements were read and the fit made (kept fixed so a rerun is byte-identical)."""

DECODE_POWER_SHARE = SourcedShare(
    value=0.62,
    what=(
        "share of board power a GPU draws while serving: 278.6 W measured during an RTX 4090's "
        "llama-bench session, 62 % of its 450 W board power (if that was the whole system, the "
        "card drew less, and the desktop's electricity here is an upper bound)"
    ),
    source="geerlingguy/ai-benchmarks issue 43 'Benchmark Nvidia RTX 4090'",
    url="https://github.com/geerlingguy/ai-benchmarks/issues/43",
    date="2025-12-09",
)
ENGINE_OVERHEAD_GB = SourcedGb(
    value=0.5,
    what=(
        "memory an engine takes beside weights and KV cache (CUDA context, compute buffers), out "
        "of the card's binary gigabytes: a 16 GiB RTX 4080 held Llama 3 8B at F16 (16.06 GB) "
        "with 4,096 tokens of cache (0.54 GB) and not with 8,192 (1.07 GB), which puts it "
        "between 0.05 and 0.58 GB"
    ),
    source="XiongjieDai/GPU-Benchmarks-on-LLM-Inference README, 'LLaMA 3' table (May 2024)",
)


def matmul_tflops(spec: GpuSpec) -> float:
    """What the GPU's 16-bit matmuls sustain (the speed predictor's rate)."""
    return load_predictor().rates(spec, "fp16", "transformer").math_tflops


def rows() -> list[Row]:
    catalog = load_catalog()
    models = load_models()
    return usable_rows(load_serve_measurements().measurements, catalog.get, models.resolve)


def calibrate(data: Sequence[Row], accuracy: Sequence[ServeAccuracy] = ()) -> ServeCalibration:
    fits = fit(data, matmul_tflops)
    decode = sum(1 for r in data if r.m.phase == "decode")
    sources = len({r.m.source.key for r in data})
    return ServeCalibration(
        fitted=FITTED,
        measurements=(
            f"costcalc/data/serve_measurements.yaml: {decode} batch-1 decode and "
            f"{len(data) - decode} prefill rows from {sources} sources"
        ),
        engines=tuple(fits.values()),
        decode_power_share=DECODE_POWER_SHARE,
        engine_overhead_gb=ENGINE_OVERHEAD_GB,
        accuracy=tuple(accuracy),
    )


HEADER = """\
# costcalc's serving calibration, written by benchmarks/serve_accuracy.py --write
# (scripts/fit_serve.py's fit) from costcalc/data/serve_measurements.yaml; do not edit it by hand.
# A decode step takes layers x layer_ms (per GPU generation) plus the bytes it reads over
# bandwidth_share x the memory bandwidth (per quantisation class); prefill reaches prefill_share of
# the GPU's sustained 16-bit matmul rate. docs/serve-model.md explains each figure and the
# accuracy rows (leave-one-source-out).
"""


def write(calibration: ServeCalibration, path: Path = CALIBRATION) -> None:
    text = yaml.safe_dump(plain(calibration), sort_keys=False, width=110, allow_unicode=True)
    path.write_text(HEADER + text, encoding="utf-8")


def main(argv: Sequence[str]) -> int:
    cal = calibrate(rows())
    for e in cal.engines:
        layers = ", ".join(f"{g} {v:.3f} ms" for g, v in e.layer_ms.items())
        shares = ", ".join(f"{c} {v:.3f}" for c, v in e.bandwidth_share.items())
        print(f"{e.engine}: {e.decode_rows} decode rows; per layer {layers}; bandwidth {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
