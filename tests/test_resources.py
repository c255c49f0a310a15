"""Data crossing the edge: validation errors are one line, writes are atomic, caches are safe."""

from __future__ import annotations

from pathlib import Path

import pytest

from costcalc import locations
from costcalc.errors import DataFileError
from costcalc.models import PriceSnapshot
from costcalc.resources import load_yaml_file, write_atomic
from costcalc.snapshots import load_bundled, load_snapshot, refreshed_path

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
    assert "offers.0.usd_per_hour" in str(caught.value)


def test_cache_follows_the_file_text(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    assert load_yaml_file(path, PriceSnapshot).offers[0].usd_per_hour == 1.89
    assert list((locations.cache_dir() / "parsed").glob("PriceSnapshot-*.json"))
    path.write_text(GOOD.replace("1.89", "2.50"))
    assert load_yaml_file(path, PriceSnapshot).offers[0].usd_per_hour == 2.50


def test_a_corrupt_cache_entry_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(GOOD)
    load_yaml_file(path, PriceSnapshot)
    for cached in (locations.cache_dir() / "parsed").glob("PriceSnapshot-*.json"):
        cached.write_text("{ not json")
    assert load_yaml_file(path, PriceSnapshot).offers[0].name == "A6000"


def test_write_atomic_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "file.yaml"
    write_atomic(path, "one\n")
    write_atomic(path, "two\n")
    assert path.read_text() == "two\n"
    assert [p.name for p in path.parent.iterdir()] == ["file.yaml"]


def test_refreshed_snapshot_wins_and_a_corrupt_one_falls_back(tmp_path: Path) -> None:
    path = refreshed_path("paperspace")
    path.parent.mkdir(parents=True)
    path.write_text(GOOD)
    loaded = load_snapshot("paperspace")
    assert loaded.origin == str(path) and len(loaded.snapshot.offers) == 1
    path.write_text(GOOD[: len(GOOD) // 2])  # truncated mid-file
    fallback = load_snapshot("paperspace")
    assert fallback.origin == "bundled"
    assert fallback.snapshot == load_bundled("paperspace")
    assert fallback.warning is not None and "bundled" in fallback.warning
