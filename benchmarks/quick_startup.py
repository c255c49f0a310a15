"""Cold `costcalc quick` wall time, and engine throughput, measured side by side in one run.

This machine is shared and noisy, so every figure is printed next to a baseline measured in
the same run, interleaved: the cold-start median as a ratio to `python -c "import pydantic,
yaml"`, and the engine's time for 10,000 offers as a ratio to building the same number of
plain dicts. Targets (issue 2): quick under 150 ms median; 10,000 offers under 50 ms.

    python benchmarks/quick_startup.py [--runs 21]
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
from datetime import datetime, timezone


def wall_ms(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


def cold_start(runs: int) -> None:
    exe = shutil.which("costcalc") or os.path.join(os.path.dirname(sys.executable), "costcalc")
    quick = [exe, "quick", "--gpu", "rtx3090", "--util", "0.15"]
    baseline = [sys.executable, "-c", "import pydantic, yaml"]
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "COSTCALC_HOME": home}
        first = wall_ms(quick, env)  # fills the parsed-data cache, like any first run
        quick_ms, base_ms = [], []
        for _ in range(runs):
            quick_ms.append(wall_ms(quick, env))
            base_ms.append(wall_ms(baseline, env))
    q, b = statistics.median(quick_ms), statistics.median(base_ms)
    print(f"costcalc quick, very first run (empty cache): {first:7.1f} ms")
    print(f"costcalc quick, cold process, median of {runs}: {q:7.1f} ms  (target < 150 ms)")
    print(f'python -c "import pydantic, yaml", median:    {b:7.1f} ms')
    print(f"ratio quick / import baseline:                {q / b:7.2f}x")


def engine_throughput(n_offers: int, repeats: int) -> None:
    from costcalc.core.compare import compare
    from costcalc.core.models import CloudOffer, Workload
    from costcalc.core.scenario import build_assumptions, build_desktop
    from costcalc.store.loaders import load_app_data

    data = load_app_data()
    spec = data.catalog.resolve("rtx3090")
    desktop = build_desktop(spec, data.desktop_defaults)
    a = build_assumptions(data.grid, utilisation=0.15, usd_per_kwh=0.12)
    base = data.book.offers
    offers: list[CloudOffer] = [
        base[i % len(base)].model_copy(update={"usd_per_hour": 0.5 + i * 1e-4})
        for i in range(n_offers)
    ]
    now = datetime(2026, 11, 22, tzinfo=timezone.utc)
    workload = Workload(run_hours=10)
    speed = data.predictor.speed_fn("generic", "fp16")
    engine_s, dict_s = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        compare(desktop, a, workload, offers, data.catalog, data.grid, now, speed=speed)
        t1 = time.perf_counter()
        [dict(offer=o, usd=o.usd_per_hour * 2, hours=1.0, co2=3.0) for o in offers]
        t2 = time.perf_counter()
        engine_s.append(t1 - t0)
        dict_s.append(t2 - t1)
    e, d = statistics.median(engine_s) * 1000, statistics.median(dict_s) * 1000
    label = f"engine, {n_offers:,} offers with a run, median of {repeats}:"
    print(f"{label} {e:7.1f} ms  (target < 50 ms)")
    print(f"building {n_offers:,} plain dicts, median:         {d:7.1f} ms")
    print(f"ratio engine / dicts:                          {e / d:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--offers", type=int, default=10_000)
    ns = parser.parse_args()
    cold_start(ns.runs)
    engine_throughput(ns.offers, repeats=7)


if __name__ == "__main__":
    main()
