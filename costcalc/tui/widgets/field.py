"""Setup fields whose new text repaints them without a layout pass."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import RenderableType
from textual import events
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


class _Choice(SelectCurrent):
    """A Select's current choice, shown once its label is there.

    Textual's `update` queries the label at once, but a Select's value watcher calls it as soon
    as the select has composed this widget, which may be before this widget has composed its
    label: a value set in between raised NoMatches (Textualize/textual#6581). The choice is kept
    and shown when the label mounts."""

    LAYOUT = True
    """Whether a new choice lays the screen out (Textual's behaviour) or only repaints."""

    def update(self, label: RenderableType | NoSelection) -> None:
        self.label = label
        self.has_value = label is not Select.NULL
        self._show_label()

    def on_mount(self) -> None:
        self._show_label()  # a choice given before the label was composed

    def _show_label(self) -> None:
        shown = self.placeholder if isinstance(self.label, NoSelection) else self.label
        # (no label before this widget composed, nor when it was removed before it did)
        for label in self.query_children("#label").results(Static):
            label.update(shown, layout=self.LAYOUT)


class _OneLineChoice(_Choice):
    """A Select's current choice on its one line (app.tcss): a new choice is a repaint."""

    LAYOUT = False


class ChoiceSelect(Select[Any]):
    """A Select that takes a value at any point of its mounting (its current choice waits for
    its label: `_Choice`) and that can be removed while it mounts: the filter bar's selects.

    Textual mounts no children into a widget it is removing (the app quits while the setup
    panel is still filling, a test ends then), but still sends it Mount, and Select's own mount
    handler sets up its overlay and its first value in children that are not there: NoMatches,
    a traceback on quit (Textualize/textual#6581)."""

    CHOICE: type[_Choice] = _Choice

    def __init__(
        self, options: Iterable[tuple[str, Any]], *, type_to_search: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(options, type_to_search=type_to_search, **kwargs)
        self._searches = type_to_search

    def compose(self) -> ComposeResult:  # Select's, with its own current choice
        yield self.CHOICE(self.prompt)
        yield SelectOverlay(type_to_search=self._searches).data_bind(compact=Select.compact)

    def on_mount(self, event: events.Mount) -> None:
        """Runs before Select's own handler (Textual calls a class's handler before its
        bases'), which it skips when the select was removed before its parts were mounted."""
        if not {self.CHOICE, SelectOverlay} <= {type(child) for child in self.children}:
            event.prevent_default()


class FieldSelect(ChoiceSelect):
    """A setup panel's Select. Textual's Select lays out the whole screen whenever its choice
    changes (its label may change size); here the label is one line of fixed width (app.tcss),
    so a choice the app sets (a typed 35 % that is a preset) costs a repaint, not a 25-40 ms
    layout pass."""

    CHOICE = _OneLineChoice


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
