"""The reference models, built in code (no downloads, no torchvision): the shapes people train.

Rule kept here: architecture only. A ResNet-50-class CNN (bottleneck blocks, stages of 3, 4, 6
and 3 blocks, He et al. 2015, "Deep Residual Learning", table 1) and a GPT-2-class language model
(pre-norm transformer blocks, GELU, causal attention, tied embeddings, Radford et al. 2019). At
full size they are those models; smaller sizes keep the structure and shrink width, depth,
resolution or sequence, so a laptop CPU finishes in seconds.
"""

from __future__ import annotations

import torch
from torch import nn

EXPANSION = 4
"""A bottleneck block's output is 4x its inner width (ResNet-50's 64 -> 256)."""


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided), 1x1 expand, each with batch norm; a projected shortcut."""

    def __init__(self, c_in: int, inner: int, stride: int) -> None:
        super().__init__()
        c_out = inner * EXPANSION
        self.body = nn.Sequential(
            nn.Conv2d(c_in, inner, 1, bias=False),
            nn.BatchNorm2d(inner),
            nn.ReLU(inplace=True),
            nn.Conv2d(inner, inner, 3, stride, 1, bias=False),
            nn.BatchNorm2d(inner),
            nn.ReLU(inplace=True),
            nn.Conv2d(inner, c_out, 1, bias=False),
            nn.BatchNorm2d(c_out),
        )
        self.skip: nn.Module = (
            nn.Identity()
            if stride == 1 and c_in == c_out
            else nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.skip(x))


def _stem(width: int, image: int) -> list[nn.Module]:
    """ImageNet's 7x7/2 + max-pool stem for real images; CIFAR's 3x3/1 for small ones, which
    the ImageNet stem would shrink to a few pixels before the first stage."""
    if image >= 128:
        return [
            nn.Conv2d(3, width, 7, 2, 3, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, 1),
        ]
    return [nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True)]


def resnet(width: int, depths: tuple[int, ...], image: int, classes: int) -> nn.Module:
    """ResNet-50 is resnet(64, (3, 4, 6, 3), 224, 1000)."""
    layers = _stem(width, image)
    c_in = width
    for stage, depth in enumerate(depths):
        inner = width * 2**stage
        for block in range(depth):
            layers.append(Bottleneck(c_in, inner, 2 if stage > 0 and block == 0 else 1))
            c_in = inner * EXPANSION
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, classes)]
    return nn.Sequential(*layers)


class Gpt(nn.Module):
    """GPT-2 small is Gpt(768, 12, 12, 1024, 50257): 124 M parameters."""

    def __init__(self, d_model: int, heads: int, layers: int, seq_len: int, vocab: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.position = nn.Embedding(seq_len, d_model)
        block = nn.TransformerEncoderLayer(
            d_model,
            nhead=heads,
            dim_feedforward=4 * d_model,
            dropout=0.1,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)
        self.head.weight = self.embed.weight  # tied, as in GPT-2
        self.seq_len = seq_len

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.position(positions)
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1], device=x.device)
        # is_causal with the mask lets attention take PyTorch's fused (flash) kernels
        x = self.blocks(x, mask=mask, is_causal=True)
        logits: torch.Tensor = self.head(self.norm(x))
        return logits
