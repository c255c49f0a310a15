"""The row of filters above the offers table: provider, spot/on-demand, region and words.

Every filter is an input of the scenario (costcalc.core.scenario.offers_for), so it narrows the
answer and not only the rows: the verdict and the star are chosen among what passes, and the
verdict says which filters are on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Select

from costcalc.core.scenario import AppData
from costcalc.providers import registry
from costcalc.store.settings import Settings
from costcalc.tui.messages import SettingsChanged
from costcalc.tui.widgets.field import ChoiceSelect
from costcalc.tui.widgets.later import FilledLater

ALL = "all"
KIND_CHOICES: tuple[tuple[str, str], ...] = (
    ("all prices", "all"),
    ("spot", "spot"),
    ("on-demand", "on-demand"),
)


class FilterBar(Horizontal, FilledLater):
    """Provider, spot/on-demand, region and words in one line."""

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self._settings: Settings | None = None
        self._sent: str | None = None
        """The words last applied from this field."""
        self._shown_once = False
        self._choices: dict[str, set[str]] = {}
        """Each select's values (Textual keeps a Select's options private)."""

    def later(self) -> Iterator[Widget]:
        """The selects and the words, mounted right after the screen's first frame
        (costcalc.tui.widgets.later)."""
        regions = sorted({o.region for o in self.data.book.offers})
        for select_id, options in (
            ("provider", [("all providers", ALL)] + [(p.label, p.name) for p in registry.every()]),
            ("offer_kind", list(KIND_CHOICES)),
            ("region", [("all regions", ALL)] + [(r, r) for r in regions]),
        ):
            self._choices[select_id] = {value for _, value in options}
            yield ChoiceSelect(options, id=select_id, allow_blank=False, compact=True)
        yield Input(placeholder="/ filter: a100|h100", id="text", compact=True)

    def show(self, settings: Settings) -> None:
        if self.pending(lambda: self.show(settings)):
            return
        self._settings = settings
        provider = settings.providers[0] if len(settings.providers) == 1 else ALL
        region = settings.cloud_regions[0] if len(settings.cloud_regions) == 1 else ALL
        for select_id, value in (
            ("provider", provider),
            ("offer_kind", settings.offer_kind),
            ("region", region),
        ):
            if value not in self._choices[select_id]:
                continue  # a region of another provider's snapshot
            select: Select[Any] = self.query_one(f"#{select_id}", Select)
            with select.prevent(Select.Changed):
                select.value = value
        text = self.query_one("#text", Input)
        if not self._shown_once:  # the saved words; after that, the field is where they change
            self._shown_once = True
            self._sent = settings.offer_match
            text.value = settings.offer_match or ""

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        # Selects announce their first value on mount; only a change from what the settings
        # say is the user's.
        settings = self._settings
        value = event.select.value
        if settings is None or value is Select.NULL:
            return
        if event.select.id == "provider":
            update: dict[str, Any] = {"providers": () if value == ALL else (str(value),)}
        elif event.select.id == "offer_kind":
            update = {"offer_kind": value}
        else:
            update = {"cloud_regions": () if value == ALL else (str(value),)}
        key, new = next(iter(update.items()))
        if new != getattr(settings, key):
            self.post_message(SettingsChanged(update))

    def on_input_changed(self, event: Input.Changed) -> None:
        """Apply the words as typed: the field's text now (keys typed in a burst change it
        several times before the first message arrives)."""
        event.stop()
        words = event.input.value.strip() or None
        if self._settings is not None and words != self._sent:
            self._sent = words
            self.post_message(SettingsChanged({"offer_match": words}))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
