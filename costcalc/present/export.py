"""A table as a file: CSV for a spreadsheet, Markdown for a note or an issue.

Rule kept here: text only. The app hands over the rows it shows (in its order, with its
filters) as formatted cells, so the file says what the screen says.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Literal

from costcalc.present import columns as cols

Kind = Literal["csv", "markdown"]


def export_text(
    rows: Sequence[Mapping[str, str]],
    columns: Sequence[cols.Column],
    ctx: cols.Context,
    kind: str,
    *,
    lead: tuple[str, str] | None = ("part", "part"),
) -> str:
    """`rows` (cells by column key, plus `lead`'s key) under the columns' titles."""
    keys = ([lead[0]] if lead else []) + [c.key for c in columns]
    titles = ([lead[1]] if lead else []) + [c.title_in(ctx) for c in columns]
    numeric = ([False] if lead else []) + [c.numeric for c in columns]
    table = [[row.get(key, "") for key in keys] for row in rows]
    if kind == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(titles)
        writer.writerows(table)
        return out.getvalue()
    if kind != "markdown":
        raise ValueError(f"unknown export kind {kind!r}")

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    return "\n".join([line(titles), rule, *(line(r) for r in table)]) + "\n"
