"""Cold `costcalc quick`, its first run in a fresh home, `costcalc --version`, and engine
throughput, each measured side by side with a baseline in one run.

This machine is shared and noisy, so every figure is printed next to a baseline measured in the
same run, interleaved, by the same interpreter: the start-up medians as ratios to
`python -c "import pydantic, yaml"`, and the engine's time for 10,000 offers as a ratio to
building the same number of plain dicts. Targets (issue 27): quick <= 1.0x the import baseline,
the first run in a fresh home <= 1.5x, --version <= 0.5x; 10,000 offers under 50 ms. Beside
them, without a target: quick with no COSTCALC_HOME, whose folders platformdirs finds (under a
temporary HOME), as a user who never set the variable runs it.

By default costcalc is measured as a user meets it: installed non-editable (`pip install .`,
bytecode compiled) into a temporary virtual environment that borrows this environment's
dependencies (`--here` measures the `costcalc` next to this interpreter instead).

    python benchmarks/quick_startup.py [--runs 21] [--here]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from msgspec.structs import replace

ROOT = Path(__file__).resolve().parent.parent
QUICK = ("quick", "--gpu", "rtx3090", "--util", "0.15")


def wall_ms(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


def install(venv: Path) -> Path:
    """costcalc installed from this checkout into `venv` (not editable, bytecode compiled), its
    dependencies taken from this interpreter's environment; returns the venv's python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(ROOT),
        ],
        check=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    subprocess.run([str(python), "-m", "compileall", "-q", str(site / "costcalc")], check=True)
    return python


def cold_start(python: Path, runs: int) -> None:
    # What the `costcalc` console script runs (pip --target installs no script for this venv).
    exe = [str(python), "-c", "import sys; from costcalc.cli import console; console()"]
    baseline = [str(python), "-c", "import pydantic, yaml"]
    # Nothing of this shell's: no Python settings, no COSTCALC_ inputs, no XDG folders.
    mine = ("PYTHON", "COSTCALC_", "XDG_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**clean, "COSTCALC_HOME": os.path.join(tmp, "home")}
        # No COSTCALC_HOME: the platform's folders (platformdirs), under a home of its own.
        platform = {**clean, "HOME": os.path.join(tmp, "user")}
        wall_ms([*exe, *QUICK], env)  # a second run's home: what a first run leaves behind
        wall_ms([*exe, *QUICK], platform)
        keys = ("quick", "fresh", "version", "platform", "base")
        times: dict[str, list[float]] = {key: [] for key in keys}
        for i in range(runs):
            fresh = {**clean, "COSTCALC_HOME": os.path.join(tmp, f"fresh-{i}")}
            times["quick"].append(wall_ms([*exe, *QUICK], env))
            times["fresh"].append(wall_ms([*exe, *QUICK], fresh))
            times["version"].append(wall_ms([*exe, "--version"], env))
            times["platform"].append(wall_ms([*exe, *QUICK], platform))
            times["base"].append(wall_ms(baseline, env))
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["base"]
    print(f"medians of {runs} interleaved runs ({python}), load average {load()}:")
    rows: list[tuple[str, str, float | None]] = [
        ("costcalc quick, second run and after", "quick", 1.0),
        ("costcalc quick, first run in a fresh home", "fresh", 1.5),
        ("costcalc --version", "version", 0.5),
        ("costcalc quick, no COSTCALC_HOME (platformdirs)", "platform", None),
    ]
    for label, key, target in rows:
        ratio = med[key] / base
        if target is None:
            verdict = "no target: what a user without COSTCALC_HOME meets"
        else:
            verdict = f"target <= {target}x: {'met' if ratio <= target else 'NOT met'}"
        print(f"  {label:48s} {med[key]:7.1f} ms  {ratio:5.2f}x  ({verdict})")
    label = 'python -c "import pydantic, yaml" (baseline)'
    print(f"  {label:48s} {base:7.1f} ms  1.00x")


def load() -> str:
    """The load average over 1, 5 and 15 minutes, as figures here are only fair beside it."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on this platform
        return "unknown"


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
        replace(base[i % len(base)], **{"usd_per_hour": 0.5 + i * 1e-4}) for i in range(n_offers)
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
    parser.add_argument("--here", action="store_true", help="measure this environment's costcalc")
    ns = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # the engine figure is this checkout's too
    if ns.here:
        cold_start(Path(sys.executable), ns.runs)
    else:
        with tempfile.TemporaryDirectory() as venv:
            cold_start(install(Path(venv)), ns.runs)
    engine_throughput(ns.offers, repeats=7)


if __name__ == "__main__":
    main()
