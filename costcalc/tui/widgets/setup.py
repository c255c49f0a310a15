"""'Your setup': every input of the comparison, one compact row each.

A field is applied when the user presses Enter or leaves it; a value that does not parse stays
in the field, marked, with a notification that says what a valid one looks like. Applied values
leave as a SettingsChanged message; this widget computes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, Select

from costcalc.errors import CostcalcError
from costcalc.loaders import AppData
from costcalc.settings import Settings
from costcalc.tui import parse
from costcalc.tui.calc import Calculation, default_desktop_price_usd
from costcalc.tui.messages import SettingsChanged
from costcalc.tui.widgets.gpu_input import GpuInput

Parser = Callable[[str], Any]

RUN_SOURCES: tuple[tuple[str, bool], ...] = (("hours on my GPU", False), ("latest bench", True))
DTYPE_CHOICES: tuple[tuple[str, str], ...] = (
    ("fp16 AMP", "fp16"),
    ("bf16", "bf16"),
    ("tf32", "tf32"),
    ("fp32", "fp32"),
)


def _row(label: str, widget: Input | Select[Any], tooltip: str) -> Horizontal:
    widget.tooltip = tooltip
    return Horizontal(Label(label, classes="field-label"), widget, classes="field")


class SetupPanel(VerticalScroll):
    """The user's desktop, utilisation, electricity, grid, horizon and run."""

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.border_title = "Your setup"
        self._shown: dict[str, str] = {}
        self._settings: Settings | None = None
        self._default_price_usd: float | None = None
        self._parsers: dict[str, Parser] = {
            "gpu_count": parse.gpu_count,
            "desktop_price_usd": self._parse_price,
            "utilisation": parse.utilisation,
            "usd_per_kwh": lambda t: parse.optional_non_negative(t, "electricity price"),
            "home_region": self._parse_region,
            "horizon_years": lambda t: parse.positive(t, "horizon (years)"),
            "run_hours": lambda t: parse.optional_positive(t, "run hours"),
            "items_per_run": lambda t: parse.optional_positive(t, "items per run"),
            "memory_gb": lambda t: parse.optional_positive(t, "GPU memory (GB)"),
        }

    def compose(self) -> ComposeResult:
        regions = [r.code for r in self.data.grid.data.regions]
        yield _row("GPU", GpuInput(self.data.catalog, id="gpu"), "desktop GPU: type to search")
        yield _row("GPUs", self._input("gpu_count", "1", type="integer"), "GPUs in the desktop")
        yield _row("Price $", self._input("desktop_price_usd", "street + base"), "whole machine")
        yield _row("Util.", self._input("utilisation", "15%"), "share of all hours it works")
        presets = [(label, share) for label, share in parse.UTILISATION_PRESETS]
        yield _row(
            "Preset",
            Select(presets, id="preset", prompt="typical…", compact=True),
            "typical utilisation (most personal machines sit at 5-10 %)",
        )
        yield _row("$/kWh", self._input("usd_per_kwh", "default"), "electricity price")
        yield _row(
            "Grid",
            self._input("home_region", "US", suggester=SuggestFromList(regions)),
            "home grid for CO2: US, DE, US-CA, ...",
        )
        yield _row("Years", self._input("horizon_years", "3"), "years you will use the desktop")
        yield _row("Run h", self._input("run_hours", "none"), "hours one run takes on the desktop")
        yield _row(
            "Run from",
            Select(RUN_SOURCES, id="run_from_bench", allow_blank=False, compact=True),
            "use the run as typed, or as the latest bench measured it",
        )
        yield _row("Items", self._input("items_per_run", "none"), "items one run processes")
        yield _row("Mem GB", self._input("memory_gb", "none"), "GPU memory the run needs")
        yield _row(
            "dtype",
            Select(DTYPE_CHOICES, id="dtype", allow_blank=False, compact=True),
            "training precision used to compare GPU speeds",
        )

    @staticmethod
    def _input(field: str, placeholder: str, **kwargs: Any) -> Input:
        return Input(id=field, placeholder=placeholder, compact=True, **kwargs)

    # ------------------------------------------------------------------ showing

    def show(self, calc: Calculation) -> None:
        """Put the calculation's inputs in the fields the user is not typing in."""
        s = calc.settings
        self._settings = s
        self._default_price_usd = default_desktop_price_usd(s, self.data)
        values = {
            "gpu": calc.spec.name,
            "gpu_count": str(s.gpu_count),
            "desktop_price_usd": f"{calc.desktop.price_usd:g}",
            "utilisation": parse.percent_text(s.utilisation),
            "usd_per_kwh": f"{calc.assumptions.usd_per_kwh:g}",
            "home_region": calc.assumptions.home_region,
            "horizon_years": f"{s.horizon_years:g}",
            "run_hours": "" if s.run_hours is None else f"{s.run_hours:g}",
            "items_per_run": "" if s.items_per_run is None else f"{s.items_per_run:g}",
            "memory_gb": "" if s.memory_gb is None else f"{s.memory_gb:g}",
        }
        for field, text in values.items():
            widget = self.query_one(f"#{field}", Input)
            self._shown[field] = text
            if not widget.has_focus and widget.value != text:
                widget.value = text
                widget.remove_class("-invalid")
        preset = next((v for _, v in parse.UTILISATION_PRESETS if v == s.utilisation), None)
        self._set_select("preset", preset)
        self._set_select("run_from_bench", s.run_from_bench)
        self._set_select("dtype", s.dtype)

    def _set_select(self, select_id: str, value: Any) -> None:
        select: Select[Any] = self.query_one(f"#{select_id}", Select)
        with select.prevent(Select.Changed):
            if value is None:
                select.clear()
            elif select.value != value:
                select.value = value

    # ------------------------------------------------------------------ applying

    def _parse_price(self, text: str) -> float | None:
        value = parse.optional_non_negative(text, "desktop price")
        return None if value is not None and value == self._default_price_usd else value

    def _parse_region(self, text: str) -> str | None:
        if not text.strip():
            return None
        return self.data.grid.home(text.strip()).code

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply(event.input, submitted=True)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        event.stop()
        if event.input.id and event.value != self._shown.get(event.input.id):
            self._apply(event.input)

    def _apply(self, widget: Input, submitted: bool = False) -> None:
        field = widget.id or ""
        try:
            if isinstance(widget, GpuInput):
                value: Any = widget.resolve().key
            else:
                value = self._parsers[field](widget.value)
        except CostcalcError as exc:
            widget.add_class("-invalid")
            self.notify(str(exc), title="Not applied", severity="error")
            return
        widget.remove_class("-invalid")
        self._shown[field] = widget.value
        self.post_message(SettingsChanged({field: value}, submitted=submitted))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.select.value
        field = "utilisation" if event.select.id == "preset" else event.select.id or ""
        # Selects announce their first value on mount: only a change from the settings counts.
        if value is Select.NULL or self._settings is None:
            return
        if getattr(self._settings, field) != value:
            self.post_message(SettingsChanged({field: value}))
