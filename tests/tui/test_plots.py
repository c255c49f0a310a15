"""The break-even plots in the running app: readable axes and labels at 80 and 140 columns,
nothing drawn while hidden, and nothing drawn twice for the same curves."""

from __future__ import annotations

import itertools
import re

import pytest
from msgspec.structs import replace
from rich.style import Style
from textual.app import App
from textual.strip import Strip
from textual.visual import Visual, visualize

from costcalc.core.scenario import AppData, evaluate
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.breakeven import BreakEvenView, plotted, short_label
from costcalc.tui.widgets.plots import (
    CumulativeFigure,
    CumulativePlot,
    FigurePlot,
    UtilisationFigure,
    UtilisationPlot,
)
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import wait_until

SETTINGS = Settings(gpu="rtx3090", run_hours=10)


async def drawn(app: App[None], plot: type[FigurePlot]) -> FigurePlot:
    """The plot once it has drawn its first figure (plots mount after the first frame)."""
    await wait_until(app, lambda: any(p.drawn is not None for p in app.screen.query(plot)))
    return app.screen.query_one(plot)


def lines(plot: FigurePlot) -> list[str]:
    return str(plot.render()).splitlines()


def canvas(plot: FigurePlot) -> list[str]:
    """The rows inside the plot's frame, without the frame."""
    rows = lines(plot)
    top = next(i for i, row in enumerate(rows) if "┌" in row)
    bottom = next(i for i, row in enumerate(rows) if "└" in row)
    return [re.split(r"[┤│├]", row, maxsplit=1)[1][:-1] for row in rows[top + 1 : bottom]]


async def test_at_80_columns_the_break_even_label_is_whole(fixed_app_factory: MakeApp) -> None:
    app = fixed_app_factory(SETTINGS)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w", "w")  # at 80 columns the curves open with w: hidden -> why -> curves
        plot = await drawn(app, CumulativePlot)
        main = app.screen
        assert isinstance(main, MainScreen) and main.calc is not None
        best = main.calc.comparison.best
        assert best is not None and best.break_even_days is not None
        days = f"{best.break_even_days:,.0f} d"
        inside = "\n".join(canvas(plot))
        assert f"break-even {days}" in inside or re.search(rf"(?<![\d,]){days}", inside)
        assert not re.search(r"break-even [\d,]*$", inside, re.M), inside  # nothing cut off


async def test_axes_are_round_with_the_currency_symbol(fixed_app_factory: MakeApp) -> None:
    app = fixed_app_factory(Settings(gpu="rtx3090", run_hours=10, currency="EUR"))
    async with app.run_test(size=(140, 45)):
        cumulative = await drawn(app, CumulativePlot)
        utilisation = await drawn(app, UtilisationPlot)
        money = [m.group(1) for row in lines(cumulative) if (m := re.match(r"\s*(\S+)┤", row))]
        assert money and all(re.fullmatch(r"€\d{1,3}(,\d{3})*", label) for label in money), money
        amounts = [int(label[1:].replace(",", "")) for label in money]
        step = amounts[0] - amounts[1]
        assert amounts[-1] == 0 and str(step)[0] in "125" and set(str(step)[1:]) <= {"0"}
        days_axis = lines(cumulative)[-1].split()
        assert days_axis[-1] == "d" and all(re.fullmatch(r"[\d,]+", t) for t in days_axis[:-1])
        assert lines(utilisation)[-1].split() == ["0%", "20%", "40%", "60%", "80%", "100%"]
        assert "you: 15%" in "\n".join(canvas(utilisation))
        assert "3-year horizon" in "\n".join(canvas(utilisation))


async def test_the_legend_names_each_line_at_both_sizes(fixed_app_factory: MakeApp) -> None:
    for size in ((140, 45), (80, 24)):
        app = fixed_app_factory(SETTINGS)
        async with app.run_test(size=size) as pilot:
            if size[0] < 100:
                await pilot.press(
                    "w", "w"
                )  # narrow: the curves open with w (hidden -> why -> curves)
            await drawn(app, CumulativePlot)
            # select another offer than the verdict's, past the desktop's own row under it
            await pilot.press("t", "down", "down")
            await pilot.pause()
            text = str(app.screen.query_one("#plots-legend").render())
            assert text.startswith("⠒⠒ desktop") and "▄▄ " in text and "•• " in text, text
            assert "(cheapest)" in text or "•• ★ " in text, text  # ★ only where room is short
            width = app.screen.query_one("#plots-legend").content_size.width
            assert len(text) <= width


async def test_hidden_plots_wait_and_draw_when_shown(fixed_app_factory: MakeApp) -> None:
    app = fixed_app_factory(SETTINGS)
    async with app.run_test(size=(140, 45)) as pilot:
        plot = await drawn(app, CumulativePlot)
        before = plot.drawn
        await pilot.press("w")  # the Why tab hides the plots
        await pilot.press("u", "6", "0", "enter")
        await pilot.pause()
        assert plot.drawn == before  # nothing drawn while hidden
        await pilot.press("w")
        await pilot.pause()
        assert plot.drawn == plot.figure and plot.drawn != before  # the new curves, once shown


async def test_the_same_curves_are_not_drawn_again(fixed_app_factory: MakeApp) -> None:
    app = fixed_app_factory(SETTINGS)
    async with app.run_test(size=(140, 45)) as pilot:
        plots = [await drawn(app, CumulativePlot), await drawn(app, UtilisationPlot)]
        await pilot.pause()
        counts = [p.drawings for p in plots]
        figures = [p.figure for p in plots]
        recomputed = evaluate(SETTINGS, app.data, FIXED_NOW)  # equal values, new objects
        view = app.screen.query_one(BreakEvenView)
        view.draw(recomputed, recomputed.comparison.best)
        await pilot.pause()
        assert [p.drawings for p in plots] == counts
        assert all(p.figure is f for p, f in zip(plots, figures, strict=True))
        other = evaluate(replace(SETTINGS, **{"utilisation": 0.6}), app.data, FIXED_NOW)
        view.draw(other, other.comparison.best)
        await pilot.pause()
        assert [p.drawings for p in plots] == [n + 1 for n in counts]  # a real change: drawn


def x_tick_labels(plot: FigurePlot, figure: object, width: int, height: int = 15) -> list[str]:
    """The x axis labels plotext prints when `plot` draws `figure` at this size (no app)."""
    plot.plt.clear_figure()
    plot.plt.plotsize(width, height)
    plot.draw_figure(figure, width, height)
    return re.sub(r"\x1b\[[0-9;]*m", "", plot.plt.build()).splitlines()[-1].split()


@pytest.mark.parametrize("utilisation", [0.05, 0.15, 0.6])
def test_no_x_label_is_dropped_at_any_width(fixed_data: AppData, utilisation: float) -> None:
    """plotext silently leaves out a tick label that would touch another: the ticks are
    chosen so that every one is printed, evenly spaced, with the unit on the last."""
    calc = evaluate(replace(SETTINGS, **{"utilisation": utilisation}), fixed_data, FIXED_NOW)
    offers = plotted(calc, calc.comparison.offers[3])
    labels = [short_label(r) for r in offers]
    for plot, figure, unit in (
        (CumulativePlot(), CumulativeFigure.of(calc, offers, labels), "d"),
        (UtilisationPlot(), UtilisationFigure.of(calc, offers, labels), "100%"),
    ):
        for width in range(30, 150, 4):
            shown = x_tick_labels(plot, figure, width)
            assert shown[-1] == unit, (width, shown)
            values = [float(t.rstrip("%").replace(",", "")) for t in shown if t != "d"]
            steps = {b - a for a, b in itertools.pairwise(values)}
            assert values[0] == 0 and len(steps) == 1, (width, shown)


def cells(strips: list[Strip]) -> list[list[tuple[str, Style | None]]]:
    """Each cell's character and style (less Textual's offsets for selecting text)."""
    return [
        [
            (char, segment.style.clear_meta_and_links() if segment.style else None)
            for segment in strip
            for char in segment.text
        ]
        for strip in strips
    ]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("plot_type", [CumulativePlot, UtilisationPlot])
async def test_the_plot_draws_what_plotexts_text_shows(
    app_factory: MakeApp, theme: str, plot_type: type[FigurePlot]
) -> None:
    """The plots draw their lines from plotext's grids; cell for cell, in both themes, that is
    what Textual shows for the ANSI text plotext writes (textual-plotext's way)."""
    app = app_factory(SETTINGS)
    async with app.run_test(size=(140, 45)) as pilot:
        app.theme = theme
        plot = await drawn(app, plot_type)
        await pilot.pause()
        width, height = plot.size
        ours = cells([plot.render_line(y) for y in range(height)])
        text = Visual.to_strips(
            plot, visualize(plot, plot.render()), width, height, plot.visual_style
        )
        assert ours == cells(text)
        assert len({style for row in ours for _, style in row}) >= 2  # a curve, the text
        assert sum(char not in " " for row in ours for char, _ in row) > width * 2
