"""The suite's own machinery (tests/conftest.py): markers given by what a test uses, the shared
feed server keeping each test's routes apart, and the warmed parse cache each home starts with.
The fast subset in the README relies on all three."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from werkzeug import Response

from costcalc.edge import locations
from costcalc.store.loaders import load_app_data
from costcalc.tui.detect import nvidia_smi_gpu_names
from tests.conftest import FeedRoutes, FeedServer, _never_selects


def test_a_test_that_serves_feeds_is_marked_network(
    feed_server: FeedRoutes, request: pytest.FixtureRequest
) -> None:
    assert request.node.get_closest_marker("network") is not None
    assert request.node.get_closest_marker("subprocess") is None


def test_a_test_that_starts_a_process_is_marked_subprocess(
    request: pytest.FixtureRequest,
) -> None:
    assert request.node.get_closest_marker("subprocess") is not None
    subprocess.run([sys.executable, "-c", "pass"], check=True)  # allowed: the marker is there


def test_a_plain_test_has_none_of_the_slow_markers(request: pytest.FixtureRequest) -> None:
    for name in ("app", "network", "subprocess", "bench"):
        assert request.node.get_closest_marker(name) is None, name


def test_a_process_started_from_inside_costcalc_without_the_marker_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The detector's own call to nvidia-smi is invisible in this test's code: the guard still
    sees it, and says which marker is missing."""
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\necho 'NVIDIA GeForce RTX 3090'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(RuntimeError, match="without the subprocess marker"):
        nvidia_smi_gpu_names()


@pytest.fixture
def two_tests(_http_feed_server: FeedServer) -> Iterator[tuple[FeedRoutes, FeedRoutes]]:
    """The routes of two tests on the one session server, as two tests in turn would get them."""
    first, second = _http_feed_server.routes(), _http_feed_server.routes()
    yield next(first), next(second)
    first.close()
    second.close()


def test_each_test_sees_only_its_own_routes_and_hits(
    two_tests: tuple[FeedRoutes, FeedRoutes],
) -> None:
    first, second = two_tests
    first.serve("/spot.json", lambda _request: Response("first"))
    second.serve("/spot.json", lambda _request: Response("second"))
    assert requests.get(first.url("/spot.json"), timeout=5).text == "first"
    assert requests.get(second.url("/spot.json"), timeout=5).text == "second"
    assert requests.get(second.url("/only-in-first"), timeout=5).status_code == 404
    assert first.hits == {"/spot.json": 1}
    assert second.hits == {"/spot.json": 1, "/only-in-first": 1}
    assert first.base_url == second.base_url  # one server: the host a test shows is the same


def test_a_finished_tests_routes_answer_404(_http_feed_server: FeedServer) -> None:
    """A request a finished test left in flight never reaches the routes of the next test."""
    finished = _http_feed_server.routes()
    routes = next(finished)
    routes.serve("/spot.json", lambda _request: Response("served"))
    assert requests.get(routes.url("/spot.json"), timeout=5).status_code == 200
    finished.close()
    assert requests.get(routes.url("/spot.json"), timeout=5).status_code == 404
    assert routes.hits == {"/spot.json": 1}


def test_a_home_starts_with_the_sessions_parse_cache_and_loading_uses_it(
    parsed_bundled_files: dict[str, bytes],
) -> None:
    parsed = locations.cache_dir() / "parsed"
    before = {entry.name: entry.read_bytes() for entry in parsed.glob("*.msgpack")}
    assert before == parsed_bundled_files
    load_app_data()
    after = {entry.name for entry in parsed.glob("*.msgpack")}
    assert after == set(before)  # nothing parsed anew: every bundled file is in the cache


def test_a_test_that_moves_to_another_home_finds_the_cache_there_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parsed_bundled_files: dict[str, bytes]
) -> None:
    monkeypatch.setenv("COSTCALC_HOME", str(tmp_path / "second-home"))
    parsed = locations.cache_dir() / "parsed"
    assert parsed.parent.parent == tmp_path / "second-home"
    written = {entry.name for entry in parsed.glob("*.msgpack")}
    assert any(name.startswith("GpuCatalogFile-") for name in written)
    assert written <= set(parsed_bundled_files)


def test_a_child_process_finds_the_cache_on_disk_before_any_call(
    isolated_home: Path, parsed_bundled_files: dict[str, bytes]
) -> None:
    """A subprocess test's home is filled at once: the child never calls this process's hook."""
    found = subprocess.run(
        [sys.executable, "-c", "import os; print(len(os.listdir('cache/parsed')))"],
        cwd=isolated_home,
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(found.stdout) == len(parsed_bundled_files)


@pytest.mark.cold_cache
def test_a_cold_cache_test_starts_with_no_parse_cache(
    parsed_bundled_files: dict[str, bytes],
) -> None:
    """...and its first load parses the bundled files and caches each of them, as a user's
    first run does: the same entries the session made."""
    from costcalc.store.loaders import clear_caches

    parsed = locations.cache_dir() / "parsed"
    assert not parsed.exists()
    clear_caches()  # what this process read of the bundled files before
    load_app_data()
    written = {entry.name for entry in parsed.glob("*.msgpack")}
    assert any(name.startswith("GpuCatalogFile-") for name in written)
    assert written <= set(parsed_bundled_files)


@pytest.mark.parametrize(
    ("markexpr", "skipped"),
    [
        ("not app and not network and not subprocess and not bench and not slow", True),
        ("not app", True),
        ("", False),
        ("network", False),  # an app test may serve feeds too
        ("not app or network", False),
        ("asyncio", False),  # a marker the suite does not give: maybe any test has it
        ("not (", False),  # pytest itself reports the bad expression
    ],
)
def test_a_folder_is_left_uncollected_only_when_no_test_in_it_could_be_selected(
    markexpr: str, skipped: bool
) -> None:
    assert _never_selects(markexpr, "app") is skipped
