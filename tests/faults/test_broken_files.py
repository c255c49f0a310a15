"""Every file under COSTCALC_HOME broken every way a disk, an editor or a crash breaks it, and
every command run over it: one line and an exit code, never a traceback or a signal."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from costcalc.bench.store import save_result
from costcalc.cli import main
from costcalc.core.models import CloudOffer
from costcalc.edge import locations
from costcalc.edge.resources import MAX_FILE_BYTES
from costcalc.store import history
from costcalc.store.settings import Settings, save_settings
from costcalc.store.snapshots import load_bundled, write_refreshed
from tests.bench_results import gpu_bench
from tests.tui.helpers import notifications, wait_until

# Every command over every broken file, hundreds of CLI runs: left out of the fast subset.
pytestmark = pytest.mark.slow

OFFER = CloudOffer(
    provider="aws-spot",
    name="g4dn.xlarge",
    region="us-test-1",
    gpu="t4",
    usd_per_hour=0.2,
    spot=True,
    fetched_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
    source="test",
)


def make_files(home: Path) -> dict[str, Path]:
    """A home with one good file of each kind a user has."""
    save_settings(Settings(gpu="rtx3090", utilisation=0.3, home_region="DE"))
    prices = locations.price_overrides_file()
    prices.write_text(
        "overrides:\n  - provider: paperspace\n    name: A100\n    usd_per_hour: 2.95\n"
    )
    snapshot = locations.snapshots_dir() / "aws_spot.yaml"
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    write_refreshed(snapshot, load_bundled("aws-spot"))
    bench = save_result(gpu_bench())
    history.record([OFFER], OFFER.fetched_at)
    assert main(["quick", "--gpu", "rtx3090", "--json"]) == 0  # fills the parse cache
    cache = sorted((locations.cache_dir() / "parsed").glob("*.msgpack"))[0]
    return {
        "config.yaml": locations.config_file(),
        "prices.yaml": prices,
        "refreshed snapshot": snapshot,
        "bench result": bench,
        "history database": locations.history_db(),
        "parse cache": cache,
    }


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def random_bytes(path: Path) -> None:
    import random

    path.write_bytes(random.Random(7).randbytes(4096))


def latin_1(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    path.write_bytes(("# prix en €, café\n" + text).encode("latin-1", errors="replace"))


def utf_16(path: Path) -> None:
    path.write_bytes(path.read_bytes().decode("utf-8", errors="replace").encode("utf-16"))


def deeply_nested(path: Path) -> None:
    depth = 200_000
    if path.suffix == ".json":
        path.write_text("[" * depth + "]" * depth)
    else:
        path.write_text("a: " + "[" * depth + "]" * depth + "\n")


def huge(path: Path) -> None:
    with path.open("wb") as handle:  # sparse: 65 MB of zeros without writing them
        handle.truncate(MAX_FILE_BYTES + 1024 * 1024)


BREAKAGES: dict[str, Callable[[Path], None]] = {
    "truncated": truncated,
    "random bytes": random_bytes,
    "Latin-1": latin_1,
    "UTF-16": utf_16,
    "deeply nested": deeply_nested,
    "huge": huge,
}
COMMANDS = (
    ["quick", "--gpu", "rtx3090", "--json"],
    ["quick", "--bench", "latest", "--json"],
    ["prices", "--json"],
    ["history", "--json"],
    ["gpus"],
    ["refresh", "--provider", "colab", "--json"],
    ["desktops", "--gpu", "rtx4090", "--count", "1,2", "--json"],
)


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_every_command_survives_every_broken_file(
    breakage: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = make_files(isolated_home)
    capsys.readouterr()
    for which, path in files.items():
        good = path.read_bytes()
        BREAKAGES[breakage](path)
        for argv in COMMANDS:
            code = main(argv)  # an exception escaping here fails the test
            out, err = capsys.readouterr()
            where = (breakage, which, argv)
            assert code in (0, 1, 2), where
            assert "Traceback" not in err, where
            one_liners = [line.split("Z ", 1)[-1] for line in err.splitlines()]  # cron's stamps
            assert all(line.startswith("costcalc: ") for line in one_liners), (where, err)
            if code == 0 and "--json" in argv:
                json.loads(out)
        path.write_bytes(good)


def test_a_deeply_nested_file_never_kills_the_process(isolated_home: Path) -> None:
    """In a child process: a crash of the C YAML parser would show as death by a signal."""
    make_files(isolated_home)
    for path in (locations.config_file(), locations.price_overrides_file()):
        deeply_nested(path)
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "quick", "--gpu", "rtx3090"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 2), done.returncode  # never negative: no signal
    assert "nested deeper than" in done.stderr and "Traceback" not in done.stderr


def settings_noted(app: Any) -> bool:
    return any(n.title == "Settings" for n in notifications(app))


async def test_the_app_starts_over_every_broken_config(isolated_home: Path) -> None:
    from costcalc.tui.app import make_app
    from costcalc.tui.screens.main import MainScreen
    from tests.tui.conftest import FIXED_NOW

    files = make_files(isolated_home)
    good = files["config.yaml"].read_bytes()
    for breakage, damage in BREAKAGES.items():
        files["config.yaml"].write_bytes(good)
        damage(files["config.yaml"])
        app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await wait_until(app, partial(settings_noted, app))
            assert isinstance(app.screen, MainScreen), breakage
            assert app.screen.calc is not None, breakage
