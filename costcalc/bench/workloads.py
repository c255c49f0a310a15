"""The two reference training steps: a small ResNet-style CNN and a transformer encoder block.

Rule kept here: built in code (no downloads), random data of the right shape, one optimizer
step per call: forward, loss, backward, AdamW update, the work a real training step does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

AUTOCAST = {"fp16": torch.float16, "bf16": torch.bfloat16}


@dataclass(frozen=True)
class Size:
    """How big the reference models are in one bench mode."""

    image: int
    widths: tuple[int, ...]
    d_model: int
    seq_len: int
    layers: int
    cnn_batch: int
    transformer_batch: int


SIZES = {
    "tiny": Size(16, (8, 16), 32, 16, 1, 4, 2),
    "quick": Size(32, (16, 32), 128, 64, 2, 16, 8),
    "full": Size(64, (64, 128, 256), 512, 256, 4, 64, 16),
}


class Block(nn.Module):
    """A ResNet basic block: two 3x3 convolutions with batch norm and a shortcut."""

    def __init__(self, c_in: int, c_out: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False),
            nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True),
            nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False),
            nn.BatchNorm2d(c_out),
        )
        self.skip: nn.Module = (
            nn.Identity()
            if stride == 1 and c_in == c_out
            else nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.skip(x))


def resnet(widths: tuple[int, ...], classes: int = 10) -> nn.Module:
    layers: list[nn.Module] = [
        nn.Conv2d(3, widths[0], 3, 1, 1, bias=False),
        nn.BatchNorm2d(widths[0]),
        nn.ReLU(inplace=True),
    ]
    c_in = widths[0]
    for i, width in enumerate(widths):
        layers += [Block(c_in, width, 1 if i == 0 else 2), Block(width, width, 1)]
        c_in = width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, classes)]
    return nn.Sequential(*layers)


class Encoder(nn.Module):
    def __init__(self, d_model: int, layers: int, classes: int = 10) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            d_model,
            nhead=max(1, d_model // 64),
            dim_feedforward=4 * d_model,
            dropout=0.0,
            batch_first=True,
            norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.head(self.encoder(x).mean(dim=1))
        return logits


@dataclass
class Reference:
    """A reference model ready to train at any batch size on one device and dtype."""

    name: str
    kind: str
    model: nn.Module
    input_shape: tuple[int, ...]
    default_batch: int
    device: str
    dtype: str

    def __post_init__(self) -> None:
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)

    def batch(self, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randn(size, *self.input_shape, device=self.device)
        y = torch.randint(0, 10, (size,), device=self.device)
        return x, y

    def forward_backward(self, x: torch.Tensor, y: torch.Tensor) -> None:
        with _autocast(self.device, self.dtype):
            loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()

    def step_for(self, size: int) -> Callable[[], None]:
        """One full training step at batch `size` on fixed random data."""
        x, y = self.batch(size)

        def step() -> None:
            self.optimizer.zero_grad(set_to_none=True)
            self.forward_backward(x, y)
            self.optimizer.step()

        return step

    def static_bytes(self) -> int:
        """Weights, gradients and the two AdamW moments: memory that does not grow with batch."""
        params = sum(p.numel() * p.element_size() for p in self.model.parameters())
        return int(4 * params)


def _autocast(device: str, dtype: str) -> contextlib.AbstractContextManager[object]:
    if dtype in AUTOCAST:
        autocast: contextlib.AbstractContextManager[object]
        autocast = torch.autocast(device_type=device, dtype=AUTOCAST[dtype])
        return autocast
    return contextlib.nullcontext()


def build(name: str, size_name: str, device: str, dtype: str) -> Reference:
    torch.manual_seed(0)
    size = SIZES[size_name]
    if name == "resnet_cnn":
        model: nn.Module = resnet(size.widths)
        shape: tuple[int, ...] = (3, size.image, size.image)
        kind, batch = "cnn", size.cnn_batch
    elif name == "transformer_block":
        model = Encoder(size.d_model, size.layers)
        shape, kind, batch = (size.seq_len, size.d_model), "transformer", size.transformer_batch
    else:
        raise ValueError(f"unknown reference workload {name!r}")
    return Reference(name, kind, model.to(device), shape, batch, device, dtype)


REFERENCES = ("resnet_cnn", "transformer_block")


def flops_per_item(ref: Reference, size: int = 2) -> float:
    """Forward + backward FLOPs per item, counted by PyTorch's FLOP counter."""
    x, y = ref.batch(size)
    counter = FlopCounterMode(display=False)
    with counter:
        ref.forward_backward(x, y)
    ref.optimizer.zero_grad(set_to_none=True)
    return float(counter.get_total_flops()) / size


class _OpCounter(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.ops += 1
        return func(*args, **(kwargs or {}))


def kernels_per_step(step: Callable[[], None]) -> int:
    """Operators one step dispatches: roughly the kernels it launches."""
    counter = _OpCounter()
    with counter:
        step()
    return counter.ops


@contextlib.contextmanager
def saved_activation_bytes() -> Iterator[list[int]]:
    """Bytes autograd keeps for the backward pass: the memory that grows with the batch."""
    total = [0]
    seen: set[int] = set()

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in seen:
            seen.add(storage.data_ptr())
            total[0] += storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield total
