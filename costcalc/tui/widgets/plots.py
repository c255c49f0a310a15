"""The two break-even plots (textual-plotext). Imported only once the first frame is painted.

Rules kept here:
- a plot is told *what* to draw (`show(figure)`, a small frozen value) and draws it in
  `render`, for the size it has then: so nothing is drawn while the plot is hidden, a figure
  equal to the last one costs nothing, and a resize redraws with ticks and labels that fit;
- axes read like a person would write them: round 1-2-5 ticks, the currency's symbol and
  thousands separators on money, and a label beside a line goes where it fits
  (costcalc.tui.ticks);
- each line keeps one look in both plots and in the legend (`costcalc.tui.widgets.breakeven`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace
from plotext import colorize
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import RenderResult
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from costcalc.core import engine
from costcalc.core.fx import Money
from costcalc.core.models import Assumptions, CloudOffer, DesktopBuild, OfferResult
from costcalc.core.scenario import Calculation
from costcalc.present.report import no_buy
from costcalc.tui import curves, ticks
from costcalc.tui._compat import canvas_grid, plotext_theme_name, set_plot_size
from costcalc.tui.widgets.looks import DESKTOP, OFFERS, Look

TEXT = "default"
"""Labels on the canvas take the widget's own text colour."""

FRAME_ROWS = 4
"""Rows a plot spends outside its canvas: title, top and bottom frame, tick labels."""


def canvas_size(width: int, height: int, y_labels: list[str]) -> tuple[int, int]:
    """Columns and rows plotext leaves for the data: the y labels, the axis and the frame
    take columns; the title, the frame and the x labels take rows."""
    label_width = max((len(label) for label in y_labels), default=0)
    return max(1, width - label_width - 2), max(1, height - FRAME_ROWS)


MOST_Y_TICKS, MOST_X_TICKS = 6, 7
GAP, OVERHANG = 2, 0
"""x labels keep two free columns between them and stay over the canvas: plotext drops a
label that comes closer to another, and pushes one at the right end back over the canvas."""


def y_axis(top: float, rows: int, prefix: str = "") -> tuple[tuple[float, ...], list[str]]:
    """Round ticks from 0 to `top` with a free row between labels, and their labels."""
    found = ticks.spaced_ticks(0.0, top, rows, lambda t: [1] * len(t), MOST_Y_TICKS)
    return found, ticks.tick_labels(found, prefix=prefix)


def x_axis(
    end: float, columns: int, suffix: str = "", unit: str = ""
) -> tuple[tuple[float, ...], list[str]]:
    """Round ticks from 0 to `end` whose labels ('0%' or '1,000', the last one with `unit`
    after it: '1,500 d') all fit under the canvas (GAP, OVERHANG)."""

    def labels(found: tuple[float, ...]) -> list[str]:
        texts = ticks.tick_labels(found, suffix=suffix)
        texts[-1] += unit
        return texts

    found = ticks.spaced_ticks(
        0.0,
        end,
        columns,
        lambda t: [len(label) for label in labels(t)],
        MOST_X_TICKS,
        GAP,
        OVERHANG,
    )
    return found, labels(found)


class OfferLine(Struct, frozen=True):
    """One offer as the plots need it: what it is called and the figures its curves use."""

    label: str
    usd_per_year: float
    break_even_days: float | None
    offer: CloudOffer
    effective_speed: float


def offer_lines(offers: Sequence[OfferResult], labels: Sequence[str]) -> tuple[OfferLine, ...]:
    return tuple(
        OfferLine(label, r.usd_per_year, r.break_even_days, r.offer, r.effective_speed)
        for r, label in zip(offers, labels, strict=True)
    )


class FigurePlot(PlotextPlot):
    """A plotext plot drawn from a value: `show` keeps it, the lines are drawn once per figure,
    size and theme, and only when the plot is on screen (Textual renders nothing hidden).

    The lines are made from plotext's character and colour grids directly (Textual's line
    API), not from the ANSI text plotext writes for a terminal: encoding that text, decoding it
    and laying it out again took two thirds of a plot's 10 ms on every keystroke. Each colour
    triple's style is the one Textual gives the same cell drawn the other way, so both look
    the same (tests/tui/test_plots.py compares them).
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figure: object = None
        """What this plot should show."""
        self.drawn: object = None
        """What it shows: the figure of its last drawing (None before the first)."""
        self.drawings = 0
        """How many times it has drawn (a figure shown twice, or while hidden, is not drawn)."""
        self._drawn_for: tuple[object, ...] | None = None
        self._lines: list[Strip] = []
        self._styles: dict[tuple[object, ...], Style] = {}

    def show(self, figure: object) -> None:
        if figure == self.figure:
            return  # the same curves: nothing to do, not even a repaint
        self.figure = figure
        self.refresh()

    def _build(self) -> str:
        """plotext's grids for the current figure, size and theme; returns its ANSI text."""
        width, height = self.size
        self.plt.clear_figure()
        # the theme first: texts take their background from it when they are placed
        self.plt.theme(plotext_theme_name(self, self.app.theme))
        if self.figure is not None and width > 0 and height > 0:
            self.draw_figure(self.figure, width, height)
        set_plot_size(self.plt, width, height)
        return str(self.plt.build())

    def render(self) -> RenderResult:
        """The plot as plotext's ANSI text (what textual-plotext shows); the widget draws from
        `render_line`, this is kept to check that both look the same."""
        return Text.from_ansi(self._build())

    def render_line(self, y: int) -> Strip:
        key = (self.figure, self.size, self.app.theme, self.visual_style)
        if key != self._drawn_for:
            self._build()
            self._lines = self._strips()
            self._drawn_for = key
            self.drawn = self.figure
            self.drawings += 1
        if y < len(self._lines):
            return self._lines[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)

    def _strips(self) -> list[Strip]:
        grid = canvas_grid(self.plt)
        width = self.size.width
        lines = []
        for row in reversed(range(grid.rows)):
            markers = grid.marker[row]
            cells = list(
                zip(grid.fullground[row], grid.style[row], grid.background[row], strict=True)
            )
            segments = []
            start = 0
            for col in range(1, len(cells) + 1):
                if col == len(cells) or cells[col] != cells[start]:
                    text = "".join(markers[start:col])
                    segments.append(Segment(text, self._style_of(cells[start])))
                    start = col
            lines.append(Strip(segments).adjust_cell_length(width))
        return lines

    def _style_of(self, colors: tuple[object, ...]) -> Style:
        """The style Textual gives a cell of these plotext colours in the ANSI text."""
        key = (*colors, self.visual_style)
        found = self._styles.get(key)
        if found is None:
            fullground, style_name, background = colors
            cell = Text.from_ansi(colorize("x", fullground, style_name, background))
            strip = Visual.to_strips(self, visualize(self, cell), 1, 1, self.visual_style)[0]
            style = next(iter(strip)).style
            # (less the offset Textual notes for selecting text: no one selects a plot)
            found = self._styles[key] = style.clear_meta_and_links() if style else Style.null()
        return found

    def draw_figure(self, figure: object, width: int, height: int) -> None:
        raise NotImplementedError


# --------------------------------------------------------------------------- cumulative cost


def no_break_even(calc: Calculation) -> str | None:
    """Why the desktop has no break-even to draw: it has no Buy (its GPUs cannot hold the job,
    or the build does not work as a desktop: Calculation.decision_reason), or no price."""
    why = no_buy(calc)
    if why is not None:
        return f"No Buy, so no break-even: {why}."
    if calc.desktop.price_usd is None:
        return f"No break-even: no desktop price is known for the {calc.spec.short_name}."
    return None


def draw_note(plt: Plot, note: str, width: int, height: int) -> None:
    """`note` in the middle of an empty plot, wrapped to its width: plotext leaves out a title
    or a text wider than the plot, so a note in the title alone may never be seen."""
    rows = max(1, height - FRAME_ROWS)
    lines = textwrap.wrap(note, max(8, width - 4))[:rows]
    plt.xlim(0.0, 1.0)
    plt.ylim(0.0, 1.0)
    plt.xticks([])
    plt.yticks([])
    for i, line in enumerate(lines):
        y = 0.5 + (len(lines) / 2 - i - 0.5) / rows
        plt.text(line, 0.5, y, alignment="center", color=TEXT)


class CumulativeFigure(Struct, frozen=True):
    money: Money
    desktop_outlay_usd: float
    """The desktop line's start: its price less resale (curves.desktop_outlay_usd)."""
    electricity_usd_per_year: float
    horizon_years: float
    offers: tuple[OfferLine, ...]
    note: str | None = None
    """Why nothing is drawn (no Buy, or no desktop price); None when the curves are."""

    @classmethod
    def of(
        cls, calc: Calculation, offers: Sequence[OfferResult], labels: Sequence[str]
    ) -> CumulativeFigure:
        outlay = curves.desktop_outlay_usd(calc)  # None: no price, so no line of the desktop
        note = no_break_even(calc)
        return cls(
            calc.money,
            0.0 if outlay is None else outlay,
            calc.comparison.desktop.electricity_usd_per_year,
            calc.assumptions.horizon_years,
            offer_lines(offers, labels) if outlay is not None and note is None else (),
            note,
        )

    def lines(self, end_days: float) -> list[curves.Cumulative]:
        return [
            curves.cumulative_curve(
                self.desktop_outlay_usd,
                self.electricity_usd_per_year,
                o.usd_per_year,
                o.break_even_days,
                end_days,
            )
            for o in self.offers
        ]


class CumulativePlot(FigurePlot):
    """Money spent after d days: the desktop's line starts at its price less resale, the
    cloud's at zero."""

    def draw_figure(self, figure: object, width: int, height: int) -> None:
        assert isinstance(figure, CumulativeFigure)
        plt, money = self.plt, figure.money
        plt.title(f"Cumulative cost ({money.code})")
        if figure.note is not None:
            draw_note(plt, figure.note, width, height)
        if not figure.offers:
            return
        rows = height - FRAME_ROWS
        end = curves.cumulative_end_days(figure.offers[0].break_even_days, figure.horizon_years)
        lines = figure.lines(end)
        top = max(max(lines[0].desktop_usd), *(max(c.cloud_usd) for c in lines))
        y_ticks, y_labels = y_axis(money.of(top), rows, prefix=money.symbol)
        columns, rows = canvas_size(width, height, y_labels)
        x_ticks, x_labels = x_axis(end, columns, unit=" d")

        days = list(lines[0].days)
        plot_line(plt, days, [money.of(v) for v in lines[0].desktop_usd], DESKTOP)
        for curve, look in zip(lines, OFFERS, strict=False):
            plot_line(plt, days, [money.of(v) for v in curve.cloud_usd], look)
        plt.xticks(list(x_ticks), x_labels)
        plt.yticks(list(y_ticks), y_labels)
        plt.xlim(0.0, end)
        plt.ylim(0.0, money.of(top))

        crossing, at_usd = lines[0].crossing_day, lines[0].crossing_usd
        if crossing is None or crossing > end:
            return
        plt.vline(crossing)
        if at_usd is not None:
            plt.scatter([crossing], [money.of(at_usd)], marker="x", color=OFFERS[0].rgb)
        days_text = f"{crossing:,.0f} d"
        text, column, side = ticks.beside(
            f"break-even {days_text}", days_text, crossing, 0.0, end, columns
        )
        # Everything rises to the right: right of the crossing the bottom row is free, left of
        # it the top row is.
        row = 0.5 if side == "left" else rows - 0.5
        at = ticks.x_of(column, 0.0, end, columns)
        y = money.of(top) * row / max(1, rows)
        plt.text(text, at, y, alignment=side, color=OFFERS[0].rgb)


def plot_line(plt: Plot, xs: list[float], ys: list[float], look: Look) -> None:
    plt.plot(xs, ys, marker=look.marker, color=look.rgb)


# --------------------------------------------------------------------------- by utilisation


class UtilisationFigure(Struct, frozen=True):
    desktop: DesktopBuild
    assumptions: Assumptions
    """With utilisation fixed at 1: the curves do not depend on it (see `utilisation`)."""
    utilisation: float
    offers: tuple[OfferLine, ...]
    note: str | None = None
    """Why no curve is drawn (no Buy, or no desktop price)."""

    @classmethod
    def of(
        cls, calc: Calculation, offers: Sequence[OfferResult], labels: Sequence[str]
    ) -> UtilisationFigure:
        a = calc.assumptions
        note = no_break_even(calc)
        return cls(
            calc.desktop,
            replace(a, **{"utilisation": 1.0}),
            a.utilisation,
            offer_lines(offers, labels) if note is None else (),
            note,
        )


class UtilisationPlot(FigurePlot):
    """Break-even days at every utilisation; the user's utilisation and horizon marked."""

    def draw_figure(self, figure: object, width: int, height: int) -> None:
        assert isinstance(figure, UtilisationFigure)
        plt, a = self.plt, figure.assumptions
        plt.title("Break-even days by utilisation")
        if figure.note is not None:
            draw_note(plt, figure.note, width, height)
            return
        horizon_days = a.horizon_years * engine.DAYS_PER_YEAR
        rows = height - FRAME_ROWS
        cap = horizon_days * 3
        y_ticks, y_labels = y_axis(cap, rows)
        columns, rows = canvas_size(width, height, y_labels)
        crosses_at: float | None = None  # where the first offer's curve meets the horizon
        for line, look in zip(figure.offers, OFFERS, strict=False):
            curve = curves.utilisation_curve(figure.desktop, a, line.offer, line.effective_speed)
            points = [
                (u * 100, min(d, cap))
                for u, d in zip(curve.utilisation, curve.break_even_days, strict=True)
                if d is not None
            ]
            if points:
                plot_line(plt, [x for x, _ in points], [y for _, y in points], look)
            if line is figure.offers[0]:
                crosses_at = next((x for x, y in points if y <= horizon_days), None)
        x_ticks, x_labels = x_axis(100.0, columns, suffix="%")
        plt.xticks(list(x_ticks), x_labels)
        plt.yticks(list(y_ticks), y_labels)
        plt.xlim(0.0, 100.0)
        plt.ylim(0.0, cap)
        one_row = cap / max(1, rows)
        plt.hline(horizon_days)
        horizon = f"{a.horizon_years:g}-year horizon"
        # The curve is above the horizon line left of where it comes down to it, and below it
        # to the right: the label goes under the line at the left end, or over it at the right,
        # whichever end is further from that point.
        left = crosses_at is None or crosses_at > 50
        end, row = (0.0, -one_row) if left else (100.0, one_row)
        text, column, side = ticks.beside(
            horizon, f"{a.horizon_years:g} y", end, 0.0, 100.0, columns
        )
        at = ticks.x_of(column, 0.0, 100.0, columns)
        plt.text(text, at, horizon_days + row, alignment=side, color=TEXT)
        u_pct = figure.utilisation * 100
        plt.vline(u_pct)
        current = figure.offers[0].break_even_days if figure.offers else None
        if current is not None:
            plt.scatter([u_pct], [min(current, cap)], marker="x", color=OFFERS[0].rgb)
        you = f"you: {u_pct:.0f}%"
        text, column, side = ticks.beside(you, f"{u_pct:.0f}%", u_pct, 0.0, 100.0, columns)
        at = ticks.x_of(column, 0.0, 100.0, columns)
        plt.text(text, at, cap - one_row * 0.5, alignment=side, color=TEXT)
