"""Every --help ends with examples that are real command lines: they parse, and the ones that
read only local data run and succeed."""

from __future__ import annotations

import json
import shlex

import pytest

from costcalc.cli import COMMANDS, build_parser, main

RUNS_OFFLINE = ("quick", "gpus", "prices", "predict", "desktops", "history", "job")
"""Commands whose examples the suite can run: no network, no torch, no app."""


def examples(command: str | None, capsys: pytest.CaptureFixture[str]) -> list[list[str]]:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"] if command else ["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    head, tail = out.split("\nExamples:\n", 1)
    assert head.strip() and "usage: costcalc" in head
    lines = tail.rstrip("\n").splitlines()
    assert 2 <= len(lines) <= 3, lines
    assert all(line.startswith("  costcalc") for line in lines), lines
    return [shlex.split(line) for line in lines]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_every_help_ends_with_examples_that_parse(
    command: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    for words in examples(command, capsys):
        if command is not None and command != "tui":  # `costcalc` alone opens the app too
            assert words[1] == command, words
        args = build_parser().parse_args(words[1:])  # exits 2 on a line that does not parse
        assert args.command == (words[1] if len(words) > 1 else None)


@pytest.mark.parametrize("command", RUNS_OFFLINE)
def test_the_examples_run(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    for words in examples(command, capsys):
        code = main(words[1:])
        out, err = capsys.readouterr()
        assert code == 0, (words, err)
        assert out.strip(), words
        if "--json" in words:
            json.loads(out)
        elif "--wide" not in words:
            assert all(len(line) <= 80 for line in out.splitlines()), words


def test_help_text_keeps_example_lines_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # narrower than any example
    for words in examples("quick", capsys):
        assert len(shlex.join(words)) > 40  # printed on one line all the same
    with pytest.raises(SystemExit):
        main(["quick", "--help"])
    description = capsys.readouterr().out.split("\n\n")[1]
    assert max(len(line) for line in description.splitlines()) <= 40  # prose still wraps


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_every_help_fits_80_columns(
    command: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"] if command else ["--help"])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80  # examples kept short enough


def test_every_option_of_every_command_has_help() -> None:
    """Seen: `gpus --segment` listed its choices and nothing else. argparse keeps a parser's
    options on `_actions` and its subcommands on the subparsers action's `choices`: private
    names, read here because argparse offers no public walk of what it was given."""
    import argparse

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    bare = []
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.option_strings and not (action.help or "").strip():
                bare.append(f"{name} {action.option_strings[0]}")
    assert bare == []


def test_the_command_list_says_what_each_command_says_of_itself() -> None:
    """`costcalc --help` lists the commands from SUMMARIES without importing them: each line is
    the help its module registers."""
    from costcalc.cli import SUMMARIES

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    helps = {action.dest: action.help for action in sub._choices_actions}  # type: ignore[attr-defined]
    assert helps == SUMMARIES
