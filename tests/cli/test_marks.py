"""What the eye meets first in `quick`'s tables (issue 37): the verdict's offer is the first row,
marked ★, at any width, in a pipe and with --wide; a cheaper price the verdict set aside as
stale is marked †; a legend under the table says what the marks mean; "free tier" is said of
free tiers only."""

from __future__ import annotations

import json

import pytest

from costcalc.cli import main
from costcalc.store.loaders import load_app_data
from tests.cli_tables import marked_tables


def quick(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, dict]:
    """The text (in a pipe: 80 columns) and the JSON of the same answer."""
    assert main(["quick", "--no-config", *argv]) == 0
    text = capsys.readouterr().out
    more = [] if "--top" in argv or "--all" in argv else ["--all"]
    assert main(["quick", "--no-config", *argv, "--json", *more]) == 0
    return text, json.loads(capsys.readouterr().out)


def label_of(provider: str) -> str:
    return load_app_data().book.short_labels.get(provider, provider)


@pytest.mark.parametrize(
    "argv",
    [
        ["--gpu", "rtx3090"],
        ["--gpu", "rtx3090", "--wide"],
        ["--gpu", "rtx3090", "--top", "3"],
        ["--gpu", "rtx3090", "--run-hours", "10", "--items", "1000000"],
        ["--gpu", "rtx4090", "--util", "40%", "--all"],
    ],
    ids=" ".join,
)
def test_the_verdicts_offer_is_the_first_row_and_marked(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    text, doc = quick(argv, capsys)
    rows = marked_tables(text)[0]
    (mark, first), *rest = rows
    best = doc["best"]
    assert mark == "★"
    assert first.startswith(label_of(best["provider"]) + " ")
    assert best["name"][:10] in first
    assert [m for m, _row in rest].count("★") == 0  # one verdict
    legend = " ".join(text.split())
    assert "★ the verdict" in legend


def test_a_stale_price_the_verdict_set_aside_is_marked_where_it_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seen on main: at 80 columns the first row was Vast.ai's $0.130/h RTX 3090 listing of 55
    days before, which the verdict had set aside, with nothing on the row to say so (its price
    age, which says 'stale', makes way at 80 columns)."""
    text, doc = quick(["--gpu", "rtx3090"], capsys)
    aside = doc["set_aside_stale"]
    assert aside, "the bundled Vast.ai listing is stale and cheaper than the verdict's offer"
    rows = marked_tables(text)[0]
    marked = [row for mark, row in rows if mark == "†"]
    assert marked, "the cheapest set-aside offer is its provider's cheapest: it shows"
    names = [(label_of(o["provider"]), o["name"][:10]) for o in aside]
    for row in marked:
        assert any(row.startswith(label + " ") and name in row for label, name in names), row
    vast = next(row for mark, row in rows if row.startswith(label_of(aside[0]["provider"]) + " "))
    assert vast in marked
    assert "† left out as stale" in " ".join(text.split())
    # the scale-out table says nothing of marks it does not carry
    (comparable, scale_out) = marked_tables(text)
    assert all(mark == " " for mark, _row in scale_out)
    assert len(comparable) > 1
    # and without a price set aside, no mark and no legend of one
    text, doc = quick(["--gpu", "rtx3090", "--provider", "runpod", "--provider", "lambda"], capsys)
    assert doc["set_aside_stale"] == []
    assert "†" not in text


def test_pay_as_you_go_is_not_called_a_free_tier(capsys: pytest.CaptureFixture[str]) -> None:
    """Seen on main: the legend under the table called Colab's Pay As You Go ($0.87/h for a G4)
    a 'free tier', as it called every offer without a guaranteed GPU (the cell and the words
    filter: tests/core/test_tiers.py)."""
    text, _doc = quick(["--gpu", "rtx3090"], capsys)
    rows = marked_tables(text)[0]
    shown = [row for _mark, row in rows if row.startswith("Colab ")]
    assert shown and all("Pay As You Go" in row and "* " in row for row in shown)
    words = " ".join(text.split())
    assert "free tier" not in words
    assert "* no guaranteed GPU, never the verdict" in words
    # where the $0 tier shows, the legend names it
    free, _ = quick(
        ["--gpu", "t4", "--provider", "colab", "--desktop-price", "900", "--all"], capsys
    )
    assert "Colab     Colab (free of… *" in free
    assert "* no guaranteed GPU ($0: a free tier), never the verdict" in " ".join(free.split())
