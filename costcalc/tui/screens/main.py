"""The main screen: your setup on the left; verdict, offers, break-even and 'why' on the right.

Inputs live in one reactive, `settings`; its watcher calls the engine (through `calc.calculate`)
and the result, `calc`, is handed to every widget. The engine is fast enough (a few ms for a
thousand offers) to run on every change in the UI thread; nothing here blocks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, TabbedContent, TabPane

from costcalc import inputs
from costcalc.errors import CostcalcError
from costcalc.models import OfferResult
from costcalc.scenario import Calculation, evaluate
from costcalc.settings import DEFAULT_GPU, Settings
from costcalc.tui.messages import SettingsChanged
from costcalc.tui.widgets.breakeven import BreakEvenView
from costcalc.tui.widgets.filters import FilterBar
from costcalc.tui.widgets.offers import OffersTable, offer_key
from costcalc.tui.widgets.setup import SetupPanel
from costcalc.tui.widgets.verdict import VerdictBar
from costcalc.tui.widgets.why import WhyPanel

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp

WIDE_COLUMNS = 120
"""From this width on, everything shows at once; below it, the 80-column layout."""


class MainScreen(Screen[None]):
    """Everything at once: first paint shows the offers and the break-even curves."""

    AUTO_FOCUS = "#offers"
    """Focus the table at once: moving focus after mount restyles the whole screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "focus_utilisation", "Utilisation"),
        Binding("g", "focus_gpu", "GPU", show=False),
        Binding("slash", "focus_filter", "Filter", show=False),
        Binding("e", "break_even", "Break-even"),
        Binding("w", "toggle_why", "Why"),
        Binding("r", "refresh", "Refresh"),
        Binding("b", "bench", "Bench"),
        Binding("t", "focus_table", "Table", show=False),
    ]

    settings: var[Settings] = var(Settings, init=False)
    calc: var[Calculation | None] = var(None, init=False)
    selected_key: var[str | None] = var(None, init=False)

    app: CostcalcApp

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.set_reactive(MainScreen.settings, settings)

    def compose(self) -> ComposeResult:
        data = self.app.data
        yield Header()
        yield VerdictBar(id="verdict")
        with Horizontal(id="body"):
            yield SetupPanel(data, id="setup")
            with Vertical(id="results"):
                yield FilterBar(data, id="filters")
                yield OffersTable(id="offers")
                with TabbedContent(id="details"):
                    with TabPane("Break-even", id="breakeven-pane"):
                        yield BreakEvenView(data, id="breakeven")
                    with TabPane("Why this number", id="why-pane"):
                        yield WhyPanel(data, id="why")
        yield Footer(compact=True)

    def on_resize(self) -> None:
        """Fit 80 columns: a slimmer setup panel, no header, the cumulative curve only.

        Styles are set on the few widgets concerned rather than through a class on the screen,
        which would restyle all hundred widgets (a tenth of a second at start-up).
        """
        narrow = self.size.width < WIDE_COLUMNS
        self.query_one(SetupPanel).styles.width = 29 if narrow else 34
        self.query_one(Header).display = not narrow
        self.query_one("#desktop-line").display = not narrow
        verdict = self.query_one(VerdictBar)
        if verdict.narrow != narrow:
            verdict.narrow = narrow
            if self.calc is not None:
                verdict.show(self.calc)
        self.query_one(BreakEvenView).show_utilisation(not narrow)
        table = self.query_one(OffersTable)
        table.fixed_columns = 0 if narrow else 3  # frozen names leave no room at 80 columns
        table.set_class(narrow, "-flat")
        table.set_narrow(narrow)
        self.query_one("#details").styles.height = 11 if narrow else "1fr"

    def on_mount(self) -> None:
        self.recalculate()

    # ------------------------------------------------------------------ computing

    def recalculate(self) -> None:
        """Run the comparison for the current settings, data, bench and clock."""
        app = self.app
        try:
            self.calc = evaluate(
                self.settings,
                app.data,
                app.clock(),
                bench=app.bench_for(self.settings),
                fallback_gpu=DEFAULT_GPU,
            )
        except CostcalcError as exc:
            self.notify(str(exc), title="Cannot compute", severity="error")

    def watch_settings(self, settings: Settings) -> None:
        self.recalculate()
        self.app.save_settings(settings)

    def watch_calc(self, calc: Calculation | None) -> None:
        if calc is None:
            return
        self.query_one(SetupPanel).show(calc, self.settings)
        self.query_one(FilterBar).show(self.settings)
        self.query_one(VerdictBar).show(calc)
        keep = self.selected_key
        if keep is None and calc.comparison.best is not None:
            keep = offer_key(calc.comparison.best)
        self.query_one(OffersTable).show(calc, keep)
        self._draw_details()

    def watch_selected_key(self) -> None:
        self._draw_details()

    @property
    def selected(self) -> OfferResult | None:
        table = self.query_one(OffersTable)
        found = table.result_for(self.selected_key)
        if found is None and self.calc is not None:
            return self.calc.comparison.best
        return found

    def _draw_details(self) -> None:
        if self.calc is None:
            return
        selected = self.selected
        self.query_one(BreakEvenView).draw(self.calc, selected)
        self.query_one(WhyPanel).show(self.calc, selected)

    # ------------------------------------------------------------------ messages

    def on_settings_changed(self, message: SettingsChanged) -> None:
        message.stop()
        if message.submitted:
            self.query_one(OffersTable).focus()
        merged = inputs.merge(self.settings.model_dump(), message.update)
        try:
            self.settings = Settings.model_validate(merged)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            self.notify(f"{field}: {first['msg']}", title="Not applied", severity="error")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.selected_key = str(event.row_key.value)

    # ------------------------------------------------------------------ actions

    def action_focus_utilisation(self) -> None:
        self._focus_input("#utilisation")

    def action_focus_gpu(self) -> None:
        self._focus_input("#gpu")

    def action_focus_filter(self) -> None:
        self._focus_input("#text")

    def _focus_input(self, selector: str) -> None:
        field = self.query_one(selector, Input)
        field.focus()
        field.select_all()

    def action_focus_table(self) -> None:
        self.query_one(OffersTable).focus()

    def action_toggle_why(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = "breakeven-pane" if tabs.active == "why-pane" else "why-pane"

    def action_break_even(self) -> None:
        from costcalc.tui.screens.breakeven import BreakEvenScreen

        if self.calc is not None:
            self.app.push_screen(BreakEvenScreen(self.calc, self.selected))

    def action_refresh(self) -> None:
        from costcalc.tui.screens.refresh import RefreshScreen

        self.app.push_screen(RefreshScreen(self.settings.providers or None))

    def action_bench(self) -> None:
        from costcalc.tui.screens.bench import BenchScreen

        self.app.push_screen(BenchScreen())

    def apply(self, **update: Any) -> None:
        """Change settings from code (GPU detection, a finished bench) as if typed."""
        self.post_message(SettingsChanged(update))
