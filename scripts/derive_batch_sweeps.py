"""Derive scripts/batch_sweeps.csv: training throughput of one workload on one GPU at several
batch sizes (and the batch each GPU ran where a source gives one per GPU), for issue 39.

Run it on clones of the source repositories (each is read at the pinned commit through
`git show`, so a newer checkout does not change the table):

    python scripts/derive_batch_sweeps.py --dle PATH --neusight PATH --mli PATH \
        --deepbench PATH > scripts/batch_sweeps.csv

Sources (every row names its file and commit in `url`):

- NVIDIA/DeepLearningExamples (DLE) @ 729963dd: the "Training performance results" tables of
  each model's README, parsed here (`dle_rows`). Only one-GPU rows are kept; the GPU comes from
  the table's heading (DGX A100 = A100 SXM4, DGX-1 = V100 SXM2 16 or 32 GB). A table with two
  or more batches for one GPU and precision (the tables under one heading) is a sweep; a single
  batch is `max_per_gpu` where the README says it is the largest that fits (Jasper's "maximum
  batch sizes"; BERT's out-of-memory note, for an FP32/TF32 batch below the mixed-precision
  one), otherwise `fixed`. Older README versions (`git log` of each README up to the pinned
  commit) add the sweeps later versions no longer give: a GPU they dropped (A100 40GB before
  the 80GB tables, V100 16GB before the 32GB ones) or a sweep replaced by one batch; each such
  row names its commit and says "README version of ..., replaced later".
- sitar-lab/NeuSight @ 6945927d: the training labels (`scripts/asplos/label/<GPU>/<model>-train-
  <seq>-<batch>.json`): forward + backward of the whole model in FP32 with `torch.ones` token
  ids, no optimizer step, best 5 of the timed runs (neusight/Tracing/trace.py `measure_e2e`);
  sequences/s = batch x 1000 / e2e_latency ms.
- mli/transformers-benchmarks: micro_bench.ipynb's outputs, one transformer block (BERT-large,
  GPT-2 medium, T5-large encoder and decoder blocks) in pure FP16 (`.half()`), forward +
  backward, at batch 2 to 128: on an RTX 3090 Ti @ 3370b2b3 and a V100 SXM2 16GB @ 53a232b0
  (the notebook's first version). The notebook prints TFLOPS, computed as
  3 x (24 b s h^2 + 4 b s^2 h) / time for BERT and GPT-2 blocks (twice the attention term for
  the T5 decoder's cross attention); sequences/s = TFLOPS x 1e12 / (3 x per-sequence FLOPs).
- baidu-research/DeepBench @ da81ba78 results/train/*.xlsx: cuDNN recurrent layers (vanilla RNN,
  LSTM, GRU) trained one step (forward, backward to the inputs and to the weights) at batch 8
  to 128 for each hidden size and number of timesteps: on a V100 (DGX-1, CUDA 10.1, cuDNN 7.6;
  FP32 and FP16 inputs with FP32 accumulation), a Tesla P100 PCIe and a GTX 1080 Ti (CUDA 8,
  cuDNN 6; FP32). sequences/s = N x 1000 / (the three times in ms). The spreadsheets are read
  with the standard library (an .xlsx is a zip of XML).

What is left out, and why:

- GPUs not in the costcalc catalog: DLE's DGX-2 / DGX-2H (V100 SXM3 32GB) rows, NeuSight's AMD
  MI100 / MI210 / MI250; multi-GPU and multi-node rows (communication, not the GPU).
- DLE recommenders (DLRM, NCF, Wide&Deep, VAE-CF, SIM), SE(3)-Transformer, MoFlow and TFT:
  costcalc has no kind for them; tables without a batch per GPU (the ConvNets classification
  tables, EfficientDet PyTorch, EfficientNet TF2): nothing to sweep.
- NeuSight's inference labels and its multi-GPU (dp/tp/pp) training labels.
- DeepBench: the T4 spreadsheet's recurrent rows (empty: no times, 0 total), the P100's
  'Psuedo FP16' sheet (FP16 storage with FP32 math, and no backward split), the GEMM and
  convolution kernels (one operation, not a layer's training step), other vendors' hardware.
- DLE BERT tables whose batch column gives the accumulated batch (PyTorch V100 pre-training:
  4096 and 2048; PaddlePaddle pre-training: 8192 and 4096), and one figure a 2019 PyTorch BERT
  README repeats under pre-training from its fine-tuning table (DROPPED).
- HuggingFace transformers issues #14608 / #15026 (stas00's HF Trainer batch-size sweeps of
  t5-base on an RTX 3090 and an A100 40GB): the stored copy cuts the command line before the
  precision flags, so the precision of those tables cannot be told.
- pytorch/benchmark PRs #502, #540-#553, #562 (2021 batch-scaling tables of TorchBench models):
  most do not name the GPU, and each time is one `train()` call of several iterations.
- mosaicml/llm-foundry's tables: 8-GPU FSDP runs that vary the sequence, not the batch.
- Lambda Labs' benchmark tables: the project's independent check, never read here.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct

RETRIEVED = "2026-11-28"
"""When the snapshots were read (the fetch of each repository)."""

DLE_REPO = "NVIDIA/DeepLearningExamples"
DLE_COMMIT = "729963dd47e7c8bd462ad10bfac7a7b0b604e6dd"
NEUSIGHT_REPO = "sitar-lab/NeuSight"
NEUSIGHT_COMMIT = "6945927d9afcca2b9daf021f8395e53edc5b4eef"
MLI_REPO = "mli/transformers-benchmarks"
DEEPBENCH_REPO = "baidu-research/DeepBench"
DEEPBENCH_COMMIT = "da81ba7820739e2e506dc27f382d15be5479f98f"
MLI_COMMITS = {
    # commit: catalog key of the GPU the notebook's outputs ran on (its first cell prints it)
    "3370b2b3a0ad915b827dd962ff68b2333f4da6a6": "rtx3090ti",
    "53a232b": "v100_sxm2_16gb",
}

FIELDS = [
    "source",
    "url",
    "retrieved",
    "measured",
    "licence",
    "model",
    "kind",
    "framework",
    "gpu",
    "gpu_memory_gb",
    "gpus",
    "precision",
    "batch_per_gpu",
    "batch_unit",
    "seq_len",
    "throughput",
    "unit",
    "batch_policy",
    "notes",
]


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def git_ls(repo: Path, commit: str, path: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit, path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()


def licence_of(repo: Path, commit: str, directory: str) -> str:
    """The licence file nearest a model's folder, named by its first lines."""
    parts = directory.split("/")
    for depth in range(len(parts), 0, -1):
        folder = "/".join(parts[:depth])
        names = [n for n in git_ls(repo, commit, folder) if n.count("/") == depth]
        for name in names:
            if re.search(r"/LICEN[CS]E(\.md|\.txt)?$", name):
                text = git_show(repo, commit, name)[:3000]
                return classify_licence(text) + ("" if depth == len(parts) else f" ({name})")
    return "no licence file in the model folder or above (figures only)"


def classify_licence(text: str) -> str:
    if "Apache License" in text:
        return "Apache-2.0"
    if "Permission is hereby granted, free of charge" in text:
        return "MIT"
    if "Redistribution and use in source and binary forms" in text:
        return "BSD-3-Clause" if "Neither the name" in text else "BSD-2-Clause"
    return "see the licence file"


# --- NVIDIA DeepLearningExamples --------------------------------------------------------------


class Variant(Struct, frozen=True):
    """One workload of a README: matched on the headings above a table."""

    pattern: str
    model: str
    seq_len: int | None = None


class Readme(Struct, frozen=True):
    path: str
    source: str
    kind: str
    framework: str
    unit: str
    variants: tuple[Variant, ...]
    batch_unit: str = "items"
    max_note: str = ""
    """Where the README says its batches are the largest that fit (empty: it does not)."""
    max_classes: tuple[str, ...] = ("amp", "full")
    """The precision classes max_note is about."""
    amp: str = "amp_fp16"
    batch_order: tuple[str, ...] = ()
    """Precision classes in the order a two-batch cell lists them, where its header does not."""
    notes: str = ""
    max_batch: int = 100_000
    """A larger batch cell is an accumulated batch, not one step's: such rows are left out."""
    columns: tuple[tuple[str, str, str, str], ...] = ()
    """(throughput header pattern, model, kind, unit) where one table holds two models."""


README: tuple[Readme, ...] = (
    Readme(
        "PyTorch/LanguageModeling/BERT/README.md",
        "dle_pt_bert",
        "transformer",
        "PyTorch",
        "sequences/s",
        (
            Variant("Pre-training", "BERT-large pre-training"),
            Variant("Fine-tuning|SQuAD", "BERT-large SQuAD fine-tuning", 384),
        ),
        max_batch=1024,  # the V100 pre-training table's batch column is the accumulated batch
    ),
    Readme(
        "TensorFlow/LanguageModeling/BERT/README.md",
        "dle_tf1_bert",
        "transformer",
        "TensorFlow 1",
        "sequences/s",
        (
            Variant("Pre-training", "BERT-large pre-training (LAMB)"),
            Variant("Fine-tuning", "BERT-large SQuAD v1.1 fine-tuning", 384),
        ),
        max_note="the README: FP32 at the mixed-precision batch 'not available due to out of "
        "memory errors'",
        max_classes=("full",),
    ),
    Readme(
        "TensorFlow2/LanguageModeling/BERT/README.md",
        "dle_tf2_bert",
        "transformer",
        "TensorFlow 2",
        "sequences/s",
        (
            Variant("Pre-training", "BERT-large pre-training (LAMB)"),
            Variant("Fine-tuning", "BERT-large SQuAD v1.1 fine-tuning", 384),
        ),
        max_note="the README: FP32/TF32 at the mixed-precision batch 'not available due to out "
        "of memory errors'",
        max_classes=("full",),
    ),
    Readme(
        "TensorFlow2/LanguageModeling/ELECTRA/README.md",
        "dle_tf2_electra",
        "transformer",
        "TensorFlow 2",
        "sequences/s",
        (
            Variant("Pre-training", "ELECTRA-base pre-training"),
            Variant("Fine-tuning", "ELECTRA-base SQuAD fine-tuning"),
        ),
    ),
    Readme(
        "PyTorch/LanguageModeling/BART/README.md",
        "dle_pt_bart",
        "transformer",
        "PyTorch",
        "sequences/s",
        (
            Variant("Pre-training", "BART-large pre-training"),
            Variant("Fine-tuning", "BART-large CNN-DM summarization fine-tuning"),
        ),
        amp="amp_bf16",
    ),
    Readme(
        "PaddlePaddle/LanguageModeling/BERT/README.md",
        "dle_paddle_bert",
        "transformer",
        "PaddlePaddle",
        "sequences/s",
        (
            Variant("Pre-training", "BERT-large pre-training"),
            Variant("Fine-tuning", "BERT-large SQuAD fine-tuning", 384),
        ),
        max_batch=1024,  # the pre-training table's batch column is the accumulated batch
    ),
    Readme(
        "PyTorch/LanguageModeling/Transformer-XL/README.md",
        "dle_pt_txl",
        "transformer",
        "PyTorch",
        "tokens/s",
        (
            Variant("Large model", "Transformer-XL large (WikiText-103)", 384),
            Variant("Base model|.", "Transformer-XL base (WikiText-103)", 192),
        ),
    ),
    Readme(
        "TensorFlow/LanguageModeling/Transformer-XL/README.md",
        "dle_tf1_txl",
        "transformer",
        "TensorFlow 1",
        "tokens/s",
        (Variant(".", "Transformer-XL base (WikiText-103)", 192),),
    ),
    Readme(
        "PyTorch/Translation/Transformer/README.md",
        "dle_pt_transformer",
        "transformer",
        "PyTorch",
        "tokens/s",
        (Variant(".", "Transformer big (WMT14 en-de)"),),
        batch_unit="tokens",
        batch_order=("amp", "full"),
        notes="batch in tokens (--max-tokens); the DGX-1 cell '5120/2560' is AMP/FP32: "
        "scripts/run_DGX1_AMP.sh sets BS=5120, run_DGX1_FP32.sh BS=2560",
    ),
    Readme(
        "PyTorch/Translation/GNMT/README.md",
        "dle_pt_gnmt",
        "rnn",
        "PyTorch",
        "tokens/s",
        (Variant(".", "GNMT v2 (WMT16 en-de)"),),
    ),
    Readme(
        "TensorFlow/Translation/GNMT/README.md",
        "dle_tf1_gnmt",
        "rnn",
        "TensorFlow 1",
        "tokens/s",
        (Variant(".", "GNMT v2 (WMT16 en-de)"),),
    ),
    Readme(
        "PyTorch/SpeechRecognition/Jasper/README.md",
        "dle_pt_jasper",
        "cnn",
        "PyTorch",
        "sequences/s",
        (Variant(".", "Jasper 10x5 (LibriSpeech)"),),
        max_note="the README: 'We report the maximum batch sizes (as powers of 2), which are "
        "allowed without gradient accumulation'",
    ),
    Readme(
        "PyTorch/SpeechRecognition/QuartzNet/README.md",
        "dle_pt_quartznet",
        "cnn",
        "PyTorch",
        "sequences/s",
        (Variant(".", "QuartzNet 10x5 (LibriSpeech)"),),
    ),
    Readme(
        "PyTorch/SpeechSynthesis/Tacotron2/README.md",
        "dle_pt_tacotron2",
        "rnn",
        "PyTorch",
        "mels/s",
        (Variant(".", "Tacotron 2 (LJSpeech)"),),
        columns=(
            ("mels", "Tacotron 2 (LJSpeech)", "rnn", "mels/s"),
            ("samples", "WaveGlow (LJSpeech)", "cnn", "samples/s"),
        ),
    ),
    Readme(
        "PyTorch/SpeechSynthesis/FastPitch/README.md",
        "dle_pt_fastpitch",
        "transformer",
        "PyTorch",
        "frames/s",
        (Variant(".", "FastPitch (LJSpeech)"),),
    ),
    Readme(
        "PyTorch/SpeechSynthesis/HiFiGAN/README.md",
        "dle_pt_hifigan",
        "cnn",
        "PyTorch",
        "frames/s",
        (Variant(".", "HiFi-GAN (LJSpeech)"),),
    ),
    Readme(
        "CUDA-Optimized/FastSpeech/README.md",
        "dle_fastspeech",
        "transformer",
        "PyTorch",
        "mels/s",
        (Variant(".", "FastSpeech (LJSpeech)"),),
    ),
    Readme(
        "PyTorch/Segmentation/nnUNet/README.md",
        "dle_pt_nnunet",
        "cnn",
        "PyTorch",
        "images/s",
        (Variant(".", "nnU-Net (BraTS)"),),
    ),
    Readme(
        "TensorFlow2/Segmentation/nnUNet/README.md",
        "dle_tf2_nnunet",
        "cnn",
        "TensorFlow 2",
        "images/s",
        (Variant(".", "nnU-Net (BraTS)"),),
    ),
    Readme(
        "TensorFlow/Segmentation/UNet_3D_Medical/README.md",
        "dle_tf1_unet3d",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "3D U-Net (BraTS)"),),
    ),
    Readme(
        "TensorFlow/Segmentation/UNet_Medical/README.md",
        "dle_tf1_unet_medical",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "U-Net medical (EM segmentation)"),),
    ),
    Readme(
        "TensorFlow2/Segmentation/UNet_Medical/README.md",
        "dle_tf2_unet_medical",
        "cnn",
        "TensorFlow 2",
        "images/s",
        (Variant(".", "U-Net medical (EM segmentation)"),),
    ),
    Readme(
        "TensorFlow/Segmentation/UNet_Industrial/README.md",
        "dle_tf1_unet_industrial",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "U-Net industrial (DAGM 2007)"),),
    ),
    Readme(
        "TensorFlow/Segmentation/VNet/README.md",
        "dle_tf1_vnet",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "V-Net (hippocampus)"),),
    ),
    Readme(
        "PyTorch/Detection/SSD/README.md",
        "dle_pt_ssd",
        "cnn",
        "PyTorch",
        "images/s",
        (Variant(".", "SSD300 v1.1 (COCO)"),),
    ),
    Readme(
        "TensorFlow/Detection/SSD/README.md",
        "dle_tf1_ssd",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "SSD320 v1.2 (COCO)"),),
    ),
    Readme(
        "PyTorch/Segmentation/MaskRCNN/README.md",
        "dle_pt_maskrcnn",
        "cnn",
        "PyTorch",
        "images/s",
        (Variant(".", "Mask R-CNN (COCO)"),),
    ),
    Readme(
        "TensorFlow2/Segmentation/MaskRCNN/README.md",
        "dle_tf2_maskrcnn",
        "cnn",
        "TensorFlow 2",
        "images/s",
        (
            Variant("Tensorflow 1", "Mask R-CNN (COCO), TF 1.x code path"),
            Variant(".", "Mask R-CNN (COCO)"),
        ),
    ),
    Readme(
        "TensorFlow2/Detection/Efficientdet/README.md",
        "dle_tf2_efficientdet",
        "cnn",
        "TensorFlow 2",
        "images/s",
        (Variant(".", "EfficientDet-D0 (COCO)"),),
    ),
    Readme(
        "TensorFlow/Classification/ConvNets/resnet50v1.5/README.md",
        "dle_tf1_rn50",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "ResNet-50 v1.5 (ImageNet)"),),
    ),
    Readme(
        "TensorFlow/Classification/ConvNets/resnext101-32x4d/README.md",
        "dle_tf1_resnext101",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "ResNeXt101-32x4d (ImageNet)"),),
    ),
    Readme(
        "TensorFlow/Classification/ConvNets/se-resnext101-32x4d/README.md",
        "dle_tf1_seresnext101",
        "cnn",
        "TensorFlow 1",
        "images/s",
        (Variant(".", "SE-ResNeXt101-32x4d (ImageNet)"),),
    ),
    Readme(
        "MxNet/Classification/RN50v1.5/README.md",
        "dle_mx_rn50",
        "cnn",
        "MXNet",
        "images/s",
        (Variant(".", "ResNet-50 v1.5 (ImageNet)"),),
    ),
)


class Table(Struct, frozen=True):
    line: int
    headings: tuple[str, ...]
    """The headings inside the training section above the table, outermost first."""
    prose: str
    """The text between the last heading and the table (commands, container, GPUs)."""
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


SECTION = re.compile(r"training\s+(performance|throughput)\s+results", re.I)
HEADING = re.compile(r"^(#+)\s*(?!\|)(.*?)\s*$")


def cells(line: str) -> tuple[str, ...]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return tuple(c.strip().replace("**", "").strip() for c in inner.split("|"))


def training_tables(text: str) -> Iterator[Table]:
    """The tables under a README's 'Training performance results' heading (or '... throughput
    results'), each with the headings and the prose above it (the section's own included)."""
    lines = text.splitlines()
    level = 0  # the section's heading level; 0 outside it
    stack: list[tuple[int, str]] = []
    prose: dict[int, list[str]] = {}
    row_line = re.compile(r"\s*\||\s*:?-{3,}:?\s*\|")
    i = 0
    while i < len(lines):
        line = lines[i]
        found = HEADING.match(line)
        if found and len(found.group(1)) == 1 and level:
            found = None  # a shell comment in a code block, not a heading inside the section
        if found:
            depth, title = len(found.group(1)), found.group(2)
            if SECTION.search(title):
                level, stack, prose = depth, [(depth, title)], {depth: []}
            elif level and depth <= level:
                level = 0
            elif level:
                stack = [(d, t) for d, t in stack if d < depth] + [(depth, title)]
                prose = {d: p for d, p in prose.items() if d < depth} | {depth: []}
            i += 1
            continue
        if level and row_line.match(line):
            block = []
            while i < len(lines) and row_line.match(lines[i]):
                block.append(lines[i])
                i += 1
            separator = len(block) > 1 and re.fullmatch(r"[\s|:-]*", block[1])
            if separator and len(block) > 2:
                yield Table(
                    i - len(block) + 1,
                    tuple(t for _, t in stack),
                    " ".join(" ".join(p) for _, p in sorted(prose.items())),
                    cells(block[0]),
                    tuple(cells(b) for b in block[2:]),
                )
            continue
        if level and line.strip():
            prose[max(prose)].append(line.strip())
        i += 1


GPU_PATTERNS: tuple[tuple[str, str | None], ...] = (
    (r"DGX-2", None),  # V100 SXM3 32GB: not in the catalog
    (r"A100[^|]{0,12}?80\s?GB?\b|A100 80G", "a100_sxm4_80gb"),
    (r"A100[^|]{0,12}?40\s?GB?\b|A100 40G", "a100_sxm4_40gb"),
    (r"(V100|DGX-1)[^|]{0,12}?32\s?GB?\b", "v100_sxm2_32gb"),
    (r"(V100|DGX-1)[^|]{0,12}?16\s?GB?\b", "v100_sxm2_16gb"),
)


def gpu_of(table: Table) -> tuple[str | None, str]:
    """The catalog key of the GPU a table ran on (its innermost heading that names one), and
    the text that named it; None where it names a GPU outside the catalog or none."""
    for text in (*reversed(table.headings), table.prose):
        for pattern, key in GPU_PATTERNS:
            found = re.search(pattern, text)
            if found:
                return key, text
    return None, ""


AMP_WORDS = r"mixed precision|\bamp\b|\bfp16\b|\bbf16\b"
FULL_WORDS = r"\bfp32\b|\btf32\b|\btf\b"


def precision_classes(text: str) -> set[str]:
    low = text.lower()
    found = set()
    if re.search(AMP_WORDS, low):
        found.add("amp")
    if re.search(FULL_WORDS, low):
        found.add("full")
    return found


def precision_class(text: str) -> str | None:
    """'amp' or 'full' where a header names one precision class only."""
    found = precision_classes(text)
    return found.pop() if len(found) == 1 else None


def number(text: str) -> float | None:
    cleaned = re.sub(r"(?<=\d)[ ,](?=\d{3}\b)", "", text)
    found = re.fullmatch(r"\s*x?([0-9]+(?:\.[0-9]+)?)\s*(img/s|%)?\s*", cleaned)
    return float(found.group(1)) if found else None


def batch_of(cell: str, header: str, wanted: str, readme: Readme) -> int | None:
    """The batch a cell gives for one precision class ('amp' or 'full')."""
    tagged = re.findall(r"(\d+)\s*(?:@\s*|\(\s*)(FP16|FP32|TF32|AMP|TF)\b", cell, re.I)
    if tagged:
        for value, tag in tagged:
            if precision_class(tag) == wanted:
                return int(value)
        return None
    values = [int(v) for v in re.findall(r"\d+", cell)]
    if len(values) == 1:
        return values[0]
    if len(values) != 2:
        return None
    words = re.findall(rf"{AMP_WORDS}|{FULL_WORDS}", header.lower())
    order = tuple("amp" if re.fullmatch(AMP_WORDS, w) else "full" for w in words)
    order = order if len(order) == 2 else readme.batch_order
    if len(order) != 2 or order[0] == order[1]:
        raise ValueError(f"{readme.path}: cannot tell which batch of {cell!r} is {wanted}")
    return values[order.index(wanted)]


class Figure(Struct, frozen=True):
    model: str
    kind: str
    unit: str
    gpu: str
    precision: str
    batch: int
    seq_len: int | None
    throughput: float
    line: int
    notes: str


def variant_of(readme: Readme, table: Table, extra: str) -> Variant:
    context = " / ".join((*table.headings, extra))
    for variant in readme.variants:
        if re.search(variant.pattern, context):
            return variant
    raise ValueError(f"{readme.path}:{table.line}: no workload matches {context!r}")


def table_figures(readme: Readme, table: Table) -> Iterator[Figure]:
    header = [h.lower() for h in table.header]
    if any("node" in h for h in header):
        return  # multi-node tables
    gpu, _ = gpu_of(table)
    if gpu is None:
        return
    gpus_col = next(
        (i for i, h in enumerate(header) if re.fullmatch(r"(number of )?gpus", h)), None
    )
    batch_cols = [
        (i, precision_class(h))
        for i, h in enumerate(header)
        if "batch" in h and not re.search(r"accumulat|global|concat|time|throughput", h)
    ]
    seq_col = next((i for i, h in enumerate(header) if "sequence length" in h), None)
    dim_col = next((i for i, h in enumerate(header) if h == "dimension"), None)
    model_col = next((i for i, h in enumerate(header) if h == "model"), None)
    speed_cols = [
        (i, h)
        for i, h in enumerate(header)
        if re.search(r"throughput|img/s|number of (mels|samples) used", h)
        and not re.search(r"speedup|speed-up|scaling|asp|latency", h)
        and precision_class(h) is not None
    ]
    if len({precision_class(h) for _, h in speed_cols}) < 2 and len(speed_cols) > 1:
        return  # compares XLA on and off at one precision, not what a batch or GPU does
    ampere = gpu.startswith("a100")
    said_tf32 = any("tf32" in h for h in header)
    for col, head in speed_cols:
        cls = precision_class(head)
        assert cls is not None
        if cls == "amp":
            precision = "amp_bf16" if "bf16" in head else readme.amp
        else:
            precision = "tf32" if ampere and ("tf32" in head or said_tf32) else "fp32"
        model, kind, unit = None, readme.kind, readme.unit
        for pattern, name, col_kind, col_unit in readme.columns:
            if re.search(pattern, head):
                model, kind, unit = name, col_kind, col_unit
        in_header = re.search(r"\(bs=(\d+)\)", head)
        own = [i for i, c in batch_cols if c == cls]
        shared = [i for i, c in batch_cols if c is None]
        batch_col = own[0] if own else (shared[0] if shared else None)
        for row in table.rows:
            if len(row) != len(header):
                continue
            if gpus_col is None or row[gpus_col] != "1":
                continue
            value = number(row[col])
            if value is None:
                continue
            if in_header:
                batch: int | None = int(in_header.group(1))
            elif batch_col is not None:
                batch = batch_of(row[batch_col], table.header[batch_col], cls, readme)
            else:
                batch = prose_batch(table.prose, cls)
            if batch is None or batch > readme.max_batch:
                continue
            extra = " ".join(row[c] for c in (model_col, dim_col) if c is not None)
            variant = variant_of(readme, table, extra)
            seq = int(row[seq_col]) if seq_col is not None else variant.seq_len
            name = model or variant.model
            if dim_col is not None:
                name = f"{name} {row[dim_col]}D"
            notes = []
            if "xla" in head:
                notes.append("XLA")
            if not ampere and "tf32" in head:
                notes.append("column says TF32 on a pre-Ampere GPU: FP32")
            yield Figure(
                name, kind, unit, gpu, precision, batch, seq, value, table.line, "; ".join(notes)
            )


def prose_batch(prose: str, wanted: str) -> int | None:
    """The batch of a benchmark command in the text above a table (MXNet's
    `benchmark.py ... -b 512 --dtype float16`)."""
    for value, dtype in re.findall(r"-b (\d+) --dtype (float16|float32)", prose):
        if ("amp" if dtype == "float16" else "full") == wanted:
            return int(value)
    return None


def container_of(table: Table) -> str:
    found = re.search(
        r"(?:pytorch|tensorflow|mxnet|paddlepaddle)[-:]?\s?(\d{2}\.\d{2})|(\d{2}\.\d{2})-(?:py3|tf)",
        table.prose,
        re.I,
    )
    if not found:
        return ""
    yy_mm = found.group(1) or found.group(2)
    return f"20{yy_mm[:2]}-{yy_mm[3:]}"


DROPPED: dict[tuple[str, str, str, str, int | None, int, float], str] = {
    # (source, model, gpu, precision, seq_len, batch, throughput): why
    (
        "dle_pt_bert",
        "BERT-large pre-training",
        "v100_sxm2_32gb",
        "amp_fp16",
        512,
        10,
        46.0,
    ): "2019 README versions list the SQuAD fine-tuning row (batch 10: 46.00, 164.00, 325.60) "
    "in the pre-training table as well",
}


def dle_history(repo: Path, path: str) -> list[tuple[str, str, str]]:
    """(commit, date, path at that commit) of every README version, newest first."""
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--name-only", "--format=@%H %cs", DLE_COMMIT, "--", path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    versions = []
    for block in out.split("@")[1:]:
        lines = [x for x in block.splitlines() if x.strip()]
        commit, date = lines[0].split()
        versions.append((commit, date, lines[-1] if len(lines) > 1 else path))
    return versions


def blob_url(repo: str, commit: str, path: str, line: int | None = None) -> str:
    anchor = f"#L{line}" if line else ""
    return f"https://github.com/{repo}/blob/{commit}/{path}{anchor}"


def dle_rows(repo: Path, memory: dict[str, float]) -> Iterator[dict[str, str]]:
    """Rows of every README at the pinned commit, and sweeps from earlier README versions where
    no newer version sweeps that workload, GPU and precision class (a sweep a later version
    replaced by one batch, or a GPU it no longer lists). The tables under one heading of one
    README version are one campaign (older READMEs give each batch a table of its own). An
    older sweep whose figures a README version also gives under another GPU is left out: one
    of the two labels is wrong."""
    for readme in README:
        folder = readme.path.rsplit("/", 1)[0]
        licence = licence_of(repo, DLE_COMMIT, folder)
        campaigns: dict[
            tuple[int, str, str, str, tuple[str, ...]],
            dict[tuple[object, ...], list[tuple[Figure, Table]]],
        ] = {}
        for n, (commit, date, path) in enumerate(dle_history(repo, readme.path)):
            for table in training_tables(git_show(repo, commit, path)):
                try:
                    figures = list(table_figures(readme, table))
                except ValueError:
                    if n == 0:
                        raise
                    continue  # an older layout this parser does not read
                groups = campaigns.setdefault((n, commit, date, path, table.headings), {})
                for f in figures:
                    if figure_key(readme, f) not in DROPPED:
                        groups.setdefault(group_key(f), []).append((f, table))
        labels: dict[frozenset[tuple[int, float]], set[str]] = {}
        for groups in campaigns.values():
            for members in groups.values():
                labels.setdefault(figure_set(members), set()).add(members[0][0].gpu)
        swept: set[tuple[object, ...]] = set()
        for (n, commit, date, path, _), groups in campaigns.items():
            for key, members in groups.items():
                sweep = len({f.batch for f, _ in members}) > 1
                if n > 0 and (not sweep or key in swept or len(labels[figure_set(members)]) > 1):
                    continue
                if sweep:
                    swept.add(key)
                largest = is_largest(readme, key, members, groups)
                top = max(f.batch for f, _ in members)
                for f, table in sorted(members, key=lambda m: m[0].batch):
                    pinned = DLE_COMMIT if n == 0 else commit
                    row = dle_row(
                        readme, licence, pinned, date, path, table, f, sweep, largest, n, memory
                    )
                    claimed = n == 0 and "amp" in readme.max_classes and readme.max_note
                    if sweep and f.batch == top and claimed:
                        row["notes"] += (
                            f"; the sweep's largest batch fits, no larger: {readme.max_note}"
                        )
                    yield row


def is_largest(
    readme: Readme,
    key: tuple[object, ...],
    members: list[tuple[Figure, Table]],
    groups: dict[tuple[object, ...], list[tuple[Figure, Table]]],
) -> bool:
    """Whether the README says a single-batch group ran the largest batch that fits. Where its
    note is about FP32/TF32 runs not fitting the mixed-precision batch, only a full-precision
    group whose batch is below the mixed-precision one of its table is such a group (an A100's
    TF32 BERT at sequence 128 ran the same 64 as mixed precision)."""
    if not readme.max_note or len({f.batch for f, _ in members}) > 1:
        return False  # (max_note quotes the pinned README: older versions are sweeps only)
    amp = bool(key[2])
    if ("amp" if amp else "full") not in readme.max_classes:
        return False
    if amp or "amp" in readme.max_classes:
        return True
    twin = groups.get((key[0], key[1], True, key[3]), [])
    return any(f.batch > members[0][0].batch for f, _ in twin)


def figure_set(members: list[tuple[Figure, Table]]) -> frozenset[tuple[int, float]]:
    return frozenset((f.batch, f.throughput) for f, _ in members)


def group_key(f: Figure) -> tuple[object, ...]:
    """A workload on a GPU at a precision class: 'FP32' on an A100 in one README version and
    'TF32' in the next are one group."""
    return (f.model, f.gpu, f.precision.startswith("amp"), f.seq_len)


def figure_key(readme: Readme, f: Figure) -> tuple[str, str, str, str, int | None, int, float]:
    return (readme.source, f.model, f.gpu, f.precision, f.seq_len, f.batch, f.throughput)


def dle_row(
    readme: Readme,
    licence: str,
    commit: str,
    date: str,
    path: str,
    table: Table,
    f: Figure,
    sweep: bool,
    stated_max: bool,
    version: int,
    memory: dict[str, float],
) -> dict[str, str]:
    policy = "sweep" if sweep else ("max_per_gpu" if stated_max else "fixed")
    notes = [f"README line {f.line}, under '{table.headings[-1] if table.headings else ''}'"]
    if version:
        notes.append(f"README version of {date}, replaced later")
    if stated_max:
        notes.append(readme.max_note)
    notes += [n for n in (f.notes, readme.notes) if n]
    measured = container_of(table)
    if not measured:
        notes.append("container not stated: measured is the README version's date")
    return {
        "source": readme.source,
        "url": blob_url(DLE_REPO, commit, path, f.line),
        "retrieved": RETRIEVED,
        "measured": measured or date,
        "licence": licence,
        "model": f.model,
        "kind": f.kind,
        "framework": readme.framework,
        "gpu": f.gpu,
        "gpu_memory_gb": f"{memory[f.gpu]:g}",
        "gpus": "1",
        "precision": f.precision,
        "batch_per_gpu": str(f.batch),
        "batch_unit": readme.batch_unit,
        "seq_len": "" if f.seq_len is None else str(f.seq_len),
        "throughput": f"{f.throughput:g}",
        "unit": f.unit,
        "batch_policy": policy,
        "notes": "; ".join(notes),
    }


# --- NeuSight --------------------------------------------------------------------------------

NEUSIGHT_GPUS = {
    "NVIDIA_A100_80GB_PCIe": "a100_pcie_80gb",
    "NVIDIA_H100_80GB_HBM3": "h100_sxm5_80gb",
    "NVIDIA_L4": "l4",
    "Tesla_V100-PCIE-32GB": "v100_pcie_32gb",
}
NEUSIGHT_MODELS = {
    "bert_large": "BERT-large",
    "gpt2_large": "GPT-2 large",
    "gpt3_xl": "GPT-3 XL (1.3B)",
    "gpt3_27": "GPT-3 2.7B",
    "opt_13": "OPT-1.3B",
    "switchxl4": "Switch Transformer (switchxl4, MoE)",
}
LABEL = re.compile(r"scripts/asplos/label/([^/]+)/([a-z0-9_]+)-train-(\d+)-(\d+)\.json")


def neusight_rows(repo: Path, memory: dict[str, float]) -> Iterator[dict[str, str]]:
    """One row per single-GPU training label; a model with two batches on one GPU is a sweep."""
    labels = []
    for path in git_ls(repo, NEUSIGHT_COMMIT, "scripts/asplos/label"):
        found = LABEL.fullmatch(path)
        if not found or found.group(1) not in NEUSIGHT_GPUS:
            continue
        device, model, seq, batch = found.groups()
        latency_ms = json.loads(git_show(repo, NEUSIGHT_COMMIT, path))["e2e_latency"]
        labels.append((NEUSIGHT_GPUS[device], model, int(seq), int(batch), latency_ms, path))
    licence = classify_licence(git_show(repo, NEUSIGHT_COMMIT, "LICENSE"))
    licence += ", (c) 2025 Georgia Institute of Technology and Microsoft Corporation"
    for gpu, model, seq, batch, latency_ms, path in sorted(labels):
        batches = {b for g, m, s, b, _, _ in labels if (g, m, s) == (gpu, model, seq)}
        yield {
            "source": "neusight",
            "url": blob_url(NEUSIGHT_REPO, NEUSIGHT_COMMIT, path),
            "retrieved": RETRIEVED,
            "measured": "2025",
            "licence": licence,
            "model": NEUSIGHT_MODELS[model],
            "kind": "transformer",
            "framework": "PyTorch",
            "gpu": gpu,
            "gpu_memory_gb": f"{memory[gpu]:g}",
            "gpus": "1",
            "precision": "fp32",
            "batch_per_gpu": str(batch),
            "batch_unit": "items",
            "seq_len": str(seq),
            "throughput": f"{batch * 1000 / latency_ms:.4g}",
            "unit": "sequences/s",
            "batch_policy": "sweep" if len(batches) > 1 else "fixed",
            "notes": f"e2e_latency {latency_ms:.3f} ms (forward + backward, no optimizer step); "
            "sequences/s = batch x 1000 / e2e_latency",
        }


# --- mli/transformers-benchmarks ------------------------------------------------------------

MLI_BLOCKS = {
    # the notebook's variable or the cell's model -> (model name, hidden size, cross attention)
    "bert-large-uncased": ("BERT-large block", 1024, False),
    "gpt2-medium": ("GPT-2 medium block", 1024, False),
    "t5-large encoder": ("T5-large encoder block", 1024, False),
    "t5-large decoder": ("T5-large decoder block (with cross attention)", 1024, True),
}


def mli_tables(notebook: str) -> Iterator[tuple[str, int, dict[int, float]]]:
    """(block, seq_len, {batch: fwd+bwd TFLOPS}) from the notebook's printed tables."""
    block = ""
    for cell in json.loads(notebook)["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code":
            continue
        for model in ("bert-large-uncased", "gpt2-medium", "t5-large"):
            if f'AutoConfig.from_pretrained("{model}")' in source:
                block = model
        if block == "t5-large":
            block = "t5-large encoder"
        if "cross_attention=True" in source:
            block = "t5-large decoder"
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", [])) or "".join(
                output.get("data", {}).get("text/plain", [])
            )
            yield from printed_frame(block, text)


def printed_frame(block: str, text: str) -> Iterator[tuple[str, int, dict[int, float]]]:
    """A pandas frame printed in pieces: a 'batch=N ...' header line, then 'fwd+bwd seq_len=S'
    rows; pieces are joined by their row labels."""
    found: dict[int, dict[int, float]] = {}
    batches: list[int] = []
    for line in text.splitlines():
        if "batch=" in line:
            batches = [int(b) for b in re.findall(r"batch=(\d+)", line)]
            continue
        row = re.match(r"\s*fwd\+bwd seq_len=(\d+)\s+(.*)", line)
        if row and batches:
            values = [float(v) for v in row.group(2).split()]
            found.setdefault(int(row.group(1)), {}).update(zip(batches, values, strict=True))
    for seq, by_batch in found.items():
        yield block, seq, by_batch


def mli_rows(repo: Path, memory: dict[str, float]) -> Iterator[dict[str, str]]:
    licence = classify_licence(
        git_show(repo, "3370b2b3a0ad915b827dd962ff68b2333f4da6a6", "LICENSE")
    )
    for commit, gpu in MLI_COMMITS.items():
        full = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", commit],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        date = subprocess.run(
            ["git", "-C", str(repo), "log", "-1", "--format=%cs", full],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for block, seq, by_batch in mli_tables(git_show(repo, full, "micro_bench.ipynb")):
            name, h, cross = MLI_BLOCKS[block]
            attention = 4 * seq * seq * h + 8 * seq * h * h
            flops_per_sequence = 3 * (16 * seq * h * h + (2 if cross else 1) * attention)
            for batch, tflops in sorted(by_batch.items()):
                yield {
                    "source": "mli_transformers_benchmarks",
                    "url": blob_url(MLI_REPO, full, "micro_bench.ipynb"),
                    "retrieved": RETRIEVED,
                    "measured": date,
                    "licence": licence,
                    "model": name,
                    "kind": "transformer",
                    "framework": "PyTorch",
                    "gpu": gpu,
                    "gpu_memory_gb": f"{memory[gpu]:g}",
                    "gpus": "1",
                    "precision": "fp16",
                    "batch_per_gpu": str(batch),
                    "batch_unit": "items",
                    "seq_len": str(seq),
                    "throughput": f"{tflops * 1e12 / flops_per_sequence:.4g}",
                    "unit": "sequences/s",
                    "batch_policy": "sweep",
                    "notes": f"one block, forward + backward, model.half(); the notebook prints "
                    f"{tflops} TFLOPS; sequences/s = TFLOPS x 1e12 / {flops_per_sequence:.4g} "
                    "FLOPs per sequence (its own FLOP count)",
                }


# --- Baidu DeepBench -----------------------------------------------------------------------

DEEPBENCH_FILES = {
    # results/train/<file>: (catalog key, why that key)
    "DeepBench_NV_V100.xlsx": (
        "v100_sxm2_16gb",
        "the Specs sheet says NVIDIA V100 in a DGX-1, without the memory: 16 and 32 GB SXM2 "
        "boards run the same chip and clocks",
    ),
    "DeepBench_NV_P100.xlsx": (
        "p100_pcie_16gb",
        "the Specs sheet: NVIDIA Tesla P100 on an ASUS X99-E WS workstation board (PCIe)",
    ),
    "DeepBench_NV_1080Ti.xlsx": ("gtx1080ti", "the Specs sheet: NVIDIA GTX 1080 Ti"),
}
DEEPBENCH_SHEETS = {
    # sheet name -> precision; the P100's 'Psuedo FP16' (FP16 storage, FP32 math) is left out
    "Results FP32": "fp32",
    "Results - FP32": "fp32",
    "Results - FP16 ip, Mixed math": "fp16",
}
XLSX = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def xlsx_sheets(data: bytes) -> dict[str, list[tuple[int, dict[str, str]]]]:
    """Each sheet's rows as (row number, {column letter: text}), read with the standard library
    (an .xlsx is a zip of XML parts)."""
    import io
    import xml.etree.ElementTree as ET
    import zipfile

    book = zipfile.ZipFile(io.BytesIO(data))
    strings = []
    if "xl/sharedStrings.xml" in book.namelist():
        for item in ET.fromstring(book.read("xl/sharedStrings.xml")).iter(f"{XLSX}si"):
            strings.append("".join(t.text or "" for t in item.iter(f"{XLSX}t")))
    sheets = ET.fromstring(book.read("xl/workbook.xml")).find(f"{XLSX}sheets")
    assert sheets is not None
    out = {}
    for index, sheet in enumerate(sheets, start=1):
        root = ET.fromstring(book.read(f"xl/worksheets/sheet{index}.xml"))
        rows = []
        for row in root.iter(f"{XLSX}row"):
            values = {}
            for cell in row.iter(f"{XLSX}c"):
                found = cell.find(f"{XLSX}v")
                if found is None or found.text is None:
                    continue
                text = strings[int(found.text)] if cell.get("t") == "s" else found.text
                values[re.sub(r"\d", "", cell.get("r", ""))] = text.strip()
            rows.append((int(row.get("r", "0")), values))
        out[str(sheet.get("name"))] = rows
    return out


def deepbench_rows(repo: Path, memory: dict[str, float]) -> Iterator[dict[str, str]]:
    """The recurrent-layer training kernels (vanilla RNN, LSTM, GRU: forward, backward with
    respect to the inputs and to the weights) at batch N = 8 to 128 per hidden size and
    timesteps; sequences/s = N x 1000 / (the three times' sum, the sheets' 'Total Time')."""
    rows = list(deepbench_layers(repo, memory))
    batches: dict[tuple[str, ...], set[str]] = {}
    for row in rows:
        batches.setdefault(sweep_key(row), set()).add(row["batch_per_gpu"])
    for row in rows:
        row["batch_policy"] = "sweep" if len(batches[sweep_key(row)]) > 1 else "fixed"
    yield from rows


def deepbench_layers(repo: Path, memory: dict[str, float]) -> Iterator[dict[str, str]]:
    licence = classify_licence(git_show(repo, DEEPBENCH_COMMIT, "LICENSE"))
    for name, (gpu, why) in DEEPBENCH_FILES.items():
        path = f"results/train/{name}"
        data = subprocess.run(
            ["git", "-C", str(repo), "show", f"{DEEPBENCH_COMMIT}:{path}"],
            check=True,
            capture_output=True,
        ).stdout
        date = subprocess.run(
            ["git", "-C", str(repo), "log", "-1", "--format=%cs", DEEPBENCH_COMMIT, "--", path],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for sheet, rows in xlsx_sheets(data).items():
            precision = DEEPBENCH_SHEETS.get(sheet)
            if precision is None:
                continue
            layer, columns = "", {}
            for number_, values in rows:
                head = values.get("A", "")
                if head.startswith("Recurrent Layers - "):
                    layer = head.removeprefix("Recurrent Layers - ")
                    columns = {v.strip().lower(): k for k, v in values.items()}
                    continue
                if head or not layer or "D" not in values:
                    layer = "" if head else layer
                    continue
                times = [
                    values.get(columns[c], "")
                    for c in (
                        "time forward (msec)",
                        "time backward wrt inputs (msec)",
                        "time backward wrt weights (msec)",
                    )
                ]
                if not all(re.fullmatch(r"[0-9.Ee+-]+", t) for t in times):
                    continue
                total_ms = sum(float(t) for t in times)
                batch, hidden = int(values["D"]), int(values["C"])
                steps = int(values["E"])
                yield {
                    "source": "deepbench",
                    "url": blob_url(DEEPBENCH_REPO, DEEPBENCH_COMMIT, path),
                    "retrieved": RETRIEVED,
                    "measured": date,
                    "licence": licence,
                    "model": f"{layer} RNN layer, {hidden} hidden units",
                    "kind": "rnn",
                    "framework": "cuDNN",
                    "gpu": gpu,
                    "gpu_memory_gb": f"{memory[gpu]:g}",
                    "gpus": "1",
                    "precision": precision,
                    "batch_per_gpu": str(batch),
                    "batch_unit": "items",
                    "seq_len": str(steps),
                    "throughput": f"{batch * 1000 / total_ms:.4g}",
                    "unit": "sequences/s",
                    "batch_policy": "sweep",
                    "notes": f"sheet '{sheet}' row {number_} ({values.get('B', '')}); forward "
                    f"+ backward {total_ms:.4g} ms; {why}"
                    + ("; FP16 inputs, FP32 accumulation" if precision == "fp16" else ""),
                }


def catalog_memory() -> dict[str, float]:
    from costcalc.store.bundled import load_catalog

    return {spec.key: spec.memory_gb for spec in load_catalog()}


HEADER = """\
# costcalc batch sweeps: training throughput of one workload on one GPU at several batch sizes
# (batch_policy sweep), and the batch each GPU ran where a source gives one per GPU
# (max_per_gpu: the source says it is the largest that fits; fixed: the source's chosen batch).
# Derived by scripts/derive_batch_sweeps.py (see its docstring for every rule); issue 39.
# No Lambda Labs figure. Columns: measured = the container's month (DLE) or the data's date;
# gpu = costcalc catalog key, gpu_memory_gb from the catalog; precision fp32 | tf32 | amp_fp16 |
# amp_bf16 | fp16 (the model in half precision); batch_unit items (sequences, images,
# utterances) or tokens; seq_len in tokens, blank where the source fixes none (images, speech,
# translation with variable lengths). Sources, with licence:
#  dle_*: NVIDIA/DeepLearningExamples @ 729963dd (README training performance tables; older
#   README versions for sweeps they later replaced, named by commit in url); licence per model
#   folder (licence column)
#  neusight: sitar-lab/NeuSight @ 6945927d scripts/asplos/label (FP32 training labels); MIT
#  mli_transformers_benchmarks: mli/transformers-benchmarks micro_bench.ipynb @ 3370b2b3 (RTX
#   3090 Ti) and @ 53a232b0 (V100 SXM2 16GB); Apache-2.0
#  deepbench: baidu-research/DeepBench @ da81ba78 results/train (cuDNN RNN, LSTM and GRU layers,
#   forward + backward; V100, P100 PCIe, GTX 1080 Ti); Apache-2.0
# Excluded: GPUs outside the catalog (DGX-2 V100 SXM3, AMD MI100/MI210/MI250), multi-GPU rows,
# recommenders and other kinds costcalc has no kind for, inference, HF Trainer sweeps whose
# precision the stored thread does not show (docstring).
"""


def sweep_key(row: dict[str, str]) -> tuple[str, ...]:
    """One published sweep: a workload on a GPU at a precision in one source at one commit
    (NeuSight gives each batch a file of its own)."""
    snapshot = re.sub(r"(/blob/[0-9a-f]{40})/.*", r"\1", row["url"])
    return (row["source"], snapshot, row["model"], row["gpu"], row["precision"], row["seq_len"])


def mark_falls(rows: list[dict[str, str]]) -> None:
    """Say so on a row whose throughput is below that of a smaller batch of its sweep: kept as
    published, it is what the source measured (a dataloader bound, memory pressure, noise)."""
    sweeps: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for row in rows:
        sweeps.setdefault(sweep_key(row), []).append(row)
    for members in sweeps.values():
        best: dict[str, str] | None = None
        for row in sorted(members, key=lambda r: int(r["batch_per_gpu"])):
            if best and float(row["throughput"]) < float(best["throughput"]):
                fall = f"falls below batch {best['batch_per_gpu']} ({best['throughput']})"
                fall += ": as published"
                row["notes"] = f"{row['notes']}; {fall}" if row["notes"] else fall
            else:
                best = row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dle", type=Path, required=True, help="clone of " + DLE_REPO)
    parser.add_argument("--neusight", type=Path, required=True, help="clone of " + NEUSIGHT_REPO)
    parser.add_argument("--mli", type=Path, required=True, help="clone of " + MLI_REPO)
    parser.add_argument("--deepbench", type=Path, required=True, help="clone of " + DEEPBENCH_REPO)
    args = parser.parse_args()
    memory = catalog_memory()
    rows = [
        *dle_rows(args.dle, memory),
        *neusight_rows(args.neusight, memory),
        *mli_rows(args.mli, memory),
        *deepbench_rows(args.deepbench, memory),
    ]
    mark_falls(rows)
    sys.stdout.write(HEADER)
    writer = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


if __name__ == "__main__":
    main()
