"""The help screen: every key, and what the numbers mean."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("u", "utilisation: type 60 (or 60%, 0.6) and Enter"),
    ("g", "desktop GPU: type part of a name; Enter takes the completion"),
    ("/", "filter the offers by text (name, GPU, region)"),
    ("s / S", "sort by the next column / reverse (or click a header)"),
    ("e", "break-even view: both curves, full size"),
    ("w", "switch between the curves and 'why this number'"),
    ("r", "refresh prices from the providers (in the background)"),
    ("b", "benchmark this machine, quick mode (in the background)"),
    ("t", "back to the offers table"),
    ("tab", "next field; Enter applies a field"),
    ("ctrl+p", "command palette: themes, keys"),
    ("?", "this help"),
    ("q", "quit"),
)

NOTES = """
★ the cheapest offer with a guaranteed GPU that fits: the one the verdict uses.
✗ the offer's GPU cannot hold the run ("does not fit"). A * after a name: no
  guaranteed GPU (free tiers), shown for reference only.

Utilisation is the share of ALL hours of the year the GPU works. Most personal
machines sit at 5-10 %, a PhD desktop below 15 %, a group cluster above 35 %,
a company cluster above 60 %.

Break-even is the day buying has cost as much as renting:
  price + electricity/day x d = cloud/day x d
"never": the cloud costs no more per day than the desktop's electricity.
Settings are saved to your config file as you change them.
"""


def help_text() -> Text:
    text = Text()
    width = max(len(key) for key, _ in KEYS)
    for key, does in KEYS:
        text.append(f"{key:>{width}}  ", style="bold")
        text.append(does + "\n")
    text.append(NOTES)
    return text


class HelpScreen(ModalScreen[None]):
    """Keys and definitions; Escape, ? or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "Help"
            body.border_subtitle = "Esc to close"
            yield Static(help_text())

    def action_close(self) -> None:
        self.dismiss()
