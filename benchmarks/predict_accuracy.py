"""Leave-one-GPU-out accuracy of costcalc.predict on public measurements, next to simple baselines.

Data: sitar-lab/NeuSight e2e_latency_labels.csv (MIT, (c) 2025 Georgia Institute of Technology
and Microsoft Corporation): FP32 train and inference step times of six transformer models on
eight NVIDIA GPUs in the costcalc catalog. Multi-GPU variants (dp4/tp4/pp4, the only rows of the
A100 SXM4) and the AMD GPUs (not in the catalog) are left out.

For each GPU g, everything is refitted without g: the FP32 fit (transformer compute share, power
exponent, pre-Volta efficiency) on every pair of measurements that does not involve g, then the
16-bit overhead shares on the DOMAIN.md speed-ups. Then g's step times are predicted from each
other GPU's time for the same model, mode, sequence length and batch. Errors are
|predicted - measured| / measured. Baselines: bandwidth ratio, and sqrt(FP32 FLOPS x bandwidth).

    .venv/bin/python benchmarks/predict_accuracy.py [--data DIR] [--fit] [--write-fixture PATH]

--fit prints the parameters fitted on all the data (what costcalc/data/predict_calibration.yaml
holds) and the band from the leave-one-out errors. --write-fixture writes the small derived
table tests/test_predict.py uses (step times relative to the fastest GPU of each group).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from costcalc.loaders import load_catalog
from costcalc.models import GpuSpec
from costcalc.predict import Calibration, fit_fp32, load_calibration, math_path, speedup

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "sitar-lab_NeuSight"
DEVICES = {
    "NVIDIA_A100-PCIE-40GB": "a100_pcie_40gb",
    "NVIDIA_A100_80GB_PCIe": "a100_pcie_80gb",
    "NVIDIA_H100_80GB_HBM3": "h100_sxm5_80gb",
    "NVIDIA_L4": "l4",
    "Tesla_P100-PCIE-16GB": "p100_pcie_16gb",
    "Tesla_P4": "p4",
    "Tesla_T4": "t4",
    "Tesla_V100-PCIE-32GB": "v100_pcie_32gb",
}
Group = tuple[str, str, str, str, str]
Pair = tuple[Group, str, str, float, float]  # group, source, target, source ms, target ms
Predictor = Callable[[GpuSpec, GpuSpec], float]  # -> target time / source time
DOMAIN_SPEEDUPS = {  # DOMAIN.md section 3 (Dettmers 2020/2023), mixed precision
    "transformer": (("v100_sxm2_16gb", "a100_sxm4_40gb", 1.70), ("rtx2080ti", "rtx3090", 1.50)),
    "cnn": (("v100_sxm2_16gb", "a100_sxm4_40gb", 1.45), ("rtx2080ti", "rtx3090", 1.57)),
}


def load_groups(data: Path) -> dict[Group, dict[str, float]]:
    groups: dict[Group, dict[str, float]] = {}
    with (data / "e2e_latency_labels.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["device"] not in DEVICES or row["variant"] not in ("", "fusion"):
                continue
            key = (row["model"], row["mode"], row["seq_len"], row["batch"], row["variant"])
            groups.setdefault(key, {})[DEVICES[row["device"]]] = float(row["e2e_latency_ms"])
    return {k: v for k, v in groups.items() if len(v) > 1}


def pairs(
    groups: dict[Group, dict[str, float]], *, target: str | None = None, without: str | None = None
) -> list[Pair]:
    out = []
    for group, times in groups.items():
        for src, tgt in itertools.permutations(times, 2):
            if (target and tgt != target) or (without and without in (src, tgt)):
                continue
            out.append((group, src, tgt, times[src], times[tgt]))
    return out


def errors(predictor: Predictor, data: Iterable[Pair]) -> list[float]:
    catalog = load_catalog()
    return [
        abs(src_ms * predictor(catalog.get(src), catalog.get(tgt)) - tgt_ms) / tgt_ms
        for _group, src, tgt, src_ms, tgt_ms in data
    ]


def model(cal: Calibration) -> Predictor:
    return lambda s, t: 1 / speedup(s, t, "transformer", "fp32", cal=cal)


def bandwidth_ratio(s: GpuSpec, t: GpuSpec) -> float:
    return s.bandwidth_gbs / t.bandwidth_gbs


def sqrt_flops_bandwidth(s: GpuSpec, t: GpuSpec) -> float:
    return math.sqrt(s.fp32_tflops * s.bandwidth_gbs / (t.fp32_tflops * t.bandwidth_gbs))


# --------------------------------------------------------------------------- fitting


def fit(data: Sequence[Pair], cal: Calibration) -> Calibration:
    """The whole calibration from these pairs: FP32 fit, then the DOMAIN 16-bit overheads.

    Starts from no overhead, so nothing fitted before (the shipped figures) leaks into a fold;
    two rounds, because the overhead share and the FP32 split each move the other a little.
    """
    catalog = load_catalog()
    spec_pairs = [(catalog.get(s), catalog.get(t), t_ms / s_ms) for _g, s, t, s_ms, t_ms in data]
    kinds = {k: p.model_copy(update={"overhead_share": 0.0}) for k, p in cal.kinds.items()}
    cal = cal.model_copy(update={"kinds": kinds})
    for _round in range(2):
        cal = fit_round(spec_pairs, cal)
    return cal


def fit_round(
    spec_pairs: Sequence[tuple[GpuSpec, GpuSpec, float]], cal: Calibration
) -> Calibration:
    cal = fit_fp32(spec_pairs, cal, "transformer")
    transformer = cal.kinds["transformer"]
    kinds = dict(cal.kinds)
    # generic is the transformer fit; cnn and rnn keep their own compute share (priors)
    kinds["generic"] = kinds["generic"].model_copy(
        update={"compute_share": transformer.compute_share}
    )
    cal = cal.model_copy(update={"kinds": kinds})
    for kind in DOMAIN_SPEEDUPS:
        cal = fit_overhead(cal, kind)
    overhead = cal.kinds["transformer"].overhead_share
    kinds = dict(cal.kinds)
    for kind in ("generic", "rnn"):
        kinds[kind] = kinds[kind].model_copy(update={"overhead_share": overhead})
    return cal.model_copy(update={"kinds": kinds})


def fit_overhead(cal: Calibration, kind: str) -> Calibration:
    """The FP32 overhead share (on the reference GPU) best matching the DOMAIN 16-bit speed-ups."""
    catalog = load_catalog()
    best: tuple[float, Calibration] | None = None
    for step in range(0, 41):
        share = step / 200  # 0 .. 0.2
        prior = cal.kinds[kind]
        if share >= 1 - prior.compute_share:
            break
        trial = cal.model_copy(
            update={
                "kinds": {**cal.kinds, kind: prior.model_copy(update={"overhead_share": share})}
            }
        )
        score = sum(
            math.log(speedup(catalog.get(a), catalog.get(b), kind, "fp16", cal=trial) / want) ** 2
            for a, b, want in DOMAIN_SPEEDUPS[kind]
        )
        if best is None or score < best[0] - 1e-12:
            best = (score, trial)
    assert best is not None
    return best[1]


# --------------------------------------------------------------------------- the report


def summary(errs: Sequence[float]) -> dict[str, float]:
    return {
        "median_pct": 100 * statistics.median(errs),
        "mean_pct": 100 * statistics.fmean(errs),
        "within_20_pct": 100 * sum(e <= 0.2 for e in errs) / len(errs),
        "p90_pct": 100 * sorted(errs)[int(0.9 * (len(errs) - 1))],
    }


METHODS = {
    "costcalc": "costcalc (LOO)",
    "bandwidth": "bandwidth ratio",
    "sqrt": "sqrt(FLOPS x BW)",
}


def leave_one_gpu_out(groups: dict[Group, dict[str, float]]) -> dict[str, Any]:
    cal = load_calibration()
    gpus = sorted({gpu for times in groups.values() for gpu in times})
    per_gpu: dict[str, dict[str, list[float]]] = {}
    held_out_pairs: list[Pair] = []
    ratios: list[float] = []  # measured / predicted, for the band
    for gpu in gpus:
        training = pairs(groups, without=gpu)
        assert all(gpu not in (src, tgt) for _g, src, tgt, _s, _t in training)
        fold = fit(training, cal)
        held_out = pairs(groups, target=gpu)
        held_out_pairs += held_out
        predict = model(fold)
        catalog = load_catalog()
        ratios += [
            t_ms / (s_ms * predict(catalog.get(s), catalog.get(t)))
            for _g, s, t, s_ms, t_ms in held_out
        ]
        per_gpu[gpu] = {
            "costcalc": errors(predict, held_out),
            "bandwidth": errors(bandwidth_ratio, held_out),
            "sqrt": errors(sqrt_flops_bandwidth, held_out),
        }
    return {"per_gpu": per_gpu, "pairs": held_out_pairs, "ratios": ratios}


def print_report(result: dict[str, Any]) -> dict[str, dict[str, float]]:
    per_gpu = result["per_gpu"]
    print("Leave-one-GPU-out on NeuSight FP32 transformer steps (|error| of the predicted time)")
    print("each fold refits everything without the held-out GPU\n")
    print(f"{'held-out GPU':16} {'n':>4}  " + "  ".join(f"{t:>16}" for t in METHODS.values()))
    for gpu, errs in per_gpu.items():
        cells = "  ".join(f"{100 * statistics.median(errs[m]):15.1f}%" for m in METHODS)
        print(f"{gpu:16} {len(errs['costcalc']):4}  {cells}")
    totals = {m: summary([e for errs in per_gpu.values() for e in errs[m]]) for m in METHODS}
    n = sum(len(errs["costcalc"]) for errs in per_gpu.values())
    print(f"\n{'all ' + str(n) + ' pairs':21}  " + "  ".join(f"{t:>16}" for t in METHODS.values()))
    labels = {
        "median_pct": "median |error|",
        "mean_pct": "mean |error|",
        "within_20_pct": "share within ±20%",
        "p90_pct": "90th percentile",
    }
    for stat, label in labels.items():
        print(f"{label:21}  " + "  ".join(f"{totals[m][stat]:15.1f}%" for m in METHODS))
    print("\nworst predictions (model/mode/seq/batch: source -> target):")
    for method, title in METHODS.items():
        errs = [e for gpu_errs in per_gpu.values() for e in gpu_errs[method]]
        worst = sorted(zip(errs, result["pairs"], strict=True), key=lambda w: -w[0])[:3]
        for err, (group, src, tgt, _s, _t) in worst:
            name = "/".join(x for x in group if x)
            print(f"  {title:16} {100 * err:6.1f}%  {name}: {src} -> {tgt}")
    return totals


def print_domain_checks(cal: Calibration) -> None:
    catalog = load_catalog()
    print("\nDOMAIN.md section 3 speed-ups, mixed precision (16-bit), shipped calibration:")
    print(f"{'':52} {'published':>9} {'costcalc':>9} {'BW ratio':>9} {'sqrt':>9}")
    for kind, checks in DOMAIN_SPEEDUPS.items():
        for a, b, want in checks:
            s, t = catalog.get(a), catalog.get(b)
            ours = speedup(s, t, kind, "fp16", cal=cal)
            bw = t.bandwidth_gbs / s.bandwidth_gbs
            root = math.sqrt(bw * math_path(t, "fp16")[0] / math_path(s, "fp16")[0])
            label = f"{kind}: {t.name} / {s.name}"
            print(f"{label:52} {want:9.2f} {ours:9.2f} {bw:9.2f} {root:9.2f}")


def print_fit(groups: dict[Group, dict[str, float]], result: dict[str, Any]) -> None:
    cal = fit(pairs(groups), load_calibration())
    print("\nfitted on all NeuSight pairs + DOMAIN (what predict_calibration.yaml should hold):")
    print(f"  power_exponent: {cal.power_exponent:.3f}")
    print(f"  cuda_core_efficiency: {cal.cuda_core_efficiency}")
    for kind, prior in cal.kinds.items():
        print(f"  {kind}: compute_share {prior.compute_share:.3f}, ", end="")
        print(f"overhead_share {prior.overhead_share:.3f}")
    ratios = sorted(result["ratios"])
    low, high = ratios[int(0.1 * len(ratios))], ratios[int(0.9 * len(ratios))]
    print(f"  transformer band (10th-90th percentile of measured/predicted): {low:.2f} {high:.2f}")
    print_domain_checks(cal)


def write_fixture(groups: dict[Group, dict[str, float]], path: Path) -> None:
    """Step time / the fastest GPU's step time in the same group, rounded; no raw latencies."""
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["group", "gpu", "relative_time"])
        for index, (_group, times) in enumerate(sorted(groups.items())):
            if _group[4]:  # the fusion variants repeat their plain groups' GPUs
                continue
            fastest = min(times.values())
            for gpu, ms in sorted(times.items()):
                out.writerow([index, gpu, f"{ms / fastest:.3f}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="NeuSight data directory")
    parser.add_argument("--fit", action="store_true", help="also fit on all data and print it")
    parser.add_argument("--write-fixture", type=Path, help="write the derived test fixture here")
    ns = parser.parse_args()
    groups = load_groups(ns.data)
    result = leave_one_gpu_out(groups)
    print_report(result)
    print_domain_checks(load_calibration())
    if ns.fit:
        print_fit(groups, result)
    if ns.write_fixture:
        write_fixture(groups, ns.write_fixture)


if __name__ == "__main__":
    main()
