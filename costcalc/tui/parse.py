"""What people type into the setup panel, turned into Settings values.

Rule kept here: pure, no textual. Each parser returns the value or raises CostcalcError with one
line that says what a valid value looks like; an empty field means "use the default" (None)
wherever the setting has one. The number checks are costcalc.values, shared with the CLI.
"""

from __future__ import annotations

from costcalc import values
from costcalc.errors import CostcalcError
from costcalc.values import optional_non_negative, optional_positive, positive

__all__ = [
    "UTILISATION_PRESETS",
    "gpu_count",
    "optional_non_negative",
    "optional_positive",
    "percent_text",
    "positive",
    "utilisation",
]

UTILISATION_PRESETS: tuple[tuple[str, float], ...] = (
    ("5% personal reality", 0.05),
    ("15% PhD desktop", 0.15),
    ("35% group cluster", 0.35),
    ("60% company cluster", 0.60),
)
"""Typical utilisation (Dettmers): most personal machines sit at 5-10 %."""


def utilisation(text: str) -> float:
    """'60', '60%' and '0.6' all mean 60 %: in the app a bare number above 1 is a percentage."""
    raw = text.strip().replace(",", ".")
    if not raw:
        raise CostcalcError("utilisation is needed: type 15 or 15% or 0.15")
    try:
        bare = float(raw)
    except ValueError:
        return values.utilisation(raw)
    return values.utilisation(f"{raw}%" if bare > 1 else raw)


def gpu_count(text: str) -> int:
    raw = text.strip()
    if not raw.isdigit() or not 1 <= int(raw) <= 16:
        raise CostcalcError(f"GPU count must be a whole number from 1 to 16, got {text!r}")
    return int(raw)


def percent_text(share: float) -> str:
    """How the utilisation field shows a share: 0.15 -> '15%'."""
    return f"{share * 100:g}%"
