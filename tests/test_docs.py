"""The docs list what the code has: providers from the registry, every input of the table, every
option of every command, in the README or a page of docs/."""

from __future__ import annotations

from pathlib import Path

from costcalc.providers.registry import every, names

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))


def documentation() -> str:
    """What a user can read: the README and every page of docs/."""
    return "\n".join(page.read_text("utf-8") for page in [README, *PAGES])


def test_the_providers_table_is_printed_from_the_registry() -> None:
    import runpy

    table = runpy.run_path(str(ROOT / "scripts" / "providers_table.py"))["table"]()
    header, rule, *rows = table.splitlines()
    assert rule.count("---") == header.count("|") - 1
    assert [row.split(" | ")[0] for row in rows] == [f"| `{name}`" for name in names()]
    vast = rows[names().index("vast")]
    assert "`COSTCALC_VAST_API_KEY` or `VAST_API_KEY`" in vast
    assert "stale" not in header  # staleness follows the kind of price, not the provider
    assert "| no (curated) |" in rows[names().index("coreweave")]
    # The docs show how to print it, and keep no copy that could fall behind.
    page = (ROOT / "docs" / "providers.md").read_text()
    assert "scripts/providers_table.py" in page and "| `vast` |" not in page


def test_the_docs_name_every_provider_setting() -> None:
    docs = documentation()
    for provider in every():
        for env in provider.env:
            assert env.name in docs, env.name


def test_the_docs_document_every_quick_option() -> None:
    from costcalc.core import inputs

    docs = documentation()
    for spec in inputs.INPUTS:
        assert spec.flag in docs, spec.flag


def test_the_docs_name_every_option_of_every_command() -> None:
    from costcalc.cli import build_parser

    docs = documentation()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sub.choices
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        for action in command._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in docs, f"costcalc {name} {option}"
