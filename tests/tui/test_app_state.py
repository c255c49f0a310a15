"""What the app holds beyond a screen: the bench the settings name, its workers' answers, the
garbage collector's frozen objects."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot

from costcalc.bench.store import save_result
from costcalc.core.bench_apply import bench_label
from costcalc.store.settings import Settings
from costcalc.tui.app import make_app
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.workers import answer
from tests.bench_results import gpu_bench
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import record_notifications, wait_until


async def test_a_bench_named_by_path_is_the_one_used(app_factory: MakeApp, tmp_path: Path) -> None:
    """`bench: PATH` in the settings, as `costcalc quick` reads it: that file, not the latest."""
    result = gpu_bench("rtx4090", power_w=350.0)
    path = save_result(result, tmp_path / "elsewhere")
    save_result(gpu_bench("rtx3090"))  # the latest saved, which must not be the one used
    app = app_factory(Settings(bench=str(path)), load_bench=True)
    async with app.run_test(size=(140, 45)):
        main = app.screen
        assert isinstance(main, MainScreen)
        await wait_until(app, lambda: main.calc is not None and main.calc.bench_label is not None)
        assert main.calc is not None
        assert main.calc.bench_label == bench_label(result)
        assert main.calc.spec.key == "rtx4090", "the bench's GPU is the desktop's"


async def test_a_bench_path_that_is_not_there_is_one_notification(
    app_factory: MakeApp, tmp_path: Path
) -> None:
    app = app_factory(Settings(gpu="rtx3090", bench=str(tmp_path / "missing.json")))
    posted = record_notifications(app)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_until(app, lambda: any("no such bench result" in m for m in posted))
        main = app.screen
        assert isinstance(main, MainScreen)
        main.recalculate()  # asked again: not loaded, not reported, again
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        notes = [m for m in posted if "no such bench result" in m]
        assert len(notes) == 1
        assert main.calc is not None and main.calc.bench_label is None


async def test_a_cancelled_worker_answers_nothing(app_factory: MakeApp) -> None:
    """Textual cancels a worker (app closing, its screen gone, a newer one of its group) but
    cannot stop its thread; what the thread then finds must not reach the app."""
    app = app_factory()
    started, release = threading.Event(), threading.Event()
    answered: list[str] = []
    posted: list[bool] = []

    def job() -> None:
        started.set()
        release.wait(timeout=10)
        posted.append(answer(app, answered.append, "late"))

    async with app.run_test(size=(80, 24)) as pilot:
        worker = app.run_worker(job, thread=True, exit_on_error=False)
        await wait_until(app, started.is_set)  # the thread runs: cancelling cannot stop it
        worker.cancel()
        release.set()
        await wait_until(app, lambda: posted)
        await pilot.pause()
        assert posted == [False] and answered == []
        posted.clear()
        running = app.run_worker(job, thread=True, exit_on_error=False)
        await wait_until(app, lambda: posted)
        await pilot.pause()
        assert running.is_finished and posted == [True] and answered == ["late"]


async def test_the_loaded_objects_are_frozen_after_the_first_paint_and_thawed_at_the_end(
    app_factory: MakeApp,
) -> None:
    """gc.freeze is process-wide: the app takes it as one step after the first paint
    (CostcalcApp.settle) and gives it back when it ends, so a process that runs many apps (this
    test suite) does not keep every app's objects for ever."""
    assert gc.get_freeze_count() == 0, "an app run before this test left objects frozen"
    app = app_factory()
    async with app.run_test(size=(80, 24)):
        await wait_until(app, lambda: gc.get_freeze_count() > 0)
    assert gc.get_freeze_count() == 0


def test_run_pauses_the_collector_until_the_app_has_settled(app_factory: MakeApp) -> None:
    """`run` (what `costcalc` calls, not run_test) pauses the cyclic collector while the first
    screen is built, takes it back up once settled (frozen), and leaves it as it found it."""
    seen: dict[str, bool] = {}

    async def auto_pilot(pilot: Pilot[None]) -> None:
        app = pilot.app
        seen["paused at first"] = not gc.isenabled()
        await wait_until(app, lambda: gc.get_freeze_count() > 0)
        seen["running once settled"] = gc.isenabled()
        app.exit()

    assert gc.isenabled()
    app_factory().run(headless=True, size=(140, 45), auto_pilot=auto_pilot)
    assert seen == {"paused at first": True, "running once settled": True}
    assert gc.isenabled() and gc.get_freeze_count() == 0


async def test_a_key_leaves_the_collection_until_its_frame_is_out(app_factory: MakeApp) -> None:
    """Once settled, a key's answer is computed and painted without the collector scanning
    what it allocates; it runs again once the frame is out."""
    collections: list[int] = []

    def counted(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await wait_until(app, lambda: gc.get_freeze_count() > 0)
        answers: list[object] = []
        main.watch(main, "calc", lambda calc: answers.append((calc, gc.isenabled())), init=False)
        gc.callbacks.append(counted)
        try:
            await pilot.press("u", "4", "0", "enter")
            await wait_until(app, lambda: answers and gc.isenabled())
        finally:
            gc.callbacks.remove(counted)
        assert main.settings.utilisation == 0.4
        assert answers[-1][1] is False, "the collector ran while the answer was computed"
        assert collections, "the collector never ran after the frame"


@pytest.mark.parametrize("paused_by", ["make_app", "the caller"])
async def test_the_app_that_loads_its_data_gives_the_collector_back(paused_by: str) -> None:
    """make_app loading the data pauses the collector (as run does), or takes it paused from
    its caller (`costcalc` pauses it for the imports): the app gives it back when it settles,
    and when it ends before that."""
    for settle in (True, False):
        if paused_by == "the caller":
            gc.disable()
        app = make_app(
            now=FIXED_NOW,
            detect_gpu=False,
            load_bench=False,
            collector_paused=paused_by == "the caller",
        )
        assert not gc.isenabled()
        async with app.run_test(size=(140, 45)):
            if settle:
                await wait_until(app, lambda: gc.get_freeze_count() > 0)
                assert gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() == 0
