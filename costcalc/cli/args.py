"""argparse value types shared by the subcommands: each rejects bad input in one line."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if math.isnan(value) or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{what} must be a finite number, got {text!r}")
    return value


def non_negative(what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = _number(text, what)
        if value < 0:
            raise argparse.ArgumentTypeError(f"{what} cannot be negative, got {text}")
        return value

    parse.__name__ = what
    return parse


def positive(what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = _number(text, what)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be greater than 0, got {text}")
        return value

    parse.__name__ = what
    return parse


def count(what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be a whole number, got {text!r}"
            ) from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{what} must be at least 1, got {text}")
        return value

    parse.__name__ = what
    return parse


def utilisation(text: str) -> float:
    from costcalc.errors import CostcalcError
    from costcalc.scenario import parse_utilisation

    try:
        return parse_utilisation(text)
    except CostcalcError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def share(what: str) -> Callable[[str], float]:
    """A fraction in (0, 1], also written as a percentage."""

    def parse(text: str) -> float:
        raw = text.strip()
        value = _number(raw.rstrip("%"), what) / (100 if raw.endswith("%") else 1)
        if not 0 < value <= 1:
            raise argparse.ArgumentTypeError(f"{what} must be in (0, 1] or (0%, 100%], got {text}")
        return value

    parse.__name__ = what
    return parse
