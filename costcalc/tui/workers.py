"""How a thread worker hands its answer to the UI thread.

Rule kept here: a cancelled worker answers nothing. Textual cancels a worker when the app closes,
when the widget or screen that started it goes away, and when a newer worker of its exclusive
group starts; the thread itself runs on to its end (Python cannot stop it), so it is the
worker's job to check before it posts. A job that must outlive its window (a refresh, a bench:
Escape leaves them running) is started on the app, so only the app's end cancels it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.worker import get_current_worker


def cancelled() -> bool:
    """Whether the thread worker this runs in has been cancelled."""
    return get_current_worker().is_cancelled


def answer(app: App[Any], callback: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
    """Call `callback` on the UI thread, unless this worker was cancelled; says which."""
    if cancelled():
        return False
    app.call_from_thread(callback, *args, **kwargs)
    return True
