"""argparse value types shared by the subcommands: each rejects bad input in one line."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from costcalc import values
from costcalc.errors import CostcalcError


def _option(parse: Callable[[str, str], float], what: str) -> Callable[[str], float]:
    """An argparse type from a costcalc.values parser: its one-line error becomes argparse's."""

    def typed(text: str) -> float:
        try:
            return parse(text, what)
        except CostcalcError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    typed.__name__ = what
    return typed


def non_negative(what: str) -> Callable[[str], float]:
    return _option(values.non_negative, what)


def positive(what: str) -> Callable[[str], float]:
    return _option(values.positive, what)


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
    try:
        return values.utilisation(text)
    except CostcalcError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def share(what: str) -> Callable[[str], float]:
    """A fraction in (0, 1], also written as a percentage."""
    return _option(values.share, what)
