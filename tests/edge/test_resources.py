"""Data crossing the edge: validation errors are one line, writes are atomic, caches are safe."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from costcalc.core.errors import DataFileError
from costcalc.core.models import PriceSnapshot
from costcalc.edge import locations
from costcalc.edge.resources import load_yaml_file, write_atomic
from costcalc.store.snapshots import load_bundled, load_snapshot, refreshed_path, sealed

# The parse cache is what these tests watch, so each starts with an empty one rather than the
# session's warmed copy (tests/conftest.py).
pytestmark = pytest.mark.cold_cache

GOOD = """
provider: paperspace
source: test
fetched_at: 2026-11-01T00:00:00Z
offers:
  - {name: A6000, region: NY2, gpu: rtx_a6000, usd_per_hour: 1.89}
"""


def test_malformed_yaml_is_one_line_with_the_line_number(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("provider: [unclosed\n  offers: {\n")
    with pytest.raises(DataFileError) as caught:
        load_yaml_file(path, PriceSnapshot)
    assert str(path) in str(caught.value) and "line" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_negative_price_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "neg.yaml"
    path.write_text(GOOD.replace("1.89", "-1.89"))
    with pytest.raises(DataFileError) as caught:
        load_yaml_file(path, PriceSnapshot)
    assert "offers[0].usd_per_hour" in str(caught.value)


def test_cache_follows_the_file_text(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    assert load_yaml_file(path, PriceSnapshot).offers[0].usd_per_hour == 1.89
    assert list((locations.cache_dir() / "parsed").glob("PriceSnapshot-*.msgpack"))
    path.write_text(GOOD.replace("1.89", "2.50"))
    assert load_yaml_file(path, PriceSnapshot).offers[0].usd_per_hour == 2.50


def test_a_corrupt_cache_entry_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    load_yaml_file(path, PriceSnapshot)
    for cached in (locations.cache_dir() / "parsed").glob("PriceSnapshot-*.msgpack"):
        cached.write_text("{ not a record")
    assert load_yaml_file(path, PriceSnapshot).offers[0].name == "A6000"


def test_a_shipped_file_is_read_only_when_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file inside a package is found in the cache by its path, size, modification time and
    inode: a second run reads none of its text, and a change to any of them (an edit of the
    same length, a file put in its place with the old time) parses the new text."""
    import importlib

    from costcalc.edge import resources

    package = tmp_path / "shipped_prices"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    path = package / "p.yaml"
    path.write_text(GOOD)
    assert (
        resources.load_yaml_resource("shipped_prices", "p.yaml", PriceSnapshot)
        .offers[0]
        .usd_per_hour
        == 1.89
    )

    def unread(package: str, name: str) -> bytes:
        raise AssertionError(f"{package}/{name} was read")

    with monkeypatch.context() as reading:
        reading.setattr(resources, "package_bytes", unread)
        again = resources.load_yaml_resource("shipped_prices", "p.yaml", PriceSnapshot)
    assert again.offers[0].usd_per_hour == 1.89

    path.write_text(GOOD.replace("1.89", "2.50"))  # the same length, a later time
    assert (
        resources.load_yaml_resource("shipped_prices", "p.yaml", PriceSnapshot)
        .offers[0]
        .usd_per_hour
        == 2.50
    )

    before = path.stat()
    replacement = package / "new.yaml"
    replacement.write_text(GOOD.replace("1.89", "3.75"))
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, path)  # same size and time, another inode
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert (
        resources.load_yaml_resource("shipped_prices", "p.yaml", PriceSnapshot)
        .offers[0]
        .usd_per_hour
        == 3.75
    )


def test_write_atomic_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "file.yaml"
    write_atomic(path, "one\n")
    write_atomic(path, "two\n")
    assert path.read_text() == "two\n"
    assert [p.name for p in path.parent.iterdir()] == ["file.yaml"]


def test_refreshed_snapshot_wins_and_a_corrupt_one_falls_back(tmp_path: Path) -> None:
    path = refreshed_path("paperspace")
    path.parent.mkdir(parents=True)
    path.write_text(sealed(GOOD, 1))
    loaded = load_snapshot("paperspace")
    assert loaded.origin == str(path) and len(loaded.snapshot.offers) == 1
    path.write_text(sealed(GOOD, 1)[: len(GOOD) // 2])  # truncated mid-file
    fallback = load_snapshot("paperspace")
    assert fallback.origin == "bundled"
    assert fallback.snapshot == load_bundled("paperspace")
    assert fallback.warning is not None and "bundled" in fallback.warning


def cache_entries() -> list[Path]:
    return list((locations.cache_dir() / "parsed").glob("PriceSnapshot-*.msgpack"))


def test_an_edited_cache_entry_is_never_trusted(tmp_path: Path) -> None:
    """A cached copy changed after it was written must not change a price: its seal no longer
    matches, so the file's text is read again."""
    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    load_yaml_file(path, PriceSnapshot)
    (entry,) = cache_entries()
    seal, payload = entry.read_bytes().split(b"\n", 1)
    forged = payload.replace(b"A6000", b"A9000")  # the same length: still loadable msgpack
    assert forged != payload
    entry.write_bytes(seal + b"\n" + forged)
    assert load_yaml_file(path, PriceSnapshot).offers[0].name == "A6000"


def test_a_cache_entry_holds_records_never_code(tmp_path: Path) -> None:
    """A correctly sealed entry holding a pickle that would run a command when unpickled is
    data that does not decode as the model: it is ignored, the text is parsed again, and
    nothing in it runs. An old pickle entry beside it is never opened."""
    import pickle

    from costcalc.edge.resources import entry_seal

    class Boom:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, (f"touch {tmp_path / 'ran'}",))

    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    load_yaml_file(path, PriceSnapshot)
    (entry,) = cache_entries()
    payload = pickle.dumps(Boom())
    entry.write_bytes(entry_seal(payload) + b"\n" + payload)
    entry.with_suffix(".pickle").write_bytes(entry_seal(payload) + b"\n" + payload)
    assert load_yaml_file(path, PriceSnapshot).offers[0].name == "A6000"
    assert not (tmp_path / "ran").exists()


def test_a_cache_entry_the_model_refuses_is_read_again(tmp_path: Path) -> None:
    """An entry is decoded with every type and bound checked: one sealed by anyone who can
    write the cache, holding a negative price or the shape of another model, is ignored."""
    import msgspec

    from costcalc.edge.resources import entry_seal

    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    first = load_yaml_file(path, PriceSnapshot)
    (entry,) = cache_entries()
    payload = entry.read_bytes().split(b"\n", 1)[1]
    assert msgspec.msgpack.decode(payload, type=PriceSnapshot) == first  # what is kept: data
    data = msgspec.msgpack.decode(payload)
    data["offers"][0]["usd_per_hour"] = -1.0
    for forged in (msgspec.msgpack.encode(data), msgspec.msgpack.encode({"rates": {}})):
        entry.write_bytes(entry_seal(forged) + b"\n" + forged)
        assert load_yaml_file(path, PriceSnapshot) == first


def test_a_cache_entry_larger_than_any_costcalc_writes_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry is read only up to the size limit of every data file: a larger one, even one
    correctly sealed, is ignored and the text parsed again."""
    import msgspec

    from costcalc.edge import resources

    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    first = load_yaml_file(path, PriceSnapshot)
    (entry,) = cache_entries()
    data = msgspec.msgpack.decode(entry.read_bytes().split(b"\n", 1)[1])
    data["offers"][0]["usd_per_hour"] = 0.5
    forged = msgspec.msgpack.encode(data)
    entry.write_bytes(resources.entry_seal(forged) + b"\n" + forged)
    assert load_yaml_file(path, PriceSnapshot).offers[0].usd_per_hour == 0.5  # within the limit
    entry.write_bytes(resources.entry_seal(forged) + b"\n" + forged)
    monkeypatch.setattr(resources, "MAX_FILE_BYTES", len(forged) // 2)
    assert load_yaml_file(path, PriceSnapshot) == first


def test_the_parse_cache_keeps_only_its_newest_entries(tmp_path: Path) -> None:
    from costcalc.edge.resources import CACHE_ENTRIES, prune_cache

    cache = tmp_path / "parsed"
    cache.mkdir()
    for i in range(CACHE_ENTRIES + 10):
        entry = cache / f"Model-0-{i:04d}.msgpack"
        entry.write_text("x")
        os.utime(entry, (i, i))
    (cache / ".Model-0-x.msgpack.abc.tmp").write_text("half")
    os.utime(cache / ".Model-0-x.msgpack.abc.tmp", (0, 0))
    prune_cache(cache)
    kept = sorted(p.name for p in cache.iterdir())
    assert len(kept) == CACHE_ENTRIES
    assert kept[0] == "Model-0-0010.msgpack"  # the oldest ten are gone, and the stale temp file


def test_a_refreshed_snapshot_with_a_gpu_this_version_does_not_know(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An upgrade can drop or rename a catalog key: those offers are left out, never a KeyError."""
    from costcalc.cli import main

    path = refreshed_path("aws-spot")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (Path(__file__).resolve().parents[2] / "prices" / "aws_spot.yaml").read_text()
    rows = len(load_bundled("aws-spot").offers)
    path.write_text(sealed(text.replace("gpu: t4", "gpu: t4_renamed"), rows))
    assert main(["quick", "--gpu", "rtx3090", "--provider", "aws-spot", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "t4_renamed" in err and "left out" in err
    assert not any(o["gpu"] == "t4_renamed" for o in json.loads(out)["offers"])


@pytest.mark.usefixtures("wide_terminal")
def test_empty_listings_are_said_not_crashed_on(capsys: pytest.CaptureFixture[str]) -> None:
    from costcalc.cli import main

    # no bundled cloud rents a GTX 1060 (the 3090 is rented now: issue 25 added RunPod's)
    assert main(["prices", "--gpu", "gtx1060_6gb"]) == 0
    assert "no offers match" in capsys.readouterr().err
    assert main(["quick", "--gpu", "rtx3090", "--provider", "custom"]) == 0
    out = capsys.readouterr().out
    assert "give --cloud-price" in out and "No comparable cloud offer" in out
