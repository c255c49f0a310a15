"""The job's memory from a step's peak at two batches: a fixed part and a part per item.

On the CPU the bench counts what a real step keeps (the weights and optimizer state it is told,
plus every tensor autograd saved), so a real small model trains here. There is no GPU on the
test machine: the CUDA path is checked with the device's three memory calls replaced (the
allocator's peak is the one thing that cannot exist here), and only those.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench import batch
from costcalc.bench import device as dev
from costcalc.core.memory import usable_gb


def mlp_step(width: int = 256):  # type: ignore[no-untyped-def]
    """A real training step of a small MLP at any batch (forward, backward, SGD)."""
    model = torch.nn.Sequential(
        torch.nn.Linear(width, 4 * width), torch.nn.ReLU(), torch.nn.Linear(4 * width, width)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def run(n: int) -> None:
        optimizer.zero_grad()
        loss = model(torch.randn(n, width)).square().mean()
        loss.backward()
        optimizer.step()

    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    return run, weights


def test_a_real_step_on_the_cpu_splits_into_its_weights_and_activations_per_item() -> None:
    run, weights = mlp_step()
    found = batch.memory_fit(run, "cpu", 2, 8, static_bytes=weights)
    # autograd keeps the input (256 floats an item), the hidden layer after ReLU (1,024: ReLU's
    # backward and the second layer's share it) and the output the loss squares (256)
    per_item = (256 + 1024 + 256) * 4
    assert found.per_item_gb == pytest.approx(per_item / 1e9, rel=0.05)
    # fixed: the weights it was told, and the second layer's weight matrix autograd saves for
    # the gradient of its input (the first layer's input needs none)
    assert found.fixed_gb == pytest.approx((weights + 1024 * 256 * 4) / 1e9, rel=0.05)
    assert found.source == "bench"
    assert found.need_gb(8) == pytest.approx(found.fixed_gb + 8 * per_item / 1e9, rel=1e-6)


def test_the_cuda_path_reads_the_allocators_peak_at_each_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No GPU here: the allocator's peak is simulated as 3 GB + 0.25 GB per item, the rest of
    # the path (the fit, the split, the batch each GPU holds) is the real code.
    ran: list[int] = []
    monkeypatch.setattr(dev, "reset_peak_memory", lambda device: None)
    monkeypatch.setattr(dev, "synchronize", lambda device: None)
    monkeypatch.setattr(dev, "peak_memory_bytes", lambda device: int(3e9 + 0.25e9 * ran[-1]))
    found = batch.memory_fit(ran.append, "cuda", 16, 32)
    assert ran == [16, 32]
    assert (found.fixed_gb, found.per_item_gb) == pytest.approx((3.0, 0.25))
    # a 24 GB card holds (24 x 0.95 - 0.6 - 3) / 0.25 = 76.8 items: 76, rounded to 72
    assert found.largest_batch(24) == int((usable_gb(24) - 3) / 0.25) == 76
    assert found.max_batch(24) == 72
