"""Every command's text fits the terminal: tables keep their most important columns and say what
they left out, prose wraps with a hanging indent, and --wide shows every column (clig.dev)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from costcalc.cli import main
from tests.cli_tables import header_of, tables, titles_of

LISTINGS = [
    ["quick", "--gpu", "rtx3090", "--util", "15%"],
    ["quick", "--gpu", "rtx3090", "--run-hours", "10", "--items", "1000000", "--all"],
    ["quick", "--gpu", "rtx4090", "--region", "DE", "--currency", "EUR", "--explain"],
    ["gpus"],
    ["prices"],
    ["history"],
    ["desktops", "--gpu", "rtx4090", "--gpu", "rtx_a6000", "--count", "1,2,4"],
    ["predict", "--from", "t4", "--to", "all", "--seconds", "600"],
    ["predict", "--from", "t4", "--to", "all", "--kind", "cnn"],
]


def run(
    argv: list[str], width: int, capsys: pytest.CaptureFixture[str], mp: pytest.MonkeyPatch
) -> str:
    mp.setenv("COLUMNS", str(width))
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def timeless(doc: Any) -> Any:
    """The document without the price ages, which grow between two runs."""
    if isinstance(doc, dict):
        return {k: timeless(v) for k, v in doc.items() if k != "price_age_days"}
    if isinstance(doc, list):
        return [timeless(v) for v in doc]
    return doc


@pytest.mark.parametrize("argv", LISTINGS, ids=lambda argv: " ".join(argv[:3]))
@pytest.mark.parametrize("width", [80, 200])
def test_every_line_fits_the_terminal(
    argv: list[str], width: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(argv, width, capsys, monkeypatch)
    too_long = [line for line in out.splitlines() if len(line) > width]
    assert too_long == []
    assert len(out.splitlines()) > 5


def test_the_deciding_columns_stay_at_80(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(["quick", "--gpu", "rtx3090"], 80, capsys, monkeypatch)
    titles = re.split(r"\s{2,}", header_of(out).strip())
    assert {"offer", "GPU", "$/year", "break-even"} <= set(titles)
    hidden = {"region", "$/h", "CO2/year", "kind", "price age", "speed"} - set(titles)
    assert hidden, "at 80 columns something has to make way"
    words = " ".join(out.split())  # the note may wrap
    note = words[words.index("--wide shows") :].split(" * ")[0].split(" Scale-out")[0]
    assert note.startswith(f"--wide shows {len(hidden)} more column")
    assert all(title in note for title in hidden)
    run_out = run(["quick", "--gpu", "rtx3090", "--run-hours", "10"], 80, capsys, monkeypatch)
    assert {"offer", "GPU", "$/run"} <= set(re.split(r"\s{2,}", header_of(run_out).strip()))


def test_wide_shows_every_column_even_in_a_pipe(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(["quick", "--gpu", "rtx3090", "--wide"], 80, capsys, monkeypatch)
    titles = re.split(r"\s{2,}", header_of(out).strip())
    assert titles == [
        "provider", "offer", "GPU", "region", "$/h", "speed", "$/year", "break-even",
        "CO2/year", "kind", "price age",
    ]  # fmt: skip
    assert "--wide shows" not in out
    assert len(header_of(out)) > 80  # the table, not the prose, ignores the width
    for argv in (["gpus"], ["prices"], ["history"]):
        narrow = run(argv, 80, capsys, monkeypatch)
        wide = run([*argv, "--wide"], 80, capsys, monkeypatch)
        assert "--wide shows" in narrow and "--wide shows" not in wide, argv
        assert max(map(len, wide.splitlines())) > 80, argv


def test_clipped_names_keep_their_free_tier_marker(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(["quick", "--gpu", "rtx3090"], 80, capsys, monkeypatch)
    colab = next(line for line in tables(out)[0] if line.startswith("Colab "))
    offer = re.split(r"\s{2,}", colab)[1]
    assert offer.endswith("… *")  # 'Pay As You Go A100 (40GB) *', cut to fit, still marked


def test_a_wide_terminal_shows_the_whole_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(["quick", "--gpu", "rtx3090"], 200, capsys, monkeypatch)
    assert "…" not in out and "--wide shows" not in out
    colab = next(line for line in tables(out)[0] if line.startswith("Colab "))
    offer = re.split(r"\s{2,}", colab)[1]  # which Colab accelerator is cheapest moves with the data
    assert offer.startswith("Pay As You Go ") and offer.endswith(") *")  # whole, still marked


def test_prose_wraps_with_a_hanging_indent(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(["quick", "--gpu", "rtx3090"], 80, capsys, monkeypatch)
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  at 15% utilisation"))
    assert lines[at + 1].startswith("    ") and not lines[at + 1].startswith("     ")
    verdict = next(i for i, line in enumerate(lines) if line.startswith("Rent: "))
    end = next(i for i in range(verdict, len(lines)) if lines[i].startswith("  "))
    paragraph = lines[verdict:end]
    assert len(paragraph) > 1 and not any(line.startswith(" ") for line in paragraph)
    doc = json.loads(run(["quick", "--gpu", "rtx3090", "--json"], 80, capsys, monkeypatch))
    assert " ".join(paragraph) == doc["verdict"]  # the same words, only wrapped
    left_out = next(i for i, line in enumerate(lines) if "fewer GPUs are left out" in line)
    assert lines[left_out].startswith("  ") and lines[left_out + 1].startswith("    ")


def test_a_command_in_backticks_is_never_broken() -> None:
    from costcalc.core.terminal import fill

    line = "  That is a list price of 2026-09-25 (60 d old), stale: `costcalc refresh` fetches"
    for width in range(30, len(line)):
        wrapped = fill(line, width)
        assert any("`costcalc refresh`" in part for part in wrapped), width
        assert all(len(part) <= width for part in wrapped), width
        assert " ".join(" ".join(wrapped).split()) == " ".join(line.split())


def test_one_number_format_a_column_desktop_row_included(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(
        ["quick", "--gpu", "rtx3090", "--run-hours", "1", "--items", "3000000", "--wide"],
        200,
        capsys,
        monkeypatch,
    )
    titles = titles_of(out)
    body = tables(out)[0]
    assert body[1].startswith("your desktop")  # under the verdict's offer
    cells = [re.split(r"\s{2,}", row.strip()) for row in body]
    for title in ("$/run", "$/1M items"):
        column = [row[titles.index(title)] for row in cells]
        decimals = {len(c.split(".")[1]) if "." in c else 0 for c in column if c != "$0"}
        assert len(decimals) == 1, (title, column)
    units = {row[titles.index("CO2/run")].split()[-1] for row in cells}
    assert len(units) == 1, units


def test_provider_column_shows_display_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run(["quick", "--gpu", "rtx3090", "--top", "20"], 200, capsys, monkeypatch)
    providers = {line.split("  ")[0] for table in tables(out) for line in table}
    assert "AWS spot" in providers and "RunPod" in providers
    assert "aws-spot" not in providers and "runpod" not in providers


def test_the_json_keeps_its_shape(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = json.loads(run(["quick", "--gpu", "rtx3090", "--json"], 80, capsys, monkeypatch))
    wide = json.loads(run(["quick", "--gpu", "rtx3090", "--json"], 200, capsys, monkeypatch))
    assert timeless(plain) == timeless(wide)  # the width is the terminal's business, not JSON's
    assert plain["offers"][0]["provider"] == "vast"  # keys for machines, labels for people
    assert "explain" not in plain
