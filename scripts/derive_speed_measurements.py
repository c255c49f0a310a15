"""Derive costcalc/data/speed_measurements.csv from the calibration research notes.

The notes (measurements.csv, one row per published throughput figure, with its source, plus the
NeuSight latency labels) are not part of the repository; this script shows every filter and
mapping that turned them into the bundled table, so a reviewer can redo it:

    python scripts/derive_speed_measurements.py --notes DIR --neusight DIR \
        > costcalc/data/speed_measurements.csv

What it keeps: single-GPU training (and NeuSight inference) throughput of cnn, transformer and
rnn workloads on GPUs in the costcalc catalog (and u39kun/deep-learning-benchmark's FP32 tables,
transcribed in U39KUN_TRAIN_MS), grouped so that each group is one workload at one
requested precision measured the same way on several GPUs. What it drops, and why:

- GPUs not in the catalog (V100 SXM3 of DGX-2/2H, V100S, A2, Jetson, Titan X/Xp, P104-100, H20,
  RTX 4090 D, RTX PRO 6000 Server Edition): no spec to predict from.
- Multi-GPU rows (communication, not the GPU), except MosaicML llm-foundry, whose tables exist
  only for 8 GPUs; both sides of each of its pairs are 8-GPU NVLink systems.
- Recommenders and other 'other'-kind models (DLRM, NCF, Wide&Deep, VAE-CF, SIM, SE(3), MoFlow,
  TFT): costcalc has no kind for them.
- Batch-12 torchvision runs (ryujaehun/pytorch-gpu-benchmark): launch-bound; on several GPUs
  half precision is slower than FP32 there.
- DLE EfficientNet 1-GPU rows of DGX-1 32GB (their 8-GPU rows are 17x the 1-GPU ones: a README
  anomaly).
- GPU-Insights multi-GPU and laptop rows; several submissions of one GPU keep the best. Its
  version-2 code runs torch.compile only on compute capability 8.0 and later, so its pre-Ampere
  rows (V100, T4, Quadro RTX 6000) are not like-for-like with the rest and are dropped.
- xhmy/torch_benchmark's Windows (WSL2) RTX 4090 run: the same card's Ubuntu run is kept.
- Tacotron 2 / WaveGlow are filed as rnn / cnn (LSTM decoder / dilated convolutions).

The data audit of issue 26 (2026-11) dropped three sets of rows that were not what their labels
said:

- xhmy/torch_benchmark's "H200" ran on a MIG 7g.141gb instance, not the whole GPU: its vgg13
  runs slower at fp16 than at fp32 (875.9 against 1,264.4 img/s), which no whole H200 does.
- GPU-Insights' "NVIDIA vGPU (RTX 4090) 48GB" is a modded 48 GB board ("vMemory Edition"); its
  ResNet-50 scores had replaced the genuine RTX 4090's as the best submission.
- llm-foundry's A100 40GB tables ran pure BF16 (mp_mode PURE: BF16 weights and optimizer, no
  casts), every other GPU's AMP BF16 (mp_mode DEFAULT): not like for like, so those 39 rows are
  filed as run bf16_pure in a group of their own, where no other GPU pairs with them.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections.abc import Iterator
from pathlib import Path

CATALOG_NAMES: dict[str, str | None] = {
    # as written in the notes -> catalog key (None: not in the catalog)
    "A100 40GB": "a100_sxm4_40gb",
    "A100 80GB": "a100_sxm4_80gb",
    "V100 16GB": "v100_sxm2_16gb",
    "V100 32GB": "v100_sxm2_32gb",  # DGX-1 only; DGX-2/2H rows are dropped below
    "NVIDIA A100-SXM4-40GB 40GB": "a100_sxm4_40gb",
    "NVIDIA A100-PCIE 40GB": "a100_pcie_40gb",
    "NVIDIA GeForce RTX 2080 Ti 11GB": "rtx2080ti",
    "NVIDIA GeForce RTX 2080 Ti 22GB": "rtx2080ti",  # memory-modded card, same TU102
    "NVIDIA GeForce RTX 3080 20GB": "rtx3080",  # memory-modded card, same GA102 config
    "NVIDIA GeForce RTX 3090 24GB": "rtx3090",
    "NVIDIA vGPU (RTX 3090) 48GB": "rtx3090",
    "NVIDIA GeForce RTX 4070 SUPER 12GB": "rtx4070_super",
    "NVIDIA GeForce RTX 4080 32GB": "rtx4080",
    "NVIDIA GeForce RTX 4080 SUPER 32GB": "rtx4080_super",
    "NVIDIA vGPU (RTX 4080 SUPER) 32GB": "rtx4080_super",
    "NVIDIA GeForce RTX 4090 24GB": "rtx4090",
    "NVIDIA vGPU (RTX 4090) 48GB": None,  # a modded 48 GB board: not the catalog's card
    "NVIDIA GeForce RTX 5090 32GB": "rtx5090",
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition 96GB": "rtx_pro6000",
    "NVIDIA RTX A5000 24GB": "rtx_a5000",
    "NVIDIA RTX A5500 24GB": "rtx_a5500",
    "NVIDIA H100 80GB HBM3 80GB": "h100_sxm5_80gb",
    "NVIDIA L40S 48GB": "l40s",
    "Quadro RTX 6000 24GB": "quadro_rtx6000",
    "Tesla T4 16GB": "t4",
    "Tesla V100-PCIE-32GB 32GB": "v100_pcie_32gb",
    "NVIDIA GeForce RTX 4090": "rtx4090",
    "NVIDIA TITAN RTX": "titan_rtx",
    "NVIDIA H100 80GB HBM3": "h100_sxm5_80gb",
    "NVIDIA H200 MIG 7g.141gb": None,  # a MIG slice, not the whole GPU (see the docstring)
    "A100 (80GB, 2039 GB/s)": "a100_sxm4_80gb",
    "RTX A6000": "rtx_a6000",
    "V100 (32GB)": "v100_sxm2_32gb",
    "GeForce RTX 3090 Ti": "rtx3090ti",
    "GeForce RTX 4090": "rtx4090",
    "GeForce RTX 3090": "rtx3090",
    "Tesla V100-SXM2-16GB (ml.p3.2xlarge)": "v100_sxm2_16gb",
    "NVIDIA A10G (ml.g5.2xlarge)": "a10g",
    "H100 80GB (h100_80gb)": "h100_sxm5_80gb",
    "A100 80GB (a100_80gb)": "a100_sxm4_80gb",
    "A100 40GB (a100_40gb)": "a100_sxm4_40gb",
}
NEUSIGHT_DEVICES = {
    "NVIDIA_A100-PCIE-40GB": "a100_pcie_40gb",
    "NVIDIA_A100_80GB_PCIe": "a100_pcie_80gb",
    "NVIDIA_H100_80GB_HBM3": "h100_sxm5_80gb",
    "NVIDIA_L4": "l4",
    "Tesla_P100-PCIE-16GB": "p100_pcie_16gb",
    "Tesla_P4": "p4",
    "Tesla_T4": "t4",
    "Tesla_V100-PCIE-32GB": "v100_pcie_32gb",
}
PRE_AMPERE_KEYS = {"quadro_rtx6000", "t4", "v100_pcie_32gb", "rtx2080ti"}
KINDS = {"cnn", "transformer", "rnn"}
KIND_FIXES = {"WaveGlow": "cnn"}
RUNS = {"fp32": "fp32", "tf32": "tf32", "amp_fp16": "amp_fp16", "amp_bf16": "amp_bf16"}
FIELDS = ["group", "source", "workload", "kind", "dtype", "run", "gpu", "gpus", "batch"]
FIELDS += ["speed", "unit", "date"]


def requested_dtype(run: str) -> str:
    """The precision a user would ask for: an A100 'TF32' column and a V100 'FP32' column of
    the same table answer the same request (tf32 is FP32 before Ampere)."""
    return {"fp32": "tf32", "tf32": "tf32", "amp_fp16": "fp16", "amp_bf16": "fp16"}[run]


def note(row: dict[str, str], key: str) -> str | None:
    found = re.search(rf"{key}=([^;]*)", row["notes"])
    return found.group(1).strip() if found else None


def data_date(row: dict[str, str]) -> str:
    text = row["notes"]
    for pattern in (r"data date (\d{4}-\d{2}-\d{2})", r"date (\d{4})\.(\d{1,2})\.(\d{1,2})"):
        found = re.search(pattern, text)
        if found and len(found.groups()) == 1:
            return found.group(1)
        if found:
            y, m, d = found.groups()
            return f"{y}-{int(m):02d}-{int(d):02d}"
    container = re.search(r"NGC (?:container )?(?:pytorch-|tensorflow:)?(\d{2})\.(\d{2})", text)
    if container:
        return f"20{container.group(1)}-{container.group(2)}"
    found = re.search(r"run (\d{4}-\d{2}-\d{2})", text)
    return found.group(1) if found else ""


def dle_rows(rows: list[dict[str, str]], dates: dict[str, str]) -> Iterator[dict[str, str]]:
    for row in rows:
        kind = KIND_FIXES.get(row["model"], row["kind"])
        if not row["source_id"].startswith("dle_") or row["gpu_count"] != "1" or kind not in KINDS:
            continue
        gpu = CATALOG_NAMES.get(row["gpu"])
        if "DGX-2" in row["notes"] or gpu is None:
            continue
        if "efficientnet" in row["model"] and gpu == "v100_sxm2_32gb":
            continue
        seq = note(row, "Sequence Length")
        workload = row["model"] + (f" seq {seq}" if seq else "")
        yield {
            "group": f"{row['source_id']}/{slug(workload)}/{requested_dtype(row['precision'])}",
            "source": row["source_id"],
            "workload": workload,
            "kind": kind,
            "dtype": requested_dtype(row["precision"]),
            "run": RUNS[row["precision"]],
            "gpu": gpu,
            "gpus": "1",
            "batch": row["batch_per_gpu"],
            "speed": row["throughput"],
            "unit": row["unit"],
            "date": dates.get(row["source_id"], ""),
        }


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def gpu_insights_rows(rows: list[dict[str, str]]) -> Iterator[dict[str, str]]:
    """Best submission per GPU, model, code version and precision column (1 GPU)."""
    best: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rows:
        if row["source_id"] != "gpu_insights" or row["gpu_count"] != "1":
            continue
        gpu = CATALOG_NAMES.get(row["gpu"])
        if gpu is None:
            continue
        version = "ver2" if "ver.2" in row["notes"] or "[ver2]" in row["model"] else "ver1"
        if version == "ver2" and gpu in PRE_AMPERE_KEYS:
            continue  # ver2 compiles (torch.compile) only from compute capability 8.0 on
        column = "fp32" if row["precision"] in ("fp32", "tf32") else "amp"
        model = row["model"].split(" [")[0].split(" (")[0]
        key = (f"{model} {version}", column, gpu)
        if key not in best or float(row["throughput"]) > float(best[key]["throughput"]):
            best[key] = row
    for (workload, column, gpu), row in sorted(best.items()):
        dtype = "fp32" if column == "fp32" and workload.endswith("ver1") else "tf32"
        dtype = "fp16" if column == "amp" else dtype
        yield {
            "group": f"gpu_insights/{slug(workload)}/{dtype}",
            "source": "gpu_insights",
            "workload": workload,
            "kind": row["kind"],
            "dtype": dtype,
            "run": RUNS[row["precision"]],
            "gpu": gpu,
            "gpus": "1",
            "batch": row["batch_per_gpu"],
            "speed": row["throughput"],
            "unit": "score",
            "date": data_date(row),
        }


def other_rows(rows: list[dict[str, str]]) -> Iterator[dict[str, str]]:
    """servergear, xhmy, mli, AWS SageMaker and llm-foundry rows."""
    for row in rows:
        source = row["source_id"]
        gpu = CATALOG_NAMES.get(row["gpu"])
        if gpu is None or source in ("gpu_insights", "ryujaehun_pytorch_gpu_benchmark"):
            continue
        if source.startswith("dle_") or "Windows WSL2" in row["notes"]:
            continue
        if row["gpu_count"] != "1" and source != "llmfoundry_mpt_bench":
            continue
        if source == "mli_transformers_benchmarks" and "micro-benchmark" not in row["model"]:
            continue
        pure = row["precision"] == "fp16"
        dtype = "fp16" if pure else requested_dtype(row["precision"])
        run = "fp16_pure" if pure else RUNS[row["precision"]]
        if source == "xhmy_torch_benchmark" and run == "fp32":
            dtype = "fp32"  # torch defaults: FP32 matmuls, TF32 cuDNN convolutions on Ampere+
        if source == "llmfoundry_mpt_bench":
            dtype = "bf16"
            if gpu == "a100_sxm4_40gb":  # the README's A100 40GB tables: all mp_mode PURE
                run = "bf16_pure"
        workload = row["model"].split(" (")[0]
        if source == "llmfoundry_mpt_bench":
            ckpt = "act-ckpt" if "act-ckpt=True" in row["notes"] else "no act-ckpt"
            workload = f"{row['model'].split(' pretraining')[0]} {row['model'].split('(')[1][:-1]}"
            workload += f" {ckpt}"
        batch = "" if source in ("llmfoundry_mpt_bench", "mli_transformers_benchmarks") else None
        family = "servergear" if source.startswith("servergear") else source  # one page each
        suffix = "-pure" if run == "bf16_pure" else ""
        yield {
            "group": f"{family}/{slug(workload)}/{dtype}{suffix}",
            "source": source,
            "workload": workload,
            "kind": row["kind"],
            "dtype": dtype,
            "run": run,
            "gpu": gpu,
            "gpus": row["gpu_count"],
            "batch": row["batch_per_gpu"] if batch is None else batch,
            "speed": row["throughput"],
            "unit": row["unit"],
            "date": data_date(row) or other_date(source, gpu),
        }


U39KUN_TRAIN_MS = {
    # u39kun/deep-learning-benchmark README @ 1e7459b4, "train" = one forward + backward pass at
    # batch 16 (224 x 224 images), ms; 16-bit = the model in half precision. (table, precision):
    # {gpu: (vgg16, resnet152, densenet161)}; None where the table has no figure.
    ("PyTorch 0.3.0", "fp32"): {
        "gtx1080ti": (131.9, 206.4, 211.9),
        "v100_sxm2_16gb": (83.5, 136.5, 142.5),  # Amazon p3 (p3.2xlarge: V100 SXM2 16GB)
        "rtx2080ti": (102.9, 157.0, 160.0),
    },
    ("PyTorch 0.3.0", "fp16"): {
        "gtx1080ti": (117.6, 193.5, 191.0),
        "v100_sxm2_16gb": (58.8, 92.9, 102.3),
        "rtx2080ti": (99.3, 133.0, 135.8),
    },
    ("TensorFlow 1.4.0", "fp32"): {
        "gtx1080ti": (131.3, 300.6, None),
        "rtx2080ti": (99.4, 187.7, None),
    },
    ("TensorFlow 1.4.0", "fp16"): {
        "gtx1080ti": (121.1, 257.0, None),
        "rtx2080ti": (81.8, 155.5, None),
    },
}
"""Transcribed by hand (the README is prose and tables, not data); the Titan V rows are left out
(not in the catalog). Dated 2019-01, when the 2080 Ti rows were added."""


def u39kun_rows() -> Iterator[dict[str, str]]:
    """One row per GPU, model and framework, as images per second; FP32 only. Its 16-bit runs
    come from CUDA 9.0 and cuDNN 7.0 at batch 16, which barely used the tensor cores: a V100
    trained VGG16 1.42x faster in half precision than in FP32 there, against 2-3x with AMP in
    DeepLearningExamples' tables; no stack a user runs today behaves so."""
    for (framework, dtype), by_gpu in U39KUN_TRAIN_MS.items():
        if dtype != "fp32":
            continue
        for gpu, times_ms in by_gpu.items():
            for model, ms in zip(("vgg16", "resnet152", "densenet161"), times_ms, strict=True):
                if ms is None:
                    continue
                workload = f"{framework} {model} train"
                yield {
                    "group": f"u39kun_dl_benchmark/{slug(workload)}/{dtype}",
                    "source": "u39kun_dl_benchmark",
                    "workload": workload,
                    "kind": "cnn",
                    "dtype": dtype,
                    "run": "fp16_pure" if dtype == "fp16" else "fp32",
                    "gpu": gpu,
                    "gpus": "1",
                    "batch": "16",
                    "speed": f"{16 / ms * 1000:.1f}",
                    "unit": "img/s",
                    "date": "2019-01",
                }


OTHER_DATES = {
    "servergear_rtx3090_tfcnn": "2021",
    "servergear_rtx4090_tfcnn": "2023",
    "mli_transformers_benchmarks": "2022-08",
    "llmfoundry_mpt_bench": "2023-10-19",
}


def other_date(source: str, gpu: str) -> str:
    if source == "mli_transformers_benchmarks" and gpu == "rtx4090":
        return "2024-01-09"  # the README's RTX 4090 column was added later than the rest
    return OTHER_DATES.get(source, "")


def neusight_rows(data: Path) -> Iterator[dict[str, str]]:
    """NeuSight FP32 step times as steps per second (1000 / ms), single-GPU variants."""
    with (data / "e2e_latency_labels.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            gpu = NEUSIGHT_DEVICES.get(row["device"])
            if gpu is None or row["variant"] not in ("", "fusion"):
                continue
            workload = f"{row['model']} {row['mode']} seq {row['seq_len']}"
            workload += f" {row['variant']}" if row["variant"] else ""
            yield {
                "group": f"neusight/{slug(workload)}-b{row['batch']}/fp32",
                "source": "neusight",
                "workload": workload,
                "kind": "transformer",
                "dtype": "fp32",
                "run": "fp32",
                "gpu": gpu,
                "gpus": "1",
                "batch": row["batch"],
                "speed": f"{1000 / float(row['e2e_latency_ms']):.6g}",
                "unit": "steps/s",
                "date": "2025",
            }


SOURCES = {
    # id: (where, licence); DLE READMEs are read from the notes' sources.md below
    "neusight": (
        "sitar-lab/NeuSight e2e_latency_labels.csv (FP32 step times, train and inference; "
        "speed = 1000 / ms)",
        "MIT, (c) 2025 Georgia Institute of Technology and Microsoft Corporation",
    ),
    "gpu_insights": (
        "xiaoran007/GPU-Insights docs-src/public/data/benchmark-data.json @ f4f228e0 "
        "(community scores, per-row dates; compare within one model and code version only)",
        "BSD-3-Clause",
    ),
    "llmfoundry_mpt_bench": (
        "mosaicml/llm-foundry scripts/train/benchmarking/README.md @ 8c8dd48f (tables "
        "committed 2023-10-19; 8-GPU FSDP rows, tokens/s)",
        "Apache-2.0",
    ),
    "mli_transformers_benchmarks": (
        "mli/transformers-benchmarks README.md @ 3370b2b3 (fwd+bwd TFLOPS of one layer in "
        "pure fp16; 2022-08, RTX 4090 column 2024-01-09)",
        "Apache-2.0",
    ),
    "xhmy_torch_benchmark": (
        "XHMY/torch_benchmark README.md @ 57e06207 (torchvision models, batch 64; fp32 with "
        "torch defaults, fp16 = model.half())",
        "no licence file: figures only",
    ),
    "servergear_rtx3090_tfcnn": (
        "server-gear.com/blog/post/rtx3090-x8-exhaustive-tf-cnn-benchmarks (tf_cnn_benchmarks "
        "--use_fp16, NGC TF 20.12)",
        "none stated: figures only",
    ),
    "servergear_rtx4090_tfcnn": (
        "server-gear.com/blog/post/rtx4090-x4-exhaustive-tf-cnn-benchmarks (same tool, NGC TF "
        "23.02)",
        "none stated: figures only",
    ),
    "u39kun_dl_benchmark": (
        "u39kun/deep-learning-benchmark README.md @ 1e7459b4 (VGG16, ResNet-152, DenseNet-161 "
        "forward + backward at batch 16, FP32; PyTorch 0.3.0 and TensorFlow 1.4.0 tables, "
        "2017-12 to 2019-01)",
        "no licence file: figures only",
    ),
    "aws_sagemaker_roberta_bench": (
        "aws-samples/amazon-sagemaker-training-jobs-benchmarks instance_types_RoBERTa_benchmark "
        "@ 870e2d49 (RoBERTa-base fine-tune, fp16, ml.p3.2xlarge vs ml.g5.2xlarge)",
        "MIT-0",
    ),
}


def header(notes: Path, used: set[str]) -> list[str]:
    """The provenance block: one line per source (where, commit, licence)."""
    lines = [
        "# costcalc speed measurements: training (and NeuSight inference) throughput of one",
        "# workload on several GPUs, for fitting and checking costcalc.core.predict. Derived by",
        "# scripts/derive_speed_measurements.py from public sources; no Lambda Labs figure.",
        "# Columns: group = one workload at one requested precision (dtype); run = what ran on",
        "# that GPU (tf32 is FP32 before Ampere; amp_bf16 where the code picked BF16 on Ampere+;",
        "# fp16_pure = model.half()); gpus = GPUs in the run (total throughput); batch per GPU;",
        "# speed in unit; date = when the figure was measured (container yy-mm where that is all",
        "# the source gives). Sources, with licence:",
    ]
    dle = {}
    for line in (notes / "sources.md").read_text("utf-8").splitlines():
        found = re.match(r"\| (dle_\w+) \| NVIDIA/DeepLearningExamples `([^`]+)`", line)
        if found:
            licence = line.split(" | ")[4].split(" — ")[0].replace(" (per LICENSE text)", "")
            dle[found.group(1)] = (found.group(2), licence)
    for source in sorted(used):
        if source in dle:
            path, licence = dle[source]
            where = f"NVIDIA/DeepLearningExamples {path} @ 729963dd, training performance tables"
        else:
            where, licence = SOURCES[source]
        lines.append(f"#  {source}: {where}; licence: {licence}")
    return lines


def source_dates(notes: Path) -> dict[str, str]:
    """DLE data dates from sources.md: the NGC container yy.mm, else the README's last change."""
    dates = {}
    for line in (notes / "sources.md").read_text("utf-8").splitlines():
        found = re.match(r"\| (dle_\w+) \|", line)
        if not found:
            continue
        container = re.search(r"data ≈ (\d{4})\.(\d{2})", line)
        changed = re.search(r"file last changed \w+ \((\d{4}-\d{2})", line)
        if container:
            dates[found.group(1)] = f"{container.group(1)}-{container.group(2)}"
        elif changed:
            dates[found.group(1)] = changed.group(1)
    return dates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=Path, required=True, help="research notes directory")
    parser.add_argument("--neusight", type=Path, required=True, help="NeuSight data directory")
    ns = parser.parse_args()
    with (ns.notes / "measurements.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    out = [
        *dle_rows(rows, source_dates(ns.notes)),
        *gpu_insights_rows(rows),
        *other_rows(rows),
        *neusight_rows(ns.neusight),
        *u39kun_rows(),
    ]
    groups: dict[str, set[str]] = {}
    for row in out:
        groups.setdefault(row["group"], set()).add(row["gpu"])
    out = [row for row in out if len(groups[row["group"]]) > 1]  # a lone GPU compares to none
    print("\n".join(header(ns.notes, {row["source"] for row in out})))
    writer = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(out, key=lambda r: (r["group"], r["gpu"], r["batch"])))


if __name__ == "__main__":
    main()
