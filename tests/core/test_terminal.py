"""costcalc.core.terminal.fill: lines wrapped to the terminal, commands kept whole."""

from __future__ import annotations

from costcalc.core.terminal import fill, printable


def test_fill_keeps_a_command_whole_and_hangs_its_continuation() -> None:
    line = "  Rent stays cheaper unless `costcalc quick --gpu rtx4090 --util 40%` says otherwise"
    lines = fill(line, 40)
    assert lines[0].startswith("  Rent") and all(x.startswith("    ") for x in lines[1:])
    assert any("`costcalc quick --gpu rtx4090 --util 40%`" in x for x in lines)
    assert all(len(x) <= 40 or "`" in x for x in lines)


def test_a_line_that_fits_is_left_as_it_is() -> None:
    assert fill("short line", 40) == ["short line"]
    assert fill("no width given " * 10, None) == ["no width given " * 10]


def test_printable_drops_escapes_and_direction_overrides() -> None:
    assert printable("A6000\x1b[2J\u202e") == "A6000[2J"
    assert printable("plain") == "plain"
