"""Watts under load from NVML's energy counter, or from samples where a GPU has none.

There is no NVIDIA GPU or driver here, so NVML is the one thing simulated: a stand-in module
with the four calls the meter makes, whose counter and power readings follow a known draw.
The work, the clock and the meter's arithmetic are real.
"""

from __future__ import annotations

import time

import pytest

from costcalc.bench.power import PowerMeter


class FakeNvml:
    """nvidia-ml-py's calls as the meter uses them, for a GPU drawing `load_w` when busy."""

    def __init__(self, load_w: float, idle_w: float, energy_counter: bool = True) -> None:
        self.load_w, self.idle_w = load_w, idle_w
        self.energy_counter = energy_counter
        self.busy = False
        self._mj = 0.0
        self._at = time.perf_counter()
        self.shut_down = False

    def _advance(self) -> None:
        now = time.perf_counter()
        self._mj += (self.load_w if self.busy else self.idle_w) * (now - self._at) * 1000
        self._at = now

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"gpu{index}"

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: str) -> int:
        if not self.energy_counter:  # Pascal and older: NVML_ERROR_NOT_SUPPORTED
            raise RuntimeError("Not Supported")
        self._advance()
        return int(self._mj)

    def nvmlDeviceGetPowerUsage(self, handle: str) -> int:
        return int((self.load_w if self.busy else self.idle_w) * 1000)

    def nvmlShutdown(self) -> None:
        self.shut_down = True


def busy_for(nvml: FakeNvml, seconds: float):  # type: ignore[no-untyped-def]
    def work() -> None:
        nvml.busy = True
        time.sleep(seconds)

    return work


def test_load_watts_come_from_the_energy_counter_over_the_window() -> None:
    nvml = FakeNvml(load_w=610.0, idle_w=76.0)
    meter = PowerMeter(nvml)
    assert meter.has_energy_counter
    assert meter.idle_w(window_s=0.1) == 76.0
    reading = meter.reading(busy_for(nvml, 0.01), lambda: None, window_s=0.2, idle_w=76.0)
    assert reading is not None and reading.method == "energy counter"
    assert reading.window_s >= 0.2
    # the window opens idle and the work makes it busy within its first call: at most 1 of ~20
    assert 0.9 * 610 < reading.load_w <= 610.0 * 1.001
    assert reading.idle_w == 76.0
    meter.close()
    assert nvml.shut_down


def test_without_an_energy_counter_the_samples_stand_in() -> None:
    nvml = FakeNvml(load_w=250.0, idle_w=30.0, energy_counter=False)
    meter = PowerMeter(nvml)
    assert not meter.has_energy_counter
    reading = meter.reading(busy_for(nvml, 0.01), lambda: None, window_s=0.3, idle_w=None)
    assert reading is not None and reading.method == "sampling"
    assert 30.0 < reading.load_w <= 250.0
    assert reading.load_w > 200.0  # all but the first sample or two are taken under load


def test_no_nvml_means_no_watts_and_no_error() -> None:
    meter = PowerMeter(None)
    assert not meter.available and meter.idle_w() is None
    calls: list[int] = []
    assert meter.reading(lambda: calls.append(1), lambda: None, 0.1, None) is None
    assert calls == []  # nothing is run for a window that cannot be metered
    meter.close()


@pytest.mark.parametrize("broken", ["handle", "power"])
def test_a_driver_that_fails_mid_way_gives_none(broken: str) -> None:
    nvml = FakeNvml(load_w=300.0, idle_w=50.0, energy_counter=False)
    if broken == "handle":
        nvml.nvmlDeviceGetHandleByIndex = lambda index: (_ for _ in ()).throw(  # type: ignore[method-assign]
            RuntimeError("GPU is lost")
        )
    else:
        nvml.nvmlDeviceGetPowerUsage = lambda handle: (_ for _ in ()).throw(  # type: ignore[method-assign]
            RuntimeError("GPU is lost")
        )
    meter = PowerMeter(nvml)
    assert meter.idle_w(window_s=0.1) is None
    assert meter.reading(busy_for(nvml, 0.01), lambda: None, 0.1, None) is None
