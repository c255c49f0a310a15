"""How the CLI's text fits the terminal: its width, and `--wide` for every column.

Rule kept here: one width for everything a command prints, the terminal's (COLUMNS when set,
80 in a pipe), so prose wraps and tables fit at the same place; only `--wide` lifts the limit
on tables, which is how a pipe gets every column.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NoReturn

from costcalc.core.terminal import fill, printable

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
    return terminal_columns()


def notes(lines: list[str] | tuple[str, ...], prefix: str = "costcalc: note: ") -> None:
    """Each line on stderr after `prefix`, wrapped to the terminal's width under a hanging
    indent. Called after the answer is printed: stdout is flushed first, so where both streams
    reach one screen or pipe (`2>&1`) the answer's first line is still the output's first."""
    if not lines:
        return
    sys.stdout.flush()
    for line in note_lines(lines, prefix):
        print(line, file=sys.stderr)


def note_lines(lines: list[str] | tuple[str, ...], prefix: str = "costcalc: note: ") -> list[str]:
    """The lines `notes` prints, as wrapped (an answer that keeps to a number of lines leaves
    room for them)."""
    columns = width()
    return [part for line in lines for part in fill(f"{prefix}{line}", columns, hang="  ")]


def terminal_columns() -> int:
    """The columns of `shutil.get_terminal_size(FALLBACK)`, read as it reads them, without
    importing shutil (and the compression modules it brings) for them."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        found = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
    except (AttributeError, ValueError, OSError):  # closed or detached, or not a terminal
        found = 0
    return found or FALLBACK[0]


EXAMPLES = "Examples:\n"
"""How the last section of every command's --help begins."""


class HelpWithExamples(argparse.RawDescriptionHelpFormatter):
    """Help whose description wraps to the terminal as usual and whose examples keep their
    lines as written (a command line must not be broken in two)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **more: Any,
    ) -> None:
        # argparse's own default width (the terminal's less 2), without its import of shutil:
        # a formatter is made for each option a command registers.
        columns = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, columns, **more)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES):
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {printable(message)} (see --help)\n")


def examples(*lines: str) -> dict[str, Any]:
    """The parser arguments that end a command's --help with these example command lines."""
    text = EXAMPLES + "".join(f"  {line}\n" for line in lines)
    return {"epilog": text, "formatter_class": HelpWithExamples}
