"""Text fit for a terminal. Rule kept here: standard library only, so every layer can use it.

Feed text, file text and what the user typed reach the screen in tables and error lines; an
escape sequence in them must not clear the screen, set the window title, or forge a row.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

_CONTROL = "[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
"""C0 and C1 controls (escape, bell, carriage return, newline ...) and the bidirectional
overrides that reorder what is shown. A pattern, compiled by `re` when first needed: most text
has none of them, and compiling it took a hundredth of `costcalc quick`'s start-up."""


def printable(text: str) -> str:
    """`text` without control characters (fast when there are none)."""
    return text if text.isprintable() else re.sub(_CONTROL, "", text)


_KEEP = "\x00"
"""Stands for a space that must not break a line (inside a `command`); never printable text."""


def fill(line: str, width: int | None, hang: str | None = None) -> list[str]:
    """`line` wrapped to `width` (None: as it is). An indented line hangs its continuation
    two spaces deeper (or by `hang`); a `command in backticks`, a URL or a --flag is never
    broken, so such a token alone may run past the width."""
    if width is None or len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip(" "))]
    kept = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", _KEEP), line)
    if hang is None:
        hang = indent + "  " if indent else ""

    lines = textwrap.wrap(
        kept,
        max(width, len(hang) + 10),
        subsequent_indent=hang,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [part.replace(_KEEP, " ") for part in lines] or [line]


def fill_all(lines: Sequence[str], width: int | None) -> list[str]:
    """Every line of `lines` filled to `width` (each may hold several, joined by newlines)."""
    out: list[str] = []
    for text in lines:
        for line in text.split("\n"):
            out += fill(line, width)
    return out
