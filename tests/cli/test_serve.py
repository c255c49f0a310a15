"""`costcalc serve`: the app in a browser, through a real server on 127.0.0.1.

The server runs as a user starts it (`python -m costcalc serve`); a real websocket client
(aiohttp's) reads what a browser tab would be sent and sends what it would send, with the headers
a browser gives: its Origin, the Host it asked for, the cookie the page set. Where Debian's
chromium is installed a headless browser loads the page and saves a screenshot (its path is
printed: `pytest -s` shows it).

Deadlines are wall-clock limits on waiting for the app (started per tab, seconds under load),
never measurements.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from msgspec import Struct, field

from costcalc.cli.serve import MAX_SESSIONS
from costcalc.cli.webserver import MAX_COLUMNS, MAX_ROWS

pytestmark = pytest.mark.subprocess

ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[@-_][^\x1b]*?(\x1b\\|\x07)|\x1b.")
MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")
VERDICT = re.compile(r"(Rent|Buy): at \d+% utilisation")
APP_START_S = 90
"""How long a tab may wait for its app's first verdict (a new process loading its data)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Served(Struct):
    """A running `costcalc serve`: its port, the token of the URL it printed, what it said."""

    port: int
    token: str
    process: subprocess.Popen[str]
    cwd: Path
    """Where it runs: nothing may be written there."""
    log: list[str] = field(default_factory=list)
    """What it printed on stderr after its first line (one line per refusal)."""

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, width: int = 140, height: int = 45, token: str | None = None) -> str:
        query = f"width={width}&height={height}"
        return f"ws://127.0.0.1:{self.port}/ws?{query}" + (f"&token={token}" if token else "")

    def lines(self, text: str, count: int = 1, seconds: float = 10) -> list[str]:
        """The lines of its stderr that hold `text`, once there are `count` of them (or
        `seconds` have passed: they are read by a thread of their own)."""
        deadline = time.monotonic() + seconds
        while True:
            found = [line for line in list(self.log) if text in line]
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def start_serve(home: Path, cwd: Path, *options: str) -> Served:
    """`costcalc serve` on a free port, once it has printed its URL (it binds first)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "costcalc", "serve", "--port", str(port), *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "COSTCALC_HOME": str(home)},
        start_new_session=True,  # the server's per-tab app processes go with it
    )
    assert process.stderr is not None
    ready, _, _ = select.select([process.stderr], [], [], 60)
    first = process.stderr.readline() if ready else ""
    found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+) ", first)
    if found is None:
        stop(process)
        raise AssertionError(f"serve did not print its URL: {first!r}")
    assert int(found[1]) == port
    served = Served(port, found[2], process, cwd)
    stream = process.stderr
    threading.Thread(target=lambda: served.log.extend(stream), daemon=True).start()
    return served


def stop(process: subprocess.Popen[str]) -> None:
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@pytest.fixture
def served(isolated_home: Path, tmp_path: Path) -> Iterator[Served]:
    """`costcalc serve`, run from a folder of its own (where nothing may be written)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    server = start_serve(isolated_home, cwd)
    try:
        yield server
    finally:
        stop(server.process)


@asynccontextmanager
async def browser_session() -> AsyncIterator[Any]:
    """An HTTP client that keeps cookies for 127.0.0.1, as a browser does."""
    import aiohttp

    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        yield session


class Tab:
    """A browser tab's websocket: what the app sends (each message, and as plain text)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[str] = []
        self.text = ""
        self.closed = False

    async def until(self, done: Callable[[], object], seconds: float = 60) -> None:
        """Read what the app sends until `done()` (checked after each message) is true.
        The deadline is outside aiohttp's receive: its timeout starts again at every ping."""
        try:
            await asyncio.wait_for(self._read_until(done), seconds)
        except asyncio.TimeoutError:
            raise AssertionError(
                f"not seen within {seconds} s; the tab shows:\n{self.text[-3000:]}"
            ) from None

    async def _read_until(self, done: Callable[[], object]) -> None:
        import aiohttp

        while not done():
            message = await self.ws.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                decoded = message.data.decode("utf-8", "replace")
                self.messages.append(decoded)
                self.text += ANSI.sub("", decoded)
            elif message.type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSING,
                aiohttp.WSMsgType.CLOSED,
            ):
                self.closed = True
                if not done():
                    raise AssertionError(f"the server closed the tab:\n{self.text[-3000:]}")

    async def type(self, *keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", key])

    async def resize(self, width: int, height: int) -> int:
        """Ask for a new size, as the page does when its window changes; the number of
        messages before it."""
        mark = len(self.messages)
        await self.ws.send_json(["resize", {"width": width, "height": height}])
        return mark


def frame_size(message: str) -> tuple[int, int]:
    """The columns and rows a message from the app paints: its cursor moves' rows, and how far
    each line's text reaches from its move."""
    parts = MOVE.split(message)
    columns = rows = 0
    for row, column, text in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
        line = ANSI.sub("", text).split("\n")[0]
        rows = max(rows, int(row))
        columns = max(columns, int(column) - 1 + len(line))
    return columns, rows


def largest(messages: list[str]) -> tuple[int, int]:
    sizes = [frame_size(m) for m in messages] or [(0, 0)]
    return max(c for c, _ in sizes), max(r for _, r in sizes)


def page(served: Served, path: str = "/", **headers: str) -> tuple[int, str, str]:
    """GET a page as a browser would: (status, body, the cookie it sets)."""
    request = urllib.request.Request(f"{served.origin}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode(), answer.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode(), ""


# ---------------------------------------------------------------------- what a user gets


def test_the_page_and_the_app_answer_with_the_verdict(served: Served, tmp_path: Path) -> None:
    """The printed URL's page sets the cookie, and the tab's websocket (the page's own origin,
    the cookie, no token in its URL, as the page's script opens it) gets the app."""
    text = asyncio.run(first_screen(served))
    assert VERDICT.search(text), text[-2000:]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return  # the browser step runs where Debian's chromium package is installed
    shot = tmp_path / "serve.png"
    url = f"{served.origin}/?token={served.token}"
    asyncio.run(browser_screenshot(chromium, url, shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot of costcalc serve in headless chromium: {shot}")


async def first_screen(served: Served) -> str:
    async with browser_session() as session:
        async with session.get(f"{served.origin}/?token={served.token}") as answer:
            html = await answer.text()
            assert answer.status == 200
        assert (
            "costcalc" in html
            and f'data-session-websocket-url="ws://127.0.0.1:{served.port}/ws"' in html
        )
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        cookie = answer.cookies[f"costcalc-serve-{served.port}"]
        assert (
            cookie.value == served.token and cookie["httponly"] and cookie["samesite"] == "Strict"
        )
        headers = {"Origin": served.origin}
        async with session.ws_connect(served.ws_url(), headers=headers) as ws:
            tab = Tab(ws)
            await tab.until(lambda: VERDICT.search(tab.text), APP_START_S)
            return tab.text


# ---------------------------------------------------------------------- refusals


def test_a_request_without_the_token_from_another_page_or_host_is_refused(
    served: Served,
) -> None:
    """What any web page the user visits could send: no token, a guessed one, the right one
    from another origin (another site, or another server on this machine), or through a
    DNS-rebound name. Each gets 403 before any app starts, and the server says why."""
    status, body, cookie = page(served)
    assert (status, cookie) == (403, "")
    assert (
        body
        == "costcalc serve: no token or a wrong one: open the URL that costcalc serve printed\n"
    )
    assert page(served, f"/?token={served.token}x")[0] == 403
    assert page(served, f"/?token={served.token}", Host=f"rebound.example:{served.port}")[0] == 403
    assert page(served, f"/?token={served.token}")[0] == 200  # (the same requests, rightly)

    good = served.ws_url(token=served.token)
    cases = {
        "no token": (served.ws_url(), {"Origin": served.origin}),
        "a wrong token": (served.ws_url(token="guess"), {"Origin": served.origin}),
        "another site": (good, {"Origin": "http://attacker.example"}),
        "another port": (good, {"Origin": f"http://127.0.0.1:{free_port()}"}),
        "a sandboxed page": (good, {"Origin": "null"}),
        "a rebound name": (
            good,
            {
                "Origin": f"http://rebound.example:{served.port}",
                "Host": f"rebound.example:{served.port}",
            },
        ),
    }
    statuses = asyncio.run(handshakes(cases))
    assert statuses == dict.fromkeys(cases, 403)
    reasons = served.lines("costcalc: refused GET /ws: ", len(cases))
    assert len(reasons) == len(cases), served.log
    assert sum("no token or a wrong one" in line for line in reasons) == 2
    assert sum("may not use this server" in line for line in reasons) == 3
    assert (
        sum("'rebound.example:" in line and "not a name of this server" in line for line in reasons)
        == 1
    )
    assert asyncio.run(handshakes({"right": (good, {"Origin": served.origin})})) == {"right": 101}


async def handshakes(cases: dict[str, tuple[str, dict[str, str]]]) -> dict[str, int]:
    """Each case's websocket handshake status (101: accepted, then closed at once)."""
    import aiohttp

    statuses = {}
    async with aiohttp.ClientSession() as session:
        for name, (url, headers) in cases.items():
            try:
                async with session.ws_connect(url, headers=headers):
                    statuses[name] = 101
            except aiohttp.WSServerHandshakeError as refused:
                statuses[name] = refused.status
    return statuses


def test_a_fifth_session_is_refused_until_a_tab_closes(served: Served) -> None:
    asyncio.run(sessions(served))
    assert served.lines(f"refused GET /ws: {MAX_SESSIONS} sessions are open, the most this server")


async def sessions(served: Served) -> None:
    import aiohttp

    headers = {"Origin": served.origin}
    url = served.ws_url(token=served.token)
    async with aiohttp.ClientSession() as session:
        tabs = [await session.ws_connect(url, headers=headers) for _ in range(MAX_SESSIONS)]
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(url, headers=headers)
        assert refused.value.status == 403
        await tabs.pop().close()
        # The closed tab's app quits, and then its place is free: try until it is.
        deadline = time.monotonic() + 60
        while True:
            try:
                tabs.append(await session.ws_connect(url, headers=headers))
                break
            except aiohttp.WSServerHandshakeError:
                assert time.monotonic() < deadline, "the closed tab's place never came free"
                await asyncio.sleep(0.2)
        for tab in tabs:
            await tab.close()


def test_a_huge_terminal_is_capped(served: Served) -> None:
    """A page asks for 20000 x 20000 cells, when it opens and when it resizes: the app paints
    at most MAX_COLUMNS x MAX_ROWS (read off the cursor moves and lines it sends)."""
    asyncio.run(huge_terminal(served))


async def huge_terminal(served: Served) -> None:
    import aiohttp

    headers = {"Origin": served.origin}
    url = served.ws_url(20_000, 20_000, served.token)
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, headers=headers, max_msg_size=0) as ws,
    ):
        tab = Tab(ws)
        await tab.until(lambda: VERDICT.search(tab.text), APP_START_S)
        assert largest(tab.messages) == (MAX_COLUMNS, MAX_ROWS)
        mark = await tab.resize(100, 30)  # smaller: what the size is read from follows it
        await tab.until(lambda: (100, 30) in map(frame_size, tab.messages[mark:]))
        mark = await tab.resize(20_000, 20_000)
        await tab.until(lambda: largest(tab.messages[mark:])[1] >= MAX_ROWS)
        assert largest(tab.messages[mark:]) == (MAX_COLUMNS, MAX_ROWS)


# ---------------------------------------------------------------------- what a session writes


def test_a_served_session_changes_nothing_the_cli_reads(
    served: Served, isolated_home: Path
) -> None:
    """As in the issue: a tab types `u 9 9 Enter`, which the app shows at once; `costcalc quick`
    still answers as before, byte for byte, and the only file the session wrote is its export,
    under COSTCALC_HOME (not in the server's working directory)."""
    config = isolated_home / "config" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("gpu: rtx3090\nutilisation: 0.15\n", encoding="utf-8")
    before = quick(isolated_home)
    assert b"at 15% utilisation" in before[1]
    files = home_files(isolated_home)
    exports = isolated_home / "data" / "exports"
    asyncio.run(change_and_export(served, exports))
    assert quick(isolated_home) == before
    (export,) = exports.glob("costcalc-offers-*.csv")
    assert "cost_per_year_usd" in export.read_text(encoding="utf-8").splitlines()[0]
    assert home_files(isolated_home) == files
    assert list(served.cwd.iterdir()) == []


async def change_and_export(served: Served, exports: Path) -> None:
    async with browser_session() as session:
        async with session.get(f"{served.origin}/?token={served.token}") as answer:
            assert answer.status == 200
        async with session.ws_connect(served.ws_url(), headers={"Origin": served.origin}) as ws:
            tab = Tab(ws)
            await tab.until(lambda: at_utilisation(15, tab.text), APP_START_S)
            await tab.type("u", "9", "9", "\r")
            await tab.until(lambda: at_utilisation(99, tab.text))
            await tab.type("x")
            written = "costcalc-offers-*.csv"
            await tab.until(lambda: any(exports.glob(written)) or any(served.cwd.glob(written)))
            await tab.type("\x03")  # ctrl+c: the app quits, and the server closes the tab
            await tab.until(lambda: tab.closed)


def at_utilisation(percent: int, text: str) -> bool:
    return re.search(rf"(Rent|Buy): at {percent}% utilisation", text) is not None


def quick(home: Path) -> tuple[int, bytes, bytes]:
    """A bare `costcalc quick`: its exit code, stdout and stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "quick"],
        capture_output=True,
        env={**os.environ, "COSTCALC_HOME": str(home), "COLUMNS": "80"},
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def home_files(home: Path) -> dict[str, bytes]:
    """Every file under COSTCALC_HOME with its bytes, but the parse cache (rebuilt at will)
    and the exports folder."""
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file()
        and p.relative_to(home).parts[0] != "cache"
        and p.relative_to(home).parts[:2] != ("data", "exports")
    }


# ---------------------------------------------------------------------- starting


def test_a_busy_port_is_one_line_naming_port(isolated_home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "costcalc", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"costcalc: port {port} is in use; choose another with --port N\n"


def test_a_session_count_below_one_is_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "serve", "--max-sessions", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "sessions must be a whole number from 1: '0'" in done.stderr


async def browser_screenshot(chromium: str, url: str, shot: Path) -> None:
    """Load `url` in headless chromium, wait (real time) until the app's first bytes have
    replaced the page's intro dialog, let it paint, and save a screenshot (DevTools protocol)."""
    import aiohttp

    port = free_port()
    browser = subprocess.Popen(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--remote-debugging-port={port}",
            "--window-size=1400,950",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        page = await devtools_page(port)
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(page, max_msg_size=0) as ws,
        ):
            calls = iter(range(1, 10_000))

            async def call(method: str, **params: object) -> dict[str, object]:
                number = next(calls)
                await ws.send_json({"id": number, "method": method, "params": params})
                while True:
                    answer = await ws.receive_json(timeout=30)
                    if answer.get("id") == number:
                        result: dict[str, object] = answer.get("result", {})
                        return result

            await call("Page.navigate", url=url)
            started = "document.body.classList.contains('-first-byte')"
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                value = await call("Runtime.evaluate", expression=started)
                if value.get("result", {}).get("value") is True:  # type: ignore[union-attr]
                    break
                await asyncio.sleep(0.25)
            else:
                raise AssertionError("the app never reached the browser")
            await asyncio.sleep(4)  # the first screen's verdict and plots
            image = await call("Page.captureScreenshot", format="png")
            shot.write_bytes(base64.b64decode(str(image["data"])))
    finally:
        browser.kill()
        browser.wait(timeout=10)


async def devtools_page(port: int) -> str:
    """The websocket of chromium's first page, once its DevTools endpoint answers."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                pages = [t for t in json.loads(r.read()) if t.get("type") == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
        except OSError:
            pass
        await asyncio.sleep(0.2)
    raise AssertionError("chromium's DevTools endpoint did not answer")


def test_a_port_out_of_range_is_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "serve", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "port must be a whole number from 1 to 65535" in done.stderr
