"""Which desktop? The builds view: n x card side by side, priced, timed and checked for fit.

The same comparison as `costcalc desktops` (costcalc.core.desktops,
costcalc.present.desktops_report), under the main screen's settings (utilisation, region,
electricity, horizon, kind, precision, memory). Two fields choose the cards and the counts; Enter
recomputes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Label, Static

from costcalc.core import desktops
from costcalc.core.errors import CostcalcError
from costcalc.present import desktops_report
from costcalc.providers.registry import labels
from costcalc.store.settings import DEFAULT_GPU, Settings
from costcalc.tui.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp

PRO_ALTERNATIVE = "rtx6000_ada"
CONSUMER_ALTERNATIVE = "rtx4090"
"""Compared with the desktop's card by default: the pro card of the same generation, or the
consumer one when the desktop's card is already a pro card."""


def default_cards(settings: Settings, app: CostcalcApp) -> str:
    catalog = app.data.catalog
    own = catalog.get(settings.gpu or DEFAULT_GPU)
    other = PRO_ALTERNATIVE if own.key != PRO_ALTERNATIVE else CONSUMER_ALTERNATIVE
    if own.key == CONSUMER_ALTERNATIVE or own.key == PRO_ALTERNATIVE:
        return f"{own.key}, {other}"
    return f"{own.key}, {CONSUMER_ALTERNATIVE}, {PRO_ALTERNATIVE}"


class DesktopsScreen(Screen[None]):
    """Desktop builds compared: price, memory, power, speed, TCO, break-even, and fit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("c", "focus('#cards')", "Cards"),
        Binding("n", "focus('#counts')", "Counts"),
    ]

    AUTO_FOCUS = "#builds"
    """The table, from the start: Escape in a burst right after D then closes the view (it
    would first leave a field that still had the focus)."""

    app: CostcalcApp

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="desktops-fields"):
            yield Label("c Cards", classes="desktops-label")
            yield Input(default_cards(self.settings, self.app), id="cards", compact=True)
            yield Label("n Counts", classes="desktops-label")
            yield Input("1,2,4", id="counts", compact=True)
        with VerticalScroll(id="desktops-body"):
            yield Static(id="desktops-header")
            yield DataTable(id="builds", cursor_type="row", zebra_stripes=True)
            yield Static(id="desktops-notes")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#builds", DataTable)
        for column in desktops_report.COLUMNS:
            table.add_column(column.title, key=column.key)
        self.compute()
        table.focus()

    def compute(self) -> None:
        app = self.app
        try:
            cards = self.query_one("#cards", Input).value.replace(",", " ").split()
            counts = desktops.parse_counts([self.query_one("#counts", Input).value or "1,2,4"])
            gpus = desktops.resolve_gpus(cards, app.data.catalog)
            result = desktops.compare_builds(self.settings, app.data, gpus, counts, app.clock())
        except CostcalcError as exc:
            self.notify(str(exc), title="Desktops", severity="error")
            return
        hw = app.data.hardware
        assert hw is not None  # compare_builds refuses data without it
        self.query_one("#desktops-header", Static).update(
            "\n".join(desktops_report.header_lines(result, hw))
        )
        table = self.query_one("#builds", DataTable)
        table.clear()
        for build in result.builds:
            row = desktops_report.cells(build)
            mark = "★ " if build is result.best else ("✗ " if build.fits is False else "  ")
            texts = []
            for column in desktops_report.COLUMNS:
                text = row[column.key]
                if column.key == "build":
                    text = mark + text
                texts.append(
                    Text(
                        text,
                        justify="right" if column.numeric else "left",
                        style="dim" if build.fits is False else "",
                    )
                )
            table.add_row(*texts)

        self.query_one("#desktops-notes", Static).update(
            "\n".join(desktops_report.after_table_lines(result, app.data.catalog, labels()))
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.compute()
        self.query_one("#builds", DataTable).focus()

    def action_back(self) -> Any:
        if isinstance(self.focused, Input):
            self.set_focus(self.query_one("#builds", DataTable))
            return None
        return self.app.pop_screen()  # awaited by run_action: gone before the next key
