"""The break-even plots: cumulative cost over days, and break-even days against utilisation.

The curves come from `costcalc.tui.curves` (engine and compare); costcalc.tui.widgets.plots
draws them; this module places them under one legend, and gives each line the look it keeps
in both plots: the desktop a thin braille line, the selected offer a thick block line, the
cheapest a dotted one, each in its own colour.
"""

from __future__ import annotations

from functools import cache

from textual.app import ComposeResult, RenderResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.widget import MountError, Widget
from textual.widgets import Static

from costcalc.core.models import OfferResult
from costcalc.core.scenario import AppData, Calculation
from costcalc.providers.registry import short_labels
from costcalc.tui.ticks import shorten
from costcalc.tui.widgets.looks import DESKTOP, OFFERS, Look


@cache
def _short_providers() -> dict[str, str]:
    labels: dict[str, str] = short_labels()
    return labels


def short_label(result: OfferResult) -> str:
    """'AWS spot g5.xlarge': the provider as the offers table names it, and the offer."""
    provider = result.offer.provider
    return f"{_short_providers().get(provider, provider)} {result.offer.name}"


def plotted(calc: Calculation, selected: OfferResult | None) -> list[OfferResult]:
    """The offers the plots draw: the selected one, then the cheapest if it is another."""
    best = calc.comparison.best
    offers = [r for r in (selected, best) if r is not None]
    if len(offers) == 2 and offers[0] == offers[1]:
        offers.pop()
    return offers


Entry = tuple[Look, str, str]
"""A legend entry: the line's look, what it is, and its role ('' for the desktop)."""


class Legend(Widget):
    """One line naming each curve beside a sample of its look; offer names are shortened so
    the line fits its width, never their roles."""

    DEFAULT_CSS = """
    Legend { height: 1; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: tuple[Entry, ...] = ((DESKTOP, "desktop", ""),)

    def show(self, entries: tuple[Entry, ...]) -> None:
        if entries != self.entries:
            self.entries = entries
            self.refresh()

    def render(self) -> RenderResult:
        return legend(self.entries, self.content_size.width or 80)


def legend(entries: tuple[Entry, ...], width: int) -> Content:
    """'⠒⠒ desktop   ▄▄ RunPod 1x RTX 4090 (selected)   •• Colab T4 (cheapest)' in `width`;
    where that leaves too little of the names, the roles go and the cheapest is starred as in
    the offers table: '⠒⠒ desktop  ▄▄ RunPod 1x RTX…  •• ★ Colab T4'."""
    names = len(entries) - 1
    for gap, words in (("   ", True), ("  ", False)):
        tags = [_tag(role, words) for _, _, role in entries]
        fixed = sum(len(look.sample) + 1 for look, _, _ in entries) + sum(map(len, tags))
        fixed += len(gap) * names + len(entries[0][1])
        each = (width - fixed) // names if names else 0
        if not names or each >= 16:
            break
    parts: list[tuple[str, str] | str] = []
    for i, ((look, name, _), tag) in enumerate(zip(entries, tags, strict=True)):
        shown = name if i == 0 else shorten(name, max(4, each))
        text = f"{shown}{tag}" if words else f"{tag}{shown}"
        parts += [gap if i else "", (look.sample, look.style), f" {text}"]
    return Content.assemble(*parts)


def _tag(role: str, words: bool) -> str:
    """' (cheapest)' after a name, or the table's '★ ' before it when room is short."""
    if not role:
        return ""
    if words:
        return f" ({role})"
    return "★ " if role == "cheapest" else ""


def legend_entries(offers: list[OfferResult], best: OfferResult | None) -> tuple[Entry, ...]:
    entries: list[Entry] = [(DESKTOP, "desktop", "")]
    for result, look in zip(offers, OFFERS, strict=False):
        entries.append((look, short_label(result), "cheapest" if result == best else "selected"))
    return tuple(entries)


class BreakEvenView(Vertical):
    """Both plots side by side under one legend, for the selected offer and the cheapest one.

    The plots are mounted right after the first frame (see costcalc.tui.widgets.plots), so the
    offers and the verdict with its break-even figure paint first; a drawing asked for before
    then is kept and made as soon as the plots exist. `draw` only hands each plot a small value
    describing its figure: a plot draws in its own render, so a hidden plot costs nothing and an
    unchanged figure is not drawn again.
    """

    DEFAULT_CSS = """
    BreakEvenView #plots-row { height: 1fr; }
    """

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self._drawn: tuple[Calculation, OfferResult | None] | None = None
        self._plots_mounted = False
        self._show_utilisation = True

    def compose(self) -> ComposeResult:
        yield Legend(id="plots-legend")
        with Horizontal(id="plots-row"):
            yield Static("drawing the break-even curves...", id="plots-placeholder")

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_plots)

    async def _mount_plots(self) -> None:
        """Swap the placeholder for the plots, unless the app is closing meanwhile: a user who
        quits right after start must not see a traceback from a plot mounting into nothing."""
        # plotext, after the first frame (costcalc.tui.widgets.plots)
        from costcalc.tui.widgets.plots import CumulativePlot, UtilisationPlot

        if not self.is_attached or getattr(self.app, "_exit", False) or not self.app.is_running:
            return
        utilisation = UtilisationPlot(id="utilisation-plot")
        utilisation.display = self._show_utilisation
        try:
            await self.query_one("#plots-placeholder").remove()
            await self.query_one("#plots-row").mount(
                CumulativePlot(id="cumulative-plot"), utilisation
            )
        except (MountError, NoMatches):
            return  # the view went away while the plots were mounting
        if not self.is_attached:
            return
        self._plots_mounted = True
        if self._drawn is not None:
            calc, selected = self._drawn
            self._drawn = None
            self.draw(calc, selected)

    def show_utilisation(self, show: bool) -> None:
        """The second plot needs width: the 80-column layout shows the cumulative one only."""
        self._show_utilisation = show
        if self._plots_mounted:
            self.query_one("#utilisation-plot").display = show

    def draw(self, calc: Calculation, selected: OfferResult | None) -> None:
        if self._drawn is not None and self._drawn[0] is calc and self._drawn[1] is selected:
            return  # cursor events repeat the same selection while the table is rebuilt
        self._drawn = (calc, selected)
        offers = plotted(calc, selected)
        self.query_one(Legend).show(legend_entries(offers, calc.comparison.best))
        if not self._plots_mounted:
            return
        from costcalc.tui.widgets.plots import (
            CumulativeFigure,
            CumulativePlot,
            UtilisationFigure,
            UtilisationPlot,
        )

        labels = [short_label(r) for r in offers]
        for plot in self.query(CumulativePlot):  # none when the view is being torn down
            plot.show(CumulativeFigure.of(calc, offers, labels))
        for other in self.query(UtilisationPlot):
            other.show(UtilisationFigure.of(calc, offers, labels))
