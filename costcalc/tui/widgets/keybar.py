"""The key bar at the bottom: the keys that work where the focus is, in one line of text.

Textual's Footer rebuilds a widget per key whenever focus moves, which reflows and repaints
the whole screen: a third of the time from Enter in a field to the updated table. This bar is
one line of text, changed only when the keys it shows change; a click on a key runs it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

PALETTE = "^p palette"


class KeyBar(Widget):
    """Shown bindings of the focused widget, its ancestors and the app; ^p palette on the right."""

    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        dock: bottom;
        background: $footer-background;
        color: $footer-description-foreground;
        & > .keybar--key { color: $footer-key-foreground; text-style: bold; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, DOMNode, Binding]] = []
        self._shown: tuple[tuple[str, str], ...] | None = None
        self._text = Text()

    def render(self) -> Text:
        return self._text

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self._bindings_changed, self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self) -> None:
        self._shown = None
        self._bindings_changed(self.screen)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        shown: list[tuple[DOMNode, Binding]] = []
        seen: set[str] = set()
        for node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or not enabled or binding.description in seen:
                continue
            seen.add(binding.description)
            shown.append((node, binding))
        signature = (
            *((self.app.get_key_display(b), b.description) for _, b in shown),
            (str(self.size.width), ""),
        )
        if signature == self._shown:
            return
        self._shown = signature
        text = Text(no_wrap=True, overflow="ellipsis")
        key_style = self.get_component_rich_style("keybar--key", partial=True)
        spans: list[tuple[int, int, DOMNode, Binding]] = []
        room = self.size.width - len(PALETTE) - 2
        for node, binding in shown:
            part = f"{self.app.get_key_display(binding)} {binding.description}"
            if text.cell_len + len(part) + 1 > room:
                break
            start = text.cell_len
            text.append(self.app.get_key_display(binding), style=key_style)
            text.append(f" {binding.description} ")
            spans.append((start, text.cell_len, node, binding))
        text.append(" " * max(room - text.cell_len + 1, 1))
        text.append("^p", style=key_style)
        text.append(" palette")
        self._spans = spans
        self._text = text
        self.refresh()

    async def on_click(self, event: events.Click) -> None:
        for start, end, node, binding in self._spans:
            if start <= event.x < end:
                await self.app.run_action(binding.action, node)
                return
        if event.x >= self.size.width - len(PALETTE) - 1:
            self.app.action_command_palette()
