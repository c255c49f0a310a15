"""`costcalc bench --serve`: time batch-1 decoding of a small GPT-2-class model on this device.

Rule kept here: the model is built here with random weights (nothing is downloaded; decode time
depends on the shapes and the bytes read, not on what the weights say), one token is generated
at a time against a KV cache as an inference engine does, and the answer is what serving's
speed model reasons with (docs/serve-model.md): tokens a second, the weight bytes each token
reads, and the share of the device's own measured copy bandwidth that makes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

import torch
import torch.nn.functional as F

from costcalc.bench.device import environment, pick_device
from costcalc.bench.probes import bandwidth_gbs
from costcalc.bench.timing import measure
from costcalc.core.bench_results import DecodeBench

Progress = Callable[[str, float], None]

SHAPES: dict[str, tuple[int, int, int, int]] = {
    "tiny": (2, 64, 4, 1_000),
    "quick": (6, 512, 8, 32_000),
    "full": (12, 768, 12, 50_257),
}
"""(layers, hidden, heads, vocabulary): a tiny one for tests, a 6-layer model of about 35M
parameters, and GPT-2 small (124M; Radford et al. 2019)."""
PROMPT_TOKENS = 64
DECODE_TOKENS = 32
"""Tokens generated per timed repeat, after a prompt of PROMPT_TOKENS in the cache."""


class TinyDecoder:
    """A pre-norm decoder-only transformer's weights and its batch-1 decode step."""

    def __init__(self, layers: int, hidden: int, heads: int, vocab: int, device: str) -> None:
        def w(*shape: int) -> torch.Tensor:
            return torch.randn(*shape, device=device) * 0.02

        self.heads, self.hidden = heads, hidden
        self.embed = w(vocab, hidden)
        self.blocks = [
            (w(3 * hidden, hidden), w(hidden, hidden), w(4 * hidden, hidden), w(hidden, 4 * hidden))
            for _ in range(layers)
        ]
        self.device = device

    @property
    def tensors(self) -> list[torch.Tensor]:
        return [self.embed, *(t for block in self.blocks for t in block)]

    @property
    def params(self) -> int:
        return sum(t.numel() for t in self.tensors)

    @property
    def weight_bytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.tensors)

    def empty_cache(self, length: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        shape = (1, self.heads, length, self.hidden // self.heads)
        return [
            (torch.zeros(shape, device=self.device), torch.zeros(shape, device=self.device))
            for _ in self.blocks
        ]

    def step(self, token: int, cache: list[tuple[torch.Tensor, torch.Tensor]], at: int) -> int:
        """One generated token: every weight read once, the cache up to `at` attended to."""
        return int(self.logits(token, cache, at).argmax())

    def logits(
        self, token: int, cache: list[tuple[torch.Tensor, torch.Tensor]], at: int
    ) -> torch.Tensor:
        """The next token's logits for `token` at position `at`, its keys and values cached."""
        with torch.inference_mode():
            return self._logits(token, cache, at)

    def _logits(
        self, token: int, cache: list[tuple[torch.Tensor, torch.Tensor]], at: int
    ) -> torch.Tensor:
        x = self.embed[token].view(1, 1, -1)
        size = self.hidden // self.heads
        for (qkv, out, up, down), (keys, values) in zip(self.blocks, cache, strict=True):
            h = F.layer_norm(x, (self.hidden,))
            q, k, v = (h @ qkv.T).split(self.hidden, dim=-1)
            q = q.view(1, 1, self.heads, size).transpose(1, 2)
            keys[:, :, at] = k.view(1, self.heads, size)
            values[:, :, at] = v.view(1, self.heads, size)
            att = F.scaled_dot_product_attention(q, keys[:, :, : at + 1], values[:, :, : at + 1])
            x = x + att.transpose(1, 2).reshape(1, 1, self.hidden) @ out.T
            h = F.layer_norm(x, (self.hidden,))
            x = x + F.gelu(h @ up.T) @ down.T
        return (F.layer_norm(x, (self.hidden,)) @ self.embed.T)[0, -1]  # tied output embedding


def run(device: str | None, mode: str, progress: Progress) -> DecodeBench:
    """Build the model, measure the device's copy bandwidth, then time decoding."""
    where = pick_device(device)
    layers, hidden, heads, vocab = SHAPES[mode]
    progress(f"building a {layers}-layer decoder on {where}", 0.05)
    model = TinyDecoder(layers, hidden, heads, vocab, where)
    progress("measuring the device's copy bandwidth", 0.2)
    copy_gbs, _ = bandwidth_gbs(where, {"tiny": 16, "quick": 128}.get(mode, 256))
    cache = model.empty_cache(PROMPT_TOKENS + DECODE_TOKENS)

    def generate() -> None:
        token = 0
        for at in range(PROMPT_TOKENS, PROMPT_TOKENS + DECODE_TOKENS):
            token = model.step(token, cache, at)

    progress(f"decoding {DECODE_TOKENS} tokens at a time, batch 1", 0.4)
    spread = measure(generate, where, warmup=1, repeats=5)
    tokens_per_s = DECODE_TOKENS / spread.median_s
    read_gbs = model.weight_bytes * tokens_per_s / 1e9
    progress("done", 1.0)
    return DecodeBench(
        created_at=datetime.now(timezone.utc),
        mode=mode,  # type: ignore[arg-type]
        environment=environment(where),
        layers=layers,
        hidden=hidden,
        heads=heads,
        vocab=vocab,
        params=model.params,
        weight_bytes=model.weight_bytes,
        dtype="fp32",
        prompt_tokens=PROMPT_TOKENS,
        decode_tokens=DECODE_TOKENS,
        decode_tokens_per_s=tokens_per_s,
        ms_per_token=1000 / tokens_per_s,
        spread=spread,
        weights_read_gbs=read_gbs,
        copy_bandwidth_gbs=copy_gbs,
        bandwidth_share=read_gbs / copy_gbs if copy_gbs > 0 else None,
    )
