"""Largest batch per GPU from a memory fit: memory = a + b x batch, measured at two batches.

Rule kept here: pure. The fit comes from a bench (weights, gradients and optimizer state in a;
activations per item in b); each GPU keeps the reserve and margin costcalc.core.memory states.
The largest batch here is not rounded: it is the $ per batch item's grow-until-out-of-memory
figure; a batch a GPU runs for a prediction is core.memory's, rounded as people round it.
"""

from __future__ import annotations

from collections.abc import Iterable

from costcalc.core.memory import MARGIN_SHARE, RESERVE_GB
from costcalc.core.models import GpuSpec

RESERVE_BYTES = RESERVE_GB * 1e9
"""CUDA context and allocator slack a training process never gets to use (core.memory)."""
USABLE_SHARE = 1 - MARGIN_SHARE


def usable_gb(memory_gb: float) -> float:
    """What a training process gets of a GPU's memory: the usable share, less the reserve."""
    return memory_gb * USABLE_SHARE - RESERVE_BYTES / 1e9


def card_gb_holding(need_gb: float) -> float:
    """The smallest GPU memory whose usable part holds `need_gb` (`usable_gb`, inverted)."""
    return (need_gb + RESERVE_BYTES / 1e9) / USABLE_SHARE


def fit_line(batch_1: int, bytes_1: float, batch_2: int, bytes_2: float) -> tuple[float, float]:
    """(a, b) through two (batch, bytes) measurements; b is never negative."""
    if batch_1 == batch_2:
        raise ValueError("two different batch sizes are needed")
    per_item = max((bytes_2 - bytes_1) / (batch_2 - batch_1), 0.0)
    return max(bytes_1 - per_item * batch_1, 0.0), per_item


def max_batch(base_bytes: float, per_item_bytes: float, memory_gb: float) -> int:
    """Largest batch that fits in `memory_gb`; 0 when not even one item does."""
    usable = memory_gb * 1e9 * USABLE_SHARE - RESERVE_BYTES - base_bytes
    if usable < per_item_bytes or usable <= 0:
        return 0
    if per_item_bytes <= 0:
        return 1 << 20
    return int(usable // per_item_bytes)


def max_batch_by_gpu(
    specs: Iterable[GpuSpec], base_bytes: float, per_item_bytes: float
) -> dict[str, int]:
    """Largest batch on every GPU, keyed by catalog key (feeds Workload.max_batch)."""
    return {s.key: max_batch(base_bytes, per_item_bytes, s.memory_gb) for s in specs}
