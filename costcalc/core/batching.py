"""Which batch per GPU each side of a comparison runs: the user's on the GPU they measured, and
on another GPU the same batch, a number, or the largest that fits it.

Rule kept here: pure and small. "same" keeps the user's job unchanged (the default); "max" is
what practitioners do on a bigger card, and needs the job's memory (costcalc.core.memory); a
number is that batch everywhere the user's is not measured. Each batch comes with its reason
in words, for the tables' headers and "why this number".
"""

from __future__ import annotations

import re
from typing import Literal

from msgspec import Struct

from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.memory import MARGIN_SHARE, RESERVE_GB, JobMemory
from costcalc.core.models import GpuSpec

TargetBatch = Literal["same", "max"] | int
TARGET_WORDS = "same, max or a whole number from 1 to 1,000,000"
MAX_TARGET_BATCH = 1_000_000
"""The largest batch a number may ask for: the scenario's bound on --batch."""


def parse_target_batch(text: str | int) -> TargetBatch:
    """'same', 'max' or a whole number, as typed; a clear one-line error otherwise."""
    if isinstance(text, int) and not isinstance(text, bool):
        raw = str(text)
    else:
        raw = str(text).strip().lower()
    if raw in ("same", "max"):
        return raw  # type: ignore[return-value]
    if re.fullmatch(r"\+?[0-9]{1,18}", raw):
        value = int(raw)
        if 1 <= value <= MAX_TARGET_BATCH:
            return value
    raise CostcalcError(f"target batch must be {TARGET_WORDS}, got {quoted(str(text))}")


class BatchPlan(Struct, frozen=True):
    """The batch per GPU on the user's GPU and on every other one."""

    batch: int | None = None
    """The user's batch per GPU, on the GPU they measured; None: the speed model's reference."""
    target: TargetBatch = "same"
    memory: JobMemory | None = None
    """The job's memory, where known: what "max" needs, and what says a batch does not fit."""
    source_gpu: str | None = None
    """The GPU the user's batch runs on (their desktop, or predict's --from)."""

    def __post_init__(self) -> None:
        if self.target == "max" and self.memory is None:
            raise CostcalcError(
                "target batch max needs the job's memory: give --memory-gb with the --batch it "
                "was measured at, or a bench (--bench) that measured it"
            )

    @property
    def varies(self) -> bool:
        """Whether GPUs may run different batches (the tables then say which)."""
        return self.target != "same"

    def on(self, spec: GpuSpec) -> int | None:
        """The batch `spec` runs: the user's on their GPU; otherwise by the plan. 0 when the
        job does not fit `spec` at any batch ("max")."""
        if spec.key == self.source_gpu or self.target == "same":
            return self.batch
        if self.target == "max":
            assert self.memory is not None  # __post_init__
            return self.memory.max_batch(spec.memory_gb)
        return self.target

    def speed_batch(self, spec: GpuSpec) -> int | None:
        """The batch `spec`'s speed is predicted at: `on`, or the user's where the job fits
        `spec` at no batch (its offers are marked as not fitting)."""
        batch = self.on(spec)
        return self.batch if batch == 0 else batch

    def why(self, spec: GpuSpec) -> str:
        """Why `spec` runs the batch `on` gives, in words."""
        batch = self.on(spec)
        if spec.key == self.source_gpu or self.target == "same":
            if batch is None:
                return "the speed model's reference batch"
            return f"your batch of {batch}" + (
                "" if spec.key == self.source_gpu else " (--target-batch same)"
            )
        if self.target == "max":
            assert self.memory is not None
            if not batch:
                return (
                    f"the job does not fit {spec.memory_gb:g} GB at any batch "
                    f"({self.memory.fixed_gb:.3g} GB fixed)"
                )
            return (
                f"the largest {'multiple of 8' if batch >= 8 else 'power of two'} that fits "
                f"{spec.memory_gb:g} GB: {self.memory.need_gb(batch):.3g} GB at {batch} "
                f"({self.memory.fixed_gb:.3g} GB fixed + {self.memory.per_item_gb:.3g} GB per "
                f"item; {MARGIN_SHARE:.0%} and {RESERVE_GB:g} GB kept free)"
            )
        return f"--target-batch {batch}"
