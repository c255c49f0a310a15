"""What the app holds beyond a screen: the bench the settings name, its workers' answers, the
garbage collector's frozen objects."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

from textual.pilot import Pilot

from costcalc.bench.store import save_result
from costcalc.core.bench_apply import bench_label
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.workers import answer
from tests.bench_results import gpu_bench
from tests.tui.conftest import MakeApp
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


def test_running_the_app_leaves_the_collector_as_it_found_it(app_factory: MakeApp) -> None:
    """`run` (what `costcalc` calls, not run_test) never pauses the cyclic collector, and the
    objects it froze once settled are thawed when it ends."""
    seen: dict[str, bool] = {}

    async def auto_pilot(pilot: Pilot[None]) -> None:
        app = pilot.app
        seen["running at first"] = gc.isenabled()
        await wait_until(app, lambda: gc.get_freeze_count() > 0)
        seen["running once settled"] = gc.isenabled()
        app.exit()

    assert gc.isenabled()
    app_factory().run(headless=True, size=(140, 45), auto_pilot=auto_pilot)
    assert seen == {"running at first": True, "running once settled": True}
    assert gc.isenabled() and gc.get_freeze_count() == 0
