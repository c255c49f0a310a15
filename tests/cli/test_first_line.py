"""What the eye meets first (issue 37): `costcalc quick`'s first line is the verdict, in a pipe
at 80 columns with stderr joined to stdout (`2>&1`), for every `costcalc quick` example in the
README and docs/ and for the answers that carry notes, warnings or saved settings.

Real processes: the order in which stdout and stderr reach one pipe is only seen from outside.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERDICT = re.compile(r"^(Buy|Rent|No verdict|No comparable)\b")
"""How every verdict begins (costcalc.present.display.verdict)."""


DOCUMENTED = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""Where a user reads examples: the README and every page of docs/."""


def documented_quick_examples() -> list[list[str]]:
    """Every `costcalc quick` command line in the code blocks of the README and docs/, as argv
    after 'quick' (continued lines joined, comments and a leading `VAR=value` dropped), each
    once."""
    found: list[list[str]] = []
    for page in DOCUMENTED:
        text = page.read_text("utf-8")
        for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
            for command in block.replace("\\\n", " ").splitlines():
                if "costcalc quick" not in command:
                    continue
                words = shlex.split(command.split("costcalc quick", 1)[1], comments=True)
                if words not in found:
                    found.append(words)
    return found


EXAMPLES = documented_quick_examples()

WITH_NOTES = [
    ["--gpu", "A100 80GB"],  # the card it was read as, and that it does not work in a desktop
    ["--gpu", "rtx4090", "--region", "BR"],  # no household electricity price there
]


def quick_2to1(argv: list[str]) -> list[str]:
    """`COLUMNS=80 costcalc quick ARGV 2>&1` in the test's home, its lines."""
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "quick", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "80"},
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    return done.stdout.splitlines()


def test_the_docs_have_quick_examples() -> None:
    assert len(EXAMPLES) >= 5
    assert ["--bench", "latest", "--items", "1000000"] in EXAMPLES
    # The README's reference case (Dettmers), the first answer a newcomer reads, is one of them.
    reference = ["--gpu", "rtx3090", "--util", "0.15", "--desktop-price", "2200"]
    assert any(argv[: len(reference)] == reference for argv in EXAMPLES)


def save_settings(text: str) -> None:
    """Settings as the app saves them (config.yaml in the test's home)."""
    from costcalc.edge import locations

    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)


def record_a_busy_day() -> None:
    """A day of an RTX 3090 sampled every 10 minutes, busy a quarter of the time (the samples
    `costcalc monitor` would have recorded)."""
    from datetime import datetime, timedelta, timezone

    from costcalc.store import usage

    now = datetime.now(timezone.utc)
    usage.record(
        [
            usage.Sample(
                "desk",
                "GPU-0",
                "NVIDIA GeForce RTX 3090",
                "nvml",
                now - timedelta(minutes=10 * i),
                600.0,
                90.0 if i % 4 == 0 else 0.0,
                power_w=300.0,
            )
            for i in range(144)
        ]
    )


@pytest.mark.parametrize("saved", [False, True], ids=["fresh home", "saved settings"])
@pytest.mark.parametrize("argv", EXAMPLES, ids=" ".join)
def test_every_documented_example_starts_with_the_verdict(argv: list[str], saved: bool) -> None:
    """As a new user runs it, and as one who has used the app (its settings fill what the
    example leaves out, which the answer says, after the verdict)."""
    if "--bench" in argv:  # the bench example (docs/bench.md) reads a bench saved before it
        from costcalc.bench.store import save_result
        from tests.bench_results import gpu_bench

        save_result(gpu_bench("rtx3090"))
    if "measured" in argv:  # the monitor's example (docs/monitor.md) reads samples taken before
        record_a_busy_day()
    if saved:
        save_settings("home_region: DE\nhorizon_years: 4\n")
    lines = quick_2to1(argv)
    assert VERDICT.match(lines[0]), lines[:3]
    assert any("Using your saved settings" in line for line in lines) == saved


@pytest.mark.parametrize("argv", WITH_NOTES, ids=" ".join)
def test_notes_come_after_the_answer(argv: list[str]) -> None:
    lines = quick_2to1(argv)
    assert VERDICT.match(lines[0]), lines[:3]
    notes = [i for i, line in enumerate(lines) if line.startswith("costcalc: note: ")]
    assert notes, "these answers carry notes"
    answer_end = lines.index("")  # the answer; then the desktop, the tables and the notes
    assert min(notes) > answer_end
    assert all(line.startswith(("costcalc: note: ", "  ")) for line in lines[min(notes) :])


def test_saved_settings_are_said_after_the_verdict() -> None:
    save_settings("utilisation: 0.4\n")
    lines = quick_2to1(["--gpu", "rtx3090"])
    assert VERDICT.match(lines[0]), lines[:3]
    answer = lines[: lines.index("")]  # the verdict's block ends with the saved settings used
    saved = [i for i, line in enumerate(answer) if line.startswith("  Using your saved settings")]
    assert len(saved) == 1
    assert all(line.startswith("    ") for line in answer[saved[0] + 1 :])  # its own wrap only
    assert "utilisation 40%" in " ".join(" ".join(answer[saved[0] :]).split())
