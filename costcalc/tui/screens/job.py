"""What the refresh and bench windows share: a status line, Escape to close, and one way of
saying the job has finished.

While a job runs the window's subtitle says Escape leaves it running; when it ends the spinner
or bar goes, the status line gives the outcome and the subtitle reads "Done — Esc to close" (or
"Failed — Esc to close"), so nobody waits on a job that is over.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label

RUNNING = "Esc to close (it goes on in the background)"
DONE = "Done — Esc to close"
FAILED = "Failed — Esc to close"


class JobScreen(ModalScreen[None]):
    """A modal window over a worker; subclasses compose #job-body, #job-status and the rest."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    finished = False
    """True once the job has ended, well or not."""

    def action_close(self) -> Any:
        return self.dismiss()  # awaited by run_action: closed before the next key of a burst

    def _status(self, text: str) -> None:
        if self.is_attached:
            self.query_one("#job-status", Label).update(Content(text))  # never markup

    def finish(self, text: str, *, failed: bool) -> None:
        """Say the job is over: the outcome in the status line, the spinner or bar gone."""
        if not self.is_attached:
            return
        self.finished = True
        self._status(text)
        for busy in self.query("#job-spinner, #job-progress"):
            if failed or busy.id == "job-spinner":
                busy.display = False
        self.query_one("#job-body").border_subtitle = FAILED if failed else DONE
