"""Every use of Textual's, textual-plotext's and plotext's private parts, in one place.

Rule kept here: nothing else in costcalc imports a private module or name of these libraries
or overrides one of their private methods. Each use below says why no public API does the job.
`tests/tui/test_compat.py` checks that each name still exists with the signature used here, so
a release that moves one fails a test that names it, instead of breaking the app at run time.

Checked against textual 8.2.8, textual-plotext 1.0.1 and plotext 5.3.2 (pinned in
pyproject.toml, because plotext's internals are used here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual.geometry import Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView

# Select's parts. A setup field's Select composes its own current-choice widget (one line, a
# repaint per choice instead of a layout pass), and Textual exports neither class.
from textual.widgets._select import SelectCurrent, SelectOverlay

if TYPE_CHECKING:
    from textual.widget import Widget

__all__ = [
    "ESCAPE_AND_KEY",
    "SelectCurrent",
    "SelectOverlay",
    "SteadyScrollbars",
    "canvas_grid",
    "escape_then_key",
    "focus_without_repaint",
    "plotext_theme_name",
    "set_plot_size",
]


class SteadyScrollbars(ScrollView):
    """A ScrollView that passes on a scroll state only when it changed.

    Textual calls `_scroll_update` after every layout pass, changed or not, and it repaints
    the scrollbars: one more frame, about 30 ms after an answer is on screen. There is no
    public hook between a layout pass and the scrollbars' repaint."""

    _scroll_state: object = None

    def _scroll_update(self, virtual_size: Size) -> None:
        state = (virtual_size, self.container_size, self.show_vertical_scrollbar)
        if state == self._scroll_state:
            return
        self._scroll_state = state
        super()._scroll_update(virtual_size)


def focus_without_repaint() -> Reactive[Widget | None]:
    """`Screen.focused` redeclared without `repaint`.

    Textual's repaints the whole screen when focus moves (a tenth of a second on the main
    screen); the two widgets concerned repaint themselves with their :focus styles, which is
    all that changes. Its watcher (`Screen._watch_focused`, refreshing the bindings) is kept:
    watchers are found by name, not on the descriptor."""
    return Reactive(None, repaint=False)


def set_plot_size(plt: Any, width: int, height: int) -> None:
    """Size a plotext figure. `plotsize` alone may leave the old size in place; textual-plotext
    sets it twice for the same reason (Textualize/textual-plotext#5)."""
    plt.plotsize(width, height)
    plt._set_size(width, height)


def canvas_grid(plt: Any) -> Any:
    """The built figure's grids: `rows`, and per row `marker`, `fullground`, `style` and
    `background`. Only the ANSI text (`build()`) is public, and encoding, decoding and laying
    it out again cost two thirds of a plot's 10 ms on every keystroke."""
    return plt.monitor.matrix


def plotext_theme_name(plot: Any, app_theme: str) -> str:
    """The plotext theme textual-plotext registers for an app theme (it registers it too)."""
    name: str = plot._get_plotext_theme_name(app_theme)
    return name


ESCAPE_AND_KEY = ("\x1bf", "\x1bb", *(f"\x1b{digit}" for digit in "0123456789"))
"""Escape then f, b or a digit, as a terminal sends them in one write."""


def escape_then_key() -> None:
    """Read Escape then f, b or a digit in one write as Alt+key, which the app takes as Escape,
    then the key (MainScreen.route_key, CostcalcApp.view_key), as it does every other letter.

    Textual's key table maps ESC f / ESC b to Ctrl+Right / Ctrl+Left (iTerm's 'natural text
    editing' Option+arrows) and ESC digit to the character Option+digit types on a Mac
    ('£' for ESC 3): `/ a100 Escape 3` or `e Escape f` from tmux or a fast typist became a word
    jump or a pound sign. No public API reaches the parser's table; the entries are removed,
    process-wide, once (the app is the only Textual app in its process). Seen in tmux 3.x:
    `tmux send-keys Escape f` arrives as 'ctrl+right'."""
    table = cast("dict[str, object]", ANSI_SEQUENCES_KEYS)  # typed as a Mapping; a dict
    for sequence in ESCAPE_AND_KEY:
        table.pop(sequence, None)
