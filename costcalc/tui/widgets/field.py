"""Setup fields whose new text repaints them without a layout pass."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import RenderableType
from textual.app import ComposeResult
from textual.geometry import Size
from textual.widgets import Input, Select, Static
from textual.widgets.select import NoSelection

from costcalc.tui._compat import SelectCurrent, SelectOverlay


class FieldInput(Input):
    """An Input of fixed size (the setup panel's CSS sets it). Textual's Input treats every
    change of its text's length as a change of its size and lays out the whole screen (30-50 ms
    with the setup panel's hundred widgets). While the user types, that is how the text
    scrolls; a value the app sets in a field nobody is typing in only needs a repaint.

    Everything else Textual does on a new value (`Input.Changed`, validation, the suggestion,
    the cursor and selection fitted to the new text) is Textual's own watcher's: this only
    gives the field its new width first, without a layout pass, so that watcher finds the
    width unchanged and asks for none."""

    def validate_value(self, value: str) -> str:
        """Textual's hook before a new value is stored (it may change the value: not here)."""
        typing = self.is_attached and self.screen.focused is self  # has_focus lags a blur
        if not typing and not self.styles.auto_dimensions:
            self.set_reactive(Input.virtual_size, Size(self.width_for(value), 1))
        return value

    def width_for(self, value: str) -> int:
        """`Input.content_width` for `value` (it reads the stored value, not yet the new one):
        the placeholder's width when empty, else the text's and one cell for the cursor."""
        if self.placeholder and not value:
            return cell_len(self.placeholder)
        shown = "•" * len(value) if self.password else value
        return cell_len(shown) + 1


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
