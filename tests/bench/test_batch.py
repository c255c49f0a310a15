"""Batch search and memory fit.

There is no GPU on the test machine: the one fault simulated in the suite is here, a step that
raises torch.cuda.OutOfMemoryError above a threshold, as CUDA's caching allocator does.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench.batch import find_max_batch
from costcalc.core.memfit import fit_line, max_batch, max_batch_by_gpu


def oom_above(limit: int, calls: list[int]):  # type: ignore[no-untyped-def]
    def step(batch: int) -> None:
        calls.append(batch)
        if batch > limit:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    return step


@pytest.mark.parametrize("limit", [1, 2, 37, 64, 1000])
def test_search_finds_the_largest_batch_that_fits(limit: int) -> None:
    calls: list[int] = []
    assert find_max_batch(oom_above(limit, calls), "cpu", start=1, limit=4096) == limit
    assert len(calls) <= 2 * 13  # grow and bisect: logarithmic in the limit


def test_nothing_fits_gives_zero_and_start_above_limit_still_searches_down() -> None:
    assert find_max_batch(oom_above(0, []), "cpu") == 0
    assert find_max_batch(oom_above(5, []), "cpu", start=16) == 5


def test_other_errors_are_not_swallowed() -> None:
    def broken(batch: int) -> None:
        raise ValueError("shape mismatch")

    with pytest.raises(ValueError):
        find_max_batch(broken, "cpu")


def test_memory_fit_and_max_batch_per_gpu() -> None:
    a, b = fit_line(8, 2e9 + 8 * 0.5e9, 16, 2e9 + 16 * 0.5e9)
    assert (a, b) == pytest.approx((2e9, 0.5e9))
    usable = 24 * 0.95 - 0.6 - 2
    assert max_batch(a, b, 24) == int(usable / 0.5)
    assert max_batch(30e9, b, 24) == 0  # weights alone do not fit: "does not fit", never $0
    from costcalc.store.bundled import load_catalog

    batches = max_batch_by_gpu(load_catalog(), a, b)
    assert batches["h100_sxm5_80gb"] > batches["rtx3090"] > batches["gtx1060_6gb"] >= 0
