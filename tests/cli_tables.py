"""The offer tables of `costcalc quick`'s text, read as a person reads them.

A table is its header (the line that starts with the 'provider' title) and the rows under it, up
to the first line that is not a row: a blank line, or a line under the table (what --wide would
show, the legend of the marks), which are prose, not cells. A table whose rows carry marks (★ the
verdict, † left out as stale) has them in a column of two characters on the left, the header's
two spaces above them.
"""

from __future__ import annotations

import re

from costcalc.present.report import MARK_WIDTH

CELL_GAP = re.compile(r"\s{2,}")


def is_header(line: str) -> bool:
    return line.removeprefix(" " * MARK_WIDTH).startswith("provider ")


def header_of(text: str) -> str:
    """The first table's header, without the marks' column."""
    line = next(line for line in text.splitlines() if is_header(line))
    return line.removeprefix(" " * MARK_WIDTH)


def titles_of(text: str) -> list[str]:
    return CELL_GAP.split(header_of(text).strip())


def marked_tables(text: str) -> list[list[tuple[str, str]]]:
    """Each table's rows as (mark, the row without its mark), top to bottom; the mark is ''
    in a table without marks and ' ' on an unmarked row of one with them."""
    found: list[list[tuple[str, str]]] = []
    rows: list[tuple[str, str]] | None = None
    marked = False
    for line in text.splitlines():
        if is_header(line):
            marked = line.startswith(" " * MARK_WIDTH)
            rows = []
            found.append(rows)
            continue
        if rows is None:
            continue
        mark, body = (line[: MARK_WIDTH - 1], line[MARK_WIDTH:]) if marked else ("", line)
        # a row has (nearly) the header's cells; a line under the table is one sentence
        if not body.strip() or body.startswith(" ") or len(CELL_GAP.split(body.strip())) < 3:
            rows = None
            continue
        rows.append((mark, body))
    return found


def tables(text: str) -> list[list[str]]:
    """Each table's rows, without their marks."""
    return [[body for _mark, body in rows] for rows in marked_tables(text)]
