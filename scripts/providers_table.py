"""Print the table of every provider from the registry: what each is, its bundled snapshot with
the date its prices were true and their licence, whether `refresh` fetches it, its settings.

.venv/bin/python scripts/providers_table.py

Everything in it is read from the providers' PROVIDER objects and the headers of their bundled
snapshots, so it is printed, not kept as a copy in the docs: a new provider shows up here without
an edit anywhere else (docs/providers.md).
"""

from __future__ import annotations

from costcalc.providers.base import Provider
from costcalc.providers.registry import every
from costcalc.store.snapshots import load_bundled

HEADER = (
    "| name | provider | bundled snapshot | prices true on | licence | live in `refresh` "
    "| settings |"
)


def _live(p: Provider) -> str:
    keyed = any(e.secret and not e.optional for e in p.env)
    return ("with a key" if keyed else "yes") if p.live else "no (curated)"


def _settings(p: Provider) -> str:
    return ", ".join(" or ".join(f"`{n}`" for n in e.names) for e in p.env) or "-"


def row(p: Provider) -> str:
    snapshot = load_bundled(p)
    cells = (
        f"`{p.name}`",
        p.label,
        f"`prices/{p.snapshot_file}`",
        snapshot.fetched_at.date().isoformat(),
        (snapshot.licence or "-").replace("|", "/"),
        _live(p),
        _settings(p),
    )
    return "| " + " | ".join(cells) + " |"


def table() -> str:
    lines = [HEADER, "| " + " | ".join(["---"] * (HEADER.count(" | ") + 1)) + " |"]
    return "\n".join([*lines, *(row(p) for p in every())])


if __name__ == "__main__":
    print(table())
