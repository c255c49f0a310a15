"""A job's memory as a fixed part and a part per item, and the batch each GPU runs.

Issue 39: --target-batch max is the largest batch that fits each GPU with a stated margin,
rounded as people round it; the memory comes from the user's figure at one batch (split by a
stated prior), a bench's peak at two batches, or (the next issue) a model description.
"""

from __future__ import annotations

import pytest

from costcalc.core.batching import BatchPlan, parse_target_batch
from costcalc.core.errors import CostcalcError
from costcalc.core.memory import (
    FIXED_SHARE_PRIOR,
    JobMemory,
    from_bench,
    from_one_batch,
    from_two_batches,
    rounded_batch,
    usable_gb,
)
from costcalc.store.bundled import load_catalog


@pytest.mark.parametrize(
    ("largest", "rounded"),
    [(0, 0), (1, 1), (3, 2), (5, 4), (7, 4), (8, 8), (15, 8), (52, 48), (64, 64), (1001, 1000)],
)
def test_a_batch_is_rounded_as_people_round_it(largest: int, rounded: int) -> None:
    assert rounded_batch(largest) == rounded


def test_the_margin_is_stated_and_kept() -> None:
    # 5 % of the card and 0.6 GB for the CUDA context and the allocator
    assert usable_gb(80) == pytest.approx(80 * 0.95 - 0.6)
    memory = JobMemory(10.0, 1.25, "given", "test")
    assert memory.largest_batch(80) == int((usable_gb(80) - 10) / 1.25) == 52
    assert memory.max_batch(80) == 48
    assert memory.need_gb(48) <= usable_gb(80) < memory.need_gb(53)


def test_one_figure_is_split_by_the_kinds_prior() -> None:
    memory = from_one_batch(20, 8, "transformer")
    share = FIXED_SHARE_PRIOR["transformer"]
    assert memory.fixed_gb == pytest.approx(20 * share)
    assert memory.need_gb(8) == pytest.approx(20)  # the user's figure, at the user's batch
    assert "50%" in memory.words and "batch 8" in memory.words
    cnn = from_one_batch(20, 8, "cnn")
    assert cnn.fixed_gb < memory.fixed_gb  # a CNN's activations are most of its memory


def test_two_measured_batches_give_the_line_and_never_a_negative_part() -> None:
    memory = from_two_batches(8, 14.0, 16, 22.0)
    assert (memory.fixed_gb, memory.per_item_gb) == pytest.approx((6.0, 1.0))
    flat = from_two_batches(8, 14.0, 16, 13.0)  # a noisy peak: no negative per-item part
    assert flat.per_item_gb == 0 and flat.fixed_gb == 14.0
    with pytest.raises(CostcalcError, match="two different batch sizes"):
        from_two_batches(8, 14.0, 8, 15.0)
    bench = from_bench(3e9, 0.25e9)
    assert (bench.fixed_gb, bench.per_item_gb, bench.source) == (3.0, 0.25, "bench")


def test_a_job_too_big_for_a_card_fits_no_batch() -> None:
    memory = JobMemory(30.0, 1.0, "given", "test")
    assert memory.max_batch(24) == 0 and memory.largest_batch(24) == 0
    assert JobMemory(1.0, 0.0, "given", "test").largest_batch(24) > 10**5  # no growth with batch


def test_longer_sequences_take_more_activation_memory_per_item() -> None:
    memory = JobMemory(10.0, 1.0, "given", "test", sequence=1024)
    longer = memory.at_sequence(2048)
    assert (longer.fixed_gb, longer.per_item_gb) == (10.0, 2.0)
    assert memory.at_sequence(1024) is memory


@pytest.mark.parametrize("text", ["same", " MAX ", "8", "+16"])
def test_target_batch_reads_same_max_or_a_number(text: str) -> None:
    value = parse_target_batch(text)
    assert value in ("same", "max") or isinstance(value, int)


@pytest.mark.parametrize("text", ["", "0", "-4", "largest", "8.5", "1" * 30])
def test_a_bad_target_batch_is_one_clear_line(text: str) -> None:
    with pytest.raises(
        CostcalcError, match="target batch must be same, max or a whole number from 1"
    ):
        parse_target_batch(text)


def test_max_needs_the_jobs_memory() -> None:
    with pytest.raises(CostcalcError, match="needs the job's memory"):
        BatchPlan(8, "max", None, "rtx3090")


def test_a_plan_gives_each_gpu_its_batch_and_why() -> None:
    catalog = load_catalog()
    rtx3090, a100, t4 = (catalog.get(k) for k in ("rtx3090", "a100_pcie_80gb", "t4"))
    plan = BatchPlan(8, "max", from_one_batch(20, 8, "transformer"), "rtx3090")
    assert plan.varies
    assert plan.on(rtx3090) == 8  # the user's GPU runs the user's batch
    assert plan.on(a100) == 48 and "largest multiple of 8 that fits 80 GB" in plan.why(a100)
    # a 16 GB card: (16 x 0.95 - 0.6 - 10) / 1.25 = 3.7 items, 2 as a power of two
    assert plan.on(t4) == 2 and "power of two" in plan.why(t4)
    too_small = BatchPlan(8, "max", from_one_batch(20, 8, "transformer"), "a100_pcie_80gb")
    assert too_small.on(catalog.get("gtx1060_6gb")) == 0
    assert "does not fit" in too_small.why(catalog.get("gtx1060_6gb"))
    assert too_small.speed_batch(catalog.get("gtx1060_6gb")) == 8  # priced as not fitting
    same = BatchPlan(8, "same", None, "rtx3090")
    assert not same.varies and same.on(a100) == 8
    fixed = BatchPlan(8, 32, None, "rtx3090")
    assert fixed.on(a100) == 32 and fixed.on(rtx3090) == 8
