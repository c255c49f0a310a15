"""The offer columns: every column has a place in the priority order, fitting a width drops the
least important first, and each column keeps one number format."""

from __future__ import annotations

import pytest

from costcalc.present import columns as cols
from costcalc.present import display


def test_every_column_has_a_priority() -> None:
    assert set(cols.PRIORITY) == set(cols.BY_KEY)
    assert len(cols.PRIORITY) == len(set(cols.PRIORITY))


@pytest.mark.parametrize("place", ["priority", "app", "cli", "cli_run"])
def test_no_two_columns_share_a_place(place: str) -> None:
    """Places only sort: two equal ones would leave the order to the keys' spelling."""
    taken = [getattr(c, place) for c in cols.COLUMNS if getattr(c, place) is not None]
    assert len(taken) == len(set(taken)), place


def test_the_cli_tables_read_their_columns_from_the_places() -> None:
    """The CLI's two tables as they were when each was a list of its own."""
    offer = ("provider", "name", "gpus", "region", "usd_per_hour", "relative_speed")
    year = ("usd_per_year", "break_even_days", "co2_kg_per_year")
    run = ("run_hours", "run_usd", "run_usd_per_items", "run_co2_kg")
    price = ("price_kind", "price_age_days")
    # the batch each offer's GPU runs, beside its speed, when GPUs run their own (issue 39)
    batch = ("offer_batch",)
    assert (*offer, *batch, *year, *price) == cols.CLI_COLUMNS
    assert (*offer, *batch, *run, *price) == cols.CLI_RUN_COLUMNS
    assert cols.BY_KEY["offer_batch"].when == "target"


def test_the_app_sizes_every_column_and_cuts_only_names() -> None:
    assert set(cols.APP_COLUMNS) == set(cols.BY_KEY) == set(cols.APP_ROOM)
    assert not [k for k in cols.NAME_LIMIT if cols.BY_KEY[k].numeric]
    assert all(cols.NAME_LIMIT[k] >= cols.APP_ROOM[k] for k in cols.NAME_LIMIT)


def natural(keys: list[str], width: int = 10) -> dict[str, int]:
    return {k: width for k in keys}


@pytest.mark.parametrize("available", [20, 40, 61, 90, 200])
def test_fit_drops_lowest_priority_first(available: int) -> None:
    columns = [cols.BY_KEY[k] for k in cols.CLI_COLUMNS]
    widths = natural(cols.CLI_COLUMNS)
    fitted = cols.fit(columns, widths, available)
    shown = {c.key for c in fitted.columns}
    ranks = sorted(cols.PRIORITY.index(k) for k in shown)
    # the shown columns are exactly the most important ones: no gap in the ranking
    wanted = [cols.PRIORITY.index(k) for k in cols.PRIORITY if k in cols.CLI_COLUMNS]
    assert ranks == wanted[: len(ranks)]
    assert sum(fitted.widths) + 2 * (len(fitted.widths) - 1) <= max(available, widths["name"])
    assert fitted.hidden == len(columns) - len(shown)
    # display order is kept
    order = [c.key for c in fitted.columns]
    assert order == [k for k in cols.CLI_COLUMNS if k in shown]


def test_names_shrink_before_a_figure_goes_and_grow_back_into_the_room() -> None:
    columns = [cols.BY_KEY[k] for k in ("name", "gpus", "usd_per_year")]
    widths = {"name": 30, "gpus": 14, "usd_per_year": 9}
    tight = cols.fit(columns, widths, 12 + 2 + 12 + 2 + 9)
    assert [c.key for c in tight.columns] == ["name", "gpus", "usd_per_year"]
    assert tight.widths == (12, 12, 9)
    roomy = cols.fit(columns, widths, 100)
    assert roomy.widths == (30, 14, 9)


def test_skip_moves_right_one_column_at_a_time_and_keeps_the_name() -> None:
    columns = [cols.BY_KEY[k] for k in cols.CLI_COLUMNS]
    widths = natural(cols.CLI_COLUMNS)
    first = cols.fit(columns, widths, 60)
    moved = cols.fit(columns, widths, 60, skip=1)
    assert "name" in {c.key for c in moved.columns}
    assert "gpus" in {c.key for c in first.columns}
    assert "gpus" not in {c.key for c in moved.columns}
    assert len(moved.columns) == len(first.columns)


@pytest.mark.parametrize(
    ("values", "decimals"),
    [
        ([390.95, 2073.4], 0),
        ([120.0, 150.0], 0),
        ([3.5, 99.0], 2),
        ([0.05, 2.0], 3),
        ([0.004, 0.02], 4),
        ([0.0, 12.0, 1500.0], 0),  # a free tier does not pull the column to cents
    ],
)
def test_one_money_format_a_column(values: list[float], decimals: int) -> None:
    assert display.money_decimals(values) == decimals
    shown = [display.usd_fixed(v, decimals=decimals) for v in values if v]
    assert len({s.split(".")[-1].__len__() if "." in s else 0 for s in shown}) == 1


def test_one_co2_unit_a_column() -> None:
    assert display.co2_unit([0.2, 0.9]) == "g"
    assert display.co2_unit([0.9, 1.1]) == "kg"
    assert display.co2_in(0.906, "kg") == "0.9 kg"
    assert display.co2_unit([12_000, 50_000]) == "t"


@pytest.mark.parametrize(
    ("text", "width", "wanted"),
    [
        ("Pay As You Go A100 (40GB)", 30, "Pay As You Go A100 (40GB)"),
        ("Pay As You Go A100 (40GB)", 16, "Pay As You Go…"),
        ("1x RTX 4090 (Community Cloud)", 20, "1x RTX 4090 (Commun…"),
        ("1x RTX 4090 (Community Cloud)", 14, "1x RTX 4090…"),
        ("Pay As You Go L4 *", 10, "Pay As… *"),
        ("g4dn.12xlarge", 8, "g4dn.12…"),
    ],
)
def test_clip_cuts_at_a_word_with_an_ellipsis_and_keeps_markers(
    text: str, width: int, wanted: str
) -> None:
    clipped = display.clip(text, width)
    assert clipped == wanted
    assert len(clipped) <= width
