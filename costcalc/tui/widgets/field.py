"""Setup fields whose new text repaints them without a layout pass."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.geometry import Size
from textual.widgets import Input, Select, Static
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay


class FieldInput(Input):
    """An Input of fixed size (the setup panel's CSS sets it). Textual's Input treats every
    change of its text's length as a change of its size and lays out the whole screen (30-50 ms
    with the setup panel's hundred widgets). While the user types, that is how the text
    scrolls; a value the app sets in a field nobody is typing in only needs a repaint."""

    def _watch_value(self, value: str) -> None:
        typing = self.is_attached and self.screen.focused is self  # has_focus lags a blur
        if typing or self.styles.auto_dimensions:  # Textual's own handling
            super()._watch_value(value)
            return
        self.set_reactive(Input.virtual_size, Size(self.content_width, 1))
        self._suggestion = ""
        if self.suggester and value:
            self.run_worker(self.suggester._get_suggestion(self, value))
        self.refresh()


class _OneLineChoice(SelectCurrent):
    """A Select's current choice on its one line (app.tcss): a new choice is a repaint."""

    def update(self, label: RenderableType | NoSelection) -> None:
        self.label = label
        self.has_value = label is not Select.NULL
        shown = self.placeholder if isinstance(label, NoSelection) else label
        self.query_one("#label", Static).update(shown, layout=False)


class FieldSelect(Select[Any]):
    """A setup panel's Select. Textual's Select lays out the whole screen whenever its choice
    changes (its label may change size); here the label is one line of fixed width (app.tcss),
    so a choice the app sets (a typed 35 % that is a preset) costs a repaint, not a 25-40 ms
    layout pass."""

    def __init__(
        self, options: Iterable[tuple[str, Any]], *, type_to_search: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(options, type_to_search=type_to_search, **kwargs)
        self._searches = type_to_search

    def compose(self) -> ComposeResult:  # Select's, with the one-line choice
        yield _OneLineChoice(self.prompt)
        yield SelectOverlay(type_to_search=self._searches).data_bind(compact=Select.compact)


def update_text(widget: Static, content: object) -> None:
    """`Static.update`, with a layout pass only when the new text needs more lines than the
    widget has. Static lays out the whole screen on every update (30-60 ms, then a second pass
    as everything under it moves). A text that needs fewer lines keeps the widget's height (its
    min-height, which its owner resets when the width changes): what is below stays where it
    is, and the change is a repaint."""
    widget.update(content, layout=False)  # type: ignore[arg-type]
    if not widget.display:
        return  # hidden: laid out with its text when it is shown
    width = widget.content_size.width
    if not width:
        widget.refresh(layout=True)
        return
    height = widget.get_content_height(widget.content_size, widget.app.size, width)
    if height > widget.content_size.height:
        widget.styles.min_height = height  # (lays the screen out)
