"""The refresh screen: download fresh prices in a thread, show each step as it happens.

The worker never raises into the app: a missing refresh module, another refresh holding the
lock, or any failure becomes a line here and a notification. When it ends, the reloaded offers
go to the app in a PricesRefreshed message and the tables update. Escape closes the window at
any time; a refresh still running finishes in the background and reports when done.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, LoadingIndicator, RichLog

from costcalc.tui.messages import PricesRefreshed

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp


class RefreshScreen(ModalScreen[None]):
    """Live progress of `costcalc.refresh.run_refresh`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    app: CostcalcApp

    def __init__(self, providers: Sequence[str] | None = None) -> None:
        super().__init__()
        self.providers = list(providers) if providers else None

    def compose(self) -> ComposeResult:
        with Vertical(id="job-body") as body:
            body.border_title = "Refresh prices"
            body.border_subtitle = "Esc to close (the refresh goes on)"
            yield Label("Starting…", id="job-status")
            yield LoadingIndicator(id="job-spinner")
            yield RichLog(id="job-log", wrap=True, markup=False)

    def on_mount(self) -> None:
        self.refresh_prices()

    def action_close(self) -> None:
        self.dismiss()

    def _say(self, line: str) -> None:
        if self.is_attached:
            self.query_one("#job-log", RichLog).write(line)
            self.query_one("#job-status", Label).update(line)

    def _done(self, message: PricesRefreshed) -> None:
        if self.is_attached:
            self.query_one("#job-spinner").display = False
            self._say(message.summary)
        self.app.post_message(message)

    @work(thread=True, exclusive=True, exit_on_error=False, group="refresh")
    def refresh_prices(self) -> None:
        app = self.app

        def say(line: str) -> None:
            app.call_from_thread(self._say, line)

        from costcalc.refresh import RefreshLocked, run_refresh

        try:
            report = run_refresh(self.providers, progress=say)
        except RefreshLocked as exc:
            app.call_from_thread(self._done, PricesRefreshed(None, str(exc), False))
            return
        except Exception as exc:  # the UI reports any failure; it never crashes on one
            text = f"refresh failed: {type(exc).__name__}: {exc}"
            app.call_from_thread(self._done, PricesRefreshed(None, text, False))
            return
        failed = [r for r in report.results if not r.ok]
        summary = (
            "prices refreshed"
            if not failed
            else "refresh failed for " + "; ".join(f"{r.provider}: {r.message}" for r in failed)
        )
        say("reloading prices…")
        from costcalc.loaders import load_app_data

        try:
            data = load_app_data()
        except Exception as exc:  # keep the offers on screen if the reload fails
            text = f"{summary}; reloading failed: {exc}"
            app.call_from_thread(self._done, PricesRefreshed(None, text, False))
            return
        app.call_from_thread(self._done, PricesRefreshed(data, summary, not failed))
