"""Training time (costcalc.core.job_time, costcalc.core.mfu): FLOPs by the papers' formulas, the
utilisation of public runs per GPU with its band, and scaling by the interconnect."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from costcalc.core.job import Job
from costcalc.core.job_memory import lora_params
from costcalc.core.job_time import (
    UnknownFlops,
    job_time,
    matmul_params,
    scaling_efficiency,
    training_flops,
)
from costcalc.core.mfu import MfuFile, MfuRow, MfuSource, estimate
from costcalc.store.bundled import load_catalog, load_mfu, load_models, load_predictor, load_scaling


def test_a_decoder_trains_at_6_n_plus_12_l_s_q_flops_a_token() -> None:
    llama = load_models().resolve("llama-2-7b")  # untied: the input embedding is a lookup
    n = llama.params - 32_000 * 4096  # type: ignore[operator]
    assert matmul_params(llama) == n
    flops = training_flops(Job(model=llama, tokens=2e12))
    assert flops.per_unit == 6 * n + 12 * 32 * 4096 * 4096
    assert flops.model_flops == flops.hardware_flops == flops.per_unit * 2e12


def test_a_frozen_base_saves_its_weight_gradients_and_checkpointing_repeats_the_forward() -> None:
    llama = load_models().resolve("llama-2-7b")
    full = training_flops(Job(model=llama, tokens=1e9, seq=1024))
    lora = training_flops(Job(model=llama, tokens=1e9, seq=1024, method="lora"))
    n = matmul_params(llama)
    assert full.per_unit - lora.per_unit == 2 * n - 6 * lora_params(llama, 16)
    checked = training_flops(Job(model=llama, tokens=1e9, seq=1024, checkpointing=True))
    assert checked.model_flops == full.model_flops
    forward = 2 * n + 4 * 32 * 1024 * 4096
    assert checked.hardware_flops == pytest.approx(full.model_flops + forward * 1e9)


def test_a_mixture_of_experts_multiplies_by_its_active_parameters() -> None:
    mixtral = load_models().resolve("mixtral-8x7b")
    assert matmul_params(mixtral) == mixtral.active_params - 32_000 * 4096  # type: ignore[operator]


def test_vision_flops_are_three_passes_of_two_flops_a_multiply_add() -> None:
    vit = load_models().resolve("vit-b-16")
    flops = training_flops(Job(model=vit, epochs=90, dataset_items=1_281_167))
    assert flops.per_unit == pytest.approx(6 * 17.56e9)
    assert flops.units == 90 * 1_281_167
    with pytest.raises(UnknownFlops, match="--epochs"):
        training_flops(Job(model=vit, tokens=1e9))


def test_a_model_with_a_gap_says_which_figure_is_missing() -> None:
    with pytest.raises(UnknownFlops, match="no parameter count"):
        training_flops(Job(model=load_models().resolve("dit-xl-2"), epochs=1, dataset_items=1e6))
    unet = load_models().resolve("sd-1.5-unet")  # its GFLOPs are a gap
    with pytest.raises(UnknownFlops, match="--gflops-per-item"):
        training_flops(Job(model=unet, epochs=1, dataset_items=1e6))
    given = replace(unet, gflops_per_item=400.0)
    assert training_flops(Job(model=given, epochs=1, dataset_items=1e6)).per_unit == 6 * 400e9


def test_scaling_follows_the_sourced_shares_of_nvlink_pcie_and_servers() -> None:
    scaling, mfu, catalog = load_scaling(), load_mfu(), load_catalog()
    sxm, pcie = catalog.get("h100_sxm5_80gb"), catalog.get("rtx4090")
    assert scaling_efficiency(sxm, 1, scaling, mfu)[0] == 1.0
    nvlink_8 = scaling_efficiency(sxm, 8, scaling, mfu)[0]
    assert nvlink_8 * 8 == pytest.approx(7.5)  # DLE's transformer 1 -> 8 GPU speed-up
    pcie_8 = scaling_efficiency(pcie, 8, scaling, mfu)[0]
    assert pcie_8 == pytest.approx(nvlink_8 * 0.92**3)  # server-gear's PCIe share per doubling
    sixteen_servers = scaling_efficiency(sxm, 128, scaling, mfu)[0]
    assert sixteen_servers / nvlink_8 * 16 == pytest.approx(14.4)  # MosaicML's 16 nodes


def row(gpu: str, mfu: float, url: str, gpus: int = 1, setting: str = "pretraining") -> MfuRow:
    source = MfuSource(what="t", url=url, date="2024")
    return MfuRow(
        gpu=gpu,
        precision="bf16",
        model="m",
        mfu=mfu,
        gpus=gpus,
        setting=setting,  # type: ignore[arg-type]
        source=source,
    )


def flat_rate(spec: object, precision: str) -> float:
    from costcalc.core.predict import math_path

    return math_path(spec, precision, "transformer").peak_tflops  # type: ignore[arg-type]


def test_the_estimate_is_the_median_of_each_sources_median_and_the_band_every_row() -> None:
    catalog = load_catalog()
    rows = [row("a100_sxm4_80gb", v, "https://a") for v in (0.3, 0.4, 0.5)]
    rows += [row("a100_sxm4_80gb", 0.7, "https://b")]
    found = estimate(catalog.get("a100_sxm4_80gb"), rows, catalog, lambda s, n: 1.0, flat_rate)
    assert found.share == pytest.approx((0.4 + 0.7) / 2)  # source a's median, source b's
    assert (found.low, found.high, found.sources) == (pytest.approx(0.3), pytest.approx(0.7), 2)


def test_rows_of_the_gpu_come_first_then_its_generation_then_its_class() -> None:
    catalog = load_catalog()
    rows = [
        row("a100_sxm4_80gb", 0.6, "https://a"),
        row("a100_sxm4_80gb", 0.6, "https://b"),
        row("a100_pcie_80gb", 0.2, "https://c"),
        row("h100_sxm5_80gb", 0.4, "https://d"),
        row("h100_sxm5_80gb", 0.4, "https://e", setting="benchmark"),  # a best case: never used
    ]
    one = lambda s, n: 1.0  # noqa: E731
    own = estimate(catalog.get("a100_sxm4_80gb"), rows, catalog, one, flat_rate)
    assert own.pool == "A100 SXM4 80GB runs" and own.share == pytest.approx(0.6)
    generation = estimate(catalog.get("a100_pcie_40gb"), rows, catalog, one, flat_rate)
    assert generation.pool == "Ampere data-centre cards" and generation.sources == 3
    hopper = estimate(catalog.get("h100_pcie_80gb"), rows, catalog, one, flat_rate)
    assert hopper.pool == "data-centre cards" and hopper.sources == 4


def test_a_row_is_read_against_its_gpus_sustained_rate_and_its_own_scaling() -> None:
    catalog = load_catalog()
    bloom = row("a100_sxm4_80gb", 0.5, "https://a", gpus=64)
    found = estimate(
        catalog.get("a100_sxm4_80gb"),
        [bloom],
        catalog,
        lambda s, n: 0.8 if n == 64 else 1.0,
        lambda s, p: 250.0,
    )
    assert found.share == pytest.approx(0.5 * 312 / 250 / 0.8)


def test_hours_are_the_flops_over_the_rate_and_the_band_brackets_them() -> None:
    catalog, predictor = load_catalog(), load_predictor()
    job = Job(model=load_models().resolve("llama-3.2-1b"), tokens=1e10)
    flops = training_flops(job)
    spec = catalog.get("h100_sxm5_80gb")
    t = job_time(job, flops, spec, 8, catalog, load_scaling(), load_mfu(), predictor)
    rate = predictor.rates(spec, "bf16", "transformer").math_tflops
    expected = flops.hardware_flops / (8 * rate * 1e12 * t.mfu.share * t.scaling) / 3600 / 0.9
    assert t.hours == pytest.approx(expected)
    assert t.hours_low < t.hours < t.hours_high
    slower = job_time(
        replace(job, precision="fp32"),
        flops,
        spec,
        8,
        catalog,
        load_scaling(),
        load_mfu(),
        predictor,
    )
    assert slower.hours > 5 * t.hours and "FP32" in (slower.mfu.note or "")


def test_the_bundled_mfu_file_names_a_source_for_its_two_wall_time_figures() -> None:
    data: MfuFile = load_mfu()
    assert data.effective_time_share.value == 0.9
    assert data.effective_time_share.url.startswith("https://arxiv.org/")
    assert data.across_servers.url.startswith("https://")
