"""Cold `costcalc quick`, its first run in a fresh home, `costcalc --version`, and engine
throughput, each measured side by side with a baseline in one run.

This machine is shared and noisy, so every figure is printed next to a baseline measured in the
same run, interleaved, by the same interpreter: the start-up medians as ratios to
`python -c "import pydantic, yaml"`, and the engine's time for 10,000 offers as a ratio to
building the same number of plain dicts. Targets (issue 38): a cold `costcalc quick` (a new
process, its parse cache filled by an earlier run) <= 1.25x the import baseline, with bytecode
and without it; --version <= 0.5x; 10,000 offers under 50 ms. Without bytecode, both commands
run with no .pyc anywhere (PYTHONDONTWRITEBYTECODE and an empty PYTHONPYCACHEPREFIX: every
module they import, the standard library's included, is compiled from source), as a checkout
run with bytecode switched off meets it. Beside them, without a target: the first run in a fresh
home (it parses the bundled YAML files once and caches their records) and quick with no
COSTCALC_HOME, whose folders platformdirs finds (under a temporary HOME).

By default costcalc is measured as a user meets it: installed non-editable (`pip install .`,
bytecode compiled) into a temporary virtual environment that borrows this environment's
dependencies (`--here` measures the `costcalc` next to this interpreter instead).
`--instructions` adds each command's instruction count under valgrind's callgrind, which the
machine's load does not move: the same ratio, free of noise.

    python benchmarks/quick_startup.py [--runs 21] [--here] [--instructions]
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


def cold_start(python: Path, runs: int, instructions: bool) -> None:
    # What the `costcalc` console script runs (pip --target installs no script for this venv).
    exe = [str(python), "-c", "import sys; from costcalc.cli import console; console()"]
    baseline = [str(python), "-c", "import pydantic, yaml"]
    # Nothing of this shell's: no Python settings, no COSTCALC_ inputs, no XDG folders.
    mine = ("PYTHON", "COSTCALC_", "XDG_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**clean, "COSTCALC_HOME": os.path.join(tmp, "home")}
        # Without bytecode: no .pyc is read (an empty cache prefix) and none is written.
        raw = {**env, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": f"{tmp}/no-pyc"}
        # No COSTCALC_HOME: the platform's folders (platformdirs), under a home of its own.
        platform = {**clean, "HOME": os.path.join(tmp, "user")}
        wall_ms([*exe, *QUICK], env)  # a second run's home: what a first run leaves behind
        wall_ms([*exe, *QUICK], platform)
        commands = {
            "quick": ([*exe, *QUICK], env),
            "raw": ([*exe, *QUICK], raw),
            "version": ([*exe, "--version"], env),
            "platform": ([*exe, *QUICK], platform),
            "base": (baseline, env),
            "raw base": (baseline, raw),
        }
        times: dict[str, list[float]] = {key: [] for key in (*commands, "fresh")}
        for i in range(runs):
            for key, (cmd, cmd_env) in commands.items():
                times[key].append(wall_ms(cmd, cmd_env))
            fresh = {**clean, "COSTCALC_HOME": os.path.join(tmp, f"fresh-{i}")}
            times["fresh"].append(wall_ms([*exe, *QUICK], fresh))
        counts = {k: callgrind(*commands[k]) for k in commands} if instructions else {}
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"medians of {runs} interleaved runs ({python}), load average {load()}:")
    rows: list[tuple[str, str, str, float | None]] = [
        ("costcalc quick, cold, with bytecode", "quick", "base", 1.25),
        ("costcalc quick, cold, without bytecode", "raw", "raw base", 1.25),
        ("costcalc --version", "version", "base", 0.5),
        ("costcalc quick, first run in a fresh home", "fresh", "base", None),
        ("costcalc quick, no COSTCALC_HOME (platformdirs)", "platform", "base", None),
    ]
    for label, key, against, target in rows:
        ratio = med[key] / med[against]
        line = f"  {label:48s} {med[key]:7.1f} ms  {ratio:5.2f}x"
        # Each measure is judged on its own: time, which the machine's load moves, and, with
        # --instructions, the instructions, which it does not.
        judged = [("time", ratio)]
        if key in counts:
            counted = counts[key] / counts[against]
            line += f"  {counts[key] / 1e6:5.0f}M instr. {counted:5.2f}x"
            judged.append(("instructions", counted))
        said = (
            "no target"
            if target is None
            else f"target <= {target}x: "
            + ", ".join(f"{what} {'met' if r <= target else 'NOT met'}" for what, r in judged)
        )
        print(f"{line}  ({said})")
    for label, key in (("with bytecode", "base"), ("without bytecode", "raw base")):
        name = 'python -c "import pydantic, yaml", ' + label
        line = f"  {name:48s} {med[key]:7.1f} ms  1.00x"
        if key in counts:
            line += f"  {counts[key] / 1e6:5.0f}M instr."
        print(line)


def callgrind(cmd: list[str], env: dict[str, str]) -> int:
    """Instructions the command runs (valgrind's callgrind), the same on a loaded machine."""
    found = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    return int(found.rsplit("Collected : ", 1)[1].split()[0])


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
    parser.add_argument(
        "--instructions", action="store_true", help="add instruction counts (valgrind callgrind)"
    )
    ns = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # the engine figure is this checkout's too
    if ns.here:
        cold_start(Path(sys.executable), ns.runs, ns.instructions)
    else:
        with tempfile.TemporaryDirectory() as venv:
            cold_start(install(Path(venv)), ns.runs, ns.instructions)
    engine_throughput(ns.offers, repeats=7)


if __name__ == "__main__":
    main()
