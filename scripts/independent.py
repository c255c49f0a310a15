"""Lambda Labs' PyTorch training tables: the independent check of the speed predictor.

Rule kept here: read only, never fitted. Nothing in costcalc/ or scripts/fit.py reads these
tables, and the repository holds none of their figures (the tables have no licence file):
benchmarks/predict_accuracy.py --independent PATH reads them from a clone of
lambdal/deeplearning-benchmark at two pinned commits, each one suite of runs:

- 67a9bb51 (2022-07-06): the first suite (NGC containers of 2021-22), 26 one-GPU rows from a
  GTX 1080 Ti and an RTX 3070 to the A100 80GB;
- aa5addb6 (2025-12-17): the suite of NGC 22.09 on, RTX 3090 to H100 SXM5.

Each GPU runs every model at the largest batch that fits it (pytorch-train-bs-*.csv, the suite's
configs per memory size), which is what the batch term is judged on. A GPU's throughput is the
median of its rows (the H100 SXM5 ran on six vendors' servers). Pairs are formed within one
suite, workload and precision. "fp32" is TF32 on Ampere and later, as NGC containers run it.
"""

from __future__ import annotations

import csv
import io
import itertools
import statistics
import subprocess
from collections.abc import Iterable
from pathlib import Path

from costcalc.core.catalog import GpuCatalog
from scripts.fit import AUDIO_SEGMENT_SAMPLES, Pair

SUITES = {
    "lambda_v0": "67a9bb5128d51299376bc72e02ec7459f82efe38",
    "lambda_v1": "aa5addb6a53675a649a80036dad548f1c27cbcc4",
}
"""Commit of each suite's tables."""

GPUS = {
    "Quadro RTX 8000": "quadro_rtx8000",
    "Quadro RTX 6000": "quadro_rtx6000",
    "Quadro RTX 5000": "quadro_rtx5000",
    "Titan RTX": "titan_rtx",
    "RTX 2080Ti": "rtx2080ti",
    "GTX 1080Ti": "gtx1080ti",
    "RTX 3070": "rtx3070",
    "RTX 3080": "rtx3080",
    "RTX 3090": "rtx3090",
    "RTX 4090": "rtx4090",
    "V100 32GB": "v100_pcie_32gb",
    "LambdaCloud V100 16GB": "v100_sxm2_16gb",
    "LambdaCloud A10": "a10",
    "A100 40GB PCIe": "a100_pcie_40gb",
    "LambdaCloud A100 40GB PCIe": "a100_pcie_40gb",
    "A100 40GB SXM4": "a100_sxm4_40gb",
    "A100 80GB PCIe": "a100_pcie_80gb",
    "A100 80GB SXM4": "a100_sxm4_80gb",
    "RTX A4000": "rtx_a4000",
    "RTX A4500": "rtx_a4500",
    "RTX A5000": "rtx_a5000",
    "RTX A5500": "rtx_a5500",
    "RTX A6000": "rtx_a6000",
    "Lambda Cloud — RTX A6000": "rtx_a6000",
    "RTX A40": "a40",
    "RTX 6000 Ada": "rtx6000_ada",
    "H100 80GB PCIe Gen5": "h100_pcie_80gb",
    "LambdaCloud H100 80GB PCIe Gen5": "h100_pcie_80gb",
    "H100 80GB SXM5": "h100_sxm5_80gb",
    "Dell H100 80GB SXM5": "h100_sxm5_80gb",
    "DellTexas H100 80GB SXM5": "h100_sxm5_80gb",
    "SMC H100 80GB SXM5": "h100_sxm5_80gb",
    "1CC H100 80GB SXM5": "h100_sxm5_80gb",
    "RAIDZ1 H100 80GB SXM5": "h100_sxm5_80gb",
}
"""The tables' one-GPU rows as catalog keys; laptop GPUs (Max-Q) and the 'V1' rerun of a
Quadro RTX 8000 are left out. Lambda Cloud's V100 is the SXM2 board of its instances; the
workstation 'V100 32GB' is the PCIe card."""

WORKLOADS: dict[str, tuple[str, float | None, float | None]] = {
    # name: (kind, d_model, tokens per item) from DeepLearningExamples' configurations
    "resnet50": ("cnn", None, None),
    "ssd": ("cnn", None, None),
    "maskrcnn": ("cnn", None, None),
    "waveglow": ("cnn", None, None),
    "bert_base_squad": ("transformer", 768, 384),
    "bert_large_squad": ("transformer", 1024, 384),
    "transformerxlbase": ("transformer", 512, 192),
    "transformerxllarge": ("transformer", 1024, 384),
    "gnmt": ("rnn", None, None),
    "tacotron2": ("rnn", None, None),
}
"""The tables' models costcalc has a kind for (NCF, a recommender, is not)."""

IMAGES = ("resnet50", "ssd", "maskrcnn")
"""Models whose throughput is in images a second: their step time is batch / throughput."""
AUDIO = ("waveglow",)
"""Models whose throughput is in audio samples a second, on segments of 8,000 samples."""

DTYPES = {"fp16": "fp16", "fp32": "tf32"}


def show(clone: Path, commit: str, path: str) -> str:
    """A file of the clone at `commit` (git show), so a newer checkout changes nothing."""
    return subprocess.run(
        ["git", "-C", str(clone), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def suite_rows(throughput_csv: str, batch_csv: str) -> dict[tuple[str, str], tuple[float, int]]:
    """(workload, catalog key) -> (median throughput, batch per GPU) of a suite's one-GPU rows."""
    batches = {row["name_gpu"]: row for row in csv.DictReader(io.StringIO(batch_csv))}
    found: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for row in csv.DictReader(io.StringIO(throughput_csv)):
        name = row["name_gpu"]
        if float(row["num_gpu"]) != 1 or name not in GPUS or name not in batches:
            continue
        for workload in WORKLOADS:
            if not row.get(workload) or not batches[name].get(workload):
                continue
            speed, batch = float(row[workload]), int(float(batches[name][workload]))
            if speed > 0 and batch > 0:
                found.setdefault((workload, GPUS[name]), []).append((speed, batch))
    return {key: (statistics.median(s for s, _ in rows), rows[0][1]) for key, rows in found.items()}


def suite_pairs(
    suite: str, dtype: str, rows: dict[tuple[str, str], tuple[float, int]], catalog: GpuCatalog
) -> list[Pair]:
    """Every ordered pair of GPUs on each workload, each at its own batch."""
    pairs = []
    for workload, (kind, width, sequence) in WORKLOADS.items():
        gpus = sorted(gpu for w, gpu in rows if w == workload)
        for a, b in itertools.permutations(gpus, 2):
            (speed_a, batch_a), (speed_b, batch_b) = rows[(workload, a)], rows[(workload, b)]
            pairs.append(
                Pair(
                    catalog.get(a),
                    catalog.get(b),
                    speed_b / speed_a,
                    kind,
                    DTYPES[dtype],
                    f"{suite}/{workload}/{dtype}",
                    suite,
                    width,
                    float(batch_a),
                    float(batch_b),
                    sequence,
                    True,
                    step_seconds(workload, batch_a, speed_a),
                )
            )
    return pairs


def step_seconds(workload: str, batch: int, speed: float) -> float | None:
    """Seconds one step took, where the model's unit gives it (CNNs: images, audio)."""
    if workload in IMAGES:
        return batch / speed
    if workload in AUDIO:
        return batch * AUDIO_SEGMENT_SAMPLES / speed
    return None


def independent_pairs(
    clone: Path, catalog: GpuCatalog, suites: Iterable[str] = SUITES
) -> list[Pair]:
    """The pairs of every suite and precision, read from a clone of the tables' repository."""
    pairs = []
    for suite in suites:
        commit = SUITES[suite]
        for dtype in DTYPES:
            rows = suite_rows(
                show(clone, commit, f"pytorch/pytorch-train-throughput-{dtype}.csv"),
                show(clone, commit, f"pytorch/pytorch-train-bs-{dtype}.csv"),
            )
            pairs += suite_pairs(suite, dtype, rows, catalog)
    return pairs
