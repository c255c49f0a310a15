"""The row of filters above the offers table.

Provider and spot/on-demand change which offers the comparison considers (they are settings, so
the verdict and the star follow them); region and free text only narrow the rows shown.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Select

from costcalc.scenario import AppData
from costcalc.settings import Settings
from costcalc.tui.messages import SettingsChanged
from costcalc.tui.widgets.offers import ViewFilter

ALL = "all"
KIND_CHOICES: tuple[tuple[str, str], ...] = (
    ("all prices", "all"),
    ("spot", "spot"),
    ("on-demand", "on-demand"),
)


class FilterBar(Horizontal):
    """Provider, spot/on-demand, region and text filters in one line."""

    class ViewFilterChanged(Message):
        def __init__(self, view_filter: ViewFilter) -> None:
            super().__init__()
            self.view_filter = view_filter

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self._settings: Settings | None = None

    def compose(self) -> ComposeResult:
        from providers.registry import PROVIDERS

        providers = [("all providers", ALL)] + [(p.label, p.name) for p in PROVIDERS]
        regions = sorted({o.region for o in self.data.book.offers})
        yield Select(providers, id="provider", allow_blank=False, compact=True)
        yield Select(KIND_CHOICES, id="offer_kind", allow_blank=False, compact=True)
        yield Select(
            [("all regions", ALL)] + [(r, r) for r in regions],
            id="region",
            allow_blank=False,
            compact=True,
        )
        yield Input(placeholder="/ filter: name, GPU…", id="text", compact=True)

    def show(self, settings: Settings) -> None:
        self._settings = settings
        provider = settings.providers[0] if len(settings.providers) == 1 else ALL
        for select_id, value in (("provider", provider), ("offer_kind", settings.offer_kind)):
            select: Select[Any] = self.query_one(f"#{select_id}", Select)
            with select.prevent(Select.Changed):
                select.value = value

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        # Selects announce their first value on mount; only a change from what the settings
        # say is the user's.
        settings = self._settings
        value = event.select.value
        if event.select.id == "provider":
            chosen = () if value == ALL else (str(value),)
            if settings is not None and chosen != settings.providers:
                self.post_message(SettingsChanged({"providers": chosen}))
        elif event.select.id == "offer_kind":
            if settings is not None and value != settings.offer_kind:
                self.post_message(SettingsChanged({"offer_kind": value}))
        else:
            self._post_view_filter()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._post_view_filter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()

    def _post_view_filter(self) -> None:
        region = self.query_one("#region", Select).value
        text = self.query_one("#text", Input).value
        self.post_message(
            self.ViewFilterChanged(ViewFilter(None if region == ALL else str(region), text))
        )
