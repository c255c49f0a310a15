"""The GPUs of this machine as NVML reports them: utilisation, memory, power, energy.

Rule kept here: nvidia-ml-py (`pynvml`) is imported here only, when a monitor asks for it, never
on `costcalc quick`'s path. No library, no driver or no NVIDIA GPU is one line (NoGpu), never a
traceback; a reading a GPU does not support (power on some boards, energy before Volta) is None.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

from msgspec import Struct

from costcalc.core.errors import CostcalcError


class NoGpu(CostcalcError):
    """No NVIDIA GPU can be read on this machine (exit code 2)."""


class Reading(Struct, frozen=True):
    """One GPU at one moment."""

    index: int
    uuid: str
    name: str
    taken_at: datetime
    util_pct: float | None
    memory_used_mib: float | None
    power_w: float | None
    energy_mj: float | None


class Gpus:
    """NVML, initialised, and a handle per GPU; `close` shuts NVML down."""

    def __init__(self) -> None:
        try:
            import pynvml
        except ImportError:
            raise NoGpu(
                "no GPU to monitor: nvidia-ml-py is not installed (pip install nvidia-ml-py, "
                "or costcalc's bench extra)"
            ) from None
        self._nvml: Any = pynvml
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError as exc:
            raise NoGpu(
                f"no GPU to monitor: NVML cannot start ({exc}): no NVIDIA driver?"
            ) from None
        try:
            count = int(pynvml.nvmlDeviceGetCount())
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
            self.names = [_text(pynvml.nvmlDeviceGetName(h)) for h in self._handles]
            self.uuids = [_text(pynvml.nvmlDeviceGetUUID(h)) for h in self._handles]
        except pynvml.NVMLError as exc:
            self.close()
            raise NoGpu(f"no GPU to monitor: NVML could not list the GPUs ({exc})") from None
        if not self._handles:
            self.close()
            raise NoGpu("no GPU to monitor: NVML sees no NVIDIA GPU on this machine")

    def read(self, now: datetime) -> list[Reading]:
        """Every GPU's reading now; a GPU that fails one call reports None for it."""
        nvml = self._nvml
        readings = []
        for index, handle in enumerate(self._handles):
            util = self._call(lambda h=handle: nvml.nvmlDeviceGetUtilizationRates(h).gpu)
            memory = self._call(lambda h=handle: nvml.nvmlDeviceGetMemoryInfo(h).used)
            power = self._call(lambda h=handle: nvml.nvmlDeviceGetPowerUsage(h))
            energy = self._call(lambda h=handle: nvml.nvmlDeviceGetTotalEnergyConsumption(h))
            readings.append(
                Reading(
                    index=index,
                    uuid=self.uuids[index],
                    name=self.names[index],
                    taken_at=now,
                    util_pct=util,
                    memory_used_mib=memory / 2**20 if memory is not None else None,
                    power_w=power / 1000 if power is not None else None,  # NVML says mW
                    energy_mj=energy,
                )
            )
        return readings

    def _call(self, read: Any) -> float | None:
        try:
            return float(read())
        except self._nvml.NVMLError:  # not supported on this GPU, or a transient failure
            return None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._nvml.nvmlShutdown()


def _text(value: Any) -> str:
    """Older nvidia-ml-py returns bytes for names and UUIDs."""
    return value.decode() if isinstance(value, bytes) else str(value)
