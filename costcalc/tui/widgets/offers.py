"""The offers table: the verdict's offer pinned on top, one row per provider x GPU x tier below.

A Line API widget: it formats only the lines on screen, so a new calculation with 5,000 offers
costs the grouping and ordering (costcalc.tui.rows, a few ms) plus some thirty rows of cells,
not a rebuilt table. Columns come from costcalc.present.columns and fit the width by the same
priorities the CLI uses: Left and Right move one column at a time to the ones that did not fit.

Keys: Enter opens or folds a row's other tiers and regions, `a` shows every offer, `1`-`9` sort
by the n-th column shown (again: reversed), `0` puts the best first, `s` / `S` step through the
sorts (or click a header); arrows, j / k, Page Up/Down, Home/End move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from operator import attrgetter
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip

from costcalc.core.models import OfferResult
from costcalc.core.scenario import Calculation
from costcalc.present import columns as cols
from costcalc.present import display, marks
from costcalc.present.columns import INF, Column
from costcalc.present.export import ExportRow, desktop_values, offer_values
from costcalc.present.report import desktop_cells, table_context
from costcalc.tui import rows as tables
from costcalc.tui._compat import SteadyScrollbars
from costcalc.tui.rows import Row, View, offer_key

ORDER = cols.APP_COLUMNS
"""Display order, left to right; which of them show depends on the width (columns.PRIORITY)."""
ROOM = cols.APP_ROOM
NAME_LIMIT = cols.NAME_LIMIT
MARK_WIDTH = 2
GAP = 1
SAMPLE_ROWS = 30
"""Rows whose cells size the columns (with the floors in ROOM): the first screen's worth."""
SORT_KEYS = range(1, 10)
"""Digit n sorts by the n-th column on screen, left to right."""
CHEAPEST = marks.VERDICT
NO_FIT = marks.NO_FIT
FOLDED, OPEN = "▸", "▾"
TITLE = "Offers"


_BATCH = attrgetter("usd_per_batch_item")
_NAME = attrgetter("offer.name")


def _finite_sort(sort: Callable[[OfferResult], Any], result: OfferResult) -> Any:
    """A column's sort value, with 'never' and 'does not fit' (infinite) below every figure."""
    value = sort(result)
    return -INF if value == INF else value


class OffersTable(SteadyScrollbars, can_focus=True):
    """The comparison's offers, folded, sorted and fitted to the width.

    Columns are fitted when the width for them changes (a resize, a scrollbar that comes or
    goes) or the rows do, never while painting: the border's subtitle counts the columns left
    out, and a subtitle changed while painting shows one frame late."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "offers--header",
        "offers--cursor",
        "offers--even",
        "offers--section",
        "offers--pinned",
    }

    DEFAULT_CSS = """
    OffersTable {
        overflow-x: hidden;
        background: $surface;
        color: $foreground;
        & > .offers--header { text-style: bold; background: $panel; color: $foreground; }
        & > .offers--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .offers--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .offers--even { background: $surface-lighten-1 50%; }
        &:dark > .offers--even { background: $surface-darken-1 40%; }
        & > .offers--section { color: $text-muted; text-style: italic; }
        & > .offers--pinned { background: $secondary-muted; color: $foreground; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
        Binding("j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("left", "shift(-1)", "Columns left", show=False),
        Binding("right", "shift(1)", "Columns right", show=False),
        Binding("enter", "toggle_group", "Open"),
        Binding("a", "toggle_all", "All"),
        Binding("s", "sort_next", "Sort"),
        Binding("S", "sort_reverse", "Reverse", show=False),
        *(
            Binding(str(n), f"sort_column({n})", f"Sort by column {n}", show=False)
            for n in SORT_KEYS
        ),
        Binding("0", "sort_column(0)", "Best first", show=False),
    ]

    class Highlighted(Message):
        """The row under the cursor changed (or was recomputed)."""

        def __init__(self, key: str | None, result: OfferResult | None) -> None:
            super().__init__()
            self.key = key
            self.result = result

    def __init__(self, *, id: str | None = None, labels: Mapping[str, str] | None = None) -> None:
        super().__init__(id=id)
        self.labels = dict(labels or {})
        self.calc: Calculation | None = None
        self.view = View((), (), 0, 0)
        self.sort_column: str | None = None
        """None: best first (the cheapest of each provider, then by cost)."""
        self.sort_reverse = False
        self.expanded: set[str] = set()
        self.show_all = False
        self.skip = 0
        self.cursor = 0
        self.ctx = cols.Context()
        self.candidates: tuple[Column, ...] = ()
        self.priority: tuple[str, ...] = cols.PRIORITY
        """Which columns a narrow table keeps first: with a run, $ a run before $ a year."""
        self.fitted = cols.Fitted((), (), 0)
        self._natural: dict[str, int] = {}
        self._segments: dict[str, list[Segment]] = {}
        self._fitted_for: tuple[int, int] | None = None

    def on_mount(self) -> None:
        self.border_title = TITLE

    # ------------------------------------------------------------------ data in

    def show(self, calc: Calculation, reset: bool = True) -> None:
        """Show a new calculation. After an input changes (`reset`), the cursor goes back to the
        verdict's row and the list to its top; a re-sort keeps the row under the cursor."""
        keep = None if reset else self.cursor_key
        self.calc = calc
        run = calc.workload.run_hours is not None
        self.ctx = table_context(calc, calc.comparison.offers, self.labels)
        self.priority = cols.RUN_PRIORITY if run else cols.PRIORITY
        self.candidates = cols.shown(
            cols.APP_RUN_COLUMNS if run else ORDER,
            run=run,
            # (map and attrgetter: C loops over 5,000 offers, not a generator's Python frames)
            batch=set(map(_BATCH, calc.comparison.offers)) != {None},
            items=calc.workload.items_per_run is not None
            and cols.items_column_adds(calc.workload.items_per_run, self.ctx.items_unit),
            target=calc.scenario.target_batch != "same",
        )
        if self.sort_column is not None and self.sort_column not in {
            c.key for c in self.candidates
        }:
            self.sort_column = None
        self._rebuild(keep, refit=True)
        if reset:
            self._scroll_y(0)

    def _rebuild(self, keep: str | None, refit: bool = False) -> None:
        """Rows for the current sort and folds; `refit` (a new calculation) sizes the columns
        again. A sort or a fold keeps them: the digit keys name columns by their place, so a
        sort must not move or swap them."""
        calc = self.calc
        if calc is None:
            return
        self.view = tables.build(
            calc.comparison,
            run=calc.workload.run_hours is not None,
            sort=self.sort_column,
            reverse=self.sort_reverse,
            expanded=self.expanded,
            show_all=self.show_all,
            desktop_row=calc.comparison.desktop_run is not None,
        )
        self._segments = {}
        if refit or not self._natural:
            self._natural = self._natural_widths()
            self._fitted_for = None
        self._fit()
        self._subtitle()  # the order it names, whether or not the columns were fitted again
        self._title()
        rows = self.view.all_rows()
        keys = [row.key for row in rows]
        if keep in keys:
            self.cursor = keys.index(keep)
        else:
            verdict = next(
                (i for i, r in enumerate(rows) if r.kind == "offer" and self._is_best(r)), None
            )
            self.cursor = verdict if verdict is not None else self._next_selectable(0, 1)
        self.virtual_size = self._virtual_size()
        self._scroll_to_cursor()
        self.refresh()
        self._announce()

    # ------------------------------------------------------------------ columns

    def _natural_widths(self) -> dict[str, int]:
        """Widths from the titles, the floors and the first screens' cells; names from every
        offer (their length is known without formatting anything)."""
        widths = {
            c.key: max(ROOM.get(c.key, 6), len(c.title_in(self.ctx)) + 2) for c in self.candidates
        }
        sample = [r for r in self.view.all_rows()[:SAMPLE_ROWS] if r.kind != "section"]
        sample += self._extremes()
        for row in sample:
            for key, text in self.cell_text_all(row).items():
                if text == display.DOES_NOT_FIT:
                    continue  # shown as "no fit" where "does not fit" has no room
                if key in widths and len(text) > widths[key]:
                    widths[key] = len(text)
        offers = self.calc.comparison.offers if self.calc is not None else ()
        if offers:
            widths["name"] = max(widths.get("name", 0), max(map(len, map(_NAME, offers))) + 2)
        for key, limit in NAME_LIMIT.items():
            if key in widths:
                widths[key] = min(widths[key], limit)
        return widths

    def _extremes(self) -> list[Row]:
        """The row with each figure's largest value: whatever the sort, the widest figures on
        screen are its or the first rows' (a column shares one number format, so the largest
        value is the longest). Rows, not offers: a sort reorders the same rows, and there are
        a tenth as many (1.5 ms for 485 offers, every offer; 0.6 ms, every row)."""
        fitting = [
            r.result
            for r in self.view.all_rows()
            if r.result is not None and r.result.fits is not False
        ]
        if not fitting:
            return []
        picked: dict[int, OfferResult] = {}
        for column in self.candidates:
            if column.numeric:
                widest = max(fitting, key=partial(_finite_sort, column.sort))
                picked[id(widest)] = widest
        return [Row(offer_key(r), result=r) for r in picked.values()]

    def _fit(self) -> None:
        width = self.scrollable_content_region.width or self.size.width
        if self._fitted_for == (width, self.skip):
            return
        available = max(width - MARK_WIDTH - GAP - 1, 10)
        self.fitted = cols.fit(
            self.candidates,
            self._natural,
            available,
            gap=GAP,
            skip=self.skip,
            priority=self.priority,
        )
        self._fitted_for = (width, self.skip)
        self._segments = {}
        self._subtitle()  # it counts the columns left out

    def on_resize(self) -> None:
        self._fitted_for = None
        self._fit()
        self.virtual_size = self._virtual_size()
        self.refresh()

    def _virtual_size(self) -> Size:
        """The lines to scroll through; no width, as the table never scrolls sideways (its
        columns are fitted to its width): a new width is then no new virtual size, which would
        lay the screen out once more."""
        return Size(0, self._top + len(self.view.rows))

    def watch_show_vertical_scrollbar(self) -> None:
        """The scrollbar takes its column from the table's width (no resize is sent)."""
        self._fit()
        self.refresh()

    # ------------------------------------------------------------------ rendering

    @property
    def _top(self) -> int:
        """Lines that never scroll: the header and the pinned rows."""
        return 1 + len(self.view.pinned)

    def _is_best(self, row: Row) -> bool:
        best = self.calc.comparison.best if self.calc is not None else None
        return best is not None and row.result is best

    def _cells(self, row: Row) -> dict[str, str]:
        """The cells of the columns on screen."""
        return self.cell_text_all(row, self.fitted.columns)

    def _mark(self, row: Row) -> str:
        if row.kind == "desktop":
            return "⌂ "
        first = " "
        if self._is_best(row):
            first = CHEAPEST
        elif row.result is not None and row.result.fits is False:
            first = NO_FIT
        elif row.result is not None and self.calc is not None:
            first = marks.mark(row.result, self.calc.comparison)
        second = " "
        if row.folded:
            second = OPEN if row.expanded else FOLDED
        return first + second

    def _row_segments(self, row: Row, width: int) -> list[Segment]:
        cached = self._segments.get(row.key)
        if cached is not None:
            return cached
        if row.kind == "section":
            text = f" {row.title} "
            segments = [Segment("──" + text + "─" * max(width - len(text) - 2, 0))]
            self._segments[row.key] = segments
            return segments
        cells = self._cells(row)
        section = "comparable"
        if row.result is not None and self.calc is not None:
            section = tables.section_of(row.result, self.calc.comparison.rules.scale_out)
        faint = section in ("smaller", "unfit")
        style = Style(dim=faint, bold=self._is_best(row), italic=row.kind == "desktop")
        segments = [Segment(self._mark(row), Style(bold=True))]
        for column, col_width in zip(self.fitted.columns, self.fitted.widths, strict=True):
            text = cells.get(column.key, "-")
            if column.key == "name" and row.member:
                text = "  " + text
            if column.numeric:
                if len(text) > col_width and text == display.DOES_NOT_FIT:
                    text = "no fit"
                text = display.clip(text, col_width).rjust(col_width)
            else:
                text = display.clip(text, col_width).ljust(col_width)
            segments.append(Segment(" " * GAP))
            segments.append(Segment(text, style))
        self._segments[row.key] = segments
        return segments

    def _header_segments(self) -> list[Segment]:
        segments = [Segment("◂ " if self.skip else "  ")]
        for column, col_width in zip(self.fitted.columns, self.fitted.widths, strict=True):
            title = column.title_in(self.ctx)
            if column.key == self.sort_column:
                title += " ▼" if self.sort_reverse else " ▲"
            title = display.clip(title, col_width)
            segments.append(Segment(" " * GAP))
            segments.append(
                Segment(title.rjust(col_width) if column.numeric else title.ljust(col_width))
            )
        if self.fitted.hidden:
            segments.append(Segment(" ▸"))
        return segments

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self.rich_style
        if y == 0:
            style = self.get_component_rich_style("offers--header")
            return (
                Strip(self._header_segments())
                .apply_style(base + style)
                .adjust_cell_length(width, base + style)
                .crop(0, width)
            )
        pinned = self.view.pinned
        if y < self._top:
            index = y - 1
            row = pinned[index]
        else:
            position = int(self.scroll_offset.y) + y - self._top
            if position >= len(self.view.rows):
                return Strip.blank(width, base)
            index = len(pinned) + position
            row = self.view.rows[position]
        if index == self.cursor:
            style = base + self.get_component_rich_style("offers--cursor")
        elif row.kind == "section":
            style = base + self.get_component_rich_style("offers--section")
        elif index < len(pinned):
            style = base + self.get_component_rich_style("offers--pinned")
        elif index % 2:
            style = base + self.get_component_rich_style("offers--even")
        else:
            style = base
        segments = self._row_segments(row, width)
        return Strip(segments).apply_style(style).adjust_cell_length(width, style).crop(0, width)

    # ------------------------------------------------------------------ cursor

    @property
    def rows(self) -> tuple[Row, ...]:
        return self.view.all_rows()

    @property
    def cursor_row(self) -> Row | None:
        rows = self.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    @property
    def cursor_key(self) -> str | None:
        row = self.cursor_row
        return row.key if row is not None else None

    def result_for(self, key: str | None) -> OfferResult | None:
        for row in self.rows:
            if row.key == key:
                return row.result
        return None

    def row_for_offer(self, key: str) -> Row | None:
        """The row showing the offer with `offer_key` `key`: its own, or its group's head when
        it is the group's cheapest (folded or not)."""
        for row in self.rows:
            if row.result is not None and offer_key(row.result) == key:
                return row
        return None

    @property
    def shown_keys(self) -> list[str]:
        """Keys of the offer rows, top to bottom (pinned first; sections left out)."""
        return [row.key for row in self.rows if row.kind != "section"]

    def cell_text(self, key: str, column: str) -> str:
        """A cell as the table formats it (every candidate column, shown or not)."""
        for row in self.rows:
            if row.key == key and row.kind != "section":
                return self.cell_text_all(row)[column]
        raise KeyError(key)

    def _next_selectable(self, start: int, step: int) -> int:
        rows = self.rows
        i = start
        while 0 <= i < len(rows):
            if rows[i].selectable:
                return i
            i += step
        return max(0, min(start, len(rows) - 1))

    def _move_to(self, index: int, step: int) -> None:
        rows = self.rows
        if not rows:
            return
        index = max(0, min(index, len(rows) - 1))
        found = self._next_selectable(index, step)
        if not rows[found].selectable:
            found = self._next_selectable(index, -step)
        if found != self.cursor:
            old, self.cursor = self.cursor, found
            if self._scroll_to_cursor():
                self.refresh()
            else:  # only the two rows whose look changed: what the terminal is sent
                lines = [self._line_of(old), self._line_of(found)]
                width = self.scrollable_content_region.width or self.size.width
                self.refresh(*(Region(0, y, width, 1) for y in lines if y is not None))
            self._announce()

    def _line_of(self, index: int) -> int | None:
        """The line on screen (as render_line counts them) of row `index`; None when it is
        scrolled out of sight."""
        pinned = len(self.view.pinned)
        if index < pinned:
            return 1 + index
        y = self._top + index - pinned - int(self.scroll_offset.y)
        return y if self._top <= y < self.scrollable_content_region.height else None

    def _scroll_to_cursor(self) -> bool:
        """Scroll so that the cursor's row shows; whether that scrolled."""
        pinned = len(self.view.pinned)
        position = self.cursor - pinned
        if position < 0:
            return False
        body = max(self.scrollable_content_region.height - self._top, 1)
        top = int(self.scroll_offset.y)
        if position - 1 < top:  # show the section title above the first row of a section
            return self._scroll_y(max(position - 1, 0))
        if position >= top + body:
            return self._scroll_y(position - body + 1)
        return False

    def _scroll_y(self, y: int) -> bool:
        """Scroll to row `y`; staying put costs nothing (a scroll asks the screen for another
        layout pass, a whole frame, even to where it already is). Whether it scrolled."""
        if int(self.scroll_offset.y) != y or self.scroll_target_y != y:
            self.scroll_to(y=y, animate=False, immediate=True)
            return True
        return False

    def _announce(self) -> None:
        row = self.cursor_row
        self.post_message(self.Highlighted(row.key if row else None, row.result if row else None))

    def action_move(self, step: int) -> None:
        self._move_to(self.cursor + step, step)

    def action_page(self, step: int) -> None:
        body = max(self.scrollable_content_region.height - self._top, 1)
        self._move_to(self.cursor + step * body, step)

    def action_edge(self, step: int) -> None:
        self._move_to(0 if step < 0 else len(self.rows) - 1, -step)

    def action_shift(self, step: int) -> None:
        """Move the columns one at a time: right hides the most important column after the
        offer's name and shows the next one that did not fit; left brings it back."""
        limit = max(len(self.candidates) - 2, 0)
        skip = max(0, min(self.skip + step, limit))
        if step > 0 and not self.fitted.hidden:
            return
        if skip != self.skip:
            self.skip = skip
            self._fit()
            self.refresh()

    def action_toggle_group(self) -> None:
        row = self.cursor_row
        if row is None or row.kind != "offer" or self.calc is None:
            return
        group = tables.fold_key(row.result) if row.result is not None else None
        if group is None:
            return
        if row.member:
            self.expanded.discard(group)
            self._rebuild(tables.head_key(group), refit=True)
            return
        if not row.folded:
            return
        if group in self.expanded:
            self.expanded.discard(group)
        else:
            self.expanded.add(group)
        self._rebuild(row.key, refit=True)

    def action_toggle_all(self) -> None:
        self.show_all = not self.show_all
        if not self.show_all:
            self.expanded.clear()
        self._rebuild(self.cursor_key, refit=True)

    # ------------------------------------------------------------------ sorting

    def sort_by(self, column: str | None, reverse: bool = False) -> None:
        self.sort_column, self.sort_reverse = column, reverse
        self._rebuild(self.cursor_key)

    def action_sort_next(self) -> None:
        """Best first, then the figures on screen by importance, then the names."""
        shown = sorted(
            self.fitted.columns,
            key=lambda c: (not c.numeric, self.priority.index(c.key)),
        )
        keys: list[str | None] = [None, *(c.key for c in shown)]
        current = keys.index(self.sort_column) if self.sort_column in keys else 0
        self.sort_by(keys[(current + 1) % len(keys)])

    def action_sort_column(self, n: int) -> None:
        """0: best first; n: the n-th column on screen, cheapest / smallest / A first, and
        reversed when it is already the sort."""
        if n == 0:
            self.sort_by(None)
            return
        shown = self.fitted.columns
        if not 1 <= n <= len(shown):
            return
        key = shown[n - 1].key
        self.sort_by(key, not self.sort_reverse if key == self.sort_column else False)

    def sort_keys(self) -> list[tuple[str, str]]:
        """The digit of each column on screen and its title, for the help."""
        return [
            (str(n), column.title_in(self.ctx))
            for n, column in zip(SORT_KEYS, self.fitted.columns, strict=False)
        ]

    def action_sort_reverse(self) -> None:
        if self.sort_column is not None:
            self.sort_by(self.sort_column, not self.sort_reverse)

    # ------------------------------------------------------------------ mouse

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            x = MARK_WIDTH
            for column, col_width in zip(self.fitted.columns, self.fitted.widths, strict=True):
                x += GAP
                if x <= offset.x < x + col_width:
                    same = column.key == self.sort_column
                    self.sort_by(column.key, not self.sort_reverse if same else False)
                    return
                x += col_width
            return
        if offset.y < self._top:
            self._move_to(offset.y - 1, 1)
        else:
            position = int(self.scroll_offset.y) + offset.y - self._top
            if position < len(self.view.rows):
                self._move_to(len(self.view.pinned) + position, 1)

    # ------------------------------------------------------------------ words

    def _title(self) -> None:
        """'Offers', with the legend of the † mark while a row of the view carries it (the
        help, `?`, has every mark's)."""
        calc = self.calc
        aside = calc is not None and any(
            row.result is not None and marks.set_aside(row.result, calc.comparison)
            for row in self.view.all_rows()
        )
        self.border_title = f"{TITLE} · {marks.SET_ASIDE} left out as stale" if aside else TITLE

    def _subtitle(self) -> None:
        view = self.view
        run = self.calc is not None and self.calc.workload.run_hours is not None
        if self.sort_column is None:
            order = "best first by $/run" if run else "best first"
        else:
            title = cols.BY_KEY[self.sort_column].title_in(self.ctx)
            order = f"by {title}" + (", reversed" if self.sort_reverse else "")
        if self.show_all:
            shown = f"all {view.offers:,} offers"
        else:
            shown = f"{view.groups:,} rows for {view.offers:,} offers"
        more = f" · {self.fitted.hidden} more columns →" if self.fitted.hidden else ""
        self.border_subtitle = f"{shown} · {order}{more}"

    # ------------------------------------------------------------------ export

    def export_rows(self) -> list[ExportRow]:
        """The rows as shown (pinned first, open groups open): every column's cell, its figures
        as numbers, and which part of the table each row is in."""
        out: list[ExportRow] = []
        part = ""
        calc = self.calc
        for row in self.rows:
            if row.kind == "section":
                part = row.title
                continue
            cells = self.cell_text_all(row)
            if row.kind == "desktop" and calc is not None:
                out.append(ExportRow("your desktop", cells, desktop_values(calc, self.ctx)))
                continue
            assert row.result is not None
            where = "verdict" if self._is_best(row) else part
            values = offer_values(row.result, self.candidates, self.ctx)
            out.append(ExportRow(where, cells, values))
        return out

    def cell_text_all(self, row: Row, columns: tuple[Column, ...] | None = None) -> dict[str, str]:
        """A row's cells, of every candidate column (or of `columns`)."""
        if row.kind == "desktop" and self.calc is not None:
            return desktop_cells(self.calc, self.candidates, self.ctx)
        assert row.result is not None
        return cols.cells(row.result, columns or self.candidates, self.ctx)
