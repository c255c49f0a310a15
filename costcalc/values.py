"""Numbers people type, checked once for both front ends (the CLI's options, the app's fields).

Rule kept here: pure and light (no pydantic), so argparse can use it at start-up. Each function
returns the value or raises CostcalcError with one line that says what a valid value looks like.
An empty text means "not given" (None) for the optional_* forms.
"""

from __future__ import annotations

import math

from costcalc.errors import CostcalcError


def number(text: str, what: str) -> float | None:
    """A finite number; '$2,200' reads as 2200; empty is None."""
    raw = text.strip().replace(",", "").lstrip("$")
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise CostcalcError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise CostcalcError(f"{what} must be a finite number, got {text!r}")
    return value


def optional_non_negative(text: str, what: str) -> float | None:
    value = number(text, what)
    if value is not None and value < 0:
        raise CostcalcError(f"{what} cannot be negative, got {text!r}")
    return value


def optional_positive(text: str, what: str) -> float | None:
    value = number(text, what)
    if value is not None and value <= 0:
        raise CostcalcError(f"{what} must be greater than 0, got {text!r}")
    return value


def non_negative(text: str, what: str) -> float:
    return _given(optional_non_negative(text, what), what)


def positive(text: str, what: str) -> float:
    return _given(optional_positive(text, what), what)


def _given(value: float | None, what: str) -> float:
    if value is None:
        raise CostcalcError(f"{what} is needed")
    return value


def share(text: str, what: str) -> float:
    """A share in (0, 1], also written as a percentage: '0.9' or '90%'."""
    value, _ = _share(text, what)
    if not 0 < value <= 1:
        raise CostcalcError(f"{what} must be in (0, 1] or (0%, 100%], got {text!r}")
    return value


def utilisation(text: str) -> float:
    """'0.15', '15%' or '15 %' -> 0.15; a bare 15 is refused with a hint that 15% was meant."""
    value, percent = _share(text, "utilisation")
    if not 0 < value <= 1:
        hint = f" (did you mean {value:g}%?)" if not percent and 1 < value <= 100 else ""
        raise CostcalcError(f"utilisation must be in (0, 1] or (0%, 100%], got {text!r}{hint}")
    return value


def _share(text: str, what: str) -> tuple[float, bool]:
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = number(raw.rstrip("%"), what)
    except CostcalcError:
        value = None
    if value is None:
        raise CostcalcError(f"{what} must be a share like 0.15 or 15%, got {text!r}")
    return (value / 100 if percent else value), percent
