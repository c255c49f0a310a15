"""Axis ticks and labels a person can read: round steps, thousands separators, labels that fit.

Rule kept here: pure functions of numbers and widths, no textual and no plotext, so the plots'
choices are tested on their own. Ticks step by 1, 2 or 5 times a power of ten and sit inside
the axis; a label beside a line goes where it fits, or is shortened.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from typing import Literal

STEPS = (1.0, 2.0, 5.0)
"""Multiples of a power of ten a step may be: 1,000 / 2,000 / 5,000, never 1,684.7."""


def steps_from(smallest: float) -> Iterator[float]:
    """1-2-5 steps in increasing order, from the first at or above `smallest`."""
    power = 10.0 ** math.floor(math.log10(smallest))
    while True:
        for m in STEPS:
            if m * power >= smallest * (1 - 1e-9):
                yield m * power
        power *= 10


def nice_ticks(low: float, high: float, most: int = 6) -> tuple[float, ...]:
    """The most round ticks between `low` and `high` (inclusive) that are no more than `most`
    (three at least: with three allowed, a 1-2-5 step always leaves two). The axis runs from
    `low` to `high`; the labels sit on the round numbers inside it."""
    most = max(3, most)
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        low = low if math.isfinite(low) else 0.0
        high = low + 1.0
    for step in steps_from((high - low) / most):
        first = math.ceil(low / step - 1e-9)
        last = math.floor(high / step + 1e-9)
        if last - first + 1 <= most:
            # integer multiples of the step, so 0.1 * 3 prints as 0.3, not 0.30000000000000004
            return tuple(round(i * step, 12) for i in range(first, last + 1))
    raise AssertionError("unreachable: steps grow without end")


def spaced_ticks(
    low: float,
    high: float,
    cells: int,
    extents: Callable[[tuple[float, ...]], list[int]],
    most: int = 7,
    gap: int = 1,
    overhang: int = 0,
) -> tuple[float, ...]:
    """`nice_ticks` for an axis `cells` long (canvas rows or columns) whose labels keep `gap`
    free cells between them: `extents(ticks)` says how many cells each label takes (1 on the
    y axis, its length on the x axis). A label is centred on its tick but kept from running
    more than `overhang` cells past the end, as plotext does. Fewer, wider-apart ticks rather
    than crowded ones; when even three cannot be spaced (a tiny canvas), three."""
    found = nice_ticks(low, high, most)
    for fewer in range(most, 2, -1):
        found = nice_ticks(low, high, fewer)
        sizes = extents(found)
        starts = [
            min(column_of(t, low, high, cells) - size // 2, cells + overhang - size)
            for t, size in zip(found, sizes, strict=True)
        ]
        ends = [start + size for start, size in zip(starts, sizes, strict=True)]
        if all(b - a >= gap for a, b in zip(ends, starts[1:], strict=False)):
            return found
    return found


def tick_labels(ticks: tuple[float, ...], prefix: str = "", suffix: str = "") -> list[str]:
    """'$1,000', '$2,000' or '0.5', '1.0': thousands separators, the decimals the step needs."""
    step = min((b - a for a, b in itertools.pairwise(ticks)), default=1.0)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    labels = []
    for value in ticks:
        sign = "-" if value < 0 else ""
        labels.append(f"{sign}{prefix}{abs(value):,.{decimals}f}{suffix}")
    return labels


def shorten(text: str, width: int) -> str:
    """`text`, or its start and '…' when it is wider than `width`."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)] + "…" if width > 0 else ""


Alignment = Literal["left", "right"]


def column_of(x: float, low: float, high: float, columns: int) -> int:
    """The canvas column (0-based) where `x` falls on an axis from `low` to `high` (the
    rounding plotext uses, so a label and a line land on the same column)."""
    if high <= low or columns <= 1:
        return 0
    share = min(1.0, max(0.0, (x - low) / (high - low)))
    return math.floor(round(0.5 + (columns - 1) * share, 8))


def x_of(column: int, low: float, high: float, columns: int) -> float:
    """The axis value that lands on `column`: the inverse of `column_of`."""
    if columns <= 1:
        return low
    return low + (high - low) * column / (columns - 1)


def beside(
    label: str, short: str, x: float, low: float, high: float, columns: int
) -> tuple[str, int, Alignment]:
    """Where a label next to a vertical line at `x` fits in `columns`: right of the line, else
    left of it, else `short` on whichever side has more room (cut to fit if even that is long).

    Returns the text, the column it starts at ("left") or ends at ("right"), and which; one
    column is left free beside the line, so the label never touches it.
    """
    at = column_of(x, low, high, columns)
    room_right = columns - at - 2
    room_left = at - 1
    for text in (label, short):
        if len(text) <= room_right:
            return text, at + 2, "left"
        if len(text) <= room_left:
            return text, at - 2, "right"
    if room_right >= room_left:
        return shorten(short, room_right), at + 2, "left"
    return shorten(short, room_left), at - 2, "right"
