"""Refresh and bench from the app: thread workers, live progress, tables updated, no crash."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.conftest import EMPTY_COMMITS, EMPTY_VERSION, GPUHUNT_HEADER, SKYPILOT_HEADER, zipped
from tests.tui.conftest import MakeApp
from tests.tui.helpers import notifications, notified, wait_until

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"


@pytest.fixture
def aws_spot_server(httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> HTTPServer:
    httpserver.expect_request("/spot.json").respond_with_data(
        (FEEDS / "spot.json").read_text(), content_type="application/json"
    )
    httpserver.expect_request("/advisor.json").respond_with_data(
        (FEEDS / "spot-advisor-data.json").read_text(), content_type="application/json"
    )
    monkeypatch.setenv("COSTCALC_AWS_SPOT_URL", httpserver.url_for("/spot.json"))
    monkeypatch.setenv("COSTCALC_AWS_ADVISOR_URL", httpserver.url_for("/advisor.json"))
    # the catalogs reachable and listing nothing, so the table shows the spot feed alone
    httpserver.expect_request("/skypilot/v8/aws/vms.csv").respond_with_data(
        ",".join(SKYPILOT_HEADER) + "\n", content_type="text/csv"
    )
    httpserver.expect_request("/commits").respond_with_data(
        EMPTY_COMMITS, content_type="application/json"
    )
    httpserver.expect_request("/gpuhunt/aws/version").respond_with_data(EMPTY_VERSION)
    httpserver.expect_request(f"/gpuhunt/aws/{EMPTY_VERSION}/catalog.zip").respond_with_data(
        zipped("aws.csv", f"{GPUHUNT_HEADER}\n".encode()), content_type="application/zip"
    )
    monkeypatch.setenv("COSTCALC_SKYPILOT_URL", httpserver.url_for("/skypilot"))
    monkeypatch.setenv("COSTCALC_SKYPILOT_COMMITS_URL", httpserver.url_for("/commits"))
    monkeypatch.setenv("COSTCALC_GPUHUNT_URL", httpserver.url_for("/gpuhunt"))
    return httpserver


def spot_rows(screen: MainScreen) -> dict[tuple[str, str], float]:
    assert screen.calc is not None
    return {
        (r.offer.region, r.offer.name): r.offer.usd_per_hour
        for r in screen.calc.comparison.offers
        if r.offer.provider == "aws-spot"
    }


async def test_refresh_against_a_local_server_updates_the_table(
    app_factory: MakeApp, aws_spot_server: HTTPServer
) -> None:
    app = app_factory(Settings(gpu="rtx3090", providers=("aws-spot",)))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        before = spot_rows(main)
        assert before and ("us-east-1", "p4d.24xlarge") in before  # the bundled snapshot

        await pilot.press("r")
        assert type(app.screen).__name__ == "RefreshScreen"
        await wait_until(app, lambda: notified(app, "refreshed"))
        await pilot.pause()

        after = spot_rows(main)
        assert after != before
        assert after[("us-east-1", "p4d.24xlarge")] == 11.2
        assert len({region for region, _ in after}) > 1
        table = main.query_one(OffersTable)
        assert table.view.offers == len(after)
        from costcalc.tui.screens.refresh import ProviderLine

        (line,) = app.screen.query(ProviderLine)
        assert str(line.who.content) == "✓ AWS EC2 spot"
        what = str(line.what.content)  # the fixture's rows are fewer than the bundled ones
        assert " offers, under half the bundled " in what
        assert what.endswith(" regions (" + aws_spot_server.url_for("/")[7:-1] + ")")
        await pilot.press("escape")
        assert app.screen is main
    feeds = [r for r, _ in aws_spot_server.log if r.path in ("/spot.json", "/advisor.json")]
    assert len(feeds) == 2  # each feed asked once (the catalogs' four files besides)


async def test_a_refresh_left_with_escape_finishes_and_updates_the_table(
    app_factory: MakeApp, aws_spot_server: HTTPServer
) -> None:
    """Escape closes the window and the refresh goes on: its job belongs to the app, so closing
    the window does not cancel it (a cancelled worker posts nothing)."""
    app = app_factory(Settings(gpu="rtx3090", providers=("aws-spot",)))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        before = spot_rows(main)
        await pilot.press("r", "escape")
        assert app.screen is main
        await wait_until(app, lambda: notified(app, "refreshed"))
        await pilot.pause()
        assert spot_rows(main) != before
        assert spot_rows(main)[("us-east-1", "p4d.24xlarge")] == 11.2


async def test_refresh_failure_is_a_notification_not_a_crash(
    app_factory: MakeApp, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    httpserver.expect_request("/spot.json").respond_with_data("<html>oops</html>", status=200)
    httpserver.expect_request("/advisor.json").respond_with_data("{}", status=404)
    monkeypatch.setenv("COSTCALC_AWS_SPOT_URL", httpserver.url_for("/spot.json"))
    monkeypatch.setenv("COSTCALC_AWS_ADVISOR_URL", httpserver.url_for("/advisor.json"))
    app = app_factory(Settings(gpu="rtx3090", providers=("aws-spot",)))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        before = spot_rows(main)
        await pilot.press("r")
        await wait_until(app, lambda: notified(app, "failed"))
        await pilot.press("escape")
        assert spot_rows(main) == before
        assert app.is_running


@pytest.mark.subprocess  # the bench names the CPU through platform.processor(): `uname -p`
async def test_tiny_cpu_bench_runs_in_a_worker_and_updates_the_table(
    app_factory: MakeApp,
) -> None:
    """The bench's own 'tiny' mode on the CPU: every code path in a second or two."""
    pytest.importorskip("torch", reason="the bench needs PyTorch")
    from costcalc.bench.store import load_latest
    from costcalc.tui.screens.bench import BenchScreen

    app = app_factory(Settings(gpu="rtx3090", bench="latest", run_hours=10))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        assert main.calc is not None and not main.calc.workload.max_batch
        await app.push_screen(BenchScreen(mode="tiny", device="cpu"))
        await wait_until(app, lambda: app.bench_result is not None, timeout_s=60)
        await pilot.pause()
        assert "bench on cpu" in app.screen.query_one("#job-status").render().plain
        await pilot.press("escape")
        assert app.screen is main
        assert load_latest() == app.bench_result
        assert main.calc is not None and main.calc.workload.max_batch  # memory fit per GPU
        table = main.query_one(OffersTable)
        cells = {table.cell_text(key, "usd_per_batch_item") for key in table.shown_keys}
        assert cells - {"-"}, "a $ per batch item for offers once the bench is known"


HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(
    HAVE_TORCH, reason="runs where PyTorch is not installed (pip install -e .[test])"
)
async def test_bench_without_torch_says_how_to_install_it(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("b")
        await wait_until(app, lambda: notified(app, "pip install"))
        message = next(n.message for n in notifications(app) if "pip install" in n.message)
        assert "PyTorch" in message and "ModuleNotFoundError" not in message
        assert app.is_running and app.bench_result is None


async def test_bench_without_torch_says_so_and_that_it_stopped(
    app_factory: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where torch is missing, the window says how to install it, says it has finished, and
    Escape closes it.

    The test environment has torch (the other bench tests need it) and there is no second
    environment holding this code without torch, so the one question the bench asks before
    importing torch, `importlib.util.find_spec("torch")`, is made to answer "not installed";
    every other module is found as usual. (The skipped test above runs for real without torch.)
    """
    from costcalc.tui.screens.bench import NO_TORCH, BenchScreen
    from costcalc.tui.screens.job import FAILED

    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        if name == "torch" or name.startswith("torch."):
            return None
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.screen
        await pilot.press("b")
        screen = app.screen
        assert isinstance(screen, BenchScreen)
        await wait_until(app, lambda: screen.finished)
        assert str(screen.query_one("#job-status").render()) == NO_TORCH
        assert str(screen.query_one("#job-body").border_subtitle) == FAILED
        assert not screen.query_one("#job-progress").display
        assert any(n.message == NO_TORCH for n in notifications(app))
        await pilot.press("escape")
        assert app.screen is main
        assert app.is_running and app.bench_result is None


@pytest.mark.skipif(not HAVE_TORCH, reason="needs PyTorch")
async def test_bench_failure_is_a_notification(
    app_factory: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import costcalc.bench

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("no device")

    monkeypatch.setattr(costcalc.bench, "run_bench", broken)
    from costcalc.tui.screens.bench import BenchScreen

    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("b")
        assert isinstance(app.screen, BenchScreen)
        await wait_until(app, lambda: notified(app, "no device"))
        assert app.is_running and app.bench_result is None
