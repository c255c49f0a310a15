"""The refresh window in plain words, against a real HTTP server on 127.0.0.1.

One provider answers, one answers 500, one never answers in time, one has no feed at all. The
window shows each as it happens, one line per provider naming the host (never a URL), and says
when the whole refresh has finished.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.store.settings import Settings
from costcalc.tui.app import CostcalcApp
from costcalc.tui.screens.job import DONE, RUNNING
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.screens.refresh import ProviderLine, RefreshScreen
from tests.conftest import FEEDS, FeedRoutes, serve_catalogs
from tests.tui.conftest import MakeApp
from tests.tui.helpers import notifications, wait_until

PROVIDERS = ("runpod", "vast", "azure", "hetzner")


def lines(screen: RefreshScreen) -> list[str]:
    """Each provider's line as a user reads it: glyph, name, what happened."""
    return [
        " ".join(f"{line.who.content} {line.what.content}".split())
        for line in screen.query(ProviderLine)
    ]


def subtitle(screen: RefreshScreen) -> str:
    return str(screen.query_one("#job-body").border_subtitle)


def status(screen: RefreshScreen) -> str:
    return str(screen.query_one("#job-status").render())


@pytest.fixture
def feeds(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> Any:
    """RunPod answers once the test lets it (so its running line can be read), Vast.ai answers
    500 every time, Azure answers after the read timeout has passed."""
    release = threading.Event()
    body = (FEEDS / "runpod-gputypes.json").read_bytes()

    def runpod(_request: Request) -> Response:
        def held() -> Iterator[bytes]:
            # A space every 0.2 s (JSON allows it before the body) keeps the read timeout from
            # firing, so RunPod stays "asking" for as long as the test needs to see it, on a
            # loaded machine too, and no retry starts; at most 60 s, then the body
            waited = 0.0
            while not release.wait(0.2) and waited < 60:
                waited += 0.2
                yield b" "
            yield body

        return Response(held(), content_type="application/json")

    def azure(_request: Request) -> Response:
        time.sleep(3.0)  # past the 2 s read timeout
        return Response("{}", content_type="application/json")

    feed_server.serve("/runpod/graphql", runpod)
    feed_server.serve("/vast/bundles/", lambda _request: Response("down", status=500))
    feed_server.serve("/azure/prices", azure)
    serve_catalogs(feed_server, monkeypatch, recorded=False)  # reachable, listing nothing
    monkeypatch.setenv("COSTCALC_RUNPOD_URL", feed_server.url("/runpod/graphql"))
    monkeypatch.setenv("COSTCALC_VAST_URL", feed_server.url("/vast/bundles/"))
    monkeypatch.setenv("COSTCALC_AZURE_URL", feed_server.url("/azure/prices"))
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "2")
    monkeypatch.setenv("COSTCALC_HTTP_RETRIES", "2")
    monkeypatch.setenv("COSTCALC_HTTP_BACKOFF", "0.01")
    host = feed_server.base_url.removeprefix("http://")
    return release, host


async def test_each_provider_gets_one_plain_line_as_it_happens(
    app_factory: MakeApp, feeds: Any
) -> None:
    release, host = feeds
    app: CostcalcApp = app_factory(Settings(gpu="rtx3090", providers=PROVIDERS))
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.screen
        assert isinstance(main, MainScreen)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, RefreshScreen)

        # RunPod is waiting on its server: its line says so, and the window is still busy
        await wait_until(app, lambda: lines(screen) == [f"… RunPod asking {host}"])
        assert subtitle(screen) == RUNNING and not screen.finished
        assert screen.query_one("#job-spinner").display
        assert status(screen) == "Refreshing 1 of 4: RunPod"

        release.set()
        await wait_until(app, lambda: screen.finished)
        shown = lines(screen)
        assert len(shown) == 4, shown
        runpod, vast, azure, hetzner = shown
        assert re.fullmatch(rf"✓ RunPod [\d,]+ offers(, .*)? \({re.escape(host)}\)", runpod)
        assert re.fullmatch(rf"✗ Vast\.ai HTTP 500 .* after 2 retries \({re.escape(host)}\)", vast)
        assert azure == f"✗ Azure no answer within 2 s ({host})"
        assert re.fullmatch(r"– Hetzner curated table, \d+ d old \(no public price feed\)", hetzner)
        assert not any("://" in line or "%" in line or "/runpod" in line for line in shown)

        assert subtitle(screen) == DONE
        assert not screen.query_one("#job-spinner").display
        assert status(screen).startswith("Finished: 1 updated, 2 failed, 1 curated tables kept")
        # the window says it is done first; the app's notification follows as a message
        await wait_until(app, lambda: bool(notifications(app)))
        notes = [n.message for n in notifications(app)]
        assert any("refresh failed for Vast.ai, Azure" in n for n in notes), notes

        await pilot.press("escape")
        assert app.screen is main


async def test_a_refresh_that_cannot_start_says_it_failed(app_factory: MakeApp, feeds: Any) -> None:
    import filelock

    from costcalc.feeds.refresh import lock_path
    from costcalc.tui.screens.job import FAILED

    lock_path().parent.mkdir(parents=True, exist_ok=True)
    app = app_factory(Settings(gpu="rtx3090", providers=PROVIDERS))
    with filelock.FileLock(lock_path()):  # another refresh holds the lock
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("r")
            screen = app.screen
            assert isinstance(screen, RefreshScreen)
            await wait_until(app, lambda: screen.finished)
            assert subtitle(screen) == FAILED
            assert "another refresh is running" in status(screen)
            assert lines(screen) == []
            await pilot.press("escape")
            assert isinstance(app.screen, MainScreen)
