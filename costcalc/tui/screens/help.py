"""The help screen: every key, and what the numbers mean."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from costcalc.core import inputs
from costcalc.core.staleness import LEGEND
from costcalc.core.tiers import TIER_HELP
from costcalc.tui.widgets.setup import FIELD_KEYS, key_text

KEYS: tuple[tuple[str, str], ...] = (
    ("↑ ↓ j k PgUp PgDn", "move in the offers table (Home / End: first / last)"),
    ("← →", "show the columns that did not fit, one at a time"),
    ("Enter", "open or fold a row: the same GPU's other tiers and regions"),
    ("a", "every offer on its own row / folded again"),
    ("1-9", "sort by the n-th column on screen; again: reversed"),
    ("0", "best first: the verdict, the cheapest of each provider, then by cost"),
    ("s / S", "sort: best first, then each column in turn / reverse (or click a header)"),
    ("/", "filter by words as shown: 'a100|rtx 4090' (| between alternatives)"),
    ("f F G", "filters: provider, all prices / spot / on-demand, cloud region (Enter opens)"),
    ("Esc", "leave a field for the table (a setup field goes back to its value)"),
    ("e", "break-even view: both curves, full size"),
    ("w", "switch between the curves and 'why this number' (80 columns: show them)"),
    ("D", "compare desktop builds: n x card, consumer and pro, with their fit"),
    ("x", "export the table as shown: CSV of plain numbers (the palette has Markdown)"),
    ("r", "refresh prices from the providers (in the background)"),
    ("b", "benchmark this machine, quick mode (in the background)"),
    ("J", "job panel: the verdict for a model's training job, or serving it ($ per M tokens)"),
    ("F2", "show or hide the setup panel (80 columns)"),
    ("ctrl+p", "command palette: every command, sorting, export, themes"),
    ("?", "this help"),
    ("q, ctrl+c", "quit"),
)

FIELDS_TITLE = "Setup fields (the key is shown beside each label; Enter applies):"
NOTES = """
★ the verdict's offer, pinned on top: the cheapest comparable offer with a
  guaranteed GPU that fits. † a cheaper price the verdict left out as stale (a
  spot or marketplace price too old to decide). ▸ a row with other tiers or
  regions folded under it (Enter opens it). ✗ the GPU cannot hold the run ("does
  not fit"). A * after a name: no guaranteed GPU (Colab's tiers, free or paid),
  shown for reference only.

Utilisation is the share of ALL hours of the year the GPU works. Most personal
machines sit at 5-10 %, a PhD desktop below 15 %, a group cluster above 35 %,
a company cluster above 60 %.

Break-even is the day buying has cost as much as renting:
  price + electricity/day x d = cloud/day x d
"never": the cloud costs no more per day than the desktop's electricity.
Settings are saved to your config file as you change them.
"""


def field_keys() -> tuple[tuple[str, str], ...]:
    return tuple(
        (key_text(field), f"{inputs.BY_FIELD[field].label}: {inputs.BY_FIELD[field].what}")
        for field in FIELD_KEYS
    )


TIERS_TITLE = "Tiers T leaves out (as --exclude community,marketplace does in the CLI):"


def tier_lines() -> tuple[tuple[str, str], ...]:
    return tuple(TIER_HELP.items())


def help_text(sort_keys: Sequence[tuple[str, str]] = ()) -> Group:
    """Keys in a grid, so a long line wraps under its own column; `sort_keys`: the digit of
    each column on screen now, and its title."""
    keys = Table.grid(padding=(0, 2))
    keys.add_column(justify="right", style="bold", no_wrap=True)
    keys.add_column()
    for key, does in KEYS:
        keys.add_row(key, does)
        if key == "1-9" and sort_keys:
            keys.add_row("", "now: " + "  ".join(f"{n} {title}" for n, title in sort_keys))
    fields = Table.grid(padding=(0, 1))
    fields.add_column(justify="right", style="bold", no_wrap=True)
    fields.add_column()
    for key, what in field_keys():
        fields.add_row(key, what)
    tiers = Table.grid(padding=(0, 1))
    tiers.add_column(justify="right", style="bold", no_wrap=True)
    tiers.add_column()
    for name, what in tier_lines():
        tiers.add_row(name, what)
    return Group(
        keys,
        Text("\n" + FIELDS_TITLE),
        fields,
        Text("\n" + TIERS_TITLE),
        tiers,
        Text(NOTES.rstrip("\n") + f"\nA price's age is in days; {LEGEND}.\n"),
    )


class HelpScreen(ModalScreen[None]):
    """Keys and definitions; Escape, ? or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, sort_keys: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__()
        self.sort_keys = tuple(sort_keys)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "Help"
            body.border_subtitle = "Esc to close"
            yield Static(help_text(self.sort_keys))

    def action_close(self) -> Any:
        return self.dismiss()  # awaited by run_action: closed before the next key of a burst
