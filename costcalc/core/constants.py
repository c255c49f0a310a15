"""Names shared by every layer: the workload kinds, precisions and offer kinds, defined once.

Rule kept here: nothing but the standard library's `typing`, so argument parsers, models and
the predictor can all use these for free. Each vocabulary is one Literal type; the tuple of its
values is derived from it, never written again.
"""

from typing import Literal, get_args

Kind = Literal["cnn", "transformer", "rnn", "generic"]
"""What kind of network a run trains: it decides which GPU rates matter (DOMAIN.md section 3)."""
KINDS: tuple[Kind, ...] = get_args(Kind)

Dtype = Literal["fp32", "tf32", "fp16", "bf16"]
"""Training precision: fp16 and bf16 mean automatic mixed precision (16-bit math, 32-bit master
weights); tf32 is FP32 storage with TF32 tensor-core matmuls (Ampere and later)."""
DTYPES: tuple[Dtype, ...] = get_args(Dtype)

Method = Literal["full", "lora", "qlora"]
"""How a training job trains (costcalc.core.job): full: every weight trains; lora: low-rank
adapters over a frozen 16-bit base (Hu et al. 2021); qlora: the same over a 4-bit NF4 base
(Dettmers et al. 2023)."""
METHODS: tuple[Method, ...] = get_args(Method)
Optimizer = Literal["adamw", "adamw-8bit", "sgd"]
OPTIMIZERS: tuple[Optimizer, ...] = get_args(Optimizer)
Sharding = Literal["none", "zero1", "zero2", "zero3", "fsdp"]
"""none: plain data parallel (every GPU holds everything); ZeRO stages 1-3 (Rajbhandari et al.
2020) shard the optimizer state, then the gradients, then the weights; fsdp (FULL_SHARD) shards
as ZeRO-3 does."""
SHARDINGS: tuple[Sharding, ...] = get_args(Sharding)
Quant = Literal["fp16", "fp8", "int8", "int4"]
"""The weights' format when a model is served (costcalc.core.serve_speed)."""
QUANTS: tuple[Quant, ...] = get_args(Quant)

OfferKind = Literal["all", "spot", "on-demand"]
OFFER_KINDS: tuple[OfferKind, ...] = get_args(OfferKind)

TierName = Literal[
    "secure",
    "community",
    "marketplace",
    "decentralised",
    "on-demand",
    "spot",
    "committed",
    "free",
    "estimate",
]
"""The tiers an offer can be in, and `--exclude` can leave out (costcalc.core.tiers): who hosts
it, how it is priced, and whether anyone charges or observed the price."""
TIER_NAMES: tuple[TierName, ...] = get_args(TierName)

MAX_GPUS_PER_OFFER = 64
"""No rentable machine holds more (an HGX node has 8, an NVL72 rack 72 as 18 nodes of 4); the
bundled snapshots' largest is 8."""

CUSTOM_PROVIDER = "custom"
"""Offers the user prices on the command line or in the app."""

INTERRUPTION_BUCKETS: tuple[str, ...] = ("<5%", "5-10%", "10-15%", "15-20%", ">20%")
"""AWS Spot Instance Advisor's interruption-frequency buckets 0-4, as it labels them."""

MIN_UTILISATION = 0.001
"""The smallest utilisation an input may be (0.1 % of the year's hours): one bound, shared by the
scenario's field and the assumptions the engine is given."""
