"""How a training job's GPU memory grows with its batch, and the largest batch a GPU holds.

Rule kept here: pure and small. A job's memory is a fixed part (weights, gradients, optimizer
state, the framework's workspace) plus a part per item (the activations one item keeps for the
backward pass; for tokens, one sequence's): fixed_gb + per_item_gb x batch. It is found from
the user's memory at one batch (split by a stated prior), from a bench's peak memory at two
batches, or from a model description (its parameters and activations). A GPU keeps a margin
free (MARGIN_SHARE of its memory, and RESERVE_GB for the CUDA context and the allocator's
slack); the largest batch that fits the rest is rounded as people round a batch.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from costcalc.core.errors import CostcalcError

RESERVE_GB = 0.6
"""The CUDA context and allocator slack a training process never gets to use."""
MARGIN_SHARE = 0.05
"""Of a GPU's memory, kept free: fragmentation and the peaks between two measured steps."""
ROUND_TO = 8
"""A batch of 8 or more is rounded down to a multiple of 8 (tensor cores' tile, and how
published recipes pick a batch); below 8, to a power of two."""

FIXED_SHARE_PRIOR: dict[str, float] = {"transformer": 0.5, "generic": 0.5, "rnn": 0.5, "cnn": 0.2}
"""The fixed part's share of a job's memory at the batch it was given for, where only one
figure is known. NVIDIA DeepLearningExamples' largest batches per card (scripts/
batch_sweeps.csv, max_per_gpu) put BERT-large's at 64-65 % of a 16 GB V100 (FP32, 8 sequences
of 128 on 16 GB and 32 on 32 GB; SQuAD: 3, 8 and 38 sequences of 384 on 16, 32 and 80 GB),
Jasper's (a convolutional speech model, 16 and 32 on 16 and 32 GB) near 0 %; by the activation
count of Korthikanti et al. (2022, "Reducing Activation Recomputation in Large Transformer
Models") GPT-2 small at 8 sequences of 1,024 keeps about 85 % in activations. Transformers and
recurrent nets take the middle, 50 %; CNNs, whose activations dominate, 20 %. A bench's memory
at two batches, or a model description, replaces it."""

MemorySource = Literal["given", "bench", "model"]


class JobMemory(Struct, frozen=True):
    """A job's GPU memory as a fixed part and a part per item of the batch."""

    fixed_gb: float
    """Weights, gradients, optimizer state and workspace: the same at any batch."""
    per_item_gb: float
    """Activations kept for one item (for tokens, one sequence of `sequence` tokens)."""
    source: MemorySource
    """How it was found: the user's figure at one batch, a bench, a model description."""
    words: str
    """How it was found, in words, for "why this number"."""
    sequence: float | None = None
    """Tokens per item `per_item_gb` is stated for; None: items are not token sequences."""

    def need_gb(self, batch: float) -> float:
        """Memory a step at `batch` per GPU needs."""
        return self.fixed_gb + self.per_item_gb * batch

    def at_sequence(self, sequence: float) -> JobMemory:
        """The same job at another sequence length: activations grow with the tokens."""
        if self.sequence is None or sequence == self.sequence:
            return self
        per_item = self.per_item_gb * sequence / self.sequence
        return JobMemory(self.fixed_gb, per_item, self.source, self.words, sequence)

    def largest_batch(self, memory_gb: float) -> int:
        """The largest batch that fits a GPU of `memory_gb`, before rounding; 0 when not
        even one item does."""
        room = usable_gb(memory_gb) - self.fixed_gb
        if room < self.per_item_gb or room <= 0:
            return 0
        if self.per_item_gb <= 0:
            return MAX_BATCH
        return min(int(room / self.per_item_gb), MAX_BATCH)

    def max_batch(self, memory_gb: float) -> int:
        """The batch people would run on a GPU of `memory_gb`: the largest that fits with the
        margin kept free, rounded (rounded_batch); 0 when not even one item fits."""
        return rounded_batch(self.largest_batch(memory_gb))


MAX_BATCH = 1 << 20
"""A bound for a job whose memory does not grow with the batch."""


def usable_gb(memory_gb: float) -> float:
    """What a GPU of `memory_gb` gives one training process: the margin and reserve kept."""
    return memory_gb * (1 - MARGIN_SHARE) - RESERVE_GB


def rounded_batch(batch: int) -> int:
    """Down to a multiple of ROUND_TO from ROUND_TO on, to a power of two below it."""
    if batch >= ROUND_TO:
        return batch - batch % ROUND_TO
    if batch < 1:
        return 0
    return 1 << (batch.bit_length() - 1)


def from_one_batch(memory_gb: float, batch: int, kind: str) -> JobMemory:
    """The user's `memory_gb` at `batch` per GPU, split by the kind's prior (FIXED_SHARE_PRIOR)."""
    if memory_gb <= 0 or batch < 1:
        raise CostcalcError("a job's memory needs a positive size at a batch of at least 1")
    share = FIXED_SHARE_PRIOR.get(kind, FIXED_SHARE_PRIOR["generic"])
    fixed = memory_gb * share
    return JobMemory(
        fixed,
        (memory_gb - fixed) / batch,
        "given",
        f"your {memory_gb:g} GB at batch {batch}, taken as {fixed:.3g} GB fixed (weights, "
        f"gradients, optimizer state: {share:.0%}, the prior for {kind} work) and "
        f"{(memory_gb - fixed) / batch:.3g} GB per item",
    )


def from_two_batches(
    batch_1: float, gb_1: float, batch_2: float, gb_2: float, source: MemorySource = "bench"
) -> JobMemory:
    """The line through two measured (batch, GB) points; the per-item part is never
    negative, nor the fixed part."""
    if batch_1 == batch_2:
        raise CostcalcError("a memory fit needs two different batch sizes")
    per_item = max((gb_2 - gb_1) / (batch_2 - batch_1), 0.0)
    fixed = max(gb_1 - per_item * batch_1, 0.0)
    return JobMemory(
        fixed,
        per_item,
        source,
        f"measured at batch {batch_1:g} and {batch_2:g}: {fixed:.3g} GB fixed and "
        f"{per_item:.3g} GB per item",
    )


def from_bench(base_bytes: float, per_item_bytes: float) -> JobMemory:
    """A bench's memory fit (peak memory at two batches, costcalc.bench)."""
    fixed, per_item = base_bytes / 1e9, per_item_bytes / 1e9
    return JobMemory(
        fixed,
        per_item,
        "bench",
        f"the bench's peak memory at two batches: {fixed:.3g} GB fixed and {per_item:.3g} GB "
        "per item",
    )
