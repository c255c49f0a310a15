"""The app and its factory, `make_app`, used by `costcalc` / `costcalc tui` and by the tests.

Rule kept here: the App holds what every screen shares (data, bench, clock, settings file) and
the few workers that belong to no screen: GPU detection after the first paint, loading the
latest bench result, saving settings. All of them run in threads and answer with messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from costcalc.core.errors import CostcalcError
from costcalc.core.scenario import AppData
from costcalc.store.loaders import load_app_data, utc_now
from costcalc.store.settings import Settings, load_saved, save_settings
from costcalc.tui.messages import BenchFinished, GpuDetected, PricesRefreshed
from costcalc.tui.screens.main import MainScreen

if TYPE_CHECKING:
    from costcalc.core.bench_results import BenchResult

Clock = Callable[[], datetime]


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
    ) -> None:
        super().__init__()
        self.data = data
        self.settings = settings
        self.clock = clock
        self.bench_result: BenchResult | None = None
        self._settings_warning = settings_warning
        self._detect_gpu = detect_gpu and settings.gpu is None
        self._persist = persist
        self._load_bench = load_bench
        self._keep_bad_config = False
        """Set by make_app when the whole settings file was unreadable: it is moved aside to
        config.yaml.bad before the first save."""
        # Chosen before the first styling: changing it after mount restyles every widget.
        self._theme_known = settings.theme in self.available_themes
        if self._theme_known:
            self.theme = settings.theme

    async def on_event(self, event: events.Event) -> None:
        """Keys go to the main screen first, which handles them in arrival order
        (MainScreen.route_key says why)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            screen = self.screen
            if isinstance(screen, MainScreen) and await screen.route_key(event):
                self.app_focus = True
                return
        await super().on_event(event)

    def get_default_screen(self) -> MainScreen:
        return MainScreen(self.settings)

    def on_mount(self) -> None:
        if not self._theme_known:
            self.notify(f"unknown theme {self.settings.theme!r}", severity="warning")
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

    @property
    def main(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    # ------------------------------------------------------------------ settings

    def save_settings(self, settings: Settings) -> None:
        self.settings = settings
        if self._persist:
            self._save(settings, keep_bad=self._keep_bad_config)
            self._keep_bad_config = False

    @work(thread=True, exclusive=True, exit_on_error=False, group="save")
    def _save(self, settings: Settings, keep_bad: bool) -> None:
        try:
            save_settings(settings, keep_bad=keep_bad)
        except OSError as exc:
            self.call_from_thread(
                self.notify, f"cannot save settings: {exc}", title="Settings", severity="error"
            )

    def watch_theme(self, theme: str) -> None:
        main = self.main
        if main is not None and theme != main.settings.theme:
            main.apply(theme=theme)

    # ------------------------------------------------------------------ GPU detection

    @work(thread=True, exclusive=True, exit_on_error=False, group="detect")
    def detect_gpu(self) -> None:
        from costcalc.tui.detect import nvidia_smi_gpu_names

        for name in nvidia_smi_gpu_names():
            try:
                spec = self.data.catalog.resolve(name)
            except CostcalcError:
                continue
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
        from costcalc.bench.store import load_latest

        try:
            result = load_latest()
        except CostcalcError as exc:  # a broken results file must not stop the app
            self.call_from_thread(self.notify, str(exc), title="Bench", severity="warning")
            return
        if result is not None:
            self.call_from_thread(self._set_bench, result)

    def _set_bench(self, result: BenchResult) -> None:
        self.bench_result = result
        main = self.main
        if main is not None:
            main.recalculate()

    def bench_for(self, settings: Settings) -> BenchResult | None:
        """The bench result the settings name: the latest (loaded after the first paint)."""
        return self.bench_result if settings.bench is not None else None

    def on_bench_finished(self, message: BenchFinished) -> None:
        self.notify(message.summary, title="Bench")
        self._set_bench(message.result)
        from costcalc.core.bench_apply import desktop_gpu

        measured = desktop_gpu(message.result)
        main = self.main
        if measured is not None and main is not None and measured != main.settings.gpu:
            main.apply(gpu=measured)  # the GPU just measured is the desktop being costed

    # ------------------------------------------------------------------ refresh

    def on_prices_refreshed(self, message: PricesRefreshed) -> None:
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

    def action_help(self) -> None:
        from costcalc.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())


def make_app(
    data: AppData | None = None,
    settings: Settings | None = None,
    now: datetime | None = None,
    **options: Any,
) -> CostcalcApp:
    """The app with real files and clock by default; tests pass fixed data, settings and `now`.

    Injected settings are not saved unless `persist=True` is passed; with settings from the
    config file, every change is saved back to it.
    """
    warning = None
    unreadable = False
    loaded = settings is None
    if settings is None:
        saved = load_saved()
        settings, unreadable = saved.settings, saved.unreadable
        warning = "; ".join(saved.warnings) or None
        if warning and unreadable:
            warning += (
                f" (the file is moved aside to {saved.path.name}.bad when you change a setting)"
            )
    options.setdefault("persist", loaded)
    clock: Clock = utc_now if now is None else (lambda: now)
    app = CostcalcApp(
        load_app_data() if data is None else data,
        settings,
        clock,
        settings_warning=warning,
        **options,
    )
    app._keep_bad_config = unreadable
    return app
