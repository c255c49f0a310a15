"""Errors a user can act on: each carries one line that says what is wrong and what to do."""

from __future__ import annotations

from collections.abc import Sequence

QUOTED_CHARS = 40
"""Characters of one text a message echoes (a typed value, a name or key in a file)."""
QUOTED_MOST = 200
"""Characters a message quotes of what it was given, all its texts together: a pasted page, or a
settings file of a million provider names, stays one readable line."""


def quoted(text: object) -> str:
    """A text as messages echo it: its repr, cut to QUOTED_CHARS with its full length. Every
    message that repeats what a user typed or a file held says it through this."""
    text = text if isinstance(text, str) else str(text)
    if len(text) <= QUOTED_CHARS and len(repr(text)) <= QUOTED_MOST:
        return repr(text)
    shown = text[:QUOTED_CHARS]
    while len(repr(shown)) > QUOTED_MOST // 2:  # escapes: a control character reads as 4
        shown = shown[: len(shown) // 2]
    return f"{shown!r}… ({len(text):,} characters)"


def quoted_list(texts: Sequence[object]) -> str:
    """Texts as a message lists them: each `quoted`, as many as fit in QUOTED_MOST characters,
    then how many more ("'a', 'b' and 9,998 more")."""
    shown: list[str] = []
    used = 0
    for text in texts:
        one = quoted(text)
        if shown and used + len(one) + 2 > QUOTED_MOST - 20:
            break
        shown.append(one)
        used += len(one) + 2
    more = len(texts) - len(shown)
    return ", ".join(shown) + (f" and {more:,} more" if more else "")


class CostcalcError(Exception):
    """Bad input or data: shown as one line on stderr, exit code 2, never a traceback."""

    exit_code = 2


class UnknownGpu(CostcalcError):
    def __init__(self, name: str, suggestions: list[str]) -> None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown GPU {quoted(name)}{hint} (`costcalc gpus` lists them all)")
        self.name = name
        self.suggestions = suggestions


class UnknownRegion(CostcalcError):
    def __init__(self, code: str, suggestions: list[str], *, ambiguous: bool = False) -> None:
        if ambiguous:
            message = (
                f"region {quoted(code)} names more than one region; "
                f"type one of {', '.join(suggestions)}"
            )
        else:
            hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
            message = f"unknown grid region {quoted(code)}{hint}"
        super().__init__(message)
        self.code = code
        self.suggestions = suggestions


class DataFileError(CostcalcError):
    """A price or catalog file that is missing, malformed or fails validation."""
