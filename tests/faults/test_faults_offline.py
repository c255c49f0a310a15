"""Fault case: `costcalc refresh` with no network. Every feed URL points at a closed port on
127.0.0.1 (a refused connection, what a machine without a route or a resolver answers at once),
the exchange rates at a slow local server; the run must give up fast, say each failure once,
write each provider's line when it finishes (through a pipe, as cron reads it), and end with a
summary that counts what the lines said.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug import Request, Response

from costcalc.providers import registry
from tests.conftest import FEEDS, FeedRoutes

pytestmark = pytest.mark.subprocess

URL_SETTINGS = {
    "COSTCALC_AWS_SPOT_URL": "/spot.json",
    "COSTCALC_AWS_ADVISOR_URL": "/advisor.json",
    "COSTCALC_AWS_ONDEMAND_URL": "/ondemand/{region}/index.json",
    "COSTCALC_RUNPOD_URL": "/graphql",
    "COSTCALC_VAST_URL": "/bundles",
    "COSTCALC_AZURE_URL": "/azure",
    "COSTCALC_OCI_URL": "/oci/products",
    "COSTCALC_OCI_SHAPES_URL": "/oci/shapes",
    "COSTCALC_GPUHUNT_URL": "/gpuhunt",
    "COSTCALC_SKYPILOT_URL": "/skypilot",
    "COSTCALC_SKYPILOT_COMMITS_URL": "/commits",
}
ECB_DELAY_S = 2.0


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port bound but not listening: a connection to it is refused, and no one else can take
    it while the test runs."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def _read(stream: object, into: list[tuple[float, str]]) -> None:
    for text in stream:  # type: ignore[attr-defined]
        into.append((time.monotonic(), text.rstrip("\n")))


def test_refresh_without_network_gives_up_fast_and_streams_its_lines(
    closed_port: int, feed_server: FeedRoutes, isolated_home: Path
) -> None:
    def slow_rates(_request: Request) -> Response:
        time.sleep(ECB_DELAY_S)
        body = (FEEDS / "eurofxref-daily.xml").read_bytes()
        return Response(body, content_type="text/xml")

    feed_server.serve("/ecb.xml", slow_rates)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COSTCALC_", "LAMBDA_"))}
    env.update(
        {name: f"http://127.0.0.1:{closed_port}{path}" for name, path in URL_SETTINGS.items()}
    )
    env.update(
        COSTCALC_HOME=str(isolated_home),
        COSTCALC_ECB_URL=feed_server.url("/ecb.xml"),
        COSTCALC_AWS_REGIONS="us-east-1,us-west-2",
        COSTCALC_AZURE_REGIONS="eastus",
    )
    for name in ("COSTCALC_HTTP_RETRIES", "COSTCALC_HTTP_BACKOFF"):
        env.pop(name, None)  # the defaults: 3 retries, 1 s backoff
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "costcalc", "refresh"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out: list[tuple[float, str]] = []
    err: list[tuple[float, str]] = []
    readers = [
        threading.Thread(target=_read, args=(proc.stdout, out)),
        threading.Thread(target=_read, args=(proc.stderr, err)),
    ]
    for reader in readers:
        reader.start()
    code = proc.wait(timeout=60)
    ended = time.monotonic()
    for reader in readers:
        reader.join()
    text = "\n".join(line for _, line in out + err)
    assert code == 1, text
    assert ended - started < 10, f"took {ended - started:.1f} s with no network"
    assert "Traceback" not in text

    failed = [line for _, line in err if " failed: " in line]
    failed_names = {line.split("refresh: ", 1)[1].split(" failed")[0] for line in failed}
    # every provider with a live feed or a catalog fails, each once; the curated ones are skipped
    expected = {p.name for p in registry.every() if p.live} - {"paperspace", "aws-reserved"}
    assert failed_names == expected, text
    assert len(failed) == len(expected), "each failure once"
    assert all("connection refused" in line for line in failed), text

    # the first failure was written at once, long before the slow exchange rates came in
    first_failure = min(when for when, line in err if " failed: " in line)
    assert ended - first_failure > ECB_DELAY_S * 0.75, "lines arrive as providers finish"

    summaries = [line for _, line in out if "refresh: " in line and " refreshed, " in line]
    assert len(summaries) == 1, text
    ok = sum(1 for _, line in out if ": ok: " in line)
    skipped = sum(1 for _, line in out if ": skipped: " in line)
    assert summaries[0].endswith(f"{ok} refreshed, {skipped} skipped, {len(failed)} failed")
    assert ok == 1  # the exchange rates
