"""How many rows `quick` prints, and `--items` that has no run to divide: as a user runs them."""

from __future__ import annotations

import json

import pytest

from costcalc.cli import main
from tests.cli_tables import CELL_GAP, tables, titles_of


@pytest.mark.parametrize("top", [1, 3, 5])
def test_top_n_prints_n_rows_in_each_table(capsys: pytest.CaptureFixture[str], top: int) -> None:
    """Seen: `--top 3` printed 13 comparable rows and 10 scale-out rows, as the pick put every
    provider's cheapest offer in before counting."""
    code = main(["quick", "--gpu", "rtx3090", "--util", "0.15", "--top", str(top), "--wide"])
    out, err = capsys.readouterr()
    assert code == 0, err
    found = tables(out)
    assert len(found) == 2  # comparable offers, then scale-out
    assert [len(rows) for rows in found] == [top, top]
    doc = json.loads(_json(["quick", "--gpu", "rtx3090", "--util", "0.15", "--top", str(top)]))
    names = [o["name"] for o in doc["offers"]]
    assert len(names) == 2 * top
    assert doc["best"]["name"] in names


def test_top_one_is_the_verdicts_offer(capsys: pytest.CaptureFixture[str]) -> None:
    """A free tier can be cheaper than the verdict; one row is then still the verdict's."""
    argv = ["quick", "--gpu", "rtx3090", "--util", "0.15"]
    doc = json.loads(_json(argv))
    capsys.readouterr()
    assert main([*argv, "--top", "1", "--wide"]) == 0
    (comparable, _scale) = tables(capsys.readouterr().out)
    assert len(comparable) == 1
    assert not comparable[0].rstrip().endswith("*")
    assert " * " not in comparable[0]  # not a free tier
    assert doc["best"]["name"][:20] in comparable[0]


def test_without_top_every_provider_keeps_its_row(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quick", "--gpu", "rtx3090", "--util", "0.15", "--wide"]) == 0
    comparable = tables(capsys.readouterr().out)[0]
    providers = {line.split("  ")[0] for line in comparable}
    assert len(comparable) > 10  # more providers than the default 10 rows
    assert len(providers) == len(comparable)


def test_items_without_run_hours_says_what_to_add(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["quick", "--gpu", "rtx3090", "--items", "1000"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("costcalc: error: --items")
    assert "--run-hours" in err
    assert main(["quick", "--gpu", "rtx3090", "--items", "5000", "--run-hours", "3"]) == 0
    assert "$/1k items" in capsys.readouterr().out


def _json(argv: list[str]) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([*argv, "--json"]) == 0
    return buffer.getvalue()


def test_items_with_a_bench_are_timed_by_it(capsys: pytest.CaptureFixture[str]) -> None:
    """`quick --bench latest --items N` (the README's): the bench's items per second give the
    run's hours, so --items needs no --run-hours there (here no bench is saved: another error)."""
    main(["quick", "--gpu", "rtx3090", "--items", "1000", "--bench", "latest"])
    err = capsys.readouterr().err
    assert "--items gives" not in err


RUNS = [
    ["--gpu", "rtx3090", "--run-hours", "10", "--items", "1000000"],
    ["--gpu", "rtx3090", "--run-hours", "10"],
    ["--gpu", "rtx4090", "--run-hours", "2", "--items", "1000"],
    ["--gpu", "rtx_a6000", "--run-hours", "24", "--items", "5000000", "--region", "DE"],
    ["--gpu", "A100 80GB", "--run-hours", "3", "--items", "1e9", "--memory-gb", "60"],
]


@pytest.mark.parametrize("argv", RUNS, ids=" ".join)
def test_a_run_fits_50_lines_and_shows_each_money_figure_once(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Seen on main: `quick --gpu rtx3090 --run-hours 10 --items 1000000` printed 68 lines at
    80 columns, two of its columns ($/run and $/1M items) the same figures row for row."""
    assert main(["quick", "--no-config", *argv]) == 0  # a pipe: 80 columns (tests/conftest.py)
    out, err = capsys.readouterr()
    assert len(out.splitlines()) + len(err.splitlines()) <= 50  # its notes too, as in 2>&1
    assert len(tables(out)[0]) >= 5  # the offers make way for nothing but the answer
    assert main(["quick", "--no-config", *argv, "--wide"]) == 0
    wide = capsys.readouterr().out
    titles = titles_of(wide)
    for table in tables(wide):
        cells = [CELL_GAP.split(row.strip()) for row in table]
        assert all(len(row) == len(titles) for row in cells)
        columns = {title: tuple(row[i] for row in cells) for i, title in enumerate(titles)}
        money = {t: c for t, c in columns.items() if t.startswith("$")}
        assert len(set(money.values())) == len(money), money.keys()  # no figure twice
