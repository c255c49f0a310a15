"""What app tests share beyond fixtures: waiting for a state, a burst of keys, the notifications,
layout passes counted. The only place tests touch Textual's private parts, each with its reason
(as costcalc/tui/_compat.py is for the app)."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from textual import events
from textual.app import App
from textual.notifications import Notification
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input


async def wait_until(
    app: App[object], condition: Callable[[], object], timeout_s: float = 20.0
) -> None:
    """Let the app run until `condition()` holds: the UI keeps processing while we wait.
    Waiting for a state, not for a number of frames, is what keeps a test from depending on how
    fast this machine paints."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        assert loop.time() < deadline, f"timed out after {timeout_s} s waiting for {condition}"
        await asyncio.sleep(0.02)


async def started(pilot: Pilot[object]) -> None:
    """The main screen as a user sees it once the app has started: the answer computed and
    the setup panel's and filter bar's fields mounted and showing the settings (they come
    right after the first frame, so a test that reads or sets a field first waits for them)."""
    app = pilot.app
    await wait_until(
        app,
        lambda: (
            getattr(app.screen, "filled", False) and getattr(app.screen, "calc", None) is not None
        ),
    )


async def steady(pilot: Pilot[object]) -> None:
    """Every pending message handled and every animation done: the screen as a user sees it
    once the app is idle."""
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def no_blink(pilot: Pilot[object]) -> None:
    """Stop the cursor of every text field on the screen from blinking, once the screen's
    widgets are mounted: a blinking cursor is on or off depending on when a snapshot is taken.
    (A field focused afterwards shows its cursor, steadily.)"""
    app = pilot.app
    # (the main screen's setup fields are mounted right after its first frame)
    await wait_until(app, lambda: app.screen.is_mounted and getattr(app.screen, "filled", 1))
    fields = app.screen.query(Input)
    assert fields, "no text field on the screen"
    for field in fields:
        field.cursor_blink = False


def burst(app: App[object], *keys: str) -> None:
    """Send keys the way a paste or a fast typist's keys arrive: all queued at once, none handled
    before the last is sent (Pilot's `press` lets the app go idle after every key). Keys are
    named as for `Pilot.press`: a key name ('enter', 'ctrl+k') or one character."""
    for key in keys:
        name, char = _key_and_character(key)
        event = events.Key(name, char)
        event.set_sender(app)
        app.post_message(event)


def _key_and_character(key: str) -> tuple[str, str | None]:
    """The key's name and character as the terminal driver reports them, by Textual's own
    conversions, as `Pilot.press` does. Private: `textual.keys` makes public only the way back
    from a name to its character, and a guess at its names ('/' is 'slash', not 'solidus')
    would test a different key than a user presses."""
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    original = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        char = key if len(key) == 1 else None
    return key, char


def notifications(app: App[object]) -> list[Notification]:
    """The notifications the app has shown and not yet expired.

    Private: Textual keeps this list on `App._notifications` and offers no public reader; the
    toasts on screen are no substitute, as they are replaced and expire on a timer that a slow
    machine can outrun."""
    return list(app._notifications)


def record_notifications(app: App[object]) -> list[str]:
    """Every message the app notifies from now on, expired or not: a count that a slow machine
    cannot change by outrunning a toast's timeout (App.notify is public; this wraps it)."""
    posted: list[str] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        posted.append(message)
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return posted


def notified(app: App[object], words: str) -> bool:
    """Whether a notification that is showing contains `words`."""
    return any(words in note.message for note in notifications(app))


@contextmanager
def counting_layouts(screen: Screen[object]) -> Iterator[list[Screen[object]]]:
    """Count the screen's layout passes (a layout or a scroll reflow of its widgets) while the
    block runs, through Textual's public signal that each pass publishes."""
    passes: list[Screen[object]] = []

    def noted(laid_out: Screen[object]) -> None:
        passes.append(laid_out)

    screen.screen_layout_refresh_signal.subscribe(screen, noted)
    try:
        yield passes
    finally:
        screen.screen_layout_refresh_signal.unsubscribe(screen)
