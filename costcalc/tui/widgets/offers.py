"""The offers table: every cloud offer against the desktop, sortable and filterable.

Columns, cells and sort keys come from costcalc.columns, the table the CLI prints with. The
cheapest offer (the one the verdict uses) is marked with a star; offers whose GPU cannot hold
the run are marked and their run cells say "does not fit".
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from costcalc import columns as cols
from costcalc.columns import Column
from costcalc.compare import COMPARABLE, SCALE_OUT
from costcalc.models import OfferResult
from costcalc.scenario import Calculation

ORDER = (
    "provider",
    "name",
    "gpus",
    "region",
    "usd_per_hour",
    "usd_per_year",
    "break_even_days",
    "run_usd",
    "run_usd_per_items",
    "run_hours",
    "relative_speed",
    "usd_per_batch_item",
    "co2_kg_per_year",
    "run_co2_kg",
    "price_kind",
    "interruption",
    "price_age_days",
)
"""The report's columns, with the figures that decide (cost, break-even, run) first."""
COLUMNS: tuple[Column, ...] = tuple(cols.BY_KEY[key] for key in ORDER)
NARROW_FIRST = ("name", "usd_per_year", "break_even_days", "run_usd", "run_usd_per_items")
NARROW_COLUMNS: tuple[Column, ...] = tuple(
    cols.BY_KEY[key] for key in (*NARROW_FIRST, *(k for k in ORDER if k not in NARROW_FIRST))
)
"""At 80 columns the offer and the figures that decide come first; who sells it scrolls right."""
MARK_COLUMN = "mark"
MAX_WIDTHS = {"name": 22, "gpus": 14}
"""Long plan names would push the figures off screen; the 'why' panel shows them in full."""
CHEAPEST = "★"
DOES_NOT_FIT = "✗"
DESKTOP_ROW = "desktop"
"""The row key of the desktop's own row (shown first with a run)."""


def group_of(result: OfferResult, scale_out_allowed: bool) -> int:
    if result.role == COMPARABLE or (scale_out_allowed and result.role == SCALE_OUT):
        return 0
    return 1 if result.role == SCALE_OUT else 2


def offer_key(result: OfferResult) -> str:
    """A row key that survives recomputation: the same offer keeps its row and the cursor."""
    o = result.offer
    return f"{o.provider}|{o.name}|{o.region}|{o.gpu}|{o.gpu_count}"


class OffersTable(DataTable[Text]):
    """Offers as rows; click a header or press s / S to sort."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "sort_next", "Sort"),
        Binding("S", "sort_reverse", "Reverse", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.sort_column = "usd_per_year"
        self.sort_reverse = False
        self.calc: Calculation | None = None
        self.ctx = cols.Context()
        self._results: dict[str, OfferResult] = {}
        self.shown_columns = COLUMNS

    def on_mount(self) -> None:
        self.border_title = "Offers"
        self._add_columns()

    def _add_columns(self) -> None:
        self.add_column("", key=MARK_COLUMN, width=1)
        for column in self.shown_columns:
            self.add_column(self._title(column), key=column.key, width=MAX_WIDTHS.get(column.key))

    def set_narrow(self, narrow: bool) -> None:
        """Put the deciding figures right after the offer's name when the screen is narrow."""
        wanted = NARROW_COLUMNS if narrow else COLUMNS
        if wanted == self.shown_columns:
            return
        self.shown_columns = wanted
        if not self.columns:  # not mounted yet: on_mount adds them in this order
            return
        keep = self._cursor_key()
        self.clear(columns=True)
        self._add_columns()
        if self.calc is not None:
            self.show(self.calc, keep)

    def _title(self, column: Column) -> Text:
        arrow = ""
        if column.key == self.sort_column:
            arrow = " ▼" if self.sort_reverse else " ▲"
        title = column.title_in(self.ctx)
        return Text(title + arrow, justify="right" if column.numeric else "left")

    def result_for(self, row_key: str | None) -> OfferResult | None:
        return self._results.get(row_key or "")

    @property
    def shown_keys(self) -> list[str]:
        return [str(row.key.value) for row in self.ordered_rows]

    # ------------------------------------------------------------------ rows

    def show(self, calc: Calculation, keep: str | None = None) -> None:
        """Rebuild the rows from a calculation, keeping the cursor on offer `keep`. With a run,
        the desktop's own row comes first: what the run costs on the machine you would buy."""
        self.calc = calc
        best = calc.comparison.best
        rows = list(calc.comparison.offers)
        rows.sort(key=lambda r: cols.sort_key(r, self.sort_column), reverse=self.sort_reverse)
        # What can do the desktop's job comes first, whatever the sort: comparable offers,
        # then scale-out, then the rest (less memory per GPU, fewer GPUs).
        pool = calc.comparison.rules.scale_out
        rows.sort(key=lambda r: group_of(r, pool))
        per_item = [r.run.usd_per_item for r in rows if r.run is not None]
        desk_run = calc.comparison.desktop_run
        if desk_run is not None:
            per_item.append(desk_run.usd_per_item)
        self.ctx = cols.Context(
            now=calc.now, items_unit=cols.items_unit(per_item), money=calc.money
        )
        self._results = {}
        for result in rows:
            key = offer_key(result)
            while key in self._results:  # the same offer listed twice in a price file
                key += "+"
            self._results[key] = result
        self.clear()
        if desk_run is not None:
            self.add_row(*self._desktop_cells(calc), key=DESKTOP_ROW)
        for key, result in self._results.items():
            self.add_row(*self._cells(result, result is best), key=key)
        for column in self.shown_columns:
            self.columns[ColumnKey(column.key)].label = self._title(column)
        self.border_subtitle = f"{len(rows)} offers"
        keys = ([DESKTOP_ROW] if desk_run is not None else []) + list(self._results)
        if keep in keys:
            self.move_cursor(row=keys.index(keep), animate=False)

    def _desktop_cells(self, calc: Calculation) -> list[Text]:
        from costcalc.report import desktop_cells

        cells = desktop_cells(calc, self.shown_columns, self.ctx)
        row = [Text("⌂", style="bold")]
        for column in self.shown_columns:
            row.append(
                Text(
                    cells[column.key], style="italic", justify="right" if column.numeric else "left"
                )
            )
        return row

    def _cells(self, result: OfferResult, cheapest: bool) -> list[Text]:
        cells = cols.cells(result, self.shown_columns, self.ctx)
        pool = self.calc is not None and self.calc.comparison.rules.scale_out
        dim = "dim" if result.fits is False or group_of(result, pool) == 2 else ""
        mark = CHEAPEST if cheapest else (DOES_NOT_FIT if result.fits is False else "")
        row = [Text(mark, style="bold")]
        for column in self.shown_columns:
            row.append(
                Text(cells[column.key], style=dim, justify="right" if column.numeric else "left")
            )
        return row

    # ------------------------------------------------------------------ sorting

    def sort_by(self, column: str, reverse: bool = False) -> None:
        self.sort_column, self.sort_reverse = column, reverse
        if self.calc is not None:
            keep = self._cursor_key()
            self.show(self.calc, keep)

    def _cursor_key(self) -> str | None:
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return str(row_key.value)

    def action_sort_next(self) -> None:
        keys = [c.key for c in self.shown_columns]
        self.sort_by(keys[(keys.index(self.sort_column) + 1) % len(keys)])

    def action_sort_reverse(self) -> None:
        self.sort_by(self.sort_column, not self.sort_reverse)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        column = str(event.column_key.value)
        if column == MARK_COLUMN:
            return
        same = column == self.sort_column
        self.sort_by(column, not self.sort_reverse if same else False)
