"""Keypress to updated screen in the app, with 5,000 offers, next to the engine alone.

    .venv/bin/python benchmarks/tui_keypress.py [--offers 5000] [--presses 21] [--size 140x45]

The app runs headless (Textual's Pilot) at 140x45 (or `--size`) on the bundled data, its offers
multiplied to `--offers` (each copy a region of its own, as a marketplace lists many hosts). At
80 columns the setup panel opens while a field is edited and closes on Enter, which lays the
screen out (twice: Textual lays out again once sizes have moved). Each measurement
types a new utilisation into its field (u, the digits: 40 and 70 in turn; then 35 and 60, which
are presets, so the preset field's label changes as well), then times Enter: from the key to the
last frame the screen composes after it (every message handled, the new verdict, table and
curves composed). Other keys measured the same way: a re-sort (s), a new GPU (g, a name,
Enter), the very first GPU change of a fresh app (in five fresh apps), and a cursor move (down).

"To the last frame" stops the clock when the screen shows the answer. Pilot's own waits come
after that and are no part of what a person sees; the same keypresses timed to the end of
Pilot's wait are printed too ("with Pilot"), with Pilot's overhead alone (a pause with nothing
to do). All of it in the same run, side by side with the engine alone (`scenario.evaluate` on
the same data and settings), since the machine is shared and noisy. Target: keypress-to-screen
median < 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from datetime import datetime, timezone

from msgspec.structs import replace

NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)


def many_offers(count: int):  # type: ignore[no-untyped-def]
    from costcalc.store.loaders import load_app_data

    data = load_app_data()
    base = list(data.book.offers)
    offers = []
    i = 0
    while len(offers) < count:
        for offer in base:
            if len(offers) >= count:
                break
            region = offer.region if i == 0 else f"{offer.region}-{i}"
            price = offer.usd_per_hour * (1 + 0.01 * (i % 7))
            offers.append(replace(offer, **{"region": region, "usd_per_hour": price}))
        i += 1
    data.book.offers = offers
    return data


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


FRESH_APPS = 5
"""The first GPU change happens once per app: timed in this many fresh apps."""

FRAMES: list[float] = []


def watch_frames() -> None:
    """Note the time each frame is composed (headless, it is composed but not written)."""
    from textual.screen import Screen

    compose = Screen._compositor_refresh

    def timed(self: Screen[object]) -> None:
        compose(self)
        FRAMES.append(time.perf_counter())

    Screen._compositor_refresh = timed  # type: ignore[method-assign]


class Timer:
    """Keypress to last frame, and keypress to the end of Pilot's wait."""

    def __init__(self) -> None:
        self.screen: list[float] = []
        self.pilot: list[float] = []

    async def time(self, pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        await pilot.press(*keys)
        await pilot.pause()
        ended = time.perf_counter()
        frames = [f for f in FRAMES if f >= started]
        self.screen.append((frames[-1] if frames else ended) - started)
        self.pilot.append(ended - started)


async def measure(count: int, presses: int, size: tuple[int, int]) -> None:
    from costcalc.core.scenario import evaluate
    from costcalc.store.settings import Settings
    from costcalc.tui.app import make_app

    watch_frames()

    data = many_offers(count)
    settings = Settings(gpu="rtx3090")
    engine = []
    for _ in range(presses):
        started = time.perf_counter()
        evaluate(settings, data, NOW)
        engine.append(time.perf_counter() - started)

    first_gpu = Timer()
    for _ in range(FRESH_APPS):
        app = make_app(data, settings, NOW, detect_gpu=False, load_bench=False)
        async with app.run_test(size=size) as pilot:
            await pilot.pause(1.0)  # first paint, the plots, the warm-up after it
            await pilot.press("g", *"rtx 4090")
            await first_gpu.time(pilot, "enter")
            await pilot.press("q")

    app = make_app(data, settings, NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(1.0)
        idle = []
        for _ in range(presses):
            started = time.perf_counter()
            await pilot.pause()
            idle.append(time.perf_counter() - started)

        enter = Timer()
        for i in range(presses):
            await pilot.press("u", *("40" if i % 2 else "70"))
            await pilot.pause()
            await enter.time(pilot, "enter")

        preset = Timer()  # 35 % and 60 % are presets: the preset field's label changes too
        for i in range(presses):
            await pilot.press("u", *("35" if i % 2 else "60"))
            await pilot.pause()
            await preset.time(pilot, "enter")

        sort = Timer()
        for _ in range(presses):
            await sort.time(pilot, "s")

        down = Timer()
        for _ in range(presses):
            await down.time(pilot, "down")

        gpu = Timer()
        for i in range(min(presses, 9)):
            await pilot.press("g", *("rtx 4090" if i % 2 else "rtx 3090"))
            await pilot.pause()
            await gpu.time(pilot, "enter")
        await pilot.press("q")

    print(f"{count:,} offers, {presses} presses each, {size[0]}x{size[1]}, headless")
    print(f"  {'':30} {'keypress to screen':>28}   {'with Pilot':>14}")
    for label, timer in (
        ("utilisation, Enter", enter),
        ("utilisation to a preset, Enter", preset),
        ("sort, s", sort),
        ("cursor, down", down),
        ("GPU, Enter", gpu),
        ("first GPU change, Enter", first_gpu),
    ):
        print(
            f"  {label:30} median {ms(statistics.median(timer.screen))}"
            f"   p90 {ms(p90(timer.screen))}   median {ms(statistics.median(timer.pilot))}"
        )
    for label, values in (
        ("engine alone (evaluate)", engine),
        ("Pilot pause, nothing to do", idle),
    ):
        print(f"  {label:30} median {ms(statistics.median(values))}   p90 {ms(p90(values))}")
    ratio = statistics.median(enter.screen) / statistics.median(engine)
    print(f"  utilisation Enter / engine alone: {ratio:.1f}x")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--offers", type=int, default=5000)
    parser.add_argument("--presses", type=int, default=21)
    parser.add_argument("--size", default="140x45", help="terminal columns x rows")
    args = parser.parse_args()
    columns, rows = (int(n) for n in args.size.lower().split("x"))
    asyncio.run(measure(args.offers, args.presses, (columns, rows)))


if __name__ == "__main__":
    main()
