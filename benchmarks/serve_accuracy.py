"""Accuracy of serving's speed model on measurements its fit never saw, leave-one-source-out.

Data: costcalc/data/serve_measurements.yaml (its header names every source and date). For each
source (a thread or a table on one date), the fit (costcalc.core.serve_speed.fit, as
scripts/fit_serve.py runs it) is redone without it and its rows are predicted as a user's answer
is made. Two groupings: every table apart, and XiongjieDai's two tables (one author, one cloud,
five months apart) as one source, which holds out 46 of the 60 decode rows at once and so is the
harder test. Errors are |predicted tokens/s - measured| / measured.

    .venv/bin/python benchmarks/serve_accuracy.py [--write]

--write also writes costcalc/data/serve_calibration.yaml: the fit on every row, with these figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from costcalc.core.serve_data import Phase, ServeAccuracy
from costcalc.core.serve_speed import Row, by_source, errors, percentile
from scripts.fit_serve import calibrate, matmul_tflops, rows, write

XIONGJIE = "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference"
TARGET_PCT = 15.0


def loso(data: Sequence[Row], phase: Phase, merge: Mapping[str, str]) -> list[tuple[Row, float]]:
    """Every row of `phase` predicted by a fit made without its source."""
    found = []
    for held in by_source(data, merge).values():
        mine = [r for r in held if r.m.phase == phase]
        rest = [r for r in data if r not in held]
        if not mine or not rest:
            continue
        cal = calibrate(rest)
        found += list(zip(mine, errors(mine, cal, matmul_tflops), strict=True))
    return found


def summary(
    data: Sequence[Row], phase: Phase, grouping: str, merge: Mapping[str, str]
) -> tuple[ServeAccuracy, list[tuple[Row, float]]]:
    held = loso(data, phase, merge)
    mine = [r for r in data if r.m.phase == phase]
    inside = [abs(e) for e in errors(mine, calibrate(data), matmul_tflops)]
    absolute = [abs(e) for _, e in held]
    sources = {merge.get(r.m.source.key, r.m.source.key) for r, _ in held}
    return (
        ServeAccuracy(
            phase=phase,
            grouping=grouping,
            rows=len(held),
            sources=len(sources),
            median_pct=round(100 * statistics.median(absolute), 1),
            p90_pct=round(100 * percentile(absolute, 0.9), 1),
            within_20_pct=round(100 * sum(e <= 0.2 for e in absolute) / len(absolute), 1),
            in_sample_median_pct=round(100 * statistics.median(inside), 1),
        ),
        held,
    )


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write serve_calibration.yaml")
    parser.add_argument("--rows", action="store_true", help="print every held-out row")
    ns = parser.parse_args(argv)
    data = rows()
    keys = {r.m.source.key for r in data}
    merged = {k: XIONGJIE for k in keys if k.startswith(XIONGJIE)}
    results = []
    print(
        "| phase | grouping | rows | sources | LOSO median | LOSO p90 | within 20 % "
        "| in-sample median |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for phase in ("decode", "prefill"):
        for grouping, merge in (("every table apart", {}), ("XiongjieDai's tables as one", merged)):
            acc, held = summary(data, phase, grouping, merge)
            results.append(acc)
            print(
                f"| {phase} | {grouping} | {acc.rows} | {acc.sources} | {acc.median_pct} % | "
                f"{acc.p90_pct} % | {acc.within_20_pct} % | {acc.in_sample_median_pct} % |"
            )
            if ns.rows:
                for r, e in held:
                    print(f"    {r.m.gpu:16} {r.m.model:13} {r.m.quant:8} {r.engine:10} {e:+.1%}")
    decode = results[0]
    verdict = "met" if decode.median_pct <= TARGET_PCT else "MISSED"
    print(
        f"\nbatch-1 decode LOSO median {decode.median_pct} % "
        f"(target <= {TARGET_PCT:g} %): {verdict}"
    )
    if ns.write:
        write(calibrate(data, results))
        print("wrote costcalc/data/serve_calibration.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
