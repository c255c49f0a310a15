"""Board power through NVML while work runs: measured watts beat the label (DOMAIN.md section 5).

Rule kept here: optional. Without nvidia-ml-py, a driver or an NVIDIA GPU, the sampler reports
None and nothing else changes.
"""

from __future__ import annotations

import contextlib
import threading
import time
from types import TracebackType
from typing import Any


class PowerSampler:
    """Context manager sampling GPU 0's draw every `interval_s` in a background thread."""

    def __init__(self, enabled: bool, interval_s: float = 0.05) -> None:
        self.interval_s = interval_s
        self.samples_w: list[float] = []
        self._nvml: Any = None
        self._handle: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self.elapsed_s = 0.0
        if enabled:
            self._open()

    def _open(self) -> None:
        try:
            import pynvml

            pynvml.nvmlInit()
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            self._nvml = pynvml
        except Exception:  # no library, no driver, no NVIDIA GPU: power stays unknown
            self._nvml = None

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples_w.append(self._nvml.nvmlDeviceGetPowerUsage(self._handle) / 1000)
            except Exception:
                return
            self._stop.wait(self.interval_s)

    def __enter__(self) -> PowerSampler:
        self._started = time.perf_counter()
        if self._nvml is not None:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.elapsed_s += time.perf_counter() - self._started
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        self._stop.clear()

    @property
    def mean_w(self) -> float | None:
        return sum(self.samples_w) / len(self.samples_w) if self.samples_w else None

    @property
    def energy_j(self) -> float | None:
        mean = self.mean_w
        return mean * self.elapsed_s if mean is not None else None

    def close(self) -> None:
        if self._nvml is not None:
            with contextlib.suppress(Exception):
                self._nvml.nvmlShutdown()
