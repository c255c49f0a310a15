"""Parts of the main screen whose widgets are mounted right after its first frame.

The setup panel, the filter bar and the tabs of the curves hold 116 of the screen's 131
widgets (thirty-one fields, a select being five widgets), and Textual pays for each one as it
mounts, styles and paints it: they cost more than the rest of the first frame together. The
verdict and the offers are what a person waits for, so these are composed empty (their room,
borders and titles show) and filled as soon as that frame is out; a key that needs one of their
fields waits for them (MainScreen awaits `fill`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual.await_complete import AwaitComplete
from textual.css.query import NoMatches
from textual.widget import MountError, Widget


class FilledLater(Widget):
    """A container whose children (`later`) are mounted by `fill`, not with the screen.

    Mixed in after a container class (`class SetupPanel(VerticalScroll, FilledLater)`): Textual
    takes a widget's CSS type names from the first base class of each class up the chain, so
    the container's own rules (its layout, its scrolling) apply only when it comes first. What
    the screen shows in it before then (`show`) is kept (`pending`) and shown once the children
    are there."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ready = False
        """Whether the children are mounted and show what the screen last gave."""
        self._filling: AwaitComplete | None = None
        self._pending: Callable[[], None] | None = None

    def later(self) -> Iterable[Widget]:
        """The children, made when `fill` is first called."""
        raise NotImplementedError

    def pending(self, show: Callable[[], None]) -> bool:
        """Before the children are mounted: keep `show` for then and say True (the caller
        returns); after, False."""
        if self.ready:
            return False
        self._pending = show
        return True

    def fill(self) -> AwaitComplete:
        """Mount the children, once; the returned awaitable completes when they show what the
        screen last gave (at once when they already do)."""
        if self._filling is None:
            self._filling = AwaitComplete(self._mount_later())
        return self._filling

    async def _mount_later(self) -> None:
        try:
            await self.mount_all(list(self.later()))
            if not self.is_attached:
                return
            self.ready = True
            show, self._pending = self._pending, None
            if show is not None:
                show()
        except (MountError, NoMatches):
            return  # the app closed while they were mounting
