"""Wall time of `costcalc bench --device cpu --quick`, next to a baseline measured in the same run.

Target (issue 4): under 20 s on this 2-core machine. The baseline is the bare cost of starting
Python with torch imported, so the ratio shows how much of the time the probes themselves take.

    python benchmarks/bench_cpu_quick.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def wall_s(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    ns = parser.parse_args()
    exe = shutil.which("costcalc") or os.path.join(os.path.dirname(sys.executable), "costcalc")
    bench = [exe, "bench", "--device", "cpu", "--quick", "--json"]
    baseline = [sys.executable, "-c", "import torch; torch.ones(1)"]
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "COSTCALC_HOME": home}
        bench_s, base_s = [], []
        for _ in range(ns.runs):
            bench_s.append(wall_s(bench, env))
            base_s.append(wall_s(baseline, env))
    b, t = statistics.median(bench_s), statistics.median(base_s)
    print(f"costcalc bench --device cpu --quick, median of {ns.runs}: {b:6.2f} s  (target < 20 s)")
    print(f"python -c 'import torch', median:              {t:6.2f} s")
    print(f"ratio bench / torch import:                    {b / t:6.2f}x")


if __name__ == "__main__":
    main()
