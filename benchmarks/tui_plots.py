"""What one redraw of each break-even plot costs now, against the plots before this work.

    .venv/bin/python benchmarks/tui_plots.py [--draws 31] [--old f131601]

The old plots and curves are read from git (`--old`, by default the commit this work started
from) and run beside the current ones, in one headless app, at the sizes the plots have in
the app at 140x45 and at 80x24. Every draw is timed old, then new, in turn, so a busy moment
on the shared machine falls on both. A draw is what a keypress costs a plot on screen: the
old `draw(calc, offers)` and its render (a text Textual then lays out, not timed), or the new
`show(figure)` and its lines, ready to show.

- `new inputs`: utilisation moves through 31 values, so every draw has a new figure;
- `same inputs`: the same calculation recomputed (equal values, new objects), as a keypress
  that changes nothing the plots show.

Printed per plot: the median CPU time of each (the main thread's; wall time moves with the
machine's load) and old / new, the ratio that this run measured.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from msgspec.structs import replace

NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parent.parent
UTILISATIONS = tuple(u / 100 for u in range(5, 97, 3))


def old_module(ref: str, path: str, name: str, **preset: Any) -> types.ModuleType:
    """`path` as it was at `ref`, as a module called `name`; `preset` names replace the
    module's own imports of them (so the old plots draw the old curves)."""
    source = subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    for imported in preset:
        source = source.replace(f"from costcalc.tui import {imported}\n", "")
    module = types.ModuleType(name)
    module.__dict__.update(preset)
    sys.modules[name] = module
    exec(compile(source, f"{ref}:{path}", "exec"), module.__dict__)
    return module


def cpu_ms(action: Callable[[], object]) -> float:
    started = time.thread_time()
    action()
    return (time.thread_time() - started) * 1000


def draw_old(plot: Any, calc: Any, offers: list[Any]) -> None:
    plot.draw(calc, offers)
    plot.render()


def draw_new(plot: Any, figure: Any, calc: Any, offers: list[Any], labels: list[str]) -> None:
    """The figure is made inside the timing: the main screen makes it on every keypress. The
    plot draws its lines (Textual's line API) when asked for one: all of them, ready to show,
    where the old plots' text still had to be laid out by Textual (not timed)."""
    plot.show(figure.of(calc, offers, labels))
    plot.render_line(0)


async def plot_sizes(size: tuple[int, int]) -> dict[str, tuple[int, int]]:
    """The size each shown plot has in the app at this terminal size."""
    from costcalc.store.loaders import load_app_data
    from costcalc.store.settings import Settings
    from costcalc.tui.app import make_app
    from costcalc.tui.widgets.plots import FigurePlot

    app = make_app(load_app_data(), Settings(gpu="rtx3090"), NOW, detect_gpu=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(1.0)  # first paint, then the plots mount
        if size[0] < 120:  # narrow: the curves open with w (hidden -> why -> curves)
            await pilot.press("w", "w")
            await pilot.pause(0.5)
        return {
            type(p).__name__: (p.size.width, p.size.height)
            for p in app.screen.query(FigurePlot)
            if p.display and p.size.width
        }


async def measure(size: tuple[int, int], draws: int, ref: str) -> None:
    from textual.app import App, ComposeResult

    from costcalc.core.scenario import evaluate
    from costcalc.store.loaders import load_app_data
    from costcalc.store.settings import Settings
    from costcalc.tui import curves
    from costcalc.tui.widgets import plots
    from costcalc.tui.widgets.breakeven import plotted, short_label

    old_curves = old_module(ref, "costcalc/tui/curves.py", "old_curves")
    old_plots = old_module(ref, "costcalc/tui/widgets/plots.py", "old_plots", curves=old_curves)
    sizes = await plot_sizes(size)
    data = load_app_data()
    settings = Settings(gpu="rtx3090")
    calcs = [evaluate(replace(settings, **{"utilisation": u}), data, NOW) for u in UTILISATIONS]
    again = evaluate(replace(settings, **{"utilisation": UTILISATIONS[-1]}), data, NOW)

    def offers_of(calc: Any) -> list[Any]:
        return plotted(calc, calc.comparison.offers[1])  # a selected offer and the cheapest

    pairs: list[tuple[Any, Any, Any]] = [
        (old_plots.CumulativePlot(), plots.CumulativePlot(), plots.CumulativeFigure),
        (old_plots.UtilisationPlot(), plots.UtilisationPlot(), plots.UtilisationFigure),
    ]
    pairs = [p for p in pairs if type(p[1]).__name__ in sizes]

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            for old, new, _ in pairs:
                width, height = sizes[type(new).__name__]
                for plot in (old, new):
                    plot.styles.width, plot.styles.height = width, height
                    yield plot

    print(f"{size[0]}x{size[1]}: median CPU ms per draw, {draws} draws, old = {ref}")
    app = Bench()
    async with app.run_test(size=(200, 200)) as pilot:
        await pilot.pause()
        for old, new, figure in pairs:
            name = type(new).__name__
            results = {}
            for case, sequence in (
                ("new inputs", [calcs[i % len(calcs)] for i in range(draws)]),
                ("same inputs", [again if i % 2 else calcs[-1] for i in range(draws)]),
            ):
                curves.cumulative_curve.cache_clear()
                curves.utilisation_curve.cache_clear()
                old_ms, new_ms = [], []
                for calc in sequence:
                    offers = offers_of(calc)
                    labels = [short_label(r) for r in offers]
                    old_ms.append(cpu_ms(partial(draw_old, old, calc, offers)))
                    new_ms.append(cpu_ms(partial(draw_new, new, figure, calc, offers, labels)))
                    await pilot.pause()
                results[case] = (statistics.median(old_ms), statistics.median(new_ms))
            width, height = sizes[name]
            for case, (old_med, new_med) in results.items():
                ratio = old_med / new_med if new_med > 0 else float("inf")
                print(
                    f"  {name:16} {width:3}x{height:<3} {case:12}"
                    f" old {old_med:6.2f}  new {new_med:6.2f}  old/new {ratio:6.1f}x"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--draws", type=int, default=31)
    parser.add_argument("--old", default="f131601", help="git commit of the old plots")
    args = parser.parse_args()
    for size in ((140, 45), (80, 24)):
        asyncio.run(measure(size, args.draws, args.old))


if __name__ == "__main__":
    main()
