"""How the CLI's text fits the terminal: its width, and `--wide` for every column.

Rule kept here: one width for everything a command prints, the terminal's (COLUMNS when set,
80 in a pipe), so prose wraps and tables fit at the same place; only `--wide` lifts the limit
on tables, which is how a pipe gets every column.
"""

from __future__ import annotations

import argparse
from typing import Any

FALLBACK = (80, 24)


def add_wide(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wide",
        action="store_true",
        help="show every column of a table, whatever the terminal's width "
        "(without it, the least important columns make way)",
    )


def width() -> int:
    """The terminal's width in characters: COLUMNS when set, 80 when not a terminal."""
    import shutil

    return shutil.get_terminal_size(FALLBACK).columns


EXAMPLES = "Examples:\n"
"""How the last section of every command's --help begins."""


class HelpWithExamples(argparse.RawDescriptionHelpFormatter):
    """Help whose description wraps to the terminal as usual and whose examples keep their
    lines as written (a command line must not be broken in two)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES):
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def examples(*lines: str) -> dict[str, Any]:
    """The parser arguments that end a command's --help with these example command lines."""
    text = EXAMPLES + "".join(f"  {line}\n" for line in lines)
    return {"epilog": text, "formatter_class": HelpWithExamples}
