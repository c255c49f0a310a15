"""Text fit for a terminal. Rule kept here: standard library only, so every layer can use it.

Feed text, file text and what the user typed reach the screen in tables and error lines; an
escape sequence in them must not clear the screen, set the window title, or forge a row.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls (escape, bell, carriage return, newline ...) and the bidirectional
overrides that reorder what is shown."""


def printable(text: str) -> str:
    """`text` without control characters (fast when there are none)."""
    return text if text.isprintable() else _CONTROL.sub("", text)
