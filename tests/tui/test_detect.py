"""GPU detection asks nvidia-smi, a real program on PATH; here a stand-in script plays it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from costcalc.tui.detect import nvidia_smi_gpu_names
from tests.tui.helpers import notified, wait_until


def fake_nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """A script called nvidia-smi, first on PATH (the real one needs an NVIDIA driver)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "nvidia-smi"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_names_as_the_driver_reports_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_nvidia_smi(
        tmp_path,
        monkeypatch,
        'echo "$@" > "$(dirname "$0")/args"\n'
        'printf "NVIDIA GeForce RTX 3090\\n\\nNVIDIA GeForce RTX 3090\\n"',
    )
    assert nvidia_smi_gpu_names() == ["NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090"]
    args = (tmp_path / "bin" / "args").read_text()
    assert "--query-gpu=name" in args and "--format=csv,noheader" in args


def test_a_failing_driver_means_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_nvidia_smi(
        tmp_path, monkeypatch, 'echo "NVIDIA-SMI has failed: driver not loaded" >&2; exit 9'
    )
    assert nvidia_smi_gpu_names() == []


def test_a_hanging_driver_means_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_nvidia_smi(tmp_path, monkeypatch, "exec sleep 30")
    assert nvidia_smi_gpu_names(timeout_s=0.3) == []


def test_no_driver_at_all_means_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert nvidia_smi_gpu_names() == []


async def test_the_app_takes_the_detected_gpu_as_the_desktop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from costcalc.store.settings import Settings
    from costcalc.tui.app import make_app
    from costcalc.tui.screens.main import MainScreen
    from tests.tui.conftest import FIXED_NOW

    fake_nvidia_smi(tmp_path, monkeypatch, 'echo "NVIDIA GeForce RTX 4090"')
    app = make_app(settings=Settings(), now=FIXED_NOW, load_bench=False, detect_gpu=True)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        # the detection runs after the first frame, and its answer is a message away
        await wait_until(app, lambda: screen.settings.gpu is not None)
        await pilot.pause()
        assert screen.settings.gpu == "rtx4090"
        assert notified(app, "found on this machine")
