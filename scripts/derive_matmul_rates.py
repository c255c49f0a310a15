"""Derive scripts/matmul_measurements.csv: measured torch.mm TFLOPS per catalog GPU.

Source: zzc0721/torch-performance-test-data database.md (community submissions of one script,
test.py: square torch.mm from 1024 to 10240, FP32 / TF32 / FP16 / BF16 inputs, PyTorch's default
FP32 accumulation, 6 warm-up and 30 timed runs; no licence file: figures only). Each row is dated
by the commit that added it (git blame). Run it on a clone of that repository:

    python scripts/derive_matmul_rates.py --repo PATH > scripts/matmul_measurements.csv

These rates are what a GPU's matmuls reach under load (on cards whose power limit binds, a burst:
see the end): the predictor's math rate where a GPU has them (costcalc.core.predict), a test of
its rules where it has not. What is kept, and what is dropped and why:

- devices not in the costcalc catalog (laptops, V100S, P40, A2000, L20, H20, H800, T10, RTX 4090 D
  and 5090 D, the RTX PRO 6000 Server Edition, CPUs, AMD, Apple and other vendors);
- memory-modded boards (RTX 4090 48GB, RTX 3080 20G): other boards, power and coolers than the
  catalog's card; the RTX 2080 Ti 22GB stays (the same board with larger chips, as in
  derive_speed_measurements.py), and so does the overclocked 4070 Ti SUPER's stock row;
- "NVIDIA A100 40GB" without a form factor (SXM4 or PCIe);
- figures that contradict the hardware: a TF32 rate below the FP32 rate on a GPU with TF32 tensor
  cores, a BF16 rate under 60 % of the FP16 rate on one with BF16 tensor cores (the RTX 3080 row
  of 2025-10-20: 12.6 TF32 against 15.6 FP32, 24.9 BF16 against 53.4 FP16, a throttled or shared
  card), and any figure above 1.25x the catalog's dense peak for its path (the RTX 4060 Ti 16GB's
  FP16 59.4 against 44.1);
- a row that is not the card as sold: the Tesla P4's (4.96 / 4.8 / 2.82) is the overclocked run
  ("oc to 1500Mhz") of issue 9, which also gives the stock run; the stock figures (STOCK) stand.

The figure of each row is the best of the five sizes, which on power-limited cards (the T4, L4,
RTX 2080 Ti) is a burst of about 10 ms before their power limit binds: the rates those cards hold
under sustained load are in scripts/sustained_matmul_measurements.csv.
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

DEVICES: dict[str, str | None] = {
    # as written in database.md -> catalog key (None: dropped, see the docstring)
    "NVIDIA Tesla T4 16GB": "t4",
    "NVIDIA L4": "l4",
    "NVIDIA Tesla P4 8GB": "p4",
    "NVIDIA Tesla P100 PCIE 16GB": "p100_pcie_16gb",
    "NVIDIA Tesla V100-SXM2-16GB": "v100_sxm2_16gb",
    "NVIDIA A100 40GB": None,  # no form factor
    "NVIDIA A100-PCIE-40GB": "a100_pcie_40gb",
    "NVIDIA A100 SXM4 80GB": "a100_sxm4_80gb",
    "NVIDIA H100 80GB HBM3": "h100_sxm5_80gb",
    "NVIDIA H100 PCIe": "h100_pcie_80gb",
    "NVIDIA H200": "h200_sxm_141gb",
    "NVIDIA L40S": "l40s",
    "NVIDIA RTX A6000": "rtx_a6000",
    "NVIDIA RTX A4000": "rtx_a4000",
    "NVIDIA RTX PRO 6000 Workstation 96G": "rtx_pro6000",
    "NVIDIA GeForce GTX 1080 Ti": "gtx1080ti",
    "NVIDIA GeForce GTX 1660 Ti": "gtx1660ti",
    "NVIDIA RTX 2080 8GB": "rtx2080",
    "NVIDIA GeForce RTX 2070": "rtx2070",
    "NVIDIA GeForce RTX 2080 Ti 22GB": "rtx2080ti",
    "NVIDIA GeForce RTX 3060 Ti": "rtx3060ti",
    "NVIDIA GeForce RTX 3070 8GB": "rtx3070",
    "NVIDIA GeForce RTX 3080": "rtx3080",
    "NVIDIA GeForce RTX 3080 10GB": "rtx3080",
    "NVIDIA RTX 3080 Ti 12GB": "rtx3080ti",
    "NVIDIA GeForce RTX 3080 Ti": "rtx3080ti",
    "NVIDIA RTX 3090 24GB": "rtx3090",
    "NVIDIA GeForce RTX 3090 24GB": "rtx3090",
    "NVIDIA GeForce RTX 3090": "rtx3090",
    "NVIDIA GeForce RTX 4060": "rtx4060",
    "NVIDIA GeForce RTX 4060 Ti 16GB": "rtx4060ti_16gb",
    "NVIDIA RTX 4070 SUPER 12GB": "rtx4070_super",
    "NVIDIA GeForce RTX 4070 Ti SUPER 16GB": "rtx4070ti_super",
    "NVIDIA GeForce RTX 4070 Ti SUPER": "rtx4070ti_super",
    "NVIDIA RTX 4090 24GB": "rtx4090",
    "NVIDIA GeForce RTX 4090 24GB": "rtx4090",
    "NVIDIA GeForce RTX 4090": "rtx4090",
    "NVIDIA RTX 5090 32GB": "rtx5090",
    "NVIDIA GeForce RTX 5090": "rtx5090",
    "NVIDIA GeForce RTX 5080": "rtx5080",
    "NVIDIA GeForce RTX 5070 Ti": "rtx5070ti",
    "NVIDIA GeForce RTX 5070": "rtx5070",
    "NVIDIA GeForce RTX 5060 Ti": "rtx5060ti_16gb",
}
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
STOCK = {
    # device as written -> the same submission's stock-clock figures (issue 9, 2025-02-12: the
    # best of five sizes of its unmodified run; BF16's best at 8192^2)
    "NVIDIA Tesla P4 8GB": {"fp32": 4.55, "tf32": None, "fp16": 4.25, "bf16": 2.55},
}
FIELDS = ["device", "gpu", *PRECISIONS, "date", "commit"]
MAX_OVER_PEAK = 1.25
MIN_BF16_OVER_FP16 = 0.6


def table_rows(text: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) of every data row of database.md's table."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or cells[0] in ("device", "") or set(cells[0]) <= {"-", " "}:
            continue
        out.append((number, cells))
    return out


def number(cell: str) -> float | None:
    found = re.fullmatch(r"\d+(\.\d+)?", cell.strip())
    return float(cell) if found else None


def blame_dates(repo: Path, path: str) -> dict[int, tuple[str, str]]:
    """Line number -> (date, commit) of the commit that last changed it."""
    text = subprocess.run(
        ["git", "-C", str(repo), "blame", "--date=short", "-l", "HEAD", "--", path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    out = {}
    for line in text.splitlines():
        found = re.match(r"([0-9a-f]{40}) .*?(\d{4}-\d{2}-\d{2})\s+(\d+)\)", line)
        if found:
            out[int(found.group(3))] = (found.group(2), found.group(1)[:8])
    return out


def kept(gpu: str, rates: dict[str, float | None]) -> dict[str, float | None]:
    """The row's figures that agree with the hardware (see the docstring); None where dropped."""
    from costcalc.store.bundled import load_catalog

    spec = load_catalog().get(gpu)
    peaks = {
        "fp32": spec.fp32_tflops,
        "tf32": spec.tf32_tensor_tflops or spec.fp32_tflops,
        "fp16": spec.fp16_tensor_tflops or spec.fp32_tflops,
        "bf16": spec.bf16_tensor_tflops or spec.fp32_tflops,
    }
    fp32, tf32, fp16, bf16 = (rates[p] for p in PRECISIONS)
    if spec.tf32_tensor_tflops and fp32 and tf32 and tf32 < fp32:
        return dict.fromkeys(PRECISIONS)
    if spec.bf16_tensor_tflops and fp16 and bf16 and bf16 < MIN_BF16_OVER_FP16 * fp16:
        return dict.fromkeys(PRECISIONS)
    return {p: v if v is None or v <= MAX_OVER_PEAK * peaks[p] else None for p, v in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="a clone of the source repo")
    ns = parser.parse_args()
    text = subprocess.run(
        ["git", "-C", str(ns.repo), "show", "HEAD:database.md"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    head = subprocess.run(
        ["git", "-C", str(ns.repo), "rev-parse", "--short=8", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    dates = blame_dates(ns.repo, "database.md")
    out, seen = [], set()
    for line, cells in table_rows(text):
        gpu = DEVICES.get(cells[0])
        if gpu is None:
            continue
        table = {p: number(c) for p, c in zip(PRECISIONS, cells[1:5], strict=True)}
        rates = kept(gpu, STOCK.get(cells[0], table))
        if not any(rates.values()) or (gpu, *rates.values()) in seen:
            continue  # a submission entered twice (the RTX 3060 Ti's) counts once
        seen.add((gpu, *rates.values()))
        date, commit = dates[line]
        row = {"device": cells[0], "gpu": gpu, "date": date, "commit": commit}
        row |= {p: "" if v is None else f"{v:g}" for p, v in rates.items()}
        out.append(row)
    print("# costcalc matmul measurements: torch.mm TFLOPS per GPU, one row per submission.")
    print("# Derived by scripts/derive_matmul_rates.py (its docstring: what is kept and dropped)")
    print(f"# from zzc0721/torch-performance-test-data database.md @ {head}; licence: no licence")
    print("# file: figures only. date and commit: the commit that added the row (git blame).")
    writer = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(sorted(out, key=lambda r: (r["gpu"], r["date"], r["device"])))


if __name__ == "__main__":
    main()
