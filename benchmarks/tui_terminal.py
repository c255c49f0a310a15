"""The app in a real terminal (tmux): first paint and keys with 5,000 offers, against baselines.

    .venv/bin/python benchmarks/tui_terminal.py [--quick] [--launches 9] [--presses 11]
        [--in-process] [--here]

Runs the real app (`costcalc tui`) in a tmux session of its own (a private server, `tmux -L`)
at 140x45 and reads the screen as a person sees it, with `tmux capture-pane`, polled every few
ms. The app is measured as a user meets it: costcalc installed non-editable, bytecode compiled,
into a temporary virtual environment that borrows this one's dependencies (quick_startup.py's
`install`), run without PYTHON* variables (PYTHONDONTWRITEBYTECODE would make every launch
compile costcalc from source: a tenth of a second that no installed copy pays); `--here` runs
this checkout instead. All in one run, side by side, since the machine is shared:

- first paint: launch to the verdict ("Rent:" or "Buy:") on screen, median of `--launches`,
  against `python -c "import textual.app"` (median of as many) in the same run. Once on the
  bundled data, once with 5,000 offers. Each home's first launch (it builds the parse cache) is
  not counted.
- keys, with 5,000 offers: from `tmux send-keys` to the first and to the last change of the
  screen (polled until, once changed, it has not changed for `--quiet` ms; the targets are on
  the last) for Enter in the utilisation field after typing a value, a GPU change (g, a name,
  Enter), Down, `s` and `w`. The floor is the same measurement on `cat` in the same tmux (a key
  echoed): what tmux and the polling cost, no app.

The 5,000 offers are a refreshed RunPod snapshot under a temporary COSTCALC_HOME (the bundled
offers copied, each copy a region of its own, as a marketplace lists many hosts), so the app
loads them as it loads a user's `costcalc refresh`. Targets (issue 27): first paint <= 2x
`import textual.app`; Enter in a field and a GPU change < 100 ms median; Down < 50 ms.
`--in-process` then runs benchmarks/tui_keypress.py (the same keys under Pilot, headless, no
terminal) with as many presses, for the in-process figures next to these.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from msgspec.structs import replace

ROOT = Path(__file__).resolve().parent.parent
SIZE = (140, 45)
POLL_S = 0.004
VERDICT = ("Rent:", "Buy:")
OFFERS = 5000
SERVER = f"costcalc-bench-{os.getpid()}"
SESSION = "app"


def write_many_offers(count: int = OFFERS) -> int:
    """A refreshed RunPod snapshot in COSTCALC_HOME that brings the app's offers to `count`;
    returns how many offers the app will load (read in this process, as the app reads them)."""
    from costcalc.store.loaders import load_app_data
    from costcalc.store.snapshots import load_bundled, refreshed_path, write_refreshed

    others = sum(1 for o in load_app_data().book.offers if o.provider != "runpod")
    snapshot = load_bundled("runpod")
    base = list(snapshot.offers)
    offers = []
    i = 0
    while len(offers) < count - others:
        for offer in base:
            if len(offers) >= count - others:
                break
            region = offer.region if i == 0 else f"{offer.region}-{i}"
            price = offer.usd_per_hour * (1 + 0.01 * (i % 7))
            offers.append(replace(offer, **{"region": region, "usd_per_hour": price}))
        i += 1
    path = refreshed_path("runpod")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_refreshed(path, replace(snapshot, **{"offers": offers}))
    return len(load_app_data().book.offers)


CLEAN = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
"""The environment of everything timed (the tmux server, its sessions, the baseline)."""


def tmux(*args: str, check: bool = False) -> str:
    done = subprocess.run(["tmux", "-L", SERVER, *args], capture_output=True, text=True, env=CLEAN)
    if check and done.returncode:
        raise SystemExit(f"tmux {' '.join(args[:1])}: {done.stderr.strip()}")
    return done.stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def start(command: list[str], home: Path) -> float:
    """Start `command` in a fresh 140x45 session; returns the time just before."""
    tmux("kill-session", "-t", SESSION)
    env = {"COSTCALC_HOME": str(home), "TERM": "tmux-256color", "COLORTERM": "truecolor"}
    if Path(sys.executable) == PYTHON:  # --here: this checkout
        env["PYTHONPATH"] = str(ROOT)
    line = shlex.join(["env", *(f"{k}={v}" for k, v in env.items()), *command])
    started = time.perf_counter()
    tmux(
        "new-session", "-d", "-s", SESSION, "-x", str(SIZE[0]), "-y", str(SIZE[1]), line, check=True
    )
    return started


def wait_for(words: tuple[str, ...], timeout: float = 60.0) -> float:
    """Poll until one of `words` is on screen; returns the time it was seen."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        text = screen()
        if any(w in text for w in words):
            return time.perf_counter()
        time.sleep(POLL_S)
    raise SystemExit(f"not on screen after {timeout:.0f} s: {' or '.join(words)}\n{screen()}")


def settle(quiet: float, timeout: float = 10.0, change: bool = False) -> tuple[float, float, str]:
    """Poll until the screen has not changed for `quiet` seconds (with `change`, only once it has
    changed: a loaded machine may answer later than `quiet`); returns the times of the first and
    the last change seen (both the first poll's, if nothing changed) and the screen."""
    last = screen()
    changed = first = time.perf_counter()
    seen = False
    deadline = changed + timeout
    while time.perf_counter() < deadline:
        time.sleep(POLL_S)
        now_text = screen()
        now = time.perf_counter()
        if now_text != last:
            last, changed = now_text, now
            if not seen:
                first, seen = now, True
        elif now - changed >= quiet and (seen or not change):
            break
    return first, changed, last


def timed_key(key: str, quiet: float) -> tuple[float, float]:
    """Send `key`; seconds to the first and to the last change of the screen it caused (0 if
    none)."""
    before = screen()
    started = time.perf_counter()
    tmux("send-keys", "-t", SESSION, key)
    first, last, after = settle(quiet, change=True)
    if after == before:
        return 0.0, 0.0
    return first - started, last - started


def typed(text: str, quiet: float) -> None:
    tmux("send-keys", "-t", SESSION, "-l", text)
    settle(quiet, change=True)


PYTHON = Path(sys.executable)
"""The interpreter that runs the app and the baseline (main sets the installed one)."""


def app_command() -> list[str]:
    # What the `costcalc` console script runs (pip --target installs no script for the venv).
    return [str(PYTHON), "-c", "from costcalc.cli import console; console()", "tui"]


def first_paints(home: Path, launches: int) -> list[float]:
    start(app_command(), home)  # builds the parse cache: not counted
    wait_for(VERDICT)
    found = []
    for _ in range(launches):
        started = start(app_command(), home)
        found.append(wait_for(VERDICT) - started)
    tmux("kill-session", "-t", SESSION)
    return found


def import_textual(runs: int) -> list[float]:
    found = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run([str(PYTHON), "-c", "import textual.app"], check=True, env=CLEAN)
        found.append(time.perf_counter() - started)
    return found[1:]


def floor(home: Path, presses: int, quiet: float) -> list[float]:
    """A key echoed by `cat` in the same tmux: tmux and the polling, no app."""
    start(["cat"], home)
    time.sleep(0.3)
    found = [timed_key("x", quiet)[1] for _ in range(presses)]
    tmux("kill-session", "-t", SESSION)
    return found


def keys(home: Path, presses: int, quiet: float) -> dict[str, list[tuple[float, float]]]:
    start(app_command(), home)
    wait_for(VERDICT)
    settle(1.0)  # the plots and everything after the first paint
    found: dict[str, list[tuple[float, float]]] = {
        k: [] for k in ("enter", "gpu", "down", "s", "w")
    }
    for i in range(presses):
        tmux("send-keys", "-t", SESSION, "u")
        typed("40" if i % 2 else "70", quiet)
        found["enter"].append(timed_key("Enter", quiet))
    for i in range(presses):
        tmux("send-keys", "-t", SESSION, "g")
        typed("rtx 4090" if i % 2 else "rtx 3090", quiet)
        found["gpu"].append(timed_key("Enter", quiet))
    for _ in range(presses):
        found["down"].append(timed_key("Down", quiet))
    for _ in range(presses):
        found["s"].append(timed_key("s", quiet))
    for _ in range(presses):
        found["w"].append(timed_key("w", quiet))
    tmux("send-keys", "-t", SESSION, "q")
    tmux("kill-session", "-t", SESSION)
    return found


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (5 launches, 5 keys)")
    parser.add_argument("--launches", type=int, default=9)
    parser.add_argument("--presses", type=int, default=11)
    parser.add_argument("--quiet", type=int, default=300, help="ms unchanged = settled")
    parser.add_argument(
        "--here",
        action="store_true",
        help="run this checkout (PYTHONPATH) instead of a non-editable, compiled install",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="then run benchmarks/tui_keypress.py (Pilot, headless) with as many presses",
    )
    args = parser.parse_args()
    launches, presses = (5, 5) if args.quick else (args.launches, args.presses)
    quiet = args.quiet / 1000
    global PYTHON
    with (
        tempfile.TemporaryDirectory() as venv,
        tempfile.TemporaryDirectory() as bundled,
        tempfile.TemporaryDirectory() as many,
    ):
        if not args.here:
            sys.path.insert(0, str(ROOT / "benchmarks"))
            from quick_startup import install

            PYTHON = install(Path(venv) / "venv")
        os.environ["COSTCALC_HOME"] = many
        loaded = write_many_offers()
        # A session that stays for the whole run: killing the last session stops the server,
        # and a session started while it stops fails.
        tmux("new-session", "-d", "-s", "hold", "cat", check=True)
        try:
            baseline = statistics.median(import_textual(launches))
            paint = statistics.median(first_paints(Path(bundled), launches))
            paint_many = statistics.median(first_paints(Path(many), launches))
            baseline_after = statistics.median(import_textual(launches))
            echo = floor(Path(bundled), presses, quiet)
            found = keys(Path(many), presses, quiet)
        finally:
            tmux("kill-server")
    print(
        f"tmux {SIZE[0]}x{SIZE[1]}, {launches} launches, {presses} presses each, "
        f"screen polled every {POLL_S * 1000:.0f} ms, settled after {args.quiet} ms unchanged; "
        + ("this checkout" if args.here else "installed, bytecode compiled")
        + f"; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    base = (baseline + baseline_after) / 2
    print(
        f"  {'import textual.app':34} median {ms(baseline)} (before), {ms(baseline_after)} (after)"
    )
    print(f"  {'first paint, bundled offers':34} median {ms(paint)}   {paint / base:4.1f}x import")
    print(
        f"  {f'first paint, {loaded:,} offers':34} median {ms(paint_many)}"
        f"   {paint_many / base:4.1f}x import"
    )
    floor_ms = statistics.median(echo)
    print(f"  {'floor: key echoed by cat':34} median {ms(floor_ms)}")
    print(f"  keys with {loaded:,} offers, send-keys to the first / the last change of the screen:")
    targets = {"enter": 0.100, "gpu": 0.100, "down": 0.050}
    for key, label in (
        ("enter", "utilisation, Enter"),
        ("gpu", "GPU (g, a name), Enter"),
        ("down", "cursor, Down"),
        ("s", "sort, s"),
        ("w", "why / curves, w"),
    ):
        first = statistics.median(f for f, _ in found[key])
        last = statistics.median(last for _, last in found[key])
        target = targets.get(key)
        verdict = (
            ""
            if target is None
            else f"   target < {target * 1000:.0f} ms: " + ("met" if last < target else "not met")
        )
        print(
            f"    {label:26} first {ms(first)}   last {ms(last)}"
            f" (max {ms(max(last for _, last in found[key])).strip()})"
            f"   {last / floor_ms:5.1f}x floor{verdict}"
        )
    met = (paint / base) <= 2.0
    print(f"  first paint <= 2x import textual.app: {'met' if met else 'not met'}")
    if args.in_process:
        print("in process, the same keys (benchmarks/tui_keypress.py), right after:", flush=True)
        script = ROOT / "benchmarks" / "tui_keypress.py"
        subprocess.run([sys.executable, str(script), "--presses", str(presses)], check=True)


if __name__ == "__main__":
    main()
