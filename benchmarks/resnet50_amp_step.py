"""A user's own training step, as people write one: ResNet-50, AMP fp16, SGD with momentum.

For `costcalc bench --step benchmarks.resnet50_amp_step:train_step --batch-size 256 --kind cnn`
(benchmarks/gpu_bench_check.py runs it). The model is costcalc's own ResNet-50 (torchvision is
not needed); the rest is the usual mixed-precision loop: autocast, a gradient scaler,
channels-last images. COSTCALC_CHECK_IMAGE shrinks the images for a smoke run on a CPU.
"""

from __future__ import annotations

import os

import torch

from costcalc.bench.models import resnet

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
IMAGE = int(os.environ.get("COSTCALC_CHECK_IMAGE", "224"))
LAYOUT = torch.channels_last if DEVICE == "cuda" else torch.contiguous_format
DTYPE = torch.float16 if DEVICE == "cuda" else torch.bfloat16

model = resnet(64, (3, 4, 6, 3), IMAGE, 1000).to(DEVICE, memory_format=LAYOUT)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
scaler = torch.amp.GradScaler(DEVICE, enabled=DEVICE == "cuda")
_batches: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}


def _batch(size: int) -> tuple[torch.Tensor, torch.Tensor]:
    if size not in _batches:
        _batches.clear()  # one size at a time: the bench's batch search must not hoard memory
        images = torch.randn(size, 3, IMAGE, IMAGE, device=DEVICE)
        labels = torch.randint(0, 1000, (size,), device=DEVICE)
        _batches[size] = (images.contiguous(memory_format=LAYOUT), labels)
    return _batches[size]


def train_step(batch_size: int) -> None:
    images, labels = _batch(batch_size)
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(DEVICE, dtype=DTYPE):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
