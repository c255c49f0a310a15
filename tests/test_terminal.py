"""costcalc.core.terminal.wrap is textwrap.wrap with the options `fill` gives it, line for line."""

from __future__ import annotations

import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from costcalc.core.terminal import fill, wrap
from tests.imports import loaded_after

PIECES = ["a", "bb", "cccccccc", "word-word", "$2,200", "`cmd x`", "%", " ", "  ", "\t", "\n"]
WORDS = st.lists(st.sampled_from([*PIECES, "\xa0", "\x00", "\r", "é"]), max_size=60).map("".join)


def textwraps(text: str, width: int, indent: str) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


@settings(max_examples=400)
@given(WORDS, st.integers(1, 60), st.sampled_from(["", " ", "  ", "    ", "\t"]))
@example("aaaa bbbbbbbbbbbbbbbbbbbb c", 5, "  ")
@example("   leading and trailing   ", 8, "")
@example("a\xa0\xa0b \xa0 c", 3, " ")
def test_wrap_is_textwraps(text: str, width: int, indent: str) -> None:
    assert wrap(text, width, indent) == textwraps(text, width, indent)


def test_fill_keeps_a_command_whole_and_hangs_its_continuation() -> None:
    line = "  Rent stays cheaper unless `costcalc quick --gpu rtx4090 --util 40%` says otherwise"
    lines = fill(line, 40)
    assert lines[0].startswith("  Rent") and all(x.startswith("    ") for x in lines[1:])
    assert any("`costcalc quick --gpu rtx4090 --util 40%`" in x for x in lines)


def test_filling_text_imports_no_textwrap() -> None:
    code = "from costcalc.core.terminal import fill\nassert len(fill('word ' * 40, 30)) > 1"
    assert "textwrap" not in loaded_after(code)
