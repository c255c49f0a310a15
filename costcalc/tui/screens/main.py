"""The main screen: the verdict on top, the offers table under it, your setup on the left and the
break-even curves and 'why this number' below.

Inputs live in one reactive, `settings`; its watcher calls the engine (`scenario.evaluate`) and
the result, `calc`, is handed to every widget. The engine takes a few ms for a thousand offers
and the table formats only the lines on screen, so all of it runs in the UI thread.

Keys: every setup field has one (shown beside its label, in the help and in the palette);
Escape leaves any field for the table, Enter applies it and returns.

Keys that arrive in one burst (a paste, a fast typist: `u` then `C-a C-k 6 0 Enter`) must land
where they would one by one. In Textual they do not: the app hands each key to the widget that
has focus *when the key is read*, and runs a widget's key bindings only after the key has
bubbled back up, so the `u` that moves focus to a field acts after the digits went to the table,
and an Input's own `C-k` may act after the digits typed behind it (upstream:
Textualize/textual#6605, "Input/TextArea action synchronization bug"; #1009 "Add input queue").
`route_key` works around both: while this screen is on top, the app gives it every key first,
and it handles the key completely, in arrival order: a binding's action runs before the next
key is read, a character is typed into the focused field at once, and Enter / Escape move
focus before the next key.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec.structs import replace
from textual import events
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Input, Select, TabbedContent, TabPane

from costcalc.core import inputs
from costcalc.core.errors import CostcalcError
from costcalc.core.models import CloudOffer, OfferResult
from costcalc.core.ranges import Point
from costcalc.core.records import ValidationError, plain, problem, validated
from costcalc.core.scenario import AppData, Calculation, evaluate
from costcalc.providers.registry import short_labels
from costcalc.store.loaders import for_scenario
from costcalc.store.readings import recorded_points
from costcalc.store.settings import DEFAULT_GPU, Settings
from costcalc.tui._compat import focus_without_repaint
from costcalc.tui.messages import SettingsChanged
from costcalc.tui.widgets.breakeven import BreakEvenView
from costcalc.tui.widgets.filters import FilterBar
from costcalc.tui.widgets.keybar import KeyBar
from costcalc.tui.widgets.later import FilledLater
from costcalc.tui.widgets.offers import OffersTable
from costcalc.tui.widgets.setup import FIELD_KEYS, FILTER_KEYS, KEY_SHOWN, SetupPanel, key_text
from costcalc.tui.widgets.verdict import VerdictBar
from costcalc.tui.widgets.why import WhyPanel

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp

WIDE_COLUMNS = 120
"""From this width on, everything shows at once; below it, the 80-column layout."""
TALL_ROWS = 40
"""From this height on, the curves get more room."""

SHOWN_FIELD_KEYS = ("gpu", "utilisation")
"""Field keys the footer shows; all of them are in the help, the palette and beside the labels."""


SETTLE_TICKS = 4
"""Event-loop turns for the widgets a new answer touched to report their new sizes."""


async def settle() -> None:
    """Let the widgets an update touched ask for their layout before the next frame.

    Each widget reports a size change from its own task, after the handler that changed it
    returns; the screen's frame timer can run in between, and then the screen lays out and
    paints twice (about 40 ms more before the last frame). Inside `App.batch_update` no frame
    is painted, so a few turns of the loop gather every report into one layout pass."""
    for _ in range(SETTLE_TICKS):
        await asyncio.sleep(0)


def _field_binding(field: str, key: str) -> Binding:
    label = inputs.BY_FIELD[field].label
    return Binding(
        key,
        f"focus_field('{field}')",
        label,
        show=field in SHOWN_FIELD_KEYS,
        key_display=KEY_SHOWN.get(key),
    )


class Details(Vertical, FilledLater):
    """The break-even curves and 'why this number', in tabs under the offers table. Their room
    is there from the first frame; the tabs are mounted right after it (widgets/later.py), as
    the curves in them always were (widgets/breakeven.py)."""

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data

    def later(self) -> Iterator[Widget]:
        tabs = TabbedContent(id="details-tabs")
        # (what `with TabbedContent(): with TabPane(...)` does in a compose)
        tabs.compose_add_child(
            TabPane("Break-even", BreakEvenView(self.data, id="breakeven"), id="breakeven-pane")
        )
        tabs.compose_add_child(
            TabPane("Why this number", WhyPanel(self.data, id="why"), id="why-pane")
        )
        yield tabs


def type_character(field: Input, character: str) -> None:
    """`character` typed into `field` as its own key handler types it: at the cursor, or over
    the selection. Called as a key arrives, so keys in one burst land in their order."""
    selection = field.selection
    if selection.is_empty:
        field.insert_text_at_cursor(character)
    else:
        field.replace(character, *selection)


class MainScreen(Screen[None]):
    """Everything at once: first paint shows the verdict and the offers."""

    AUTO_FOCUS = "#offers"
    """Focus the table at once: moving focus after mount restyles the whole screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(_field_binding(field, key) for field, key in FIELD_KEYS.items()),
        Binding("slash", "focus_field('text')", "Filter", key_display="/"),
        *(
            Binding(key, f"focus_field('{select}')", what.split(" (")[0].split(":")[0], show=False)
            for select, (key, what) in FILTER_KEYS.items()
        ),
        Binding("escape", "leave_field", "Table", show=False),
        Binding("t", "focus_table", "Table", show=False),
        Binding("e", "break_even", "Break-even", show=False),
        Binding("w", "toggle_why", "Why"),
        Binding("x", "export('csv')", "Export", show=False),
        Binding("D", "desktops", "Desktops", show=False),
        Binding("r", "refresh", "Refresh"),
        Binding("b", "bench", "Bench", show=False),
        Binding("J", "job", "Job", show=False),
        Binding("f2", "toggle_setup", "Setup", show=False),
    ]

    settings: var[Settings] = var(Settings, init=False)
    calc: var[Calculation | None] = var(None, init=False)
    focused: Reactive[Widget | None] = focus_without_repaint()
    """Textual repaints the whole screen when focus moves (a tenth of a second here); the two
    widgets concerned repaint themselves with their :focus styles, which is all that changes."""

    app: CostcalcApp

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.set_reactive(MainScreen.settings, settings)
        self.selected_key: str | None = None
        self._selected: OfferResult | None = None
        self._narrow = False
        self._setup_open = False
        """At 80 columns the setup panel shows only while a field is being edited (or F2)."""
        self._details = "breakeven-pane"
        """At 80 columns the curves and 'why' show only when asked for (w)."""
        self._details_open = False
        self._drawn: tuple[object, ...] | None = None
        self._readings_of: object = None
        self._readings: dict[tuple[str, str, int, str], list[Point]] = {}
        self._resumed = False

    def compose(self) -> ComposeResult:
        data = self.app.data
        yield Header()
        yield VerdictBar(id="verdict")
        with Horizontal(id="body"):
            yield SetupPanel(data, id="setup")
            with Vertical(id="results"):
                yield FilterBar(data, id="filters")
                yield OffersTable(id="offers", labels=short_labels())
                yield Details(data, id="details")
        yield KeyBar(id="keys")

    def on_resize(self) -> None:
        self._fit(self.size)

    def _fit(self, size: Size) -> None:
        """Fit 80 columns: the table takes the width (the setup panel shows while editing), no
        header, the curves on request. Styles are set on the few widgets concerned rather than
        through a class on the screen, which would restyle every widget. Done once on mount for
        the terminal's size, so the first frame has the layout of the frames after it (styles
        set again to the same values lay nothing out)."""
        narrow = size.width < WIDE_COLUMNS
        self._narrow = narrow
        self.query_one(Header).display = not narrow
        self.query_one("#desktop-line").display = not narrow
        verdict = self.query_one(VerdictBar)
        if verdict.narrow != narrow:
            verdict.narrow = narrow
            if self.calc is not None:
                self._show_verdict(self.calc)
        if self.query_one(Details).ready:  # (else once it is filled: _fill)
            self.query_one(BreakEvenView).show_utilisation(not narrow)
        self._layout(size)

    def _layout(self, size: Size | None = None) -> None:
        setup = self.query_one(SetupPanel)
        setup.display = not self._narrow or self._setup_open
        setup.styles.width = 32 if self._narrow else 35
        # At 80 columns the panel opens over the table's left side (a layer of its own) rather
        # than beside it: the table keeps its size, so closing the panel on Enter is one
        # layout pass, not two (Textual lays out again when sizes move).
        setup.styles.layer = "above" if self._narrow else None
        details = self.query_one("#details")
        details.display = not self._narrow or self._details_open
        height = (size or self.size).height
        details.styles.height = 12 if self._narrow else (15 if height >= TALL_ROWS else 11)

    def on_mount(self) -> None:
        self._fit(self.app.size)
        self.recalculate()
        self.call_after_refresh(self._fill)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first time, the screen's styles were just applied as its widgets mounted:
        Textual's own handler, which runs after this one, would apply every rule to every
        widget again (a sixth of the first paint) for nothing."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    @property
    def filled(self) -> bool:
        """Whether the setup panel's and the filter bar's fields and the details' tabs are
        mounted and show the settings (they come right after the first frame:
        costcalc.tui.widgets.later)."""
        try:
            return all(part.ready for part in self._later())
        except NoMatches:  # not composed yet
            return False

    def _later(self) -> tuple[FilledLater, ...]:
        # (by class: a query by FilledLater finds nothing, as Textual matches a type by the
        # names of the classes in its CSS chain, which the mixin is not part of)
        return self.query_one(SetupPanel), self.query_one(FilterBar), self.query_one(Details)

    async def _fill(self) -> None:
        """Mount the setup panel's and the filter bar's fields and the details' tabs (all at
        once: one layout pass), unless they are; return when they show the settings."""
        details = self.query_one(Details)
        drawn = details.ready
        await asyncio.gather(*(part.fill() for part in self._later()))
        if not drawn and details.ready:
            try:
                self.query_one(BreakEvenView).show_utilisation(not self._narrow)
                self._draw_details()
            except NoMatches:
                return  # the app is closing

    def warm(self) -> None:
        """Pay what the first GPU change would pay the first time (another desktop's
        comparison), so the user's first change does not; the result is thrown away. The app
        calls this once the first screen is up (CostcalcApp.settle)."""
        other = "rtx4090" if self.settings.gpu != "rtx4090" else "rtx3090"
        with contextlib.suppress(CostcalcError):  # the user's own data may lack that GPU
            self._evaluate(replace(self.settings, **{"gpu": other}))

    # ------------------------------------------------------------------ computing

    def recalculate(self) -> None:
        """Run the comparison for the current settings, data, bench and clock (once a
        measured utilisation they name has been read: the app asks again then)."""
        try:
            if self.app.measuring(self.settings):
                return
            self.calc = self._evaluate(self.settings)
        except CostcalcError as exc:
            self.notify(str(exc), title="Cannot compute", severity="error")

    def _evaluate(self, settings: Settings) -> Calculation:
        app = self.app
        return evaluate(
            settings,
            for_scenario(app.data, settings),
            app.clock(),
            bench=app.bench_for(settings),
            fallback_gpu=DEFAULT_GPU,
            recorded=self._recorded,
            measured=app.measured_for(settings),
            job_files=app.job_files_for(settings),
            monthly=app.months_for(settings),
        )

    def watch_settings(self, settings: Settings) -> None:
        self.recalculate()
        self.app.save_settings(settings)

    def watch_calc(self, calc: Calculation | None) -> None:
        if calc is None:
            return
        self.query_one(SetupPanel).show(calc, self.settings)
        self.query_one(FilterBar).show(self.settings)
        self._show_verdict(calc)
        table = self.query_one(OffersTable)
        table.show(calc, reset=True)
        # The cursor is back on the verdict's row: draw its details now, in the same frame as
        # the table, rather than when the table's message arrives.
        row = table.cursor_row
        self.selected_key = row.key if row is not None else None
        self._selected = row.result if row is not None else None
        self._draw_details()

    def _show_verdict(self, calc: Calculation) -> None:
        self.query_one(VerdictBar).show(calc)

    def _recorded(self, o: CloudOffer) -> list[Point]:
        """Readings of the verdict's offer `o` beyond the prices in use (other dated sources,
        your refresh history), for `evaluate`; kept per offer until the app's data change (a
        refresh writes the history and hands over new data)."""
        key = (o.provider, o.gpu, o.gpu_count, o.region)
        data = self.app.data
        if self._readings_of is not data:
            self._readings_of, self._readings = data, {}
        if key not in self._readings:
            self._readings[key] = recorded_points(o)
        return self._readings[key]

    @property
    def selected(self) -> OfferResult | None:
        if self._selected is not None:
            return self._selected
        return self.calc.comparison.best if self.calc is not None else None

    def on_offers_table_highlighted(self, event: OffersTable.Highlighted) -> None:
        """The cursor moved (a click): the table's cursor is the truth, not the message, which
        may be older than a key handled since (route_key follows the cursor at once)."""
        self._follow_cursor()

    def _follow_cursor(self) -> None:
        """Select the row under the table's cursor and draw its details, if it changed: in the
        key's own handler, so the table's new cursor and the curves land in one frame, and the
        key after it (`down e`) finds the row selected."""
        row = self.query_one(OffersTable).cursor_row
        key, result = (row.key, row.result) if row is not None else (None, None)
        if key != self.selected_key or result is not self._selected:
            self.selected_key, self._selected = key, result
            self._draw_details()

    def _draw_details(self) -> None:
        """Draw the visible tab for the selected offer, once per calculation and offer."""
        if self.calc is None or not self.query_one(Details).ready:
            return  # (drawn once the tabs are mounted: _fill)
        tabs = self.query_one(TabbedContent)
        if not tabs.display:
            return
        drawn = (self.calc, self.selected, tabs.active)
        if self._drawn is not None and all(a is b for a, b in zip(drawn, self._drawn, strict=True)):
            return
        self._drawn = drawn
        if tabs.active == "why-pane":
            self.query_one(WhyPanel).show(self.calc, self.selected)
        else:
            self.query_one(BreakEvenView).draw(self.calc, self.selected)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._draw_details()

    # ------------------------------------------------------------------ messages

    def on_settings_changed(self, message: SettingsChanged) -> None:
        message.stop()
        self.change(message.update)

    def change(self, update: dict[str, Any]) -> None:
        """Apply `update` to the settings now: the answer is computed in this handler."""
        merged = inputs.merge(plain(self.settings), update)
        try:
            self.settings = validated(Settings, merged)
        except ValidationError as exc:
            self.notify(problem(exc), title="Not applied", severity="error")

    # ------------------------------------------------------------------ fields and focus

    async def route_key(self, event: events.Key) -> bool:
        """Handle a key at once, in the order keys arrive (see the module's docstring); False
        leaves it to Textual (priority bindings, selects and their menus, Tab)."""
        key = event.key
        if key in ("tab", "shift+tab"):
            await self._fill()  # the fields it moves through
        if key.startswith("alt+") and not isinstance(self.focused, Select):
            # A terminal sends Alt+t as ESC t, so Escape and a key in one write (a paste, a
            # fast typist, tmux) arrive as 'alt+t'. The app binds no Alt key: it is Escape,
            # then the key.
            escape = events.Key("escape", None)
            if not await self.route_key(escape):
                await self.app.on_event(escape)
            rest = key.removeprefix("alt+")
            char = event.character if event.character and event.character.isprintable() else None
            await self.app.on_event(events.Key(rest, char))
            return True
        active = self.active_bindings.get(key)
        if active is not None and active.binding.priority:
            return False
        focused = self.focused
        if isinstance(focused, Input):
            # Enter and Escape move focus, and the next key must go where focus went: Textual
            # picks a key's widget when it reads the key, before this one's action has run.
            if key == "enter":
                with self.app.batch_update():
                    self._submit(focused)
                    await settle()
                self.check_idle()  # the screen skipped its idle while batched: paint now
                return True
            if key == "escape":
                self.action_leave_field()
                return True
            if event.is_printable and event.character is not None:
                # Typed now, not when the key has bubbled back to the Input: a C-k before it
                # would otherwise act after it (#6605).
                type_character(focused, event.character)
                return True
        elif focused is not None and not isinstance(focused, OffersTable):
            return False  # a select and its menu keep Textual's handling
        # (No focus yet, in the first moments of the app: the screen's keys, at once, too.)
        if key in ("tab", "shift+tab"):
            return False
        if active is not None and active.enabled:
            # The action runs before the next key is read (#6605): `u` focuses the field the
            # digits after it are typed into.
            handled = bool(await self.app.run_action(active.binding.action, active.node))
            if self.is_current:
                self._follow_cursor()
            return handled
        return False

    def _submit(self, field: Input) -> None:
        """Enter in a field: apply it and go back to the table before the next key."""
        if field.id == "text":  # the words filter applies as it is typed
            self.action_focus_table()
            return
        update = self.query_one(SetupPanel).apply(field)
        if update is not None:
            self.action_focus_table()
            self.change(update)

    async def action_focus_field(self, field: str) -> None:
        """Focus a field at once, its text selected: what follows replaces it. In the app's
        first moments, the key waits for the fields to be mounted (`_fill`): the keys after it
        are typed into the field."""
        await self._fill()
        try:
            widget = self.query_one(f"#{field}", Widget)
        except Exception:
            return
        opened = self._narrow and self._in_setup(widget) and not self._setup_open
        if opened:
            self._setup_open = True
            self._layout()
        # A panel just opened has no size yet: focus does not scroll (Textual would centre the
        # field against whatever size the panel had when its callback ran, which a loaded
        # machine makes a different one from run to run); it scrolls once the panel has one.
        self.set_focus(widget, scroll_visible=not opened)
        if opened:
            self.call_after_refresh(widget.scroll_visible, animate=False)
        if isinstance(widget, Input):
            widget.select_all()

    def action_leave_field(self) -> None:
        """Escape: back to the table. A setup field being typed in goes back to its applied
        value (Escape cancels); the words filter applies as it is typed, so it stays."""
        focused = self.focused
        if isinstance(focused, Input):
            self.query_one(SetupPanel).revert(focused)
        self.action_focus_table()

    def action_focus_table(self) -> None:
        self.set_focus(self.query_one(OffersTable))
        if self._narrow and self._setup_open:
            self._setup_open = False
            self._layout()

    async def action_toggle_setup(self) -> None:
        if not self._narrow:
            await self.action_focus_field("gpu")
            return
        self._setup_open = not self._setup_open
        self._layout()
        if self._setup_open:
            await self.action_focus_field("gpu")
        else:
            self.action_focus_table()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Tab into the setup panel at 80 columns opens it. (In a burst of keys this event can
        arrive after the focus has moved on, `u 6 0 Enter`: then it is old news.)"""
        if event.widget is not self.focused:
            return
        if self._narrow and not self._setup_open and self._in_setup(event.widget):
            self._setup_open = True
            self._layout()

    def _in_setup(self, widget: Widget) -> bool:
        return self.query_one(SetupPanel) in widget.ancestors

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter reaches here only when route_key did not see it (another screen on top)."""
        event.stop()
        self._submit(event.input)

    # ------------------------------------------------------------------ actions

    async def action_toggle_why(self) -> None:
        await self._fill()  # the tabs come right after the first frame
        tabs = self.query_one(TabbedContent)
        if self._narrow:
            # hidden -> why -> curves -> hidden
            if not self._details_open:
                self._details_open = True
                tabs.active = "why-pane"
            elif tabs.active == "why-pane":
                tabs.active = "breakeven-pane"
            else:
                self._details_open = False
            self._layout()
            self._draw_details()
            return
        tabs.active = "breakeven-pane" if tabs.active == "why-pane" else "why-pane"

    # A view's action returns the screen's mount, which run_action awaits: the keys after it in
    # a burst (`e Escape w`) then reach the view, not this screen. Each view's module is imported
    # when it is first opened, so the first frame waits for none of them.

    def action_break_even(self) -> Any:
        from costcalc.tui.screens.breakeven import BreakEvenScreen

        if self.calc is None:
            return None
        return self.app.push_screen(BreakEvenScreen(self.calc, self.selected))

    def action_desktops(self) -> Any:
        from costcalc.tui.screens.desktops import DesktopsScreen

        return self.app.push_screen(DesktopsScreen(self.settings))

    def action_refresh(self) -> Any:
        from costcalc.tui.screens.refresh import RefreshScreen

        return self.app.push_screen(RefreshScreen(self.settings.providers or None))

    def action_job(self) -> Any:
        from costcalc.tui.screens.job_panel import JobPanel

        return self.app.push_screen(JobPanel(self))

    def action_bench(self) -> Any:
        from costcalc.tui.screens.bench import BenchScreen

        return self.app.push_screen(BenchScreen())

    def action_export(self, kind: str) -> None:
        """Write the table as it is shown (rows, order, filters; every column) to a file in the
        working directory (the app's export_dir when served): CSV with plain numbers, Markdown
        as on screen."""
        from costcalc.present.export import export_text

        table = self.query_one(OffersTable)
        if self.calc is None:
            return
        stamp = self.calc.now.strftime("%Y%m%d-%H%M%S")
        folder = self.app.export_dir or Path.cwd()
        path = folder / f"costcalc-offers-{stamp}.{'md' if kind == 'markdown' else 'csv'}"
        rows = table.export_rows()
        text = export_text(rows, table.candidates, table.ctx, kind)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.notify(f"cannot write {path}: {exc.strerror}", title="Export", severity="error")
            return
        self.notify(f"{len(rows)} rows written to {path}", title="Export")

    def commands(self) -> Iterable[SystemCommand]:
        """What the command palette offers on this screen."""
        table = self.query_one(OffersTable)
        yield SystemCommand("Refresh prices", "download current prices (r)", self.action_refresh)
        yield SystemCommand(
            "Benchmark this machine", "quick bench with PyTorch (b)", self.action_bench
        )
        yield SystemCommand(
            "Price a job", "a model's training verdict, or serving it (J)", self.action_job
        )
        for field in FIELD_KEYS:
            spec = inputs.BY_FIELD[field]
            yield SystemCommand(
                f"Set {spec.what}",
                f"{spec.help} ({key_text(field)})",
                partial(self.action_focus_field, field),
            )
        for select, (key, what) in FILTER_KEYS.items():
            yield SystemCommand(
                f"Choose the {what.split(':')[0].split(' (')[0]}",
                f"{what} ({key})",
                partial(self.action_focus_field, select),
            )
        yield SystemCommand(
            "Filter the offers by words",
            "a100|rtx 4090 (/)",
            partial(self.action_focus_field, "text"),
        )
        yield SystemCommand(
            "Sort: best first", "the cheapest of each provider first", partial(table.sort_by, None)
        )
        digits = {title: n for n, title in table.sort_keys()}
        for column in table.candidates:
            title = column.title_in(table.ctx)
            key = f" ({digits[title]})" if title in digits else ""
            yield SystemCommand(
                f"Sort by {title}",
                f"order the offers by {title}{key}",
                partial(table.sort_by, column.key),
            )
        yield SystemCommand(
            "Show every offer" if not table.show_all else "Fold tiers and regions",
            "one row per offer, or per provider x GPU x tier (a)",
            table.action_toggle_all,
        )
        yield SystemCommand(
            "Export the table as CSV",
            "the rows shown, every column, to a file (x)",
            partial(self.action_export, "csv"),
        )
        yield SystemCommand(
            "Export the table as Markdown",
            "the rows shown, every column, to a file",
            partial(self.action_export, "markdown"),
        )
        yield SystemCommand("Break-even view", "both curves, full size (e)", self.action_break_even)
        yield SystemCommand(
            "Why this number",
            "the selected offer's figures step by step (w)",
            self.action_toggle_why,
        )
        yield SystemCommand(
            "Add your own price",
            "an offer you have been quoted, in $/h ($)",
            partial(self.action_focus_field, "cloud_prices"),
        )

    def apply(self, **update: Any) -> None:
        """Change settings from code (GPU detection, a finished bench) as if typed."""
        self.post_message(SettingsChanged(update))
