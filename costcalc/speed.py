"""Relative speed of two GPUs: what the engine asks, answered by the calibrated predictor.

Rule kept here: speed is per GPU and dimensionless (target throughput / source throughput).
`predicted_speed` is what the engine uses: the model of costcalc.predict per workload kind and
dtype, cached per GPU pair so a comparison of thousands of offers pays for each pair once.
"""

from __future__ import annotations

from costcalc.models import GpuSpec


def predicted_speed(
    source: GpuSpec, target: GpuSpec, kind: str = "generic", dtype: str = "fp32"
) -> float:
    """Target throughput / source throughput from the calibrated predictor (1.0 for same GPU)."""
    if source.key == target.key:
        return 1.0
    key = (source.key, target.key, kind, dtype)
    found = _SPEED_CACHE.get(key)
    if found is None:
        from costcalc.predict import speedup

        found = _SPEED_CACHE[key] = speedup(source, target, kind, dtype)
    return found


_SPEED_CACHE: dict[tuple[str, str, str, str], float] = {}
"""Per GPU pair, kind and dtype: specs are frozen catalog entries, so a key identifies them."""
