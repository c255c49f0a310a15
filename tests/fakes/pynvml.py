"""A stand-in for nvidia-ml-py's `pynvml`, for tests only.

This machine has no NVIDIA GPU, so the device is the one thing faked: `costcalc monitor`, the
SQLite history, the files and the CLI around it are the real ones. Each fake GPU plays a schedule
of readings (utilisation %, power W), one step per utilisation read, cycled. A test configures it
in-process with `configure(...)`, or for a child process (PYTHONPATH=tests/fakes) through the
JSON file COSTCALC_FAKE_NVML names: {"gpus": [{"name", "uuid", "util": [...], "power_w": [...],
"memory_mib": N, "energy": true}], "missing": false}.
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace
from typing import Any


class NVMLError(Exception):
    pass


class NVMLError_LibraryNotFound(NVMLError):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


_state: dict[str, Any] = {"gpus": None, "missing": False, "steps": {}, "energy": {}}


def configure(gpus: list[dict[str, Any]], missing: bool = False) -> None:
    _state.update(gpus=gpus, missing=missing, steps={}, energy={})


def _gpus() -> list[dict[str, Any]]:
    if _state["gpus"] is None:
        spec = os.environ.get("COSTCALC_FAKE_NVML")
        found = {"gpus": []}
        if spec:
            with open(spec, encoding="utf-8") as handle:
                found = json.load(handle)
        _state.update(gpus=found["gpus"], missing=found.get("missing", False))
    gpus: list[dict[str, Any]] = _state["gpus"]
    return gpus


def nvmlInit() -> None:
    _gpus()
    if _state["missing"]:
        raise NVMLError_LibraryNotFound("NVML Shared Library Not Found")


def nvmlShutdown() -> None:
    pass


def nvmlDeviceGetCount() -> int:
    return len(_gpus())


def nvmlDeviceGetHandleByIndex(index: int) -> int:
    return index


def nvmlDeviceGetName(handle: int) -> str:
    return str(_gpus()[handle]["name"])


def nvmlDeviceGetUUID(handle: int) -> str:
    return str(_gpus()[handle]["uuid"])


def _step(handle: int) -> int:
    return int(_state["steps"].get(handle, 0))


def nvmlDeviceGetUtilizationRates(handle: int) -> SimpleNamespace:
    step = _step(handle) + 1
    _state["steps"][handle] = step
    util = _gpus()[handle]["util"]
    return SimpleNamespace(gpu=util[(step - 1) % len(util)], memory=0)


def nvmlDeviceGetMemoryInfo(handle: int) -> SimpleNamespace:
    return SimpleNamespace(used=int(_gpus()[handle].get("memory_mib", 0)) * 2**20)


def nvmlDeviceGetPowerUsage(handle: int) -> int:
    power = _gpus()[handle].get("power_w")
    if not power:
        raise NVMLError_NotSupported("Not Supported")
    return int(power[(_step(handle) - 1) % len(power)] * 1000)


def nvmlDeviceGetTotalEnergyConsumption(handle: int) -> int:
    if not _gpus()[handle].get("energy"):
        raise NVMLError_NotSupported("Not Supported")
    total = _state["energy"].get(handle, 0) + 1000
    _state["energy"][handle] = total
    return int(total)
