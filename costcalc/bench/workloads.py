"""The two reference training steps, sized per mode and device, and what they are made of.

Rule kept here: random data of the right shape, one optimizer step per call (forward, loss,
backward, update), the optimizer people use with each model: SGD with momentum for the CNN,
AdamW for the language model. The models themselves are in costcalc.bench.models.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import torch
from msgspec import Struct
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from costcalc.bench.models import Gpt, resnet

AUTOCAST = {"fp16": torch.float16, "bf16": torch.bfloat16}


class CnnSize(Struct, frozen=True):
    image: int
    width: int
    depths: tuple[int, ...]
    classes: int
    start_batch: int
    max_batch: int

    def words(self) -> str:
        depth = 2 + 3 * sum(self.depths)  # stem, three convolutions a block, the classifier
        return f"ResNet-{depth}-style, width {self.width}, {self.image} px"


class GptSize(Struct, frozen=True):
    d_model: int
    heads: int
    layers: int
    seq_len: int
    vocab: int
    start_batch: int
    max_batch: int

    def words(self) -> str:
        return (
            f"GPT-2-style, {self.layers} blocks of {self.d_model}, {self.seq_len} tokens, "
            f"vocabulary {self.vocab:,}"
        )


RESNET50 = (3, 4, 6, 3)
GPT2_VOCAB = 50257

# Sizes per (mode, on a GPU). On a GPU the full sizes are ResNet-50 at 224 px and GPT-2 small;
# quick ones keep the width and shorten the input (128 px is the resolution fast ImageNet
# schedules start at) or the depth, so filling the device stays within about 30 s. A CPU gets
# the same structure at a width and input it finishes in seconds.
CNN_SIZES = {
    ("tiny", False): CnnSize(16, 4, (1, 1, 1, 1), 10, 2, 16),
    ("tiny", True): CnnSize(16, 4, (1, 1, 1, 1), 10, 2, 16),
    ("quick", False): CnnSize(32, 16, (1, 1, 1, 1), 10, 8, 256),
    ("quick", True): CnnSize(128, 64, RESNET50, 1000, 32, 4096),
    ("full", False): CnnSize(64, 16, RESNET50, 100, 4, 512),
    ("full", True): CnnSize(224, 64, RESNET50, 1000, 32, 4096),
}
GPT_SIZES = {
    ("tiny", False): GptSize(32, 2, 1, 16, 64, 2, 16),
    ("tiny", True): GptSize(32, 2, 1, 16, 64, 2, 16),
    ("quick", False): GptSize(128, 4, 2, 64, 2048, 2, 256),
    ("quick", True): GptSize(768, 12, 6, 512, GPT2_VOCAB, 4, 1024),
    ("full", False): GptSize(256, 4, 4, 128, 8192, 2, 256),
    ("full", True): GptSize(768, 12, 12, 1024, GPT2_VOCAB, 4, 512),
}

REFERENCES = ("resnet_cnn", "gpt_lm")


class Reference(Struct):
    """A reference model ready to train at any batch size on one device and dtype."""

    name: str
    kind: str
    model: nn.Module
    optimizer: torch.optim.Optimizer
    description: str
    words: str
    make_batch: Callable[[int], tuple[torch.Tensor, torch.Tensor]]
    start_batch: int
    max_batch: int
    device: str
    dtype: str

    def forward_backward(self, x: torch.Tensor, y: torch.Tensor) -> None:
        with autocast(self.device, self.dtype):
            logits = self.model(x)
            loss = nn.functional.cross_entropy(logits.flatten(0, -2), y.flatten())
        loss.backward()

    def step_for(self, size: int) -> Callable[[], None]:
        """One full training step at batch `size` on fixed random data."""
        x, y = self.make_batch(size)

        def step() -> None:
            self.optimizer.zero_grad(set_to_none=True)
            self.forward_backward(x, y)
            self.optimizer.step()

        return step

    def static_bytes(self) -> int:
        """Weights, gradients and optimizer state: memory that does not grow with the batch."""
        params = sum(p.numel() * p.element_size() for p in self.model.parameters())
        states = 2 if isinstance(self.optimizer, torch.optim.AdamW) else 1
        return int((2 + states) * params)


def autocast(device: str, dtype: str) -> contextlib.AbstractContextManager[object]:
    if dtype in AUTOCAST:
        found: contextlib.AbstractContextManager[object]
        found = torch.autocast(device_type=device, dtype=AUTOCAST[dtype])
        return found
    return contextlib.nullcontext()


def _cnn(size: CnnSize, device: str) -> tuple[nn.Module, Callable[[int], tuple[torch.Tensor, ...]]]:
    # channels-last is how people run convolutions in mixed precision on tensor cores
    layout = torch.channels_last if device == "cuda" else torch.contiguous_format
    model = resnet(size.width, size.depths, size.image, size.classes).to(
        device, memory_format=layout
    )

    def make(n: int) -> tuple[torch.Tensor, ...]:
        x = torch.randn(n, 3, size.image, size.image, device=device)
        y = torch.randint(0, size.classes, (n,), device=device)
        return x.contiguous(memory_format=layout), y

    return model, make


def _gpt(size: GptSize, device: str) -> tuple[nn.Module, Callable[[int], tuple[torch.Tensor, ...]]]:
    model = Gpt(size.d_model, size.heads, size.layers, size.seq_len, size.vocab).to(device)

    def make(n: int) -> tuple[torch.Tensor, ...]:
        tokens = torch.randint(0, size.vocab, (n, size.seq_len + 1), device=device)
        return tokens[:, :-1], tokens[:, 1:]  # predict the next token

    return model, make


def build(name: str, mode: str, device: str, dtype: str) -> Reference:
    torch.manual_seed(0)
    gpu = device != "cpu"
    if name == "resnet_cnn":
        cnn = CNN_SIZES[(mode, gpu)]
        model, make = _cnn(cnn, device)
        optimizer: torch.optim.Optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        return Reference(
            name, "cnn", model, optimizer, "forward + backward + SGD with momentum",
            cnn.words(), make, cnn.start_batch, cnn.max_batch, device, dtype,
        )  # fmt: skip
    if name == "gpt_lm":
        gpt = GPT_SIZES[(mode, gpu)]
        model, make = _gpt(gpt, device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        return Reference(
            name, "transformer", model, optimizer, "forward + backward + AdamW",
            gpt.words(), make, gpt.start_batch, gpt.max_batch, device, dtype,
        )  # fmt: skip
    raise ValueError(f"unknown reference workload {name!r}")


class _OpCounter(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops = 0
        self.dtypes: dict[torch.dtype, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.ops += 1
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket in MATH_OPS and isinstance(out, torch.Tensor):
            self.dtypes[out.dtype] = self.dtypes.get(out.dtype, 0) + 1
        return out


MATH_OPS = {
    torch.ops.aten.mm,
    torch.ops.aten.addmm,
    torch.ops.aten.bmm,
    torch.ops.aten.baddbmm,
    torch.ops.aten.convolution,
    torch.ops.aten._scaled_dot_product_flash_attention,
    torch.ops.aten._scaled_dot_product_efficient_attention,
    torch.ops.aten._scaled_dot_product_cudnn_attention,
}
"""The operators whose output dtype says in which precision a step does its math."""


class StepOps(Struct, frozen=True):
    kernels: int
    """Operators one step dispatches: roughly the kernels it launches."""
    math_dtype: str | None
    """The precision most of its matmuls and convolutions ran in (None: it ran none)."""
    flops: float


DTYPE_NAMES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}


def ops_of(step: Callable[[], object]) -> StepOps:
    """What one call of `step` dispatches: how many operators and FLOPs (forward and backward,
    by PyTorch's FLOP counter; the optimizer's are negligible), in which math precision."""
    counter, flops = _OpCounter(), FlopCounterMode(display=False)
    with flops, counter:  # one step counted both ways: on a CPU each step costs seconds
        step()
    math = max(counter.dtypes, key=lambda d: counter.dtypes[d]) if counter.dtypes else None
    return StepOps(
        counter.ops,
        DTYPE_NAMES.get(math) if math is not None else None,
        float(flops.get_total_flops()),
    )


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
