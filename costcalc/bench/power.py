"""Board watts while work runs, from energy: measured watts beat the label (DOMAIN.md section 5).

Rule kept here: optional. Without nvidia-ml-py, a driver or an NVIDIA GPU, every reading is None
and nothing else changes.

Watts under load are energy over a sustained window of one workload run back to back, never a
mean over a whole bench (its probes, pauses and compilation are not load: on an H100 such a mean
said 183 W for work that draws 560-700 W). Volta and later GPUs keep a total-energy counter
(nvmlDeviceGetTotalEnergyConsumption, millijoules): two reads bracket the window exactly. Older
GPUs only report instant power, so a thread samples it and the mean of the samples stands in.

Why not zeus (ML.ENERGY's measurement library, which does the same for NVIDIA, AMD and CPUs):
its core dependencies are numpy, pandas, scikit-learn, rich and tyro, for what is here two NVML
calls and a sampling thread; the bench extra already has nvidia-ml-py. A CPU or Apple bench
reports no watts either way (RAPL needs root on most Linux machines, and a laptop's CPU package
power is not a desktop GPU's).
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from costcalc.core.bench_results import PowerReading

IDLE_WINDOW_S = 0.5
"""Long enough for a few of NVML's power updates (every 20-100 ms depending on the GPU)."""


def open_nvml() -> Any | None:
    """pynvml, initialised, or None where there is no library, driver or NVIDIA GPU."""
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml
    except Exception:  # optional: no NVML means no watts, never an error
        return None


class PowerMeter:
    """GPU 0's draw over windows of work: by its energy counter where it has one."""

    def __init__(self, nvml: Any | None) -> None:
        self._nvml = nvml
        self._handle: Any = None
        if nvml is not None:
            try:
                self._handle = nvml.nvmlDeviceGetHandleByIndex(0)
            except Exception:
                self._nvml = None
        self.has_energy_counter = self._energy_mj() is not None

    @property
    def available(self) -> bool:
        return self._nvml is not None

    def _energy_mj(self) -> float | None:
        if self._nvml is None:
            return None
        try:
            return float(self._nvml.nvmlDeviceGetTotalEnergyConsumption(self._handle))
        except Exception:  # pre-Volta GPUs answer "not supported"
            return None

    def _power_w(self) -> float | None:
        if self._nvml is None:
            return None
        try:
            return float(self._nvml.nvmlDeviceGetPowerUsage(self._handle)) / 1000
        except Exception:
            return None

    def idle_w(self, window_s: float = IDLE_WINDOW_S) -> float | None:
        """The median draw while nothing runs (the median shrugs off one stray reading)."""
        if self._nvml is None:
            return None
        samples = []
        deadline = time.perf_counter() + window_s
        while time.perf_counter() < deadline:
            watts = self._power_w()
            if watts is not None:
                samples.append(watts)
            time.sleep(0.05)
        return statistics.median(samples) if samples else None

    def under_load(
        self, work: Callable[[], object], sync: Callable[[], None], window_s: float
    ) -> tuple[float, int, float] | None:
        """Run `work` back to back for at least `window_s`; (watts, calls, seconds), or None.

        The work is timed and metered between two synchronisations, so queued kernels are
        inside the window and none from before it are.
        """
        if self._nvml is None:
            return None
        sync()
        sampler = _Sampler(self._power_w) if not self.has_energy_counter else None
        start_mj, started = self._energy_mj(), time.perf_counter()
        calls = 0
        with sampler if sampler is not None else contextlib.nullcontext():
            while calls == 0 or time.perf_counter() - started < window_s:
                work()
                calls += 1
                if calls % 4 == 0:
                    sync()  # keep the clock honest: the host must not run far ahead
            sync()
            elapsed_s = time.perf_counter() - started
            end_mj = self._energy_mj()
        if start_mj is not None and end_mj is not None and end_mj > start_mj:
            return (end_mj - start_mj) / 1000 / elapsed_s, calls, elapsed_s
        mean = sampler.mean_w if sampler is not None else None
        return (mean, calls, elapsed_s) if mean is not None else None

    def reading(
        self,
        work: Callable[[], object],
        sync: Callable[[], None],
        window_s: float,
        idle_w: float | None,
    ) -> PowerReading | None:
        """`under_load` as a record, or None where nothing could be measured."""
        found = self.under_load(work, sync, window_s)
        if found is None:
            return None
        watts, _calls, elapsed_s = found
        return PowerReading(
            load_w=watts,
            idle_w=idle_w,
            window_s=elapsed_s,
            method="energy counter" if self.has_energy_counter else "sampling",
        )

    def close(self) -> None:
        if self._nvml is not None:
            with contextlib.suppress(Exception):
                self._nvml.nvmlShutdown()


class _Sampler:
    """Instant power every `interval_s` in a background thread, for GPUs without the counter."""

    def __init__(self, read_w: Callable[[], float | None], interval_s: float = 0.05) -> None:
        self._read_w = read_w
        self.interval_s = interval_s
        self.samples_w: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            watts = self._read_w()
            if watts is not None:
                self.samples_w.append(watts)
            self._stop.wait(self.interval_s)

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=1)

    @property
    def mean_w(self) -> float | None:
        return statistics.fmean(self.samples_w) if self.samples_w else None
