"""Print the providers table of docs/providers.md from the registry (a test keeps them equal).

.venv/bin/python scripts/providers_table.py
"""

from __future__ import annotations

from costcalc.providers.registry import PROVIDERS


def table() -> str:
    lines = [
        "| name | provider | bundled snapshot | live in `refresh` | stale after | settings |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for p in PROVIDERS:
        env = ", ".join(f"`{e.name}`" for e in p.env) or "-"
        days = p.stale_after.total_seconds() / 86400
        keyed = any(e.secret and not e.optional for e in p.env)
        live = ("with a key" if keyed else "yes") if p.live else "no (curated)"
        lines.append(
            f"| `{p.name}` | {p.label} | `prices/{p.snapshot_file}` | {live} | {days:g} d | {env} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
