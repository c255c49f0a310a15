"""What a saved bench changes in a comparison, and only for the GPU it measured.

The GPU benches are saved files (tests/bench_results.py): they can exist on this CPU-only
machine even though the device cannot. The H100 ones are built from what a real H100 measured
(the bench's sweep and NVML watts of 2026-11-24); nothing else is simulated.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msgspec.structs import replace

from costcalc.bench.store import load_result, save_result
from costcalc.cli import main
from costcalc.core.bench_apply import (
    LAUNCH_BOUND_SHARE,
    BenchSpeed,
    at_batch,
    effects,
    explain_speed,
)
from costcalc.core.bench_results import BenchResult
from costcalc.core.models import StepProfile
from costcalc.core.records import to_json
from costcalc.store.bundled import load_catalog, load_predictor
from tests.bench_results import gpu_bench, h100_filled_bench, h100_launch_bound_bench

H100 = "h100_sxm5_80gb"


def test_a_bench_on_the_desktop_gpu_brings_speed_watts_and_run_time() -> None:
    found = effects(
        gpu_bench(), "rtx3090", "transformer", "fp16", 7.2e6, load_catalog(), load_predictor()
    )
    assert found.gpu_watts == 280.0
    assert found.run_hours == pytest.approx(7.2e6 / 2000 / 3600)
    assert found.speed is not None
    catalog = load_catalog()
    assert found.speed(catalog.get("rtx3090"), catalog.get("h100_sxm5_80gb")) > 1
    assert found.max_batch["t4"] < found.max_batch["a100_sxm4_80gb"]


def test_a_bench_on_another_gpu_gives_only_its_memory_fit() -> None:
    found = effects(
        gpu_bench(), "rtx4090", "transformer", "fp16", 7.2e6, load_catalog(), load_predictor()
    )
    assert found.gpu_watts is None and found.run_hours is None and found.speed is None
    assert found.max_batch["a100_sxm4_80gb"] > 0


def test_quick_with_a_gpu_bench_uses_its_gpu_and_watts(capsys: pytest.CaptureFixture[str]) -> None:
    save_result(gpu_bench(power_w=280.0))
    assert (
        main(["quick", "--bench", "latest", "--kind", "transformer", "--items", "7.2e6", "--json"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"]["desktop"]["gpu"] == "rtx3090"
    assert doc["inputs"]["desktop"]["gpu_watts"] == 280.0
    assert doc["desktop_run"]["hours"] == pytest.approx(1.0)
    assert (
        main(["quick", "--gpu", "rtx4090", "--bench", "latest", "--kind", "transformer", "--json"])
        == 0
    )
    other = json.loads(capsys.readouterr().out)
    assert (
        other["inputs"]["desktop"]["gpu_watts"] == 450
    )  # the 4090's board power, not the 3090's draw


# ------------------------------------------------------------- the H100 bench (issue 23)


def _ratios(bench: BenchResult | None, kind: str) -> dict[str, float]:
    """Per-GPU speed against the H100 desktop, with the bench or (None) from the predictor."""
    catalog, predictor = load_catalog(), load_predictor()
    h100 = catalog.get(H100)
    speed = predictor.speed_fn(kind, "fp16")  # type: ignore[arg-type]
    if bench is not None:
        found = effects(bench, H100, kind, "fp16", None, catalog, predictor).speed
        assert found is not None, "a filled H100 bench moves the predictions"
        speed = found
    return {g: speed(h100, catalog.get(g)) for g in ("a100_sxm4_80gb", "h200_sxm_141gb")}


@pytest.mark.parametrize("kind", ["cnn", "transformer"])
def test_an_h100_bench_keeps_a100_and_h200_within_the_predictors_band(kind: str) -> None:
    catalog, predictor = load_catalog(), load_predictor()
    with_bench, without = _ratios(h100_filled_bench(), kind), _ratios(None, kind)
    for gpu, ratio in with_bench.items():
        low, high = predictor.band(catalog.get(H100), catalog.get(gpu), kind, "fp16")
        assert without[gpu] / high <= ratio <= without[gpu] / low, gpu
    # and it still says what the hardware says: an A100 is slower, an H200 not
    assert with_bench["a100_sxm4_80gb"] < 0.65 and with_bench["h200_sxm_141gb"] > 1.0


def test_a_pair_the_bench_would_take_outside_the_band_keeps_the_predictors_speed() -> None:
    catalog, predictor = load_catalog(), load_predictor()
    filled = h100_filled_bench()
    cnn = filled.workloads[0]
    # a split almost all memory traffic (the band is wide enough that the shared file's own
    # split stays inside it for every GPU): GPUs with little bandwidth for their FLOPS (an L4
    # has a tenth of the H100's) are where such a split would leave the band
    heavy = StepProfile(compute_share=0.02, memory_share=0.97, overhead_share=0.01)
    bench = replace(
        filled, **{"workloads": (replace(cnn, **{"profile": heavy}), *filled.workloads[1:])}
    )
    found = effects(bench, H100, "cnn", "fp16", None, catalog, predictor)
    assert found.speed is not None and found.profile == heavy
    h100 = catalog.get(H100)
    moved = BenchSpeed(predictor, "cnn", "fp16", heavy)
    outside = [g for g in catalog if not moved.within_band(h100, g)]
    assert outside and len(outside) < len(catalog)
    for gpu in outside:
        assert found.speed(h100, gpu) == predictor.speedup(h100, gpu, "cnn", "fp16")
    inside = [g for g in catalog if g not in outside and g.key != H100]
    assert any(found.speed(h100, g) != predictor.speedup(h100, g, "cnn", "fp16") for g in inside)
    why = explain_speed(found, predictor, h100, outside[0], "cnn", "fp16")
    assert any("outside the predictor's band" in note for note in why.notes)


def test_a_launch_bound_bench_never_moves_predictions_or_prices_idle_watts() -> None:
    catalog, predictor = load_catalog(), load_predictor()
    bench = h100_launch_bound_bench()
    assert bench.workloads[0].profile is not None
    assert bench.workloads[0].profile.overhead_share > LAUNCH_BOUND_SHARE
    found = effects(bench, H100, "cnn", "fp16", None, catalog, predictor)
    assert found.speed is None and found.profile is None
    assert found.gpu_watts is None  # 183 W was a whole-run mean, not the draw under load
    note = found.speed_note or ""
    assert "resnet_cnn at batch 64" in note and "not measured on a filled device" in note
    assert "saved before benches filled the device" in note  # an old file still loads
    why = explain_speed(
        found, predictor, catalog.get(H100), catalog.get("a100_sxm4_80gb"), "cnn", "fp16"
    )
    assert why.speedup == predictor.speedup(
        catalog.get(H100), catalog.get("a100_sxm4_80gb"), "cnn", "fp16"
    )
    assert note in why.notes


def test_a_split_in_another_precision_does_not_move_fp32_predictions() -> None:
    catalog, predictor = load_catalog(), load_predictor()
    found = effects(h100_filled_bench(), H100, "cnn", "fp32", None, catalog, predictor)
    assert found.speed is None and "another precision than fp32" in (found.speed_note or "")


@pytest.mark.parametrize(
    ("kind", "watts"), [("cnn", 472.0), ("transformer", 636.0), ("generic", 636.0)]
)
def test_quick_with_an_h100_bench_prices_the_watts_of_the_work_priced(
    kind: str, watts: float, capsys: pytest.CaptureFixture[str]
) -> None:
    save_result(h100_filled_bench())
    assert main(["quick", "--bench", "latest", "--kind", kind, "--run-hours", "10", "--json",
                 "--explain"]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"]["desktop"]["gpu"] == H100
    assert doc["inputs"]["desktop"]["gpu_watts"] == watts
    assert any("at batch 1024, fp16 (throughput stopped rising)" in line for line in doc["explain"])


def test_quick_with_the_launch_bound_h100_bench_prices_the_board_power(
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_result(h100_launch_bound_bench())
    assert main(["quick", "--bench", "latest", "--kind", "cnn", "--run-hours", "10", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"]["desktop"]["gpu_watts"] == load_catalog().get(H100).board_power_w


def test_a_result_saved_before_the_bench_filled_the_device_still_loads(tmp_path: Path) -> None:
    doc = json.loads(to_json(h100_launch_bound_bench()))
    del doc["idle_w"]
    for w in doc["workloads"]:  # the keys the previous bench did not write
        for key in ("description", "model", "dtype_source", "sized_by", "sizes", "power"):
            del w[key]
    path = tmp_path / "bench-20261124T000000Z-cuda.json"
    path.write_text(json.dumps(doc))
    assert load_result(path) == h100_launch_bound_bench()


# ------------------------------------------------------------- the batch per GPU


def test_a_measured_split_is_taken_to_another_batch_by_the_predictors_rule() -> None:
    # a step's fixed cost is the same at any batch, the rest grows with it: at a quarter of
    # the batch the fixed cost weighs four times as much against the rest, shares still sum to 1
    measured = StepProfile(
        compute_share=0.5, memory_share=0.3, overhead_share=0.1, elementwise_share=0.1
    )
    small = at_batch(measured, 1024, 256)
    rest = 1 - small.overhead_share
    assert small.overhead_share / rest == pytest.approx(4 * 0.1 / 0.9)
    assert small.compute_share / small.memory_share == pytest.approx(0.5 / 0.3)
    parts = (small.compute_share, small.memory_share, small.overhead_share)
    assert sum(parts) + (small.elementwise_share or 0) == pytest.approx(1)
    assert at_batch(measured, 64, 64) == measured
    bare = StepProfile(compute_share=0.6, memory_share=0.3, overhead_share=0.1)
    assert at_batch(bare, 64, 128).elementwise_share is None


def test_an_h100_bench_split_is_scaled_to_the_batch_the_user_gives() -> None:
    # The filled H100 bench measured its CNN at batch 1024; at 32 per GPU its launches weigh
    # 32 times more, every GPU's speed moves toward the H100's, and each pair is still held to
    # the predictor's band at that same batch.
    catalog, predictor = load_catalog(), load_predictor()
    bench = h100_filled_bench()
    measured = bench.workloads[0].profile
    assert measured is not None and bench.workloads[0].batch_size == 1024
    found = effects(bench, H100, "cnn", "fp16", None, catalog, predictor, batch=32)
    assert found.profile == at_batch(measured, 1024, 32)
    assert found.speed_note is not None and "scaled to your batch of 32" in found.speed_note
    assert found.speed is not None
    h100, a100 = catalog.get(H100), catalog.get("a100_sxm4_80gb")
    fn = BenchSpeed(predictor, "cnn", "fp16", found.profile, 32)
    assert found.speed(h100, a100) == fn(h100, a100)
    full = effects(bench, H100, "cnn", "fp16", None, catalog, predictor)
    assert full.speed is not None
    assert full.speed(h100, a100) < found.speed(h100, a100) < 1.0
    why = explain_speed(found, predictor, h100, a100, "cnn", "fp16", 32)
    assert why.batch == 32 and any("scaled to your batch of 32" in n for n in why.notes)
    # a transformer's split is scaled alike (issue 39): its batch is sequences of its length
    transformer = bench.workloads[1]
    assert transformer.profile is not None
    scaled = effects(bench, H100, "transformer", "fp16", None, catalog, predictor, batch=32)
    assert scaled.profile == at_batch(transformer.profile, transformer.batch_size, 32)
    at_its_own = effects(
        bench, H100, "transformer", "fp16", None, catalog, predictor, batch=transformer.batch_size
    )
    assert at_its_own.profile == transformer.profile
