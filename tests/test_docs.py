"""The docs list what the code has (providers from the registry, every input of the table,
every option of every command), and a newcomer can read them: a README of at most 300 lines with
no prose line over 120 characters, a table of contents into docs/, and no link that leads nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from costcalc.providers.registry import every, names

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
README_MAX_LINES = 300
MAX_PROSE_CHARS = 120


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


def prose_lines(text: str, tables: bool = False) -> list[tuple[int, str]]:
    """(line number, line) of every line that is read as prose: not in a fenced or indented code
    block, and not a table row unless `tables`."""
    found = []
    fenced = False
    previous = ""
    indented = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            indented = line.startswith("    ") and (indented or not previous.strip())
            if not indented and (tables or not line.startswith("|")):
                found.append((number, line))
        previous = line
    return found


def test_prose_lines_are_found() -> None:
    text = "a\n```\ncode\n```\n| cell |\n\n    indented code\n- item\n    continued\n"
    assert prose_lines(text) == [(1, "a"), (6, ""), (8, "- item"), (9, "    continued")]
    assert (5, "| cell |") in prose_lines(text, tables=True)


def test_the_readme_reads_in_five_minutes() -> None:
    """At most 300 lines, and no line outside a code block wider than 120 characters (the test
    command CI runs verbatim is one line of code)."""
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    lines = prose_lines(text, tables=True)
    wide = [f"{n}: {len(line)}" for n, line in lines if len(line) > MAX_PROSE_CHARS]
    assert not wide, wide


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_no_prose_line_of_the_docs_is_wider_than_120(page: Path) -> None:
    wide = [
        f"{page.name}:{n}: {len(line)}"
        for n, line in prose_lines(page.read_text("utf-8"))
        if len(line) > MAX_PROSE_CHARS
    ]
    assert not wide, wide


LINK = re.compile(r"\]\(([^)\s]+)\)")
"""The target of a Markdown link or image, `[text](target)`."""


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = page.read_text("utf-8")
    headings = [line for _, line in prose_lines(text) if line.startswith("#")]
    return {anchor(heading.lstrip("#")) for heading in headings}


def relative_links(page: Path) -> list[str]:
    text = page.read_text("utf-8")
    targets = LINK.findall("\n".join(line for _, line in prose_lines(text, tables=True)))
    return [t for t in targets if not re.match(r"^[a-z]+:", t)]


def test_anchors_are_githubs() -> None:
    assert anchor(" `--json`") == "--json"
    assert anchor(" `costcalc prices`: where?") == "costcalc-prices-where"
    assert anchor(" The cloud's cost, per run") == "the-clouds-cost-per-run"


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda page: page.name)
def test_every_relative_link_resolves(page: Path) -> None:
    """Every link to a file of the repository names one that exists, and a link to a heading
    (`page.md#anchor` or `#anchor`) names a heading that exists."""
    broken = []
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (
            linked.suffix == ".md" and fragment and fragment not in anchors(linked)
        ):
            broken.append(target)
    assert not broken, broken


def test_the_readme_is_a_table_of_contents_into_docs() -> None:
    """Every page of docs/ is linked from the README, the method, the speed predictor, data and
    sources, benchmarks and development among them."""
    linked = {
        (README.parent / target.partition("#")[0]).resolve() for target in relative_links(README)
    }
    for name in ("method", "speed-predictor", "data", "benchmarks", "development"):
        assert ROOT / "docs" / f"{name}.md" in PAGES, name
    missing = [page.name for page in PAGES if page.resolve() not in linked]
    assert not missing, missing
