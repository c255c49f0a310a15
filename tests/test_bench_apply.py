"""What a saved bench changes in a comparison, and only for the GPU it measured.

The GPU bench is a saved file (tests/bench_results.py): it can exist on this CPU-only machine
even though the device cannot.
"""

from __future__ import annotations

import json

import pytest

from costcalc.bench.store import save_result
from costcalc.cli import main
from costcalc.core.bench_apply import effects
from costcalc.store.bundled import load_catalog, load_predictor
from tests.bench_results import gpu_bench


def test_a_bench_on_the_desktop_gpu_brings_speed_watts_and_run_time() -> None:
    found = effects(
        gpu_bench(), "rtx3090", "transformer", "fp16", 7.2e6, load_catalog(), load_predictor()
    )
    assert found.gpu_w == 280.0
    assert found.run_hours == pytest.approx(7.2e6 / 2000 / 3600)
    assert found.speed is not None
    catalog = load_catalog()
    assert found.speed(catalog.get("rtx3090"), catalog.get("h100_sxm5_80gb")) > 1
    assert found.max_batch["t4"] < found.max_batch["a100_sxm4_80gb"]


def test_a_bench_on_another_gpu_gives_only_its_memory_fit() -> None:
    found = effects(
        gpu_bench(), "rtx4090", "transformer", "fp16", 7.2e6, load_catalog(), load_predictor()
    )
    assert found.gpu_w is None and found.run_hours is None and found.speed is None
    assert found.max_batch["a100_sxm4_80gb"] > 0


def test_quick_with_a_gpu_bench_uses_its_gpu_and_watts(capsys: pytest.CaptureFixture[str]) -> None:
    save_result(gpu_bench(power_w=280.0))
    assert (
        main(["quick", "--bench", "latest", "--kind", "transformer", "--items", "7.2e6", "--json"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"]["desktop"]["gpu"] == "rtx3090"
    assert doc["inputs"]["desktop"]["gpu_w"] == 280.0
    assert doc["desktop_run"]["hours"] == pytest.approx(1.0)
    assert (
        main(["quick", "--gpu", "rtx4090", "--bench", "latest", "--kind", "transformer", "--json"])
        == 0
    )
    other = json.loads(capsys.readouterr().out)
    assert other["inputs"]["desktop"]["gpu_w"] == 450  # the 4090's board power, not the 3090's draw
