"""The docs list what the code has: providers from the registry, every input of the table."""

from __future__ import annotations

from pathlib import Path

from costcalc.providers.registry import PROVIDERS

ROOT = Path(__file__).resolve().parents[1]


def test_the_providers_page_shows_the_registry() -> None:
    import runpy

    table = runpy.run_path(str(ROOT / "scripts" / "providers_table.py"))["table"]
    page = (ROOT / "docs" / "providers.md").read_text()
    start = page.index("<!-- providers table")
    end = page.index("<!-- end of providers table -->")
    shown = page[start:end].split("\n", 1)[1].strip()
    assert shown == table(), "run scripts/providers_table.py and paste its output"


def test_the_readme_names_every_provider_and_its_settings() -> None:
    readme = (ROOT / "README.md").read_text()
    for provider in PROVIDERS:
        assert f"`{provider.name}`" in readme, provider.name
        for env in provider.env:
            assert env.name in readme, env.name


def test_the_readme_documents_every_quick_option() -> None:
    from costcalc.core import inputs

    readme = (ROOT / "README.md").read_text()
    for spec in inputs.INPUTS:
        assert spec.flag in readme, spec.flag


def test_the_readme_names_every_option_of_every_command() -> None:
    from costcalc.cli import build_parser

    readme = (ROOT / "README.md").read_text()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sub.choices
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        for action in command._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in readme, f"costcalc {name} {option}"
