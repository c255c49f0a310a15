"""The reference models are the models people train, at full size: ResNet-50 and GPT-2 small.

Built on PyTorch's meta device (shapes without memory), so the full sizes cost nothing here;
their parameter counts are the published ones, which pins the architectures down.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench.models import Gpt, resnet
from costcalc.bench.workloads import CNN_SIZES, GPT_SIZES, build


def parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def test_the_full_gpu_cnn_is_resnet50() -> None:
    size = CNN_SIZES[("full", True)]
    with torch.device("meta"):
        model = resnet(size.width, size.depths, size.image, size.classes)
    # torchvision.models.resnet50: 25,557,032 parameters (its documentation's model table)
    assert parameters(model) == 25_557_032
    assert size.image == 224 and size.words().startswith("ResNet-50-style")


def test_the_full_gpu_language_model_is_gpt2_small() -> None:
    size = GPT_SIZES[("full", True)]
    with torch.device("meta"):
        model = Gpt(size.d_model, size.heads, size.layers, size.seq_len, size.vocab)
    # GPT-2 small with its tied embeddings: 124,439,808 parameters (Hugging Face gpt2)
    assert parameters(model) == 124_439_808


def test_every_reference_trains_one_step_on_the_cpu() -> None:
    for name in ("resnet_cnn", "gpt_lm"):
        ref = build(name, "tiny", "cpu", "fp32")
        before = [p.detach().clone() for p in ref.model.parameters()]
        ref.step_for(2)()
        after = list(ref.model.parameters())
        assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True)), name
    with pytest.raises(ValueError, match="unknown reference"):
        build("vgg", "tiny", "cpu", "fp32")
