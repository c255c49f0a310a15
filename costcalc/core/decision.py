"""The decision every front end shows: buy, rent, or why there is no Buy, with its one-line reason.

Rules kept here:
- pure, and made once, by `scenario.evaluate` (Calculation.decision and decision_reason): the
  CLI's verdict, `--json`, the app and `desktops` read it and never decide again;
- Buy only for a desktop that can be had and does the job: its GPUs hold the job's memory
  (compare.desktop_fits) and the build physically works (costcalc.core.feasibility: slots,
  cooling, PSU, wall circuit). A check left open, a figure not on file, does not take Buy away:
  the notes say it is open. Without Buy the rent answer stays, Comparison.best;
- otherwise the money decides: Buy when the desktop pays for itself within the horizon against
  the cheapest comparable offer (engine.pays_back), Rent when it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from costcalc.core import engine

if TYPE_CHECKING:
    from costcalc.core.compare import Comparison
    from costcalc.core.feasibility import Feasibility
    from costcalc.core.models import Assumptions, GpuSpec, Workload

Decision = Literal["buy", "rent", "cannot_fit", "cannot_build"]
"""buy, rent; cannot_fit: the job needs more memory per GPU than the desktop's card has;
cannot_build: the build does not physically work as a desktop. The last two have no Buy: rent
(Comparison.best) is the answer, with the nearest build that works (core.alternatives)."""

NO_BUY: tuple[Decision, ...] = ("cannot_fit", "cannot_build")


def decision(
    comparison: Comparison, a: Assumptions, fit: Feasibility | None = None
) -> Decision | None:
    """The decision of `comparison` for a build checked as `fit` (None: not checked); None
    without one (no desktop price, or no comparable offer to weigh it against)."""
    if not comparison.desktop_fits:
        return "cannot_fit"
    if fit is not None and fit.fits is False:
        return "cannot_build"
    best = comparison.best
    if comparison.desktop.price_usd is None or best is None:
        return None
    return "buy" if engine.pays_back(best.break_even_days, a.horizon_years) else "rent"


def reason(
    found: Decision | None,
    comparison: Comparison,
    a: Assumptions,
    spec: GpuSpec,
    w: Workload,
    fit: Feasibility | None = None,
    *,
    basis: str | None = None,
) -> str:
    """Why `found` (decision's answer), in one line: why there is no Buy ('4x RTX 4090 needs 12
    slots (the board has 7), a 2,500 W PSU (the largest for 120 V is 1,600 W) and more than one
    120 V/15 A circuit'), or what the money says ('the desktop pays for itself after ~293 days
    against the cheapest comparable offer, within the 3-year horizon'); `basis`, what the money
    compares when owning is counted in full (a loan's cash flows, repairs, resale by age)."""
    count = comparison.desktop.gpu_count
    label = f"{count}x {spec.short_name}" if count > 1 else f"the {spec.short_name}"
    needs = fit.needs if fit is not None and fit.fits is False else ()
    built = f"{label} needs {and_join(needs)}" if needs else ""
    if found == "cannot_fit":
        held = memory_reason(spec, w)
        return held + (f", and {built}" if built else "")
    if found == "cannot_build":
        return built or f"{label} does not work as a desktop"
    best = comparison.best
    if comparison.desktop.price_usd is None:
        return f"no desktop price is known for the {spec.name}"
    if best is None:
        return "no comparable cloud offer to weigh the desktop against"
    days, years = best.break_even_days, f"{a.horizon_years:g}-year horizon"
    if days is None:
        return (
            "the cheapest comparable offer costs no more a year than the desktop's electricity: "
            "buying never pays back"
        )
    how = f", {basis}" if basis else ""
    if found == "buy":
        return (
            f"the desktop pays for itself after ~{days:,.0f} days against the cheapest "
            f"comparable offer, within the {years}{how}"
        )
    return (
        f"the desktop would pay for itself only after ~{days:,.0f} days against the cheapest "
        f"comparable offer, beyond the {years}{how}"
    )


def memory_reason(spec: GpuSpec, w: Workload) -> str:
    """Why the desktop's GPU cannot hold the job: the memory the user gave (or a job's memory
    model found), or the bench's fit."""
    from costcalc.core import memfit  # only without a fit: quick's path stays as light

    if w.memory_gb is not None and memfit.usable_gb(spec.memory_gb) < w.memory_gb:
        need = f"{round(w.memory_gb, 1):g}"
        have = f"{spec.memory_gb:g} GB"
        if spec.memory_gb >= w.memory_gb:  # the label holds it; what a process gets does not
            have += f", {memfit.usable_gb(spec.memory_gb):.1f} GB of it usable"
        return f"your {spec.short_name} ({have}) cannot hold this job ({need} GB per GPU)"
    return f"not even a batch of one fits your {spec.short_name}'s memory (by the bench)"


def and_join(words: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"
