"""The device under test: picking it, synchronising it, its memory, and what it is.

Rule kept here: every CUDA- or MPS-only call lives in this module and stays a line or two, so
the rest of the bench runs one device-agnostic path (the one the CPU tests exercise).
"""

from __future__ import annotations

import os
import platform
import sys

import torch

from costcalc.core.bench_results import Environment
from costcalc.core.errors import CostcalcError
from costcalc.store.bundled import load_catalog

DEVICES = ("cuda", "mps", "cpu")


def available(device: str) -> bool:
    if device == "cuda":
        return bool(torch.cuda.is_available())
    if device == "mps":
        return bool(torch.backends.mps.is_available())
    return device == "cpu"


def pick_device(wanted: str | None = None) -> str:
    """The device asked for (checked), or the best one present: CUDA, then MPS, then the CPU."""
    if wanted is None:
        return next(d for d in DEVICES if available(d))
    if wanted not in DEVICES:
        raise CostcalcError(f"unknown device {wanted!r} (cuda, mps or cpu)")
    if not available(wanted):
        raise CostcalcError(f"device {wanted!r} is not available here; try --device cpu")
    return wanted


def has_tensor_cores(device: str) -> bool:
    """An NVIDIA GPU of compute capability 7.0 (Volta) or later; Apple and CPU devices have none."""
    if device != "cuda":
        return False
    major, _minor = torch.cuda.get_device_capability()
    return bool(major >= 7)


def synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()
    elif device == "mps":
        torch.mps.synchronize()


def empty_cache(device: str) -> None:
    if device == "cuda":
        torch.cuda.empty_cache()
    elif device == "mps":
        torch.mps.empty_cache()


def is_out_of_memory(exc: BaseException) -> bool:
    """CUDA's OutOfMemoryError, MPS's and the CPU allocator's RuntimeError all say so."""
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    text = str(exc).lower()
    return isinstance(exc, (RuntimeError, MemoryError)) and (
        "out of memory" in text or "can't allocate memory" in text or isinstance(exc, MemoryError)
    )


def reset_peak_memory(device: str) -> None:
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()


def peak_memory_bytes(device: str) -> int | None:
    """Peak bytes the caching allocator handed out since the last reset (CUDA only)."""
    return int(torch.cuda.max_memory_allocated()) if device == "cuda" else None


def total_memory_bytes(device: str) -> int:
    if device == "cuda":
        return int(torch.cuda.get_device_properties(0).total_memory)
    if device == "mps":
        return int(torch.mps.recommended_max_memory())
    return free_ram_bytes()


def free_ram_bytes() -> int:
    """Memory available to a new allocation on this machine (Linux MemAvailable, else total)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_name(device: str) -> str:
    if device == "cuda":
        return str(torch.cuda.get_device_name(0))
    if device == "mps":
        return f"Apple GPU ({platform.machine()})"
    return cpu_model()


def driver_version(device: str) -> str | None:
    if device != "cuda":
        return None
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            return str(pynvml.nvmlSystemGetDriverVersion())
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # NVML is optional: no driver figure is not an error
        return None


def catalog_key(name: str) -> str | None:
    """The catalog entry for a device name, when there is exactly one."""
    try:
        return load_catalog().resolve(name).key
    except CostcalcError:
        return None


def environment(device: str) -> Environment:
    name = device_name(device)
    memory = total_memory_bytes(device) / 1e9 if device != "cpu" else None
    return Environment(
        device=device,
        device_name=name,
        gpu_key=catalog_key(name) if device == "cuda" else None,
        device_memory_gb=memory,
        driver=driver_version(device),
        torch_version=str(torch.__version__),
        cuda_version=torch.version.cuda if device == "cuda" else None,
        cpu_model=cpu_model(),
        threads=torch.get_num_threads(),
        python_version=sys.version.split()[0],
        platform=platform.platform(),
    )
