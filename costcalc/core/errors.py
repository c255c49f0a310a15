"""Errors a user can act on: each carries one line that says what is wrong and what to do."""

from __future__ import annotations


class CostcalcError(Exception):
    """Bad input or data: shown as one line on stderr, exit code 2, never a traceback."""

    exit_code = 2


class UnknownGpu(CostcalcError):
    def __init__(self, name: str, suggestions: list[str]) -> None:
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown GPU {name!r}{hint} (`costcalc gpus` lists them all)")
        self.name = name
        self.suggestions = suggestions


class UnknownRegion(CostcalcError):
    def __init__(self, code: str, suggestions: list[str], *, ambiguous: bool = False) -> None:
        if ambiguous:
            message = (
                f"region {code!r} names more than one region; type one of {', '.join(suggestions)}"
            )
        else:
            hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
            message = f"unknown grid region {code!r}{hint}"
        super().__init__(message)
        self.code = code
        self.suggestions = suggestions


class DataFileError(CostcalcError):
    """A price or catalog file that is missing, malformed or fails validation."""
