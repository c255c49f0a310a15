"""The fault-injection suite: a local server that fails on purpose, and what each failure does.

Each case names the fault, then checks what the README promises: the exit code, one line per
failing provider naming the host, the last good snapshot intact, and the other providers fine.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from msgspec.structs import replace
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.edge.net import FetchError, FetchSettings, HttpClient
from costcalc.edge.resources import PRICES_PACKAGE
from costcalc.store.snapshots import refreshed_path
from tests.conftest import FEEDS, FeedRoutes
from tests.rawtcp import RawTcpServer

SPOT_JSON = (FEEDS / "spot.json").read_bytes()


def refresh(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["refresh", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- slow servers


def drip(body: bytes, every_s: float) -> Callable[[Request], Response]:
    """A body sent one byte at a time: each byte arrives well within the read timeout."""

    def generate() -> Iterator[bytes]:
        for i in range(len(body)):
            time.sleep(every_s)
            yield body[i : i + 1]

    return lambda _r: Response(generate(), content_type="application/json", direct_passthrough=True)


class DripHeaders(RawTcpServer):
    """A raw TCP server that sends its status line and headers one byte every `every_s`."""

    def __init__(self, every_s: float) -> None:
        self.every_s = every_s
        super().__init__()

    @property
    def url(self) -> str:
        return f"{self.origin}/spot.json"

    def answer(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(4096)
            for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" * 50:
                if self.stop.is_set():
                    return
                try:
                    conn.send(bytes([byte]))
                except OSError:
                    return
                time.sleep(self.every_s)


@pytest.fixture
def good_spot_snapshot(aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]) -> bytes:
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    return refreshed_path("aws-spot").read_bytes()


def test_a_one_byte_a_second_body_ends_by_the_deadline(
    aws_feeds: FeedRoutes,
    good_spot_snapshot: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "5")  # each byte comes well within this
    monkeypatch.setenv("COSTCALC_HTTP_DEADLINE", "2")
    aws_feeds.serve("/spot.json", drip(SPOT_JSON, every_s=1.0))
    started = time.monotonic()
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    took = time.monotonic() - started
    assert took < 2 + 5, took  # the documented deadline, plus the 5 s of grace
    assert code == 1
    assert "no complete answer within 2 s" in err and "127.0.0.1" in err
    assert refreshed_path("aws-spot").read_bytes() == good_spot_snapshot


def test_headers_dripping_one_byte_at_a_time_end_by_the_deadline(
    aws_feeds: FeedRoutes,
    good_spot_snapshot: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = DripHeaders(every_s=0.2)
    try:
        monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "5")
        monkeypatch.setenv("COSTCALC_HTTP_DEADLINE", "1.5")
        monkeypatch.setenv("COSTCALC_AWS_SPOT_URL", server.url)
        started = time.monotonic()
        code, _, err = refresh(capsys, "--provider", "aws-spot")
        assert time.monotonic() - started < 1.5 + 5
    finally:
        server.close()
    assert code == 1 and "no complete answer within 1.5 s" in err
    assert refreshed_path("aws-spot").read_bytes() == good_spot_snapshot


def test_the_whole_refresh_has_a_deadline_too(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "5")
    monkeypatch.setenv("COSTCALC_HTTP_DEADLINE", "60")
    monkeypatch.setenv("COSTCALC_REFRESH_DEADLINE", "1.5")
    aws_feeds.serve("/spot.json", drip(SPOT_JSON, every_s=0.5))
    started = time.monotonic()
    code, _, err = refresh(capsys, "--provider", "aws-spot", "--provider", "aws-ondemand")
    assert time.monotonic() - started < 1.5 + 5
    assert code == 1
    assert "aws-spot failed" in err and "aws-ondemand failed" in err
    assert "deadline passed" in err


def test_a_redirect_loop_is_one_line(
    aws_feeds: FeedRoutes, good_spot_snapshot: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    def loop(request: Request) -> Response:
        return Response("", status=302, headers={"Location": request.path})

    aws_feeds.serve("/spot.json", loop)
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 1 and "redirect" in err
    assert refreshed_path("aws-spot").read_bytes() == good_spot_snapshot


def test_a_huge_body_is_cut_at_the_size_limit(
    aws_feeds: FeedRoutes,
    good_spot_snapshot: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COSTCALC_HTTP_MAX_MB", "1")

    def endless(_request: Request) -> Response:
        def chunks() -> Iterator[bytes]:
            yield b'{"vers": 0.01, "config": {"regions": ['
            while True:
                yield b" " * 65536

        return Response(chunks(), content_type="application/json", direct_passthrough=True)

    aws_feeds.serve("/spot.json", endless)
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 1 and "exceeds 1.0 MB" in err
    assert refreshed_path("aws-spot").read_bytes() == good_spot_snapshot


def test_a_line_without_end_is_refused_in_linear_time(feed_server: FeedRoutes) -> None:
    """A bulk CSV with no newline: the line buffer is capped, never grown quadratically."""

    def no_newlines(_request: Request) -> Response:
        def chunks() -> Iterator[bytes]:
            for _ in range(200):  # 12.8 MB without a newline
                yield b"x" * 65536

        return Response(chunks(), content_type="text/csv", direct_passthrough=True)

    feed_server.serve("/index.csv", no_newlines)
    settings = FetchSettings(read_timeout_s=5, retries=0, max_stream_bytes=64 * 2**20)
    with HttpClient(settings) as client, pytest.raises(FetchError, match="a line longer than"):
        for _line in client.iter_lines(feed_server.url("/index.csv")):
            pass


def test_lines_split_across_chunks_come_out_whole(feed_server: FeedRoutes) -> None:
    body = b"".join(f"row {i},{'y' * (i % 97)}\r\n".encode() for i in range(20000))
    feed_server.serve("/index.csv", lambda _r: Response(body, content_type="text/csv"))
    with HttpClient(FetchSettings(read_timeout_s=5, retries=0)) as client:
        lines = list(client.iter_lines(feed_server.url("/index.csv")))
    assert len(lines) == 20000
    assert lines[12345] == f"row 12345,{'y' * (12345 % 97)}\n"


# --------------------------------------------------------------------------- bad content


def test_a_feed_in_the_wrong_encoding_is_one_line(
    aws_feeds: FeedRoutes, good_spot_snapshot: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    utf16 = SPOT_JSON.decode("utf-8").encode("utf-16")
    aws_feeds.serve("/spot.json", lambda _r: Response(utf16, content_type="application/json"))
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 1 and "not UTF-8 text" in err
    assert refreshed_path("aws-spot").read_bytes() == good_spot_snapshot


def test_repeated_rows_are_stored_once_and_never_block_later_refreshes(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(SPOT_JSON)
    doc["config"]["regions"] = doc["config"]["regions"] * 3  # a repeated page of regions
    aws_feeds.serve("/spot.json", lambda _r: Response(json.dumps(doc)))
    code, out, _ = refresh(capsys, "--provider", "aws-spot")
    assert code == 0 and "refreshed, 14 offers" in out
    aws_feeds.serve_file("/spot.json", "spot.json")
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0  # not refused as a shrink


def test_an_old_snapshot_with_repeated_rows_does_not_refuse_a_correct_refresh(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    from costcalc.store.snapshots import load_refreshed, write_refreshed

    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    path = refreshed_path("aws-spot")
    from costcalc.core.models import PriceSnapshot

    snapshot = load_refreshed(path, PriceSnapshot)
    write_refreshed(path, replace(snapshot, **{"offers": snapshot.offers * 4}))
    code, _out, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 0, err


def test_escape_sequences_in_a_feed_never_reach_the_terminal(
    aws_feeds: FeedRoutes,
    tls_feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = json.loads((FEEDS / "do-sizes.json").read_text())
    for size in doc["sizes"]:
        size["slug"] = "\x1b[2J\x1b]0;pwned\x07" + size["slug"] + "\r\nforged  row"
        size["regions"] = ["tor1\x1b[31m"]
    tls_feed_server.serve("/v2/sizes", lambda _r: Response(json.dumps(doc)))
    monkeypatch.setenv("COSTCALC_DIGITALOCEAN_URL", tls_feed_server.url("/v2/sizes"))
    monkeypatch.setenv("COSTCALC_DIGITALOCEAN_TOKEN", "secret")
    assert refresh(capsys, "--provider", "paperspace")[0] == 0
    for argv in (
        ["prices", "--provider", "paperspace", "--wide"],  # whole names, not cut to 80
        ["history", "--provider", "paperspace", "--wide"],
        ["quick", "--gpu", "rtx3090", "--provider", "paperspace", "--top", "40"],
    ):
        assert main(argv) == 0
        out, err = capsys.readouterr()
        for text in (out, err):
            assert "\x1b" not in text and "\x07" not in text and "\r" not in text
        assert "forged  row" in out or argv[0] == "quick"  # the text stays, on its own row


# --------------------------------------------------------------------------- the environment


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("COSTCALC_HTTP_TIMEOUT", "-1"),
        ("COSTCALC_HTTP_TIMEOUT", "abc"),
        ("COSTCALC_HTTP_MAX_MB", "nan"),
        ("COSTCALC_HTTP_RETRIES", "2.5"),
        ("COSTCALC_HTTP_DEADLINE", "inf"),
    ],
)
def test_a_bad_setting_in_the_environment_is_a_usage_error(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(name, value)
    code, _, err = refresh(capsys, "--provider", "aws-ondemand")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and name in err and "Traceback" not in err


def test_an_unknown_region_to_fetch_fails_that_provider_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COSTCALC_AWS_REGIONS", "mars-north-1")
    code, _, err = refresh(capsys, "--provider", "aws-ondemand")
    assert code == 1 and "COSTCALC_AWS_REGIONS: unknown region 'mars-north-1'" in err


@pytest.mark.parametrize("broken", ["home is a file", "home inside a file"])
def test_a_home_that_cannot_hold_files_is_one_line(
    broken: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    home = blocker if broken == "home is a file" else blocker / "home"
    monkeypatch.setenv("COSTCALC_HOME", str(home))
    for argv, codes in (
        (["refresh", "--provider", "colab"], {2}),
        (["quick", "--gpu", "rtx3090"], {0}),  # reading needs no home: bundled data
        (["prices", "--provider", "colab"], {0}),
        (["history", "--provider", "colab"], {0, 2}),
    ):
        code = main(argv)
        _out, err = capsys.readouterr()
        assert code in codes, (argv, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) <= 2, (argv, err)


def test_broken_user_files_cost_a_warning_or_one_line_never_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from importlib import resources

    from costcalc.edge import locations
    from costcalc.store.snapshots import fx_path

    bundled = resources.files(PRICES_PACKAGE).joinpath("fx.yaml").read_text(encoding="utf-8")
    fx_path().parent.mkdir(parents=True, exist_ok=True)
    fx_path().write_text(bundled[: len(bundled) // 2])  # a refresh cut off mid-write
    locations.config_file().parent.mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text("util: [unclosed\n  : : garbage\n")
    argv = ["quick", "--gpu", "rtx3090", "--currency", "EUR"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "amounts in EUR" in " ".join(out.split())
    assert "config.yaml: not valid YAML" in err and "; using defaults" in err
    assert "fx.yaml" in err and "using the bundled exchange rates instead" in err
    locations.price_overrides_file().write_bytes(b"overrides:\n  - provider: \xff bad\n")
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert not out and "not UTF-8" in err.splitlines()[-1] and "Traceback" not in err
