"""The refresh window: one line per provider, written as that provider's refresh goes.

`costcalc.feeds.refresh.run_refresh` runs in a thread worker and tells each event as it happens. A
provider's line reads `… RunPod  asking api.runpod.io` while it runs, then `✓ RunPod  1,059
offers (api.runpod.io)`, `✗ …  why (host)` or `– …  curated table, 40 d old (why)`, in place.
Servers are named by host, never by URL. The worker never raises into the app: another refresh
holding the lock, or any failure, becomes a line and a notification. When the refresh ends the
window says so, and the reloaded offers go to the app in a PricesRefreshed message. Escape
closes the window at any time; a refresh still running finishes in the background and reports
when done.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Label, LoadingIndicator, Static

from costcalc.feeds.refresh import (
    ProviderAsking,
    ProviderFinished,
    ProviderStarted,
    RefreshLocked,
    run_refresh,
)
from costcalc.present.display import safe
from costcalc.store.loaders import load_app_data
from costcalc.tui.messages import PricesRefreshed
from costcalc.tui.screens.job import RUNNING, JobScreen
from costcalc.tui.workers import answer

if TYPE_CHECKING:
    from costcalc.feeds.refresh import ProviderResult, RefreshEvent, RefreshReport
    from costcalc.tui.app import CostcalcApp

State = Literal["running", "ok", "failed", "skipped"]

MARKS: dict[State, tuple[str, str]] = {
    "running": ("…", "$text-warning"),
    "ok": ("✓", "$text-success"),
    "failed": ("✗", "$text-error"),
    "skipped": ("–", "$text-muted"),
}
"""The glyph that starts a provider's line, and its colour."""

LABEL_WIDTH = 19
"""Room for the longest provider label ('ECB exchange rates') and a space."""


def state_of(result: ProviderResult) -> State:
    if not result.ok:
        return "failed"
    return "skipped" if result.skipped else "ok"


def who(state: State, label: str) -> Content:
    """The left column of a provider's line: its glyph and its name."""
    glyph, colour = MARKS[state]
    return Content.assemble((glyph, f"bold {colour}"), " ", (label, "bold"))


def counts(report: RefreshReport) -> str:
    """'2 updated, 1 failed, 8 curated tables kept': the window's last status line."""
    done = sum(1 for r in report.results if r.ok and not r.skipped)
    kept = sum(1 for r in report.results if r.skipped)
    return f"{done} updated, {len(report.failed)} failed, {kept} curated tables kept"


def refresh_summary(report: RefreshReport) -> str:
    """One sentence for the notification, naming what failed."""
    if report.failed:
        names = ", ".join(r.label or r.provider for r in report.failed)
        text = f"refresh failed for {names} (their last prices stay); {counts(report)}"
    else:
        text = f"prices refreshed: {counts(report)}"
    if report.history_error:
        text += f"; price history not updated: {report.history_error}"
    return text


class ProviderLine(Horizontal):
    """One provider's line: glyph and name on the left, what happened on the right (a long
    reason wraps under itself, not under the name)."""

    def __init__(self, provider: str) -> None:
        super().__init__(id=f"line-{provider}", classes="job-line")
        self.who = Static(classes="job-who")
        self.what = Static(classes="job-what")

    def compose(self) -> ComposeResult:
        yield self.who
        yield self.what

    def show(self, state: State, label: str, what: str) -> None:
        self.who.update(who(state, label))
        self.say(what)

    def say(self, what: str) -> None:
        self.what.update(Content(safe(what)))


class RefreshScreen(JobScreen):
    """Live progress of `costcalc.feeds.refresh.run_refresh`, one line per provider."""

    DEFAULT_CSS = """
    RefreshScreen .job-line { height: auto; }
    RefreshScreen .job-who { width: 22; }
    RefreshScreen .job-what { width: 1fr; }
    """

    app: CostcalcApp

    def __init__(self, providers: Sequence[str] | None = None) -> None:
        super().__init__()
        self.providers = list(providers) if providers else None
        self._asking: dict[str, list[str]] = {}
        """The hosts each running provider has asked so far."""
        self._lines: dict[str, ProviderLine] = {}
        """The hosts each running provider has asked so far."""

    def compose(self) -> ComposeResult:
        with Vertical(id="job-body") as body:
            body.border_title = "Refresh prices"
            body.border_subtitle = RUNNING
            yield Label("Starting…", id="job-status")
            yield LoadingIndicator(id="job-spinner")
            yield VerticalScroll(id="job-log")

    def on_mount(self) -> None:
        # The app runs the job, not this window: a window's workers are cancelled when it
        # closes, and Escape leaves a refresh running (costcalc.tui.workers).
        self.app.run_worker(self.refresh_prices, thread=True, exit_on_error=False, group="refresh")

    # ------------------------------------------------------------------ lines

    def _show(self, provider: str, state: State, label: str, what: str) -> None:
        """Write a provider's line, or rewrite it in place."""
        line = self._lines.get(provider)
        if line is None:
            line = self._lines[provider] = ProviderLine(provider)
            self.query_one("#job-log", VerticalScroll).mount(line)
        line.show(state, label, what)
        self.call_after_refresh(self._follow)

    def _follow(self) -> None:
        """Keep the newest line in view once it has its height (a long reason wraps)."""
        if self.is_attached:
            self.query_one("#job-log", VerticalScroll).scroll_end(animate=False)

    def _event(self, event: RefreshEvent) -> None:
        if not self.is_attached:
            return
        if isinstance(event, ProviderStarted):
            self._status(f"Refreshing {event.index} of {event.total}: {event.label}")
            self._show(event.provider, "running", event.label, "starting")
        elif isinstance(event, ProviderAsking):
            hosts = self._asking.setdefault(event.provider, [])
            hosts.append(event.host)
            self._lines[event.provider].say(f"asking {', '.join(hosts)}")
        elif isinstance(event, ProviderFinished):
            r = event.result
            self._show(r.provider, state_of(r), r.label or r.provider, r.line)

    # ------------------------------------------------------------------ the job

    def _done(self, message: PricesRefreshed, status: str | None = None) -> None:
        self.finish(status or message.summary, failed=message.data is None)
        self.app.post_message(message)

    def refresh_prices(self) -> None:
        app = self.app

        def tell(event: RefreshEvent) -> None:
            answer(app, self._event, event)

        try:
            report = run_refresh(self.providers, progress=tell)
        except RefreshLocked as exc:
            answer(app, self._done, PricesRefreshed(None, str(exc), False))
            return
        except Exception as exc:  # the UI reports any failure; it never crashes on one
            text = f"refresh failed: {type(exc).__name__}: {exc}"
            answer(app, self._done, PricesRefreshed(None, text, False))
            return
        summary = refresh_summary(report)
        answer(app, self._status, "Reloading prices…")

        try:
            data = load_app_data()
        except Exception as exc:  # keep the offers on screen if the reload fails
            text = f"{summary}; reloading failed: {exc}"
            answer(app, self._done, PricesRefreshed(None, text, False))
            return
        ok = not report.failed and not report.history_error
        status = f"Finished: {counts(report)}; prices reloaded"
        if report.history_error:
            status += f"; price history not updated: {report.history_error}"
        answer(app, self._done, PricesRefreshed(data, summary, ok), status)
