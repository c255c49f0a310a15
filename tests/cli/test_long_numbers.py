"""Numbers too long for int() (issue 22 item 7): Python refuses to convert a text of more than
4,300 digits with a ValueError, which reached the user as a traceback from --gpu-count, --top
and COSTCALC_GPU_COUNT. Every way a number comes in (flags, the environment, the settings file,
`desktops --count`) now answers with one line, and echoes at most the start of what was typed."""

from __future__ import annotations

import pytest

from costcalc.store.settings import settings_path
from tests.cli_run import run

DIGITS = "1" * 5000


def assert_one_line(err: str, *words: str) -> None:
    assert "Traceback" not in err and "ValueError" not in err
    assert err.count("\n") == 1 and err.startswith("costcalc: error: ")
    assert len(err) < 200, "the message echoes the start of the text, not all of it"
    for word in words:
        assert word in err


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["--gpu-count", DIGITS], "GPU count"),
        (["--top", DIGITS], "top"),
        (["--items", DIGITS], "items per run"),
        (["--desktop-price", DIGITS], "desktop price is too large"),
        (["--util", DIGITS], "utilisation"),
        (["--cloud-price", DIGITS], "cloud price"),
    ],
)
def test_a_number_of_5000_digits_on_the_command_line_is_one_line(
    argv: list[str], what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["quick", "--no-config", "--gpu", "rtx3090", *argv], capsys)
    assert code == 2 and not out
    assert_one_line(err, what, "5,000 characters")


def test_a_number_of_5000_digits_in_the_environment_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COSTCALC_GPU_COUNT", DIGITS)
    code, out, err = run(["quick", "--no-config", "--gpu", "rtx3090"], capsys)
    assert code == 2 and not out
    assert_one_line(err, "in the environment: GPU count", "at most 18 digits")


def test_a_number_of_5000_digits_in_the_settings_file_is_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"gpu_count: {DIGITS}\nutilisation: 0.5\n", encoding="utf-8")
    code, out, err = run(["quick", "--gpu", "rtx3090", "--json"], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    assert "not valid YAML: a value cannot be read" in err and "using defaults" in err
    assert '"gpu_count": 1' in out


@pytest.mark.parametrize("count", [DIGITS, "²", "1,²"])
def test_desktops_counts_that_int_cannot_read_are_one_line(
    count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["desktops", "--no-config", "--gpu", "rtx4090", "--count", count], capsys)
    assert code == 2 and not out
    assert_one_line(err, "GPU count must be a whole number from 1 to 8")


def test_leading_zeros_are_not_digits_too_many(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["quick", "--no-config", "--gpu", "rtx3090", "--gpu-count", "0" * 40 + "2", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert '"gpu_count": 2' in out
