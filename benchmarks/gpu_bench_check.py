"""The bench on a real GPU, in one command: what it settles on, what it draws, what it changes.

Runs, each in its own process with COSTCALC_HOME under the summary's folder (your own saved
benches are left alone):
  1. `costcalc bench --quick --save --json`          (about 30 s on an H100)
  2. `costcalc bench --full --save --json`           (a few minutes; --no-full skips it)
  3. `costcalc bench --step benchmarks.resnet50_amp_step:train_step --batch-size 256 --kind cnn`
     (a ResNet-50 AMP fp16 step with SGD, the way people write one)
  4. `costcalc quick --bench PATH --kind cnn|transformer --run-hours 100 --json --explain`
     for each saved bench, and the A100/H100 and H200/H100 speed ratios with and without it.
Prints each bench's load watts, the batch each step settled on and why, its time split, and
writes everything to SUMMARY (JSON). The whole run stays under 8 minutes on an H100.

Targets (issue 23, from /work/shared/data/gpu-h100-bench-2026-11-24.md): on an H100 SXM the load
watts within 15 % of real training (560-610 W), the reference steps math-bound at the size they
settle on (throughput stopped rising), and the desktop priced within 15 % of 700 W + the
system's watts. The summary's "checks" say which held.

    python benchmarks/gpu_bench_check.py SUMMARY.json [--no-full] [--device cuda]

On a machine that cannot reach a package index, install costcalc's dependencies from wheels
first (pydantic, pyyaml, platformdirs, filelock, requests, nvidia-ml-py; torch is there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
STEP = "benchmarks.resnet50_amp_step:train_step"
PAIRS = ("a100_sxm4_80gb", "h200_sxm_141gb")
REAL_TRAINING_W = {"cnn": 609.0, "transformer": 559.0}
"""NVML on the H100 of 2026-11-24: torchvision ResNet-50 AMP batch 256, GPT-2 small bf16."""
H100_LIMIT_W = 700.0
BUDGET_S = 8 * 60


def costcalc(args: list[str], env: dict[str, str]) -> tuple[dict[str, Any], str | None, float]:
    """Run one costcalc command; its JSON, the file it saved (if any) and its wall seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall_s = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"costcalc {' '.join(args)} exited {done.returncode}")
    saved = next(
        (
            line.split("saved ", 1)[1].strip()
            for line in done.stderr.splitlines()
            if line.startswith("costcalc: saved ")
        ),
        None,
    )
    return json.loads(done.stdout), saved, wall_s


def describe_bench(label: str, doc: dict[str, Any], wall_s: float) -> dict[str, Any]:
    print(f"\n== {label}: {wall_s:.0f} s, {doc['environment']['device_name']}")
    print(f"   idle {doc.get('idle_w')} W; load (highest step) {doc.get('power_w')} W")
    steps = []
    for w in doc["workloads"]:
        power, split = w.get("power") or {}, w.get("profile") or {}
        print(
            f"   {w['name']}: {w.get('model') or ''} {w['dtype']}, batch {w['batch_size']} "
            f"({w.get('sized_by')}; tried {[p['batch_size'] for p in w.get('sizes', [])]}), "
            f"{w['items_per_s']:,.0f} items/s, {power.get('load_w', 0):.0f} W over "
            f"{power.get('window_s', 0):.1f} s ({power.get('method')}); split math "
            f"{split.get('compute_share', 0):.0%} memory {split.get('memory_share', 0):.0%} "
            f"launches {split.get('overhead_share', 0):.0%}"
        )
        steps.append(
            {
                "name": w["name"],
                "kind": w["kind"],
                "dtype": w["dtype"],
                "dtype_source": w.get("dtype_source"),
                "model": w.get("model"),
                "description": w.get("description"),
                "batch_size": w["batch_size"],
                "sized_by": w.get("sized_by"),
                "sizes": w.get("sizes"),
                "items_per_s": w["items_per_s"],
                "step_s": w["step_s"],
                "max_batch": w.get("max_batch"),
                "split": split,
                "power": power,
            }
        )
    for warning in doc.get("warnings", []):
        print(f"   warning: {warning}")
    return {
        "wall_s": wall_s,
        "device": doc["environment"]["device_name"],
        "gpu_key": doc["environment"].get("gpu_key"),
        "idle_w": doc.get("idle_w"),
        "power_w": doc.get("power_w"),
        "matmul_tflops": doc.get("matmul_tflops"),
        "bandwidth_gbs": doc.get("bandwidth_gbs"),
        "launch_overhead_us": doc.get("launch_overhead_us"),
        "steps": steps,
        "warnings": doc.get("warnings", []),
    }


def ratios(path: str, kind: str) -> dict[str, Any]:
    """Speed of each PAIRS GPU against the bench's GPU, with the bench and without it."""
    from costcalc.bench.store import load_result
    from costcalc.core.bench_apply import effects
    from costcalc.store.bundled import load_catalog, load_predictor

    bench = load_result(Path(path))
    catalog, predictor = load_catalog(), load_predictor()
    key = bench.environment.gpu_key
    if key is None:
        return {"error": f"{bench.environment.device_name} is not a catalog GPU"}
    dtype = next((w.dtype for w in bench.workloads if w.kind == kind), bench.workloads[0].dtype)
    found = effects(bench, key, kind, dtype, None, catalog, predictor)
    source, out = catalog.get(key), {"dtype": dtype, "note": found.speed_note}
    for gpu in PAIRS:
        target = catalog.get(gpu)
        low, high = predictor.band(source, target, kind, dtype)
        without = predictor.speedup(source, target, kind, dtype)
        with_bench = found.speed(source, target) if found.speed else without
        out[f"{gpu}/{key}"] = {
            "without_bench": without,
            "with_bench": with_bench,
            "band": [without / high, without / low],
            "within_band": without / high <= with_bench <= without / low,
        }
    return out


def priced(path: str, kind: str, env: dict[str, str]) -> dict[str, Any]:
    args = ["quick", "--bench", path, "--kind", kind, "--run-hours", "100", "--json", "--explain"]
    doc, _saved, _wall_s = costcalc(args, env)
    desktop = doc["inputs"]["desktop"]
    under_load_w = desktop["gpu_watts"] * desktop.get("gpu_count", 1) + desktop["system_watts"]
    rows = {
        "gpu": desktop["gpu"],
        "gpu_watts": desktop["gpu_watts"],
        "system_watts": desktop["system_watts"],
        "desktop_under_load_w": under_load_w,
        "ratios": ratios(path, kind),
        "explain_speed": [line for line in doc.get("explain", []) if "bench" in line],
    }
    print(
        f"   quick --kind {kind}: desktop {rows['gpu']} at {rows['gpu_watts']:.0f} W GPU, "
        f"{under_load_w:.0f} W under load"
    )
    for pair, r in rows["ratios"].items():
        if isinstance(r, dict):
            print(
                f"     {pair}: {r['without_bench']:.3f} without the bench, {r['with_bench']:.3f} "
                f"with it (band {r['band'][0]:.3f}-{r['band'][1]:.3f})"
            )
    return rows


def checks(summary: dict[str, Any]) -> dict[str, bool]:
    """Issue 23's "done when", on an H100 SXM (other GPUs: the watts checks do not apply)."""
    out: dict[str, bool] = {}
    for label, bench in summary["benches"].items():
        if bench.get("gpu_key") != "h100_sxm5_80gb":
            continue
        for step in bench["steps"]:
            real_w, load_w = REAL_TRAINING_W.get(step["kind"]), step["power"].get("load_w")
            if real_w and load_w:
                out[f"{label}.{step['name']}: load watts within 15 % of {real_w:.0f} W"] = (
                    abs(load_w - real_w) <= 0.15 * real_w
                )
            out[f"{label}.{step['name']}: settled where throughput stopped rising"] = step[
                "sized_by"
            ] in ("plateau", "memory", "given")
        for kind, quick in bench.get("quick", {}).items():
            target_w = H100_LIMIT_W + quick["system_watts"]
            out[f"{label}.quick {kind}: desktop within 15 % of {target_w:.0f} W"] = (
                abs(quick["desktop_under_load_w"] - target_w) <= 0.15 * target_w
            )
            for pair, r in quick["ratios"].items():
                if isinstance(r, dict):
                    out[f"{label}.quick {kind}: {pair} within the band"] = r["within_band"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary", type=Path, help="where to write the JSON summary")
    parser.add_argument("--no-full", action="store_true", help="skip `bench --full`")
    parser.add_argument("--device", default=None, help="cuda (default: the best present)")
    parser.add_argument("--step-batch", type=int, default=256)
    ns = parser.parse_args()
    started = time.perf_counter()
    home = ns.summary.resolve().with_suffix(".home")
    env = {**os.environ, "COSTCALC_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    device = ["--device", ns.device] if ns.device else []
    runs = [("quick", ["bench", "--quick", *device]), ("full", ["bench", "--full", *device])]
    if ns.no_full:
        runs.pop()
    step = ["bench", "--step", STEP, "--batch-size", str(ns.step_batch), "--kind", "cnn"]
    runs.append(("step", [*step, *device]))
    summary: dict[str, Any] = {"benches": {}}
    for label, args in runs:
        doc, saved, wall_s = costcalc([*args, "--save", "--json"], env)
        bench = describe_bench(label, doc, wall_s)
        bench["saved"] = saved
        kinds = ("cnn",) if label == "step" else ("cnn", "transformer")
        # a bench on a CPU (the smoke run) or an unknown GPU names no desktop to price
        can_price = saved is not None and bench["gpu_key"] is not None
        bench["quick"] = (
            {kind: priced(str(saved), kind, env) for kind in kinds} if can_price else {}
        )
        summary["benches"][label] = bench
    summary["checks"] = checks(summary)
    summary["wall_s"] = time.perf_counter() - started
    print(f"\n== checks ({summary['wall_s']:.0f} s in all, budget {BUDGET_S} s)")
    for check, held in summary["checks"].items():
        print(f"   {'ok  ' if held else 'MISS'} {check}")
    ns.summary.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {ns.summary}")


if __name__ == "__main__":
    main()
