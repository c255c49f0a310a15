"""One refresh for a lab (issue 41, item 4): `refresh --publish DIR` writes the snapshots and a
manifest; `refresh --from URL` takes them in from a real HTTP server on 127.0.0.1 (or a path),
refuses a changed, cut or implausible file with one line and keeps the last good one."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.core.models import PriceSnapshot
from costcalc.feeds.publish import MANIFEST
from costcalc.store.snapshots import load_refreshed, load_snapshot, refreshed_path, write_refreshed
from tests.conftest import FeedRoutes, serve_keyless_feeds

RUNPOD = ["--provider", "runpod"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def serve_directory(
    routes: FeedRoutes, directory: Path, change: Callable[[str, bytes], bytes] | None = None
) -> str:
    """Every file of `directory` under /lab/ on the feed server (as any web server would serve
    a static directory), each passed through `change` first; the directory's URL."""

    def handler(request: Request) -> Response:
        name = request.path.rsplit("/", 1)[-1]
        path = directory / name
        if not path.is_file():
            return Response("not found", status=404)
        data = path.read_bytes()
        return Response(change(name, data) if change else data, content_type="text/plain")

    for found in directory.iterdir():
        routes.serve(f"/lab/{found.name}", handler)
    return routes.url("/lab/")


@pytest.fixture
def published(
    feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> Path:
    """A lab's directory: RunPod refreshed from the recorded feed and published, from a home
    of its own (the member's home is the test's)."""
    serve_keyless_feeds(feed_server, monkeypatch)
    member = tmp_path / "costcalc-home"
    monkeypatch.setenv("COSTCALC_HOME", str(tmp_path / "lab-home"))
    directory = tmp_path / "www"
    code, out, err = run(capsys, "refresh", *RUNPOD, "--publish", str(directory))
    assert (code, err) == (0, ""), err
    assert "refresh: published 1 snapshots to" in out
    monkeypatch.setenv("COSTCALC_HOME", str(member))
    return directory


def lab_runpod(directory: Path) -> bytes:
    (found,) = directory.glob("runpod-*.yaml")
    return found.read_bytes()


def test_publish_then_from_round_trips_over_http(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = json.loads((published / MANIFEST).read_text())
    (entry,) = manifest["files"]
    data = lab_runpod(published)
    assert entry["snapshot"] == "runpod.yaml" and entry["provider"] == "runpod"
    assert entry["bytes"] == len(data)
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert entry["blake2b"] == hashlib.blake2b(data, digest_size=32).hexdigest()
    assert entry["origin"] == "refreshed" and entry["rows"] > 100
    assert manifest["costcalc_version"] and manifest["created_at"]

    url = serve_directory(feed_server, published)
    code, out, err = run(capsys, "refresh", "--from", url)

    assert (code, err) == (0, "")
    assert f"runpod: ok: taken, {entry['rows']} offers of" in out
    assert refreshed_path("runpod").read_bytes() == data
    assert load_snapshot("runpod").origin == str(refreshed_path("runpod"))
    assert run(capsys, "history", "--provider", "runpod", "--json")[0] == 0  # history kept


def test_the_manifest_may_be_named_and_a_path_or_file_url_works(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    url = serve_directory(feed_server, published) + MANIFEST
    assert run(capsys, "refresh", "--from", url)[0] == 0
    refreshed_path("runpod").unlink()
    assert run(capsys, "refresh", "--from", str(published))[0] == 0
    refreshed_path("runpod").unlink()
    assert run(capsys, "refresh", "--from", (published / MANIFEST).as_uri())[0] == 0
    assert refreshed_path("runpod").read_bytes() == lab_runpod(published)


def take_good_then(
    published: Path,
    feed_server: FeedRoutes,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[str, bytes], bytes],
) -> tuple[int, str, str, bytes]:
    """Take the lab's snapshot once as published, then again with `change` applied on the
    server; the second run's code, out and err, and the snapshot the first one stored."""
    url = serve_directory(feed_server, published)
    assert run(capsys, "refresh", "--from", url)[0] == 0
    good = refreshed_path("runpod").read_bytes()
    feed_server.handlers.clear()
    code, out, err = run(
        capsys, "refresh", "--from", serve_directory(feed_server, published, change)
    )
    return code, out, err, good


def flipped(name: str, data: bytes) -> bytes:
    if not name.startswith("runpod-"):
        return data
    at = data.index(b"usd_per_hour: ") + len(b"usd_per_hour: ")
    return data[:at] + (b"9" if data[at : at + 1] != b"9" else b"8") + data[at + 1 :]


def test_a_changed_byte_is_refused_and_the_last_good_snapshot_kept(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err, good = take_good_then(published, feed_server, capsys, flipped)

    assert code == 1
    (line,) = err.splitlines()
    assert "runpod failed" in line and "digest does not match the manifest's" in line
    assert "kept its last good snapshot" in line
    assert refreshed_path("runpod").read_bytes() == good


def test_a_truncated_file_is_refused_and_the_last_good_snapshot_kept(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    def cut(name: str, data: bytes) -> bytes:
        return data[: len(data) // 2] if name.startswith("runpod-") else data

    code, _, err, good = take_good_then(published, feed_server, capsys, cut)

    assert code == 1
    (line,) = err.splitlines()
    assert "bytes where the manifest says" in line and "cut short?" in line
    assert refreshed_path("runpod").read_bytes() == good


def test_a_longer_file_than_the_manifest_says_is_refused_at_its_size(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    def padded(name: str, data: bytes) -> bytes:
        return data + b"#" * 10_000_000 if name.startswith("runpod-") else data

    size = json.loads((published / MANIFEST).read_text())["files"][0]["bytes"]
    code, _, err, good = take_good_then(published, feed_server, capsys, padded)

    assert code == 1 and f"exceeds {size} bytes" in err and len(err.splitlines()) == 1
    assert refreshed_path("runpod").read_bytes() == good


@pytest.mark.parametrize(
    ("lie", "reason"),
    [
        (lambda m: m.update(format="other/9"), "not a costcalc snapshot manifest"),
        (lambda m: m["files"][0].update(snapshot="../../.bashrc"), "does not store"),
        (lambda m: m["files"][0].update(name="runpod-0000000000000000.yaml"), "does not store"),
        (lambda m: m["files"][0].update(bytes=10**12), "not a costcalc snapshot manifest"),
        (lambda m: m["files"].append(dict(m["files"][0])), "twice"),
    ],
)
def test_a_manifest_that_lies_is_refused_whole(
    lie: Callable[[dict[str, Any]], None],
    reason: str,
    published: Path,
    feed_server: FeedRoutes,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def lying(name: str, data: bytes) -> bytes:
        if name != MANIFEST:
            return data
        doc = json.loads(data)
        lie(doc)
        return json.dumps(doc).encode()

    code, out, err, good = take_good_then(published, feed_server, capsys, lying)

    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert reason in line, line
    assert refreshed_path("runpod").read_bytes() == good


def test_a_manifest_whose_rows_lie_is_refused_for_that_file(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    def more_rows(name: str, data: bytes) -> bytes:
        if name != MANIFEST:
            return data
        doc = json.loads(data)
        doc["files"][0]["rows"] += 1
        return json.dumps(doc).encode()

    code, _, err, good = take_good_then(published, feed_server, capsys, more_rows)
    assert code == 1 and "offers where the manifest says" in err
    assert refreshed_path("runpod").read_bytes() == good


def test_pin_accepts_the_published_manifest_and_refuses_another(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    url = serve_directory(feed_server, published)
    right = hashlib.sha256((published / MANIFEST).read_bytes()).hexdigest()
    wrong = right[::-1]
    code, _, err = run(capsys, "refresh", "--from", url, "--pin", wrong)
    assert code == 1 and "not the pinned one; nothing was taken" in err
    assert not refreshed_path("runpod").exists()
    assert run(capsys, "refresh", "--from", url, "--pin", right)[0] == 0
    assert refreshed_path("runpod").exists()


def republished(directory: Path, change: Callable[[PriceSnapshot], PriceSnapshot]) -> None:
    """A publisher whose snapshot says something else, sealed and listed with true digests (a
    bug or a server that lies on purpose: the digests alone cannot tell)."""
    (path,) = directory.glob("runpod-*.yaml")
    snapshot = change(load_refreshed(path, PriceSnapshot))
    scratch = directory.parent / "scratch.yaml"
    write_refreshed(scratch, snapshot)
    data = scratch.read_bytes()
    manifest = json.loads((directory / MANIFEST).read_text())
    entry = manifest["files"][0]
    entry.update(
        bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        blake2b=hashlib.blake2b(data, digest_size=32).hexdigest(),
        rows=len(snapshot.offers),
    )
    entry["name"] = f"runpod-{entry['sha256'][:16]}.yaml"
    path.unlink()
    (directory / entry["name"]).write_bytes(data)
    (directory / MANIFEST).write_text(json.dumps(manifest))


def test_an_implausible_price_with_true_digests_is_refused(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    from msgspec.structs import replace

    url = serve_directory(feed_server, published)
    assert run(capsys, "refresh", "--from", url)[0] == 0
    good = refreshed_path("runpod").read_bytes()

    def cheap_4090(snapshot: PriceSnapshot) -> PriceSnapshot:
        rows = [
            replace(r, usd_per_hour=0.001) if r.gpu == "rtx4090" and r.gpu_count == 1 else r
            for r in snapshot.offers
        ]
        return replace(snapshot, offers=tuple(rows), fetched_at=snapshot.fetched_at)

    republished(published, cheap_4090)
    feed_server.handlers.clear()
    code, _, err = run(capsys, "refresh", "--from", serve_directory(feed_server, published))

    assert code == 1
    (line,) = err.splitlines()
    assert "an implausible price" in line and "RTX 4090 at $0.001" in line
    assert refreshed_path("runpod").read_bytes() == good


def test_a_shrunk_snapshot_is_refused_unless_forced(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    from datetime import timedelta

    from msgspec.structs import replace

    url = serve_directory(feed_server, published)
    assert run(capsys, "refresh", "--from", url)[0] == 0
    good = refreshed_path("runpod").read_bytes()

    def few(snapshot: PriceSnapshot) -> PriceSnapshot:
        later = snapshot.fetched_at + timedelta(hours=6)
        return replace(snapshot, offers=snapshot.offers[:10], fetched_at=later)

    republished(published, few)
    feed_server.handlers.clear()
    url = serve_directory(feed_server, published)
    code, _, err = run(capsys, "refresh", "--from", url)
    assert code == 1 and "refused: 10 offers where the last snapshot had" in err
    assert refreshed_path("runpod").read_bytes() == good
    assert run(capsys, "refresh", "--from", url, "--force")[0] == 0
    assert len(load_snapshot("runpod").snapshot.offers) == 10  # type: ignore[union-attr]


def test_an_older_published_snapshot_keeps_yours(
    published: Path, feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    from datetime import timedelta

    from msgspec.structs import replace

    url = serve_directory(feed_server, published)
    assert run(capsys, "refresh", "--from", url)[0] == 0
    mine = refreshed_path("runpod").read_bytes()
    republished(published, lambda s: replace(s, fetched_at=s.fetched_at - timedelta(days=1)))
    feed_server.handlers.clear()
    code, out, _ = run(capsys, "refresh", "--from", serve_directory(feed_server, published))
    assert code == 0 and "runpod: skipped: yours is newer" in out
    assert refreshed_path("runpod").read_bytes() == mine


def test_publishing_again_keeps_the_files_of_the_manifest_before(
    published: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A reader that fetched the previous manifest still finds its files; older ones go."""
    from datetime import timedelta

    from msgspec.structs import replace

    from costcalc.feeds.publish import publish

    first = {p.name for p in published.glob("runpod-*.yaml")}
    monkeypatch.setenv("COSTCALC_HOME", str(tmp_path / "lab-home"))
    for hours in (1, 2):
        snapshot = load_refreshed(refreshed_path("runpod"), PriceSnapshot)
        later = replace(snapshot, fetched_at=snapshot.fetched_at + timedelta(hours=hours))
        write_refreshed(refreshed_path("runpod"), later)
        publish(published, later.fetched_at)
        names = {p.name for p in published.glob("runpod-*.yaml")}
        assert len(names) == 2  # this manifest's file and the one before it
    assert not first & names  # two generations back: deleted


def test_publishing_into_a_file_is_one_line_and_exit_2(
    feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    serve_keyless_feeds(feed_server, monkeypatch)
    target = tmp_path / "a-file"
    target.write_text("not a directory")
    code, _, err = run(capsys, "refresh", *RUNPOD, "--publish", str(target))
    assert code == 2
    assert (
        err.strip().splitlines()[-1]
        == f"costcalc: error: --publish: {target} is a file, not a directory"
    )


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--pin", "ab" * 32], "--pin goes with --from URL"),
        (["--from", "x", "--pin", "xyz"], "64 hexadecimal digits"),
        (["--with-bundled"], "--with-bundled goes with --publish DIR"),
        (["--from", "ftp://lab/x"], "ftp URLs are not read"),
    ],
)
def test_lab_options_out_of_place_are_usage_errors(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "refresh", *argv)
    assert code == 2 and reason in err and len(err.strip().splitlines()) == 1


def test_an_unreachable_lab_is_one_line_and_nothing_taken(
    feed_server: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "refresh", "--from", feed_server.url("/nothing-here/"))
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert "HTTP 404" in line and "nothing was taken" in line
