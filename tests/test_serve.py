"""`costcalc serve`: the app in a browser, through a real server on 127.0.0.1.

The server runs as a user starts it (`python -m costcalc serve`); a websocket client reads what a
browser tab would be sent, and where Debian's chromium is installed a headless browser loads the
page and saves a screenshot (its path is printed: `pytest -s` shows it).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[@-_][^\x1b]*?(\x1b\\|\x07)|\x1b.")
VERDICT = re.compile(r"(Rent|Buy): at \d+% utilisation")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"serve exited early: {process.stderr and process.stderr.read()!r}"
            )
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port} within {timeout_s} s")


@pytest.fixture
def server(isolated_home: Path) -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "costcalc", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COSTCALC_HOME": str(isolated_home)},
        start_new_session=True,  # the server's per-tab app processes go with it
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


async def screen_text(port: int, seconds: float = 40) -> str:
    """What the app sends a 140x45 browser tab until the verdict appears (or time runs out)."""
    import aiohttp

    seen = ""
    url = f"ws://127.0.0.1:{port}/ws?width=140&height=45"
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not VERDICT.search(seen):
            try:
                message = await ws.receive(timeout=deadline - time.monotonic())
            except asyncio.TimeoutError:
                break
            if message.type == aiohttp.WSMsgType.BINARY:
                seen += ANSI.sub("", message.data.decode("utf-8", "replace"))
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                break
    return seen


def test_the_page_and_the_app_answer_with_the_verdict(server: int, tmp_path: Path) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{server}/", timeout=10) as page:
        html = page.read().decode()
    assert "costcalc" in html and "/ws" in html
    text = asyncio.run(screen_text(server))
    assert VERDICT.search(text), text[-2000:]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return  # the browser step runs where Debian's chromium package is installed
    shot = tmp_path / "serve.png"
    asyncio.run(browser_screenshot(chromium, f"http://127.0.0.1:{server}/", shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot of costcalc serve in headless chromium: {shot}")


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
