"""`costcalc` run in the test's process as a user runs it: the exit code and what it printed,
or its --json answer; and DOMAIN.md's canonical case as a command line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from costcalc.cli import main

REFERENCE = [
    "quick",
    "--gpu",
    "rtx3090",
    "--util",
    "0.15",
    "--desktop-price",
    "2200",
    "--gpu-watts",
    "350",
    "--system-watts",
    "100",
    "--kwh-price",
    "0.12",
    "--cloud-price",
    "2.14",
]
"""DOMAIN.md's canonical case: break-even 292.96 days against the $2.14/h offer."""


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = run([*argv, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)
