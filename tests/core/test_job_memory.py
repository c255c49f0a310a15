"""Memory per GPU of a training job (costcalc.core.job_memory): each term against the paper it
comes from, worked by hand here."""

from __future__ import annotations

import pytest

from costcalc.core import memfit
from costcalc.core.job import Job, ModelSpec, custom_model
from costcalc.core.job_memory import (
    NF4_BITS,
    fits,
    fixed_and_per_item_gb,
    job_memory,
    largest_batch,
    layer_activation_bytes,
    lora_params,
    usable_gb,
)
from costcalc.store.bundled import load_catalog, load_models

GPT = ModelSpec(
    key="gpt",
    name="a GPT",
    params=1_000_000_000,
    layers=24,
    hidden=2048,
    ffn_hidden=4 * 2048,
    ffn_kind="mlp",
    heads=16,
    vocab=50_000,
)


def terms(job: Job, gpus: int = 1) -> dict[str, float]:
    return {t.key: t.gb_at(job.batch) for t in job_memory(job, gpus).terms}


def test_mixed_precision_adamw_holds_16_bytes_a_parameter_as_zero_counts() -> None:
    found = terms(Job(model=GPT, tokens=1e9))
    assert found["weights"] == pytest.approx(2.0)  # 1B x 2 bytes
    assert found["gradients"] == pytest.approx(2.0)
    assert found["optimizer"] == pytest.approx(12.0)  # FP32 master, momentum, variance


def test_fp32_training_has_no_master_copy_and_8_bit_adam_keeps_two_bytes_of_moments() -> None:
    fp32 = terms(Job(model=GPT, tokens=1e9, precision="fp32"))
    assert (fp32["weights"], fp32["gradients"], fp32["optimizer"]) == pytest.approx((4, 4, 8))
    eight_bit = terms(Job(model=GPT, tokens=1e9, optimizer="adamw-8bit"))
    assert eight_bit["optimizer"] == pytest.approx(4 + 2)  # master copy + two 1-byte moments
    sgd = terms(Job(model=GPT, tokens=1e9, optimizer="sgd"))
    assert sgd["optimizer"] == pytest.approx(4 + 4)


@pytest.mark.parametrize(
    ("sharding", "divided"),
    [
        ("none", ()),
        ("zero1", ("optimizer",)),
        ("zero2", ("optimizer", "gradients")),
        ("zero3", ("optimizer", "gradients", "weights")),
        ("fsdp", ("optimizer", "gradients", "weights")),
    ],
)
def test_each_zero_stage_divides_one_more_term_by_the_gpu_count(
    sharding: str, divided: tuple[str, ...]
) -> None:
    one = terms(Job(model=GPT, tokens=1e9, sharding=sharding))  # type: ignore[arg-type]
    eight = terms(Job(model=GPT, tokens=1e9, sharding=sharding), 8)  # type: ignore[arg-type]
    for key in ("weights", "gradients", "optimizer"):
        assert eight[key] == pytest.approx(one[key] / (8 if key in divided else 1)), key
    assert eight["activations"] == one["activations"]  # each GPU keeps its own batch's


def test_a_gpt_layer_keeps_korthikantis_34_s_h_bytes_in_16_bits() -> None:
    seq = 2048
    assert layer_activation_bytes(GPT, seq, 2.0) == 34 * seq * GPT.hidden  # type: ignore[operator]
    assert layer_activation_bytes(GPT, seq, 4.0) == 2 * 34 * seq * GPT.hidden  # type: ignore[operator]


def test_grouped_query_attention_and_swiglu_change_the_layer_as_their_widths_say() -> None:
    llama = load_models().resolve("llama-3.1-8b")  # 4096 wide, 8 of 32 KV heads, SwiGLU 14336
    h, kv, ffn = 4096, 1024, 14336
    per_token = (2 * h + 2 * h + 4 * kv + 2 * h + h) + (2 * h + 8 * ffn + h) + 4 * h
    assert layer_activation_bytes(llama, 1, 2.0) == per_token


def test_checkpointing_keeps_each_layers_input_and_one_layer_recomputed() -> None:
    job = Job(model=GPT, tokens=1e9, seq=2048, checkpointing=True)
    layer = layer_activation_bytes(GPT, 2048, 2.0)
    expected = (24 * 2 * 2048 * 2048 + layer) / 1e9
    assert terms(job)["activations"] == pytest.approx(expected)
    full = terms(Job(model=GPT, tokens=1e9, seq=2048))["activations"]
    assert terms(job)["activations"] < full / 5


def test_activations_and_logits_grow_with_the_batch_and_the_rest_does_not() -> None:
    one = job_memory(Job(model=GPT, tokens=1e9, seq=1024, batch=1))
    four = job_memory(Job(model=GPT, tokens=1e9, seq=1024, batch=4))
    assert four.fixed_gb == one.fixed_gb
    assert four.total_gb - one.total_gb == pytest.approx(3 * one.per_item_gb)
    logits = next(t for t in one.terms if t.key == "logits")
    assert logits.per_item_gb == pytest.approx(4 * 1024 * 50_000 / 1e9)  # 4 s b v


def test_fixed_and_per_item_give_memfits_largest_batch() -> None:
    """The pair issue 39's --target-batch max asks for, and the batch it gives."""
    job = Job(model=GPT, tokens=1e9, seq=1024)
    fixed, per_item = fixed_and_per_item_gb(job)
    a100 = load_catalog().get("a100_sxm4_80gb")
    batch = largest_batch(job_memory(job), a100)
    assert batch == memfit.max_batch(fixed * 1e9, per_item * 1e9, a100.memory_gb)
    assert fixed + per_item * batch <= usable_gb(a100) < fixed + per_item * (batch + 1)


def test_lora_adapters_count_rank_times_inputs_and_outputs_of_every_linear_layer() -> None:
    llama = load_models().resolve("llama-2-7b")  # 32 layers, 4096 wide, MLP 11008, no GQA
    per_layer = 4 * (4096 + 4096) + 3 * (4096 + 11008)
    assert lora_params(llama, 16) == 16 * per_layer * 32
    found = terms(Job(model=llama, tokens=1e6, method="lora"))
    assert found["weights"] == pytest.approx(llama.params * 2 / 1e9)  # type: ignore[operator]
    assert found["adapters"] == pytest.approx(lora_params(llama, 16) * 4 / 1e9)
    assert "gradients" not in found  # the frozen base has none


def test_qlora_keeps_the_base_in_nf4_and_its_embeddings_in_16_bits() -> None:
    llama = load_models().resolve("llama-2-7b")
    embed = 32_000 * 4096 * 2  # untied: input embedding and output layer
    found = terms(Job(model=llama, tokens=1e6, method="qlora"))
    expected = ((llama.params - embed) * NF4_BITS / 8 + embed * 2) / 1e9  # type: ignore[operator]
    assert found["weights"] == pytest.approx(expected)
    plan = job_memory(Job(model=llama, tokens=1e6, method="qlora"))
    paged = next(t for t in plan.terms if t.key == "optimizer")
    assert paged.pageable and plan.total_gb < sum(t.gb_at(1) for t in plan.terms)


def test_a_cnns_activations_are_said_to_be_unmodelled_not_zero() -> None:
    resnet = load_models().resolve("resnet-50")
    plan = job_memory(Job(model=resnet, epochs=90, dataset_items=1.28e6))
    assert not plan.complete
    assert [t.key for t in plan.terms if not t.known] == ["activations"]


def test_whispers_encoder_reads_its_1500_positions_and_its_decoder_the_sequence() -> None:
    whisper = load_models().resolve("whisper-small")
    job = Job(model=whisper, epochs=1, dataset_items=1000)
    expected = 12 * layer_activation_bytes(whisper, 1500, 2.0) + 12 * layer_activation_bytes(
        whisper, 448, 2.0
    )
    assert terms(job)["activations"] == pytest.approx(expected / 1e9)


def test_a_model_given_by_its_shape_adds_up_to_its_parameters() -> None:
    m = custom_model(params=7e9, layers=32, hidden=4096)
    per_layer = 4 * 4096 * 4096 + 3 * 4096 * m.ffn_hidden  # type: ignore[operator]
    assert 32 * per_layer + 2 * 32_000 * 4096 == pytest.approx(7e9, rel=0.001)
    assert fits(
        job_memory(Job(model=m, tokens=1e6, method="qlora", seq=512)), load_catalog().get("rtx3090")
    )
