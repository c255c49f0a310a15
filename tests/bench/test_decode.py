"""`costcalc bench --serve`: batch-1 decoding timed with real torch on the CPU, its KV cache
giving what a full forward pass gives, and its figures consistent with each other."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

import torch.nn.functional as F

from costcalc.bench.decode import SHAPES, TinyDecoder, run
from costcalc.cli import main


def full_forward(model: TinyDecoder, tokens: list[int]) -> torch.Tensor:
    """Every position at once, causal attention, no cache: what decoding must reproduce."""
    n, size = len(tokens), model.hidden // model.heads
    x = model.embed[tokens].unsqueeze(0)
    for qkv, out, up, down in model.blocks:
        h = F.layer_norm(x, (model.hidden,))
        q, k, v = (
            t.view(1, n, model.heads, size).transpose(1, 2)
            for t in (h @ qkv.T).split(model.hidden, dim=-1)
        )
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + att.transpose(1, 2).reshape(1, n, model.hidden) @ out.T
        h = F.layer_norm(x, (model.hidden,))
        x = x + F.gelu(h @ up.T) @ down.T
    return F.layer_norm(x, (model.hidden,)) @ model.embed.T


def test_decoding_with_the_cache_gives_what_a_full_forward_pass_does() -> None:
    torch.manual_seed(0)
    model = TinyDecoder(2, 64, 4, 200, "cpu")
    model.blocks = [tuple(t * 25 for t in block) for block in model.blocks]  # type: ignore[misc]
    tokens = torch.randint(0, 200, (12,)).tolist()  # strong mixing: each position matters
    cache = model.empty_cache(len(tokens))
    stepped = torch.stack([model.logits(t, cache, at) for at, t in enumerate(tokens)])
    with torch.inference_mode():
        expected = full_forward(model, tokens)[0]
    assert torch.allclose(stepped, expected, atol=1e-4, rtol=1e-4)
    assert not torch.allclose(expected[-1], expected[-2], atol=1e-2)  # the positions differ


ENVIRONMENT = pytest.mark.subprocess
"""The result names the CPU, which `platform` reads by running `uname -p`."""


@ENVIRONMENT
def test_the_tiny_decode_bench_figures_agree_with_each_other() -> None:
    steps: list[str] = []
    result = run("cpu", "tiny", lambda message, _f: steps.append(message))
    layers, hidden, _heads, vocab = SHAPES["tiny"]
    assert (result.layers, result.hidden, result.heads, result.vocab) == SHAPES["tiny"]
    assert result.params == vocab * hidden + layers * 12 * hidden * hidden
    assert result.weight_bytes == 4 * result.params  # fp32
    per_repeat = result.decode_tokens / result.spread.median_s
    assert result.decode_tokens_per_s == pytest.approx(per_repeat)
    assert result.weights_read_gbs == pytest.approx(
        result.weight_bytes * result.decode_tokens_per_s / 1e9
    )
    assert result.copy_bandwidth_gbs > 0 and result.bandwidth_share is not None
    assert result.bandwidth_share == pytest.approx(
        result.weights_read_gbs / result.copy_bandwidth_gbs
    )
    assert steps[-1] == "done"


@ENVIRONMENT
def test_the_command_prints_its_answer_in_80_columns_and_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import costcalc.bench.decode as decode

    monkeypatch.setitem(decode.SHAPES, "quick", SHAPES["tiny"])  # the quick shape, made small
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["bench", "--serve", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80
    assert "Decode, batch 1:" in out and "tokens/s" in out
    assert main(["bench", "--serve", "--device", "cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decode_tokens_per_s"] > 0 and doc["layers"] == SHAPES["tiny"][0]


def test_serve_with_save_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--serve", "--save"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--serve times decoding alone" in err
