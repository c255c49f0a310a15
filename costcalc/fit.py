"""Fitting the predictor's calibration to measured time ratios (benchmarks/predict_accuracy.py).

Rule kept here: pure and deterministic; the fit is never run by the product, only by the scripts
that regenerate costcalc/data/predict_calibration.yaml and measure its accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from costcalc.models import GpuSpec
from costcalc.predict import PRE_TENSOR_ARCHITECTURES, Calibration, Predictor, _speedup

Pair = tuple[GpuSpec, GpuSpec, float]
"""A measurement pair: source, target, measured target time / source time."""

FIT_PRIORS = {
    "compute_share": (0.5, 1.0),
    "power_exponent": (1 / 3, 1.0),
    "log_pre_tensor": (0, 0.3),
}
"""Value and weight each fitted parameter is shrunk toward: an even math/memory split (the
sqrt(FLOPS x bandwidth) rule), the cube law of dynamic power, and no extra loss before Volta."""


def fit_fp32(pairs: Sequence[Pair], predictor: Predictor, kind: str = "transformer") -> Predictor:
    """Fit `kind`'s FP32 compute share, the power exponent and the pre-Volta FP32 efficiency.

    Minimises the mean absolute log error of the predicted time ratios plus the shrinkage of
    FIT_PRIORS, by pattern search. Parameters the pairs cannot see keep their prior: with no
    pre-Volta GPU among the pairs, the efficiency stays 1.
    """
    cal = predictor.calibration
    seen = {spec.architecture for a, b, _ in pairs for spec in (a, b)}
    free = ["compute_share", "power_exponent"]
    if seen & set(PRE_TENSOR_ARCHITECTURES):
        free.append("log_pre_tensor")

    specs = {spec.key: spec for a, b, _ in pairs for spec in (a, b)}

    def loss(params: dict[str, float]) -> float:
        trial = predictor.with_calibration(with_fp32_params(cal, params, kind))
        profile = trial.prior_profile(kind, "fp32")
        logs = {key: trial.log_rates(spec, "fp32") for key, spec in specs.items()}
        errors = [
            abs(math.log(_speedup(profile, logs[a.key], logs[b.key]) * r)) for a, b, r in pairs
        ]
        shrink = sum(w * (params[n] - v) ** 2 for n, (v, w) in FIT_PRIORS.items() if n in free)
        return sum(errors) / len(errors) + shrink

    start = {name: value for name, (value, _) in FIT_PRIORS.items()}
    fitted = with_fp32_params(cal, pattern_search(loss, start, free), kind)
    return predictor.with_calibration(fitted)


def with_fp32_params(cal: Calibration, params: dict[str, float], kind: str) -> Calibration:
    prior = cal.kinds[kind].model_copy(update={"compute_share": params["compute_share"]})
    efficiency = dict(cal.cuda_core_efficiency)
    for architecture in PRE_TENSOR_ARCHITECTURES:
        efficiency[architecture] = math.exp(params.get("log_pre_tensor", 0.0))
    return cal.model_copy(
        update={
            "kinds": {**cal.kinds, kind: prior},
            "power_exponent": params["power_exponent"],
            "cuda_core_efficiency": efficiency,
        }
    )


def pattern_search(
    loss: Callable[[dict[str, float]], float],
    start: dict[str, float],
    free: Sequence[str],
    step: float = 0.1,
    tolerance: float = 1e-3,
) -> dict[str, float]:
    """Try +-step on each free parameter; keep what lowers the loss; halve the step when nothing
    does. Deterministic, and enough for a handful of smooth parameters."""
    best, best_loss = dict(start), loss(start)
    while step > tolerance:
        improved = False
        for name in free:
            for delta in (step, -step):
                trial = {**best, name: best[name] + delta}
                if name == "compute_share" and not 0.05 <= trial[name] <= 0.95:
                    continue
                if name == "power_exponent" and not 0 <= trial[name] <= 1:
                    continue
                trial_loss = loss(trial)
                if trial_loss < best_loss - 1e-12:
                    best, best_loss, improved = trial, trial_loss, True
        if not improved:
            step /= 2
    return best
