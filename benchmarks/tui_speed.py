"""How fast the app answers: first paint, and recomputing 1,000 offers after an input change.

    .venv/bin/python benchmarks/tui_speed.py [--runs 7]

First paint: wall time from starting a fresh Python process to the first frame with the offers
table filled and the verdict (with its break-even figure) shown, and then to the frame with both
break-even curves drawn (the plots mount right after the first frame); headless, run_test, the
real bundled data, median of repeated runs; printed next to the cost of merely starting Python
and importing textual, which no Textual app can beat. Target: first paint under 0.6 s.

Engine: `scenario.evaluate` (settings -> desktop, assumptions, workload -> compare) on 1,000
offers, median of many runs; also the offers table's `show` of that answer in a running app (its
rows, columns and formats; the lines are formatted when painted). Target: under 16 ms of engine
time. In-process and headless: benchmarks/tui_terminal.py measures the app in a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import os, sys, time
started = float(sys.argv[1])
import asyncio
from costcalc.tui.app import make_app
from costcalc.tui.screens import main as main_screen
from costcalc.tui.widgets import breakeven
from costcalc.tui.widgets.offers import OffersTable

moments = {}
on_mount = main_screen.MainScreen.on_mount
mount_plots = breakeven.BreakEvenView._mount_plots

def timed_on_mount(self):
    on_mount(self)
    def first_paint():
        # offers listed, and the verdict with its break-even figure, on the first frame
        assert self.query_one(OffersTable).rows
        assert self.calc is not None  # watch_calc has filled the verdict bar
        moments.setdefault("paint", time.time() - started)
    self.call_after_refresh(first_paint)

async def timed_mount_plots(self):
    await mount_plots(self)
    def curves_drawn():
        moments.setdefault("curves", time.time() - started)
    self.call_after_refresh(curves_drawn)  # the frame with both curves drawn

main_screen.MainScreen.on_mount = timed_on_mount
breakeven.BreakEvenView._mount_plots = timed_mount_plots

async def main() -> None:
    app = make_app(detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        while "curves" not in moments:
            await pilot.pause()
    print(moments["paint"], moments["curves"])

asyncio.run(main())
"""


def subprocess_times(args: list[str], home: str) -> list[float]:
    """Seconds from process start to each moment the child prints (or to its exit)."""
    started = time.time()
    env = {"COSTCALC_HOME": home, "PATH": "/usr/bin:/bin", "TERM": "xterm-256color"}
    done = subprocess.run(
        [sys.executable, *args, str(started)], capture_output=True, text=True, env=env, check=True
    )
    printed = done.stdout.strip().splitlines()
    return [float(x) for x in printed[-1].split()] if printed else [time.time() - started]


def first_paint(runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        bare = [subprocess_times(["-c", "pass"], home)[0] for _ in range(runs)]
        textual = [
            subprocess_times(["-c", "import textual.app, textual.widgets"], home)[0]
            for _ in range(runs)
        ]
        app = [subprocess_times(["-c", CHILD], home) for _ in range(runs)]
    return {
        "python -c pass": statistics.median(bare),
        "python -c 'import textual.app'": statistics.median(textual),
        "costcalc: offers + verdict painted": statistics.median(a[0] for a in app),
        "costcalc: break-even curves drawn": statistics.median(a[1] for a in app),
    }


def thousand_offers():  # type: ignore[no-untyped-def]
    """The bundled data with its offers repeated to 1,000."""
    from costcalc.store.loaders import load_app_data

    data = load_app_data()
    offers = data.book.offers
    data.book.offers = [offers[i % len(offers)] for i in range(1000)]
    return data


def engine_ms(repeats: int = 60) -> float:
    from datetime import datetime, timezone

    from costcalc.core.scenario import evaluate
    from costcalc.store.settings import DEFAULT_GPU, Settings

    data = thousand_offers()
    now = datetime.now(timezone.utc)
    times = []
    for i in range(repeats):
        settings = Settings(gpu="rtx3090", utilisation=0.05 + (i % 10) / 20, run_hours=10)
        started = time.perf_counter()
        evaluate(settings, data, now, fallback_gpu=DEFAULT_GPU)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


async def table_render_ms(repeats: int = 10) -> float:
    from datetime import datetime, timezone

    from costcalc.core.scenario import evaluate
    from costcalc.store.settings import DEFAULT_GPU, Settings
    from costcalc.tui.app import make_app
    from costcalc.tui.widgets.offers import OffersTable

    data = thousand_offers()
    now = datetime.now(timezone.utc)
    app = make_app(data, Settings(gpu="rtx3090"), now, detect_gpu=False, load_bench=False)
    times = []
    async with app.run_test(size=(140, 45)):
        table = app.screen.query_one(OffersTable)
        for i in range(repeats):
            settings = Settings(gpu="rtx3090", utilisation=0.1 + i / 20)
            calc = evaluate(settings, data, now, fallback_gpu=DEFAULT_GPU)
            started = time.perf_counter()
            table.show(calc)
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="subprocess runs per figure")
    ns = parser.parse_args()
    print(f"First paint (median of {ns.runs} fresh processes, 140x45 headless):")
    for name, seconds in first_paint(ns.runs).items():
        print(f"  {name:<36} {seconds:6.3f} s")
    print("Recompute after an input change, 1,000 offers:")
    print(f"  engine (scenario.evaluate)         {engine_ms():6.2f} ms   (target < 16 ms)")
    print(f"  offers table show (rows, formats)  {asyncio.run(table_render_ms()):6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
