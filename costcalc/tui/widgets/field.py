"""Setup fields whose new text repaints them without a layout pass."""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Input, Static


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


def update_text(widget: Static, content: object) -> None:
    """`Static.update`, with a layout pass only when the new text takes another number of
    lines at the widget's width (Static lays out the screen on every update)."""
    widget.update(content, layout=False)  # type: ignore[arg-type]
    width = widget.content_size.width
    if not width or not widget.display:
        widget.refresh(layout=True)
        return
    height = widget.get_content_height(widget.content_size, widget.app.size, width)
    if height != widget.content_size.height:
        widget.refresh(layout=True)
