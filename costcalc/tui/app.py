"""The app and its factory, `make_app`, used by `costcalc` / `costcalc tui` and by the tests.

Rule kept here: the App holds what every screen shares (data, bench, clock, settings) and the
workers that belong to no screen: GPU detection after the first paint, loading the bench the
settings name, saving what the app remembers, and the refresh and bench jobs that outlive their
windows. The app starts from the user's config.yaml and what it remembers (app-state.yaml) and
writes only the latter (costcalc.store.settings).
All of them run in threads and answer with messages, unless cancelled (costcalc.tui.workers).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input, Select

from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.hybrid import MEASURED_PROFILE, is_measured_profile
from costcalc.core.scenario import AppData
from costcalc.core.usage import is_measured
from costcalc.store.loaders import load_app_data, utc_now
from costcalc.store.settings import (
    Settings,
    app_settings,
    load_app_state,
    load_saved,
    save_app_state,
)
from costcalc.tui._compat import escape_then_key
from costcalc.tui.messages import BenchFinished, GpuDetected, PricesRefreshed
from costcalc.tui.screens.main import MainScreen, type_character
from costcalc.tui.widgets.offers import OffersTable
from costcalc.tui.workers import answer, cancelled

if TYPE_CHECKING:
    from pathlib import Path

    from costcalc.core.bench_results import BenchResult
    from costcalc.core.job_quick import JobFiles
    from costcalc.core.usage import MeasuredUse, MonthlyUse

Clock = Callable[[], datetime]

SETTLE_AFTER_S = 0.3
"""After the first paint, when the app is idle: see CostcalcApp.settle."""


class CostcalcApp(App[None]):
    """Rent cloud GPUs or buy a desktop? Explore it with your own numbers."""

    CSS_PATH = "app.tcss"
    TITLE = "costcalc"
    SUB_TITLE = "rent cloud GPUs or buy a desktop?"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", show=False),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    def __init__(
        self,
        data: AppData,
        settings: Settings,
        clock: Clock,
        *,
        settings_warning: str | None = None,
        detect_gpu: bool = True,
        persist: bool = True,
        load_bench: bool = True,
        export_dir: Path | None = None,
        config: Settings | None = None,
    ) -> None:
        super().__init__()
        escape_then_key()
        self.data = data
        self.settings = settings
        self.clock = clock
        self.bench_result: BenchResult | None = None
        """The latest saved bench (what `bench: latest` names), loaded after the first paint."""
        self._bench_files: dict[str, BenchResult | None] = {}
        """Bench results the settings name by path, as loaded (None: loading, or unreadable)."""
        self._measured: dict[str, MeasuredUse | str | None] = {}
        self._months: dict[str, MonthlyUse | str | None] = {}
        """The months a `measured` profile names, under its text, as `_measured` keeps shares."""
        """Measured busy shares by the utilisation text that names them (`measured:7d`), as
        read from the history: None while loading, the one-line error when there is none."""
        self._saving = threading.Lock()
        self._saves_asked = 0
        self._settings_warning = settings_warning
        self._detect_gpu = detect_gpu and settings.gpu is None
        self._persist = persist
        self._load_bench = load_bench
        self.export_dir = export_dir
        """Where exports are written (None: the working directory)."""
        self._frozen = False
        """Whether settle froze the loaded objects (undone when the app ends)."""
        self._ended = False
        self._config_settings = Settings() if config is None else config
        """What the user's config.yaml gives: the app remembers what differs from it."""
        self._keep_bad_state = False
        """Set by make_app when the whole app-state file was unreadable: it is moved aside to
        app-state.yaml.bad before the first save."""
        # Chosen before the first styling: changing it after mount restyles every widget.
        self._theme_known = settings.theme in self.available_themes
        if self._theme_known:
            self.theme = settings.theme

    async def on_event(self, event: events.Event) -> None:
        """Keys go to the main screen first, which handles them in arrival order
        (MainScreen.route_key says why); on a view over it, the same holds (view_key)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            screen = self.screen
            if isinstance(screen, MainScreen):
                handled = await screen.route_key(event)
            else:
                handled = await self.view_key(event)
            if handled:
                self.app_focus = True
                return
        await super().on_event(event)

    async def view_key(self, event: events.Key) -> bool:
        """A key on a view (break-even, help, desktops, a job's window), handled before the
        next key is read, as on the main screen: Escape and a key in one write (`e Escape w`
        from a fast typist or tmux arrives as 'e', 'alt+w') is Escape, then the key, and a key
        bound here acts at once, so the key after an Escape that closes the view reaches the
        screen under it. False leaves the key to Textual: text typed into a field, a select's
        menu."""
        focused = self.focused
        key = event.key
        in_menu = focused is not None and any(isinstance(a, Select) for a in focused.ancestors)
        if key in ("tab", "shift+tab") and not in_menu:
            # Focus moves now, so the keys after a Tab in one burst go to the field it moved to
            # (Textual would give them to the one it left: the Job panel's typed tokens were lost
            # in its method's select).
            if key == "tab":
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return True
        if focused is not None and (isinstance(focused, Select) or in_menu):
            return False
        if key.startswith("alt+"):
            await self.on_event(events.Key("escape", None))
            char = event.character if event.character and event.character.isprintable() else None
            await self.on_event(events.Key(key.removeprefix("alt+"), char))
            return True
        if isinstance(focused, Input) and event.is_printable and event.character is not None:
            type_character(focused, event.character)  # now, in arrival order, as on the main screen
            return True
        active = self.screen.active_bindings.get(key)
        if active is None or not active.enabled:
            return False
        # The action's result is awaited: a closing screen is gone before the next key.
        return bool(await self.run_action(active.binding.action, active.node))

    def get_default_screen(self) -> MainScreen:
        return MainScreen(self.settings)

    def on_mount(self) -> None:
        if not self._theme_known:
            self.notify(f"unknown theme {quoted(self.settings.theme)}", severity="warning")
        if self._settings_warning:
            self.notify(self._settings_warning, title="Settings", severity="warning", timeout=10)
        for warning in self.data.book.warnings:
            self.notify(warning, title="Prices", severity="warning", timeout=10)
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        if self._detect_gpu:
            self.detect_gpu()
        if self._load_bench:
            self.load_latest_bench()
        self.set_timer(SETTLE_AFTER_S, self.settle)

    def settle(self) -> None:
        """Once, after the first paint: warm the main screen's first change, then freeze what
        is loaded. The data, the catalog and the widgets (hundreds of thousands of objects) stay
        for the app's life; frozen, the garbage collector stops scanning them: a full
        collection took 100-250 ms in the middle of a keypress with 5,000 offers, now a few ms.
        `gc.freeze` is process-wide, so the app undoes it when it ends (on_unmount).

        Nothing is collected first: that full collection (90 ms with 5,000 offers, 70 ms in a
        test process) stalled a key pressed in the app's first half-second, to free the
        start-up's cyclic garbage, some ten thousand objects, which instead stay frozen with
        the rest until the app ends."""
        if self._ended:  # the timer can fire after the app has begun to close
            return
        main = self.main
        if main is not None and not main.filled:  # its fields are still coming
            self.set_timer(SETTLE_AFTER_S, self.settle)
            return
        if main is not None:
            main.warm()
        gc.freeze()
        self._frozen = True

    def on_unmount(self) -> None:
        self._ended = True
        if self._frozen:  # a test process runs many apps: each leaves the collector as it was
            gc.unfreeze()
            self._frozen = False

    @property
    def main(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    # ------------------------------------------------------------------ settings

    def save_settings(self, settings: Settings) -> None:
        """Remember the settings (app-state.yaml, in a worker); the user's config.yaml is
        never written."""
        self.settings = settings
        if self._persist:
            self._saves_asked += 1
            self._save(settings, self._saves_asked, keep_bad=self._keep_bad_state)
            self._keep_bad_state = False

    @work(thread=True, exit_on_error=False, group="save")
    def _save(self, settings: Settings, number: int, keep_bad: bool) -> None:
        """Save the settings of change `number`, unless a later change is already asked for.
        One save at a time, so an older one never lands after a newer one. (Not `exclusive`
        and `is_cancelled`: the app's end cancels its workers, and the last change, made just
        before quitting, must still be saved.)"""
        with self._saving:
            if number < self._saves_asked:
                return
            try:
                save_app_state(settings, self._config_settings, keep_bad=keep_bad)
            except OSError as exc:
                answer(
                    self,
                    self.notify,
                    f"cannot save settings: {exc}",
                    title="Settings",
                    severity="error",
                )

    def watch_theme(self, theme: str) -> None:
        main = self.main
        if main is not None and theme != main.settings.theme:
            main.apply(theme=theme)

    # ------------------------------------------------------------------ GPU detection

    @work(thread=True, exclusive=True, exit_on_error=False, group="detect")
    def detect_gpu(self) -> None:
        from costcalc.tui.detect import nvidia_smi_gpu_names  # in its worker, after the first frame

        for name in nvidia_smi_gpu_names():
            try:
                spec = self.data.catalog.resolve(name)
            except CostcalcError:
                continue
            if not cancelled():
                self.post_message(GpuDetected(spec.key, name))
            return

    def on_gpu_detected(self, message: GpuDetected) -> None:
        main = self.main
        if main is None or main.settings.gpu is not None:
            return
        spec = self.data.catalog.get(message.gpu_key)
        main.apply(gpu=spec.key)
        self.notify(f"{message.reported_name} found on this machine", title="Your GPU")

    # ------------------------------------------------------------------ bench

    @work(thread=True, exclusive=True, exit_on_error=False, group="bench-load")
    def load_latest_bench(self) -> None:
        # the bench's records load in this worker, after the first frame, as the bench does
        from costcalc.bench.store import load_latest

        try:
            result = load_latest()
        except CostcalcError as exc:  # a broken results file must not stop the app
            answer(self, self.notify, str(exc), title="Bench", severity="warning")
            return
        if result is not None:
            answer(self, self._set_bench, result)

    def _set_bench(self, result: BenchResult) -> None:
        self.bench_result = result
        main = self.main
        if main is not None:
            main.recalculate()

    def bench_for(self, settings: Settings) -> BenchResult | None:
        """The bench result the settings name, as `costcalc quick` reads it: `latest` (loaded
        after the first paint) or a file, loaded in a worker the first time it is named; None
        until it is loaded."""
        spec = settings.bench
        if spec is None:
            return None
        from costcalc.bench.store import LATEST

        if spec == LATEST:
            return self.bench_result
        if spec not in self._bench_files:
            self._bench_files[spec] = None  # asked once: a bad path is reported once
            self.load_bench_file(spec)
        return self._bench_files[spec]

    @work(thread=True, exit_on_error=False, group="bench-file")
    def load_bench_file(self, spec: str) -> None:
        from costcalc.bench.store import resolve

        try:
            result = resolve(spec)
        except CostcalcError as exc:  # the one-line error the CLI prints, as a notification
            answer(self, self.notify, str(exc), title="Bench", severity="warning")
            return
        answer(self, self._set_bench_file, spec, result)

    def _set_bench_file(self, spec: str, result: BenchResult) -> None:
        self._bench_files[spec] = result
        main = self.main
        if main is not None and main.settings.bench == spec:
            main.recalculate()

    def on_bench_finished(self, message: BenchFinished) -> None:
        self.notify(message.summary, title="Bench")
        self._set_bench(message.result)
        from costcalc.core.bench_apply import desktop_gpu  # only once a bench has run

        measured = desktop_gpu(message.result)
        main = self.main
        if measured is not None and main is not None and measured != main.settings.gpu:
            main.apply(gpu=measured)  # the GPU just measured is the desktop being costed

    # ------------------------------------------------------------------ measured utilisation

    def job_files_for(self, settings: Settings) -> JobFiles | None:
        """The model list and public runs' utilisation a `model` needs, as `quick --model`
        reads them (bundled, read once per process); None without a model."""
        if settings.model is None:
            return None
        from costcalc.store.bundled import load_job_files

        return load_job_files()

    def measuring(self, settings: Settings) -> bool:
        """Whether the busy share a `measured` utilisation names, or the months a `measured`
        profile names, is still being read (each is read in a worker the first time it is
        named, as `costcalc quick` reads it); the screen computes the answer once it is."""
        waiting = False
        if is_measured_profile(settings.profile):
            if MEASURED_PROFILE not in self._months:
                self._months[MEASURED_PROFILE] = None
                self.load_months()
            waiting = self._months[MEASURED_PROFILE] is None
        text = settings.utilisation
        if not is_measured(text):
            return waiting
        assert isinstance(text, str)
        if text not in self._measured:
            self._measured[text] = None
            self.load_measured(text)
        return waiting or self._measured[text] is None

    def months_for(self, settings: Settings) -> MonthlyUse | None:
        """The busy share of each of the last twelve months, once read, when the profile is
        `measured`; CostcalcError with quick's line when the history holds no samples."""
        if not is_measured_profile(settings.profile):
            return None
        found = self._months.get(MEASURED_PROFILE)
        if isinstance(found, str):
            raise CostcalcError(found)
        return found

    @work(thread=True, exit_on_error=False, group="measured")
    def load_months(self) -> None:
        from costcalc.store.usage import monthly_use

        try:
            found: MonthlyUse | str = monthly_use(self.clock())
        except CostcalcError as exc:  # no samples: the answer says so, as quick does
            found = str(exc)
        answer(self, self._set_months, found)

    def _set_months(self, found: MonthlyUse | str) -> None:
        self._months[MEASURED_PROFILE] = found
        main = self.main
        if main is not None and is_measured_profile(main.settings.profile):
            main.recalculate()

    def measured_for(self, settings: Settings) -> MeasuredUse | None:
        """The measured busy share the settings name, once read; CostcalcError with quick's
        line when the history holds no samples for it."""
        found = self._measured.get(str(settings.utilisation))
        if isinstance(found, str):
            raise CostcalcError(found)
        return found

    @work(thread=True, exit_on_error=False, group="measured")
    def load_measured(self, text: str) -> None:
        from costcalc.store.usage import measured_use

        try:
            found: MeasuredUse | str = measured_use(text, self.clock())
        except CostcalcError as exc:  # no samples: the answer says so, as quick does
            found = str(exc)
        answer(self, self._set_measured, text, found)

    def _set_measured(self, text: str, found: MeasuredUse | str) -> None:
        self._measured[text] = found
        main = self.main
        if main is not None and main.settings.utilisation == text:
            main.recalculate()

    # ------------------------------------------------------------------ refresh

    def on_prices_refreshed(self, message: PricesRefreshed) -> None:
        self._measured.clear()  # read again when next named: the monitor may have written
        self._months.clear()
        if message.data is not None:
            self.data = message.data
            main = self.main
            if main is not None:
                main.recalculate()
        self.notify(
            message.summary,
            title="Refresh",
            severity="information" if message.ok else "warning",
            timeout=8,
        )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The app's own commands first (refresh, bench, fields, sorting, export), then
        Textual's (themes, keys, quit)."""
        main = self.main
        if main is not None and screen is main:
            yield from main.commands()
        yield from super().get_system_commands(screen)

    def action_help(self) -> Any:
        """The help, with the sort digit of each column on the main screen's table; awaited
        (the action returns the mount), so the next key of a burst reaches it."""
        from costcalc.tui.screens.help import HelpScreen  # imported when first opened

        if not isinstance(self.screen, HelpScreen):
            main = self.main
            sort_keys = main.query_one(OffersTable).sort_keys() if main is not None else []
            return self.push_screen(HelpScreen(sort_keys))
        return None


def make_app(
    data: AppData | None = None,
    settings: Settings | None = None,
    now: datetime | None = None,
    **options: Any,
) -> CostcalcApp:
    """The app with real files and clock by default; tests pass fixed data, settings and `now`.

    Injected settings are not saved unless `persist=True` is passed (then the app remembers
    what differs from the defaults); without them the app starts from the user's config.yaml
    and what it remembers (app-state.yaml), and every change is remembered there.
    """
    warning = None
    unreadable = False
    loaded = settings is None
    if settings is None:
        config, state = load_saved(), load_app_state()
        settings, unreadable = app_settings(config, state), state.unreadable
        options.setdefault("config", config.settings)
        warnings = [*config.warnings, *state.warnings]
        if unreadable:
            warnings[-1] += (
                f" (the file is moved aside to {state.path.name}.bad when you change a setting)"
            )
        warning = "; ".join(warnings) or None
    options.setdefault("persist", loaded)
    clock: Clock = utc_now if now is None else (lambda: now)
    app = CostcalcApp(
        load_app_data() if data is None else data,
        settings,
        clock,
        settings_warning=warning,
        **options,
    )
    app._keep_bad_state = unreadable
    return app
