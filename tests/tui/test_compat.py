"""Textual's, textual-plotext's and plotext's private parts that costcalc uses
(costcalc/tui/_compat.py, and tests/tui/helpers.py for the tests) still exist, with the
signatures and the shapes used. A release that moves one fails here, with its name, rather
than breaking the app at run time."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Select, Static
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from costcalc.tui import _compat
from costcalc.tui.screens.main import MainScreen


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


@pytest.mark.parametrize(
    ("function", "used_as"),
    [
        (_compat.SelectCurrent.__init__, ["self", "placeholder"]),
        (_compat.SelectCurrent.update, ["self", "label"]),
        (_compat.SelectOverlay.__init__, ["self", "type_to_search"]),
        (Widget._scroll_update, ["self", "virtual_size"]),
        (Screen._watch_focused, ["self"]),
        (Plot._set_size, ["self", "width", "height"]),
        (PlotextPlot._get_plotext_theme_name, ["self", "app_theme_name"]),
    ],
    ids=lambda x: getattr(x, "__qualname__", ""),
)
def test_private_callables_keep_the_signature_used(
    function: Callable[..., Any], used_as: list[str]
) -> None:
    assert parameters(function) == used_as, f"{function.__qualname__} changed: see _compat.py"


def test_screen_focused_is_still_a_reactive_the_main_screen_can_redeclare() -> None:
    """MainScreen redeclares it without repaint; Textual's watcher must still be found by name."""
    assert isinstance(Screen.__dict__["focused"], Reactive)
    ours = MainScreen.__dict__["focused"]
    assert isinstance(ours, Reactive) and not ours._repaint


class _OneSelect(App[None]):
    def compose(self) -> ComposeResult:
        yield Select([("one", 1), ("two", 2)], allow_blank=False, id="choice")


async def test_select_is_still_composed_of_its_current_choice_and_its_overlay() -> None:
    """FieldSelect.compose repeats Select.compose with its own current-choice widget: that is
    only right while Select is made of these two, and the choice's text is '#label'."""
    app = _OneSelect()
    async with app.run_test():
        select = app.query_one("#choice", Select)
        kinds = [type(child) for child in select.children]
        assert kinds == [_compat.SelectCurrent, _compat.SelectOverlay]
        label = select.query_one(_compat.SelectCurrent).query_one("#label", Static)
        assert "one" in str(label.render())


def test_a_built_plot_still_has_the_grids_drawn_from() -> None:
    plt = Plot()
    plt.plot([0, 1, 2], [0, 1, 4])
    _compat.set_plot_size(plt, 30, 10)
    text = plt.build()
    grid = _compat.canvas_grid(plt)
    assert grid.rows == 10
    for name in ("marker", "fullground", "style", "background"):
        rows = getattr(grid, name)
        assert len(rows) == 10 and all(len(row) == 30 for row in rows), name
    markers = "".join("".join(row) for row in grid.marker)
    assert markers.strip() and set(markers) <= set(text), "the grid is what build() wrote"


def test_the_private_parts_the_test_helpers_use_still_exist() -> None:
    """tests/tui/helpers.py: the notifications list and the key-name conversions Pilot uses."""
    from textual.keys import _character_to_key, _get_unicode_name_from_key

    assert _character_to_key("/") == "slash"
    assert _get_unicode_name_from_key("percent_sign") == "PERCENT SIGN"
    assert "_notifications" in vars(App(None))


def test_escape_then_f_b_or_a_digit_in_one_write_reads_as_alt() -> None:
    """_compat.escape_then_key: Textual's key table maps ESC f / ESC b to Ctrl+Right / Left and
    ESC 3 to '£'; once the app removed them, its parser (private, `XTermParser`; the only way to
    feed it bytes as a terminal sends them) reads them as Alt+key, as ESC w already is."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
    from textual._xterm_parser import XTermParser

    from costcalc.tui._compat import ESCAPE_AND_KEY, escape_then_key

    assert isinstance(ANSI_SEQUENCES_KEYS, dict)
    escape_then_key()
    assert not set(ESCAPE_AND_KEY) & set(ANSI_SEQUENCES_KEYS)

    def keys(data: str) -> list[str]:
        parser = XTermParser(debug=False)
        events = [*parser.feed(data), *parser.feed("")]
        return [e.key for e in events if hasattr(e, "key")]

    assert keys("e\x1bw") == ["e", "alt+w"]
    assert keys("e\x1bf") == ["e", "alt+f"]
    assert keys("\x1bb") == ["alt+b"]
    assert keys("a\x1b3") == ["a", "alt+3"]
