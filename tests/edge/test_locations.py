"""costcalc.edge.locations: each place known as text is the same place as its Path, and the text
form answers "is it there?" as pathlib does (quick asks it without importing pathlib)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from costcalc.edge import locations

PLACES = ["config_file", "app_state_file", "price_overrides_file", "snapshots_dir", "history_db"]


@pytest.mark.parametrize("home", ["{tmp}", "{tmp}/", "{tmp}//x/./y", "~", "~nobody/x", "rel/dir"])
@pytest.mark.parametrize("place", PLACES)
def test_a_place_as_text_is_the_place_as_a_path(
    place: str, home: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSTCALC_HOME", home.format(tmp=tmp_path))
    as_path = getattr(locations, place)()
    as_text = getattr(locations, f"{place}_text")()
    assert Path(as_text) == as_path
    expected = locations.user_path(home.format(tmp=tmp_path))  # as the paths were made before
    assert as_path.parent in (expected / "config", expected / "data", expected / "state")


def test_a_place_outside_costcalc_home_follows_the_platform(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import platformdirs

    monkeypatch.delenv("COSTCALC_HOME")
    assert locations.config_file() == Path(platformdirs.user_config_dir("costcalc")) / (
        "config.yaml"
    )
    assert locations.snapshots_dir_text() == os.path.join(
        platformdirs.user_data_dir("costcalc"), "snapshots"
    )
    assert locations.app_state_file() == Path(platformdirs.user_state_dir("costcalc")) / (
        "app-state.yaml"
    )


def test_exists_answers_as_pathlib_does(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir").mkdir()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    cases = ["file", "dir", "missing", "file/under", "loop", "dangling", "dir/../file"]
    for name in cases:
        text = str(tmp_path / name) if "/../" not in name else f"{tmp_path}/{name}"
        assert locations.exists(text) is Path(text).exists(), name
    assert locations.exists("a\0b") is False


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_exists_raises_where_pathlib_raises(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        with pytest.raises(PermissionError):
            Path(locked / "x").exists()
        with pytest.raises(PermissionError):
            locations.exists(str(locked / "x"))
    finally:
        locked.chmod(0o700)
