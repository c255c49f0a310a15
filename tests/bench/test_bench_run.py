"""The whole bench end-to-end at tiny sizes, its saved results, and its command line."""

from __future__ import annotations

import contextlib
import io
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch")

from costcalc.bench import store as results
from costcalc.bench.probes import bandwidth_gbs, matmul_tflops
from costcalc.bench.runner import run
from costcalc.cli import main


@pytest.fixture(scope="module")
def tiny() -> results.BenchResult:
    messages: list[tuple[str, float]] = []
    result = run("cpu", "tiny", lambda m, f: messages.append((m, f)))
    assert messages[0][1] == 0.0 and messages[-1] == ("done", 1.0)
    return result


def test_tiny_bench_gives_sane_positive_figures(tiny: results.BenchResult) -> None:
    assert tiny.device == "cpu" and tiny.environment.threads >= 1
    assert 1e-5 < tiny.matmul_tflops["fp32"] < 1000  # > 10 MFLOPS even on a loaded CPU
    assert 0.1 < tiny.bandwidth_gbs < 10_000
    assert 0 < tiny.launch_overhead_us < 10_000
    assert tiny.power_w is None  # no NVML on a CPU
    assert {w.kind for w in tiny.workloads} == {"cnn", "transformer"}
    for w in tiny.workloads:
        assert w.items_per_s > 0 and w.step_s > 0 and w.flops_per_item and w.flops_per_item > 0
        # the size it settled on is one it tried, and it says why it stopped there
        assert w.sized_by is not None and w.batch_size in [p.batch_size for p in w.sizes]
        assert w.model and w.description and w.dtype_source == "default"
        assert w.memory_per_item_bytes and w.memory_per_item_bytes > 0
        assert w.max_batch and w.max_batch > w.batch_size
        assert w.profile is not None
        shares = w.profile.compute_share + w.profile.memory_share + w.profile.overhead_share
        assert shares == pytest.approx(1.0)


def test_results_round_trip_and_latest(tiny: results.BenchResult) -> None:
    assert results.load_latest() is None
    path = results.save_result(tiny)
    assert path.parent == results.saved_results()[0].parent
    assert results.load_latest() == tiny
    assert results.resolve("latest") == results.resolve(str(path)) == tiny


def test_missing_or_broken_results_are_one_line_errors(tmp_path: Path) -> None:
    from costcalc.core.errors import CostcalcError

    with pytest.raises(CostcalcError, match="no saved bench"):
        results.resolve("latest")
    broken = tmp_path / "bad.json"
    broken.write_text("{not json")
    with pytest.raises(CostcalcError, match="not valid JSON"):
        results.resolve(str(broken))


def _ratios_interleaved(
    first: Callable[[], float], second: Callable[[], float], rounds: int = 5
) -> list[float]:
    """second / first, each round measuring the two back to back. Other processes share this
    2-core machine and may take a core for a whole measurement, so each round's pair sees the
    same moment; a probe that is right agrees with the naive figure in some round (preemption
    can break an agreement, hardly make one: the two would have to be slowed alike)."""
    ratios = []
    for _ in range(rounds):
        a = first()
        ratios.append(second() / a)
    return ratios


def test_matmul_and_bandwidth_agree_with_a_naive_measurement() -> None:
    n = 512
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.mm(a, b)

    def naive_tflops() -> float:
        begin = time.perf_counter()
        for _ in range(20):
            torch.mm(a, b)
        return 20 * 2 * n**3 / (time.perf_counter() - begin) / 1e12

    ratios = _ratios_interleaved(naive_tflops, lambda: matmul_tflops("cpu", "fp32", (n,)).tflops)
    assert any(1 / 3 < r < 3 for r in ratios), ratios

    x = torch.rand(32 * 1024 * 1024 // 4)
    y = torch.empty_like(x)
    y.copy_(x)

    def naive_gbs() -> float:
        """The median of ten copies each timed on its own, the statistic the probe reports:
        a mean over a run of copies is dragged down by one preemption on a shared machine."""
        times = []
        for _ in range(10):
            begin = time.perf_counter()
            y.copy_(x)
            times.append(time.perf_counter() - begin)
        return 2 * x.numel() * 4 / statistics.median(times) / 1e9

    ratios = _ratios_interleaved(naive_gbs, lambda: bandwidth_gbs("cpu", 32)[0], rounds=7)
    assert any(1 / 3 < r < 3 for r in ratios), ratios


def test_cli_bench_quick_json() -> None:
    # Its 20 s budget is measured in benchmarks/bench_cpu_quick.py: tests don't time things.
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["bench", "--device", "cpu", "--quick", "--json", "--save"]) == 0
    doc = json.loads(out.getvalue())
    assert doc["device"] == "cpu" and doc["power_w"] is None and doc["duration_s"] > 0
    assert doc["matmul_tflops"]["fp32"] > 0 and doc["bandwidth_gbs"] > 0
    for w in doc["workloads"]:
        assert {"name", "kind", "batch_size", "items_per_s"} <= set(w) and w["items_per_s"] > 0
    assert results.load_latest() is not None


AUTOCAST_STEP = (
    "import torch\n"
    "layers = [torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)]\n"
    "model = torch.nn.Sequential(*layers)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "def train_step(batch_size):\n"
    "    opt.zero_grad()\n"
    "    with torch.autocast('cpu', dtype=torch.bfloat16):\n"
    "        loss = model(torch.randn(batch_size, 64)).float().relu().sum()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
)


def _bench_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *flags: str) -> tuple[int, str]:
    (tmp_path / "mystep.py").write_text(AUTOCAST_STEP)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["bench", "--device", "cpu", "--step", "mystep:train_step", *flags])
    return code, out.getvalue()


def test_a_users_step_is_recorded_as_what_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = _bench_step(tmp_path, monkeypatch, "--batch-size", "32", "--kind", "cnn", "--json")
    assert code == 0
    doc = json.loads(out)
    w = doc["workloads"][0]
    assert w["name"] == "train_step" and w["items_per_s"] > 0 and w["memory_per_item_bytes"] > 0
    assert (w["kind"], w["dtype"], w["dtype_source"]) == ("cnn", "bf16", "detected")
    assert (w["batch_size"], w["sized_by"]) == (32, "given")
    # forward 2 x (64 x 128 + 128 x 8); backward: both weight gradients, and the input gradient
    # of the second layer only (the data needs none)
    assert w["flops_per_item"] == 2 * (64 * 128 + 128 * 8) + 2 * (64 * 128 + 2 * 128 * 8)
    shares = w["profile"]
    assert shares["compute_share"] + shares["memory_share"] + shares["overhead_share"] == (
        pytest.approx(1.0)
    )
    assert doc["matmul_tflops"].keys() == {"bf16"}  # measured against its own precision
    assert doc["power_w"] is None  # no NVML here; on a GPU its own step is metered too


def test_a_users_step_reads_as_their_step_and_a_wrong_dtype_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = _bench_step(tmp_path, monkeypatch, "--batch-size", "16", "--dtype", "fp32")
    assert code == 0
    assert "your own step (mystep:train_step): its model, loss and optimizer" in out
    assert "AdamW" not in out and "SGD with momentum" not in out
    assert "fp32, given" in out
    assert "warning: you said --dtype fp32, but the step's matmuls ran in bf16" in out


def test_a_step_that_raises_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken.py").write_text("def step():\n    raise ValueError('shape mismatch')\n")
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["bench", "--device", "cpu", "--step", "broken:step"]) == 2
    assert "your step broken:step raised ValueError: shape mismatch" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_bad_device_and_bad_step_are_one_line_errors() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["bench", "--step", "no_such_module_xyz:f"]) == 2
    assert "cannot import" in err.getvalue() and "Traceback" not in err.getvalue()
    for flags, message in (
        (["--kind", "cnn"], "--kind describes your own --step"),
        (["--step", "m:f", "--batch-size", "0"], "--batch-size must be 1 or more, got 0"),
    ):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(["bench", "--device", "cpu", *flags]) == 2
        assert message in err.getvalue() and len(err.getvalue().splitlines()) == 1
    if not torch.cuda.is_available():
        with contextlib.redirect_stderr(io.StringIO()):
            assert main(["bench", "--device", "cuda"]) == 2


def test_importing_the_bench_package_and_results_does_not_import_torch() -> None:
    code = (
        "import sys, costcalc.bench, costcalc.core.bench_results, costcalc.core.bench_apply\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
