"""The bench screen: measure this machine in a thread, with a live progress bar.

torch is imported here and only here, inside the worker, when the user asked for a bench. A
missing bench module or torch, or any failure while measuring, becomes a line and a
notification. The saved result reaches the app as a BenchFinished message. When the bench ends,
well or not, the window says so (costcalc.tui.screens.job).
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any, Literal

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, ProgressBar, RichLog

import costcalc.bench
from costcalc.bench.store import save_result
from costcalc.tui.messages import BenchFinished
from costcalc.tui.screens.job import RUNNING, JobScreen
from costcalc.tui.workers import answer

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp

NO_TORCH = (
    "The bench needs PyTorch, which is not installed: pip install 'costcalc[bench]' "
    "(or pip install torch), then press b again"
)


def bench_summary(result: Any) -> str:
    """One line from a bench result, using whatever figures it carries."""
    parts = [f"bench on {getattr(result, 'device', '?')}"]
    bandwidth = getattr(result, "bandwidth_gbs", None)
    if isinstance(bandwidth, (int, float)):
        parts.append(f"{bandwidth:,.1f} GB/s")
    tflops = getattr(result, "matmul_tflops", None)
    if isinstance(tflops, dict) and tflops:
        best = max(tflops.items(), key=lambda item: item[1] or 0)
        parts.append(f"{best[1]:,.2f} TFLOPS {best[0]}")
    duration = getattr(result, "duration_s", None)
    if isinstance(duration, (int, float)):
        parts.append(f"in {duration:.1f} s")
    return ", ".join(parts)


class BenchScreen(JobScreen):
    """Live progress of `costcalc.bench.run_bench` (quick mode)."""

    app: CostcalcApp

    def __init__(
        self, mode: Literal["quick", "full", "tiny"] = "quick", device: str | None = None
    ) -> None:
        super().__init__()
        self.mode = mode
        self.device = device

    def compose(self) -> ComposeResult:
        with Vertical(id="job-body") as body:
            body.border_title = f"Bench ({self.mode})"
            body.border_subtitle = RUNNING
            yield Label("Loading torch…", id="job-status")
            yield ProgressBar(total=1.0, show_eta=False, id="job-progress")
            yield RichLog(id="job-log", wrap=True, markup=False)

    def on_mount(self) -> None:
        # The app runs the job, not this window: a window's workers are cancelled when it
        # closes, and Escape leaves a bench running (costcalc.tui.workers).
        self.app.run_worker(self.run_bench, thread=True, exit_on_error=False, group="bench")

    def _progress(self, line: str, fraction: float | None) -> None:
        if not self.is_attached:
            return
        if fraction is not None:
            self.query_one(ProgressBar).update(progress=max(0.0, min(1.0, fraction)))
        status = self.query_one("#job-status", Label)
        if line and str(status.content) != line:
            self._status(line)
            self.query_one("#job-log", RichLog).write(line)

    def _failed(self, text: str) -> None:
        if self.is_attached:
            self.query_one("#job-log", RichLog).write(text)
        self.finish(text, failed=True)
        self.notify(text, title="Bench", severity="error", timeout=10)

    def _done(self, message: BenchFinished) -> None:
        self._progress(message.summary, 1.0)
        self.finish(message.summary, failed=False)
        self.app.post_message(message)

    def run_bench(self) -> None:
        app = self.app

        def progress(line: str, fraction: float) -> None:
            answer(app, self._progress, line, fraction)

        if importlib.util.find_spec("torch") is None:
            answer(app, self._failed, NO_TORCH)
            return
        try:
            result = costcalc.bench.run_bench(device=self.device, mode=self.mode, progress=progress)
        except Exception as exc:  # out of memory, no torch, a driver error: a message
            answer(app, self._failed, f"bench failed: {type(exc).__name__}: {exc}")
            return
        summary = bench_summary(result)
        try:
            save_result(result)
        except Exception as exc:  # a full disk loses the saved copy, not this result
            text = f"bench result not saved: {exc}"
            answer(app, app.notify, text, title="Bench", severity="error", timeout=10)
            summary += " (not saved)"
        answer(app, self._done, BenchFinished(result, summary))
