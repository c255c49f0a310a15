"""'Your setup': every input of the comparison, one compact row each, from the input table.

The rows are costcalc.core.inputs.INPUTS, so the app has every input the CLI has, read the same way.
A field is applied when the user presses Enter or leaves it; a value that does not parse stays
in the field, marked, with a notification that says what a valid one looks like. Applied values
leave as a SettingsChanged message; this widget computes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from rich.segment import Segment
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.strip import Strip
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Input, Select

from costcalc.core import inputs
from costcalc.core.errors import CostcalcError
from costcalc.core.hybrid import is_measured_profile, parse_profile
from costcalc.core.scenario import AppData, Calculation, default_desktop_price_usd
from costcalc.store.settings import DEFAULT_GPU, Settings
from costcalc.tui.messages import SettingsChanged
from costcalc.tui.widgets.field import FieldInput, FieldSelect
from costcalc.tui.widgets.gpu_input import GpuInput
from costcalc.tui.widgets.later import FilledLater

UTILISATION_PRESETS: tuple[tuple[str, float], ...] = (
    ("5% personal reality", 0.05),
    ("15% PhD desktop", 0.15),
    ("35% group cluster", 0.35),
    ("60% company cluster", 0.60),
)
"""Typical utilisation (Dettmers): most personal machines sit at 5-10 %."""

FILTER_FIELDS = ("providers", "offer_kind", "cloud_regions", "offer_match")
JOB_FIELDS = ("model", "method", "tokens", "runs_per_year")
"""The Job panel's (costcalc.tui.screens.job_panel): the job a verdict is for."""
FIELDS: tuple[str, ...] = tuple(
    spec.field
    for spec in inputs.INPUTS
    if spec.field not in FILTER_FIELDS and spec.field not in JOB_FIELDS
)
"""Every input but the filters that sit above the offers table (provider, spot/on-demand,
region, words) and the job's own, in the Job panel (J); the job's finer inputs (sequence,
optimizer, sharding ...) stay here, beside the run's, and the whole cost's (storage and
transfer, owning in full, the hybrid plan: issue 42) come last, in the input table's order."""

SELECT_CHOICES: dict[str, tuple[tuple[str, Any], ...]] = {
    "bench": (("hours on my GPU", ""), ("latest bench", "latest")),
    "dtype": (
        ("auto (AMP on tensor cores)", "auto"),
        ("fp16 AMP", "fp16"),
        ("bf16 AMP", "bf16"),
        ("tf32", "tf32"),
        ("fp32", "fp32"),
    ),
    "kind": tuple((k, k) for k in inputs.BY_FIELD["kind"].choices),
    "base": (("by GPU count", ""), *((t, t) for t in inputs.BY_FIELD["base"].choices)),
    "optimizer": tuple((o, o) for o in inputs.BY_FIELD["optimizer"].choices),
    "sharding": tuple((o, o) for o in inputs.BY_FIELD["sharding"].choices),
}
BLANK_IS_NONE = ("bench", "base")
"""Selects whose first choice ("") stands for no setting (None)."""
FIELD_KEYS: dict[str, str] = {
    "gpu": "g",
    "gpu_count": "n",
    "desktop_price_usd": "p",
    "gpu_watts": "W",
    "system_watts": "R",
    "idle_watts": "I",
    "used": "U",
    "base": "H",
    "psu_efficiency": "P",
    "resale_share": "v",
    "horizon_years": "y",
    "embodied": "E",
    "utilisation": "u",
    "always_on": "o",
    "home_region": "l",
    "usd_per_kwh": "L",
    "currency": "c",
    "run_hours": "h",
    "items_per_run": "i",
    "memory_gb": "m",
    "kind": "K",
    "dtype": "d",
    "batch": "N",
    "target_batch": "A",
    "bench": "B",
    "cloud_prices": "dollar_sign",
    "cloud_gpus": "C",
    "min_memory_gb": "M",
    "exclude_tiers": "T",
    "scale_out": "O",
    "spot_checkpoint_minutes": "z",
    "spot_restart_minutes": "Z",
    # The whole cost: the letters are taken, so signs that say what the field holds.
    "dataset_gb": "at",
    "checkpoint_gb": "ampersand",
    "egress_gb": "greater_than_sign",
    "storage_gb": "V",
    "setup_minutes": "circumflex_accent",
    "loan_apr": "percent_sign",
    "loan_term_years": "number_sign",
    "repairs": "plus",
    "failure_rate": "exclamation_mark",
    "hybrid": "Y",
    "profile": "tilde",
    "max_owned": "X",
}
"""The key that jumps to each field (shown beside its label, in the help and the palette). j and
k move in the offers table, digits sort it; the electricity price sits beside `l`, its place:
`@` the dataset, `&` the checkpoint, `>` egress (data out), `V` the volume kept, `^` setup
(boot), `%` the loan's APR, `#` its years, `+` repairs, `!` the failure rate, `Y` hybrid, `~`
its profile (work over the months), `X` the most owned."""
FILTER_KEYS: dict[str, tuple[str, str]] = {
    "provider": ("f", "provider filter (the offers from one provider)"),
    "offer_kind": ("F", "price filter: all prices, spot or on-demand"),
    "region": ("G", "cloud region filter"),
}
"""The keys of the selects above the offers table, by their id: Enter opens one, Escape leaves."""
KEY_SHOWN = {
    "dollar_sign": "$",
    "at": "@",
    "ampersand": "&",
    "greater_than_sign": ">",
    "circumflex_accent": "^",
    "percent_sign": "%",
    "number_sign": "#",
    "plus": "+",
    "exclamation_mark": "!",
    "tilde": "~",
}
"""How a key named by Textual (`textual.keys`) is shown: the sign the user presses."""
SWITCH_CHOICES: tuple[tuple[str, bool], ...] = (("no", False), ("yes", True))
PLACEHOLDERS = {
    "gpu_count": "1",
    "desktop_price_usd": "street + base",
    "gpu_watts": "board power",
    "system_watts": "default",
    "idle_watts": "default",
    "psu_efficiency": "100%",
    "resale_share": "0%",
    "utilisation": "15%",
    "usd_per_kwh": "default",
    "home_region": "US",
    "currency": "region's",
    "horizon_years": "3",
    "cloud_prices": "none",
    "cloud_gpus": "any",
    "exclude_tiers": "none: every tier",
    "min_memory_gb": "any",
    "target_batch": "same",
    "batch": "256 (cnn)",
    "spot_checkpoint_minutes": "5",
    "spot_restart_minutes": "30",
    "seq": "the model's",
    "dataset_gb": "none",
    "checkpoint_gb": "none",
    "egress_gb": "none",
    "storage_gb": "data + ckpt",
    "setup_minutes": "0",
    "loan_apr": "cash",
    "loan_term_years": "cash",
    "failure_rate": "class's",
    "profile": "util. monthly",
    "max_owned": "busiest mo.",
}


def key_text(field: str) -> str:
    key = FIELD_KEYS.get(field, "")
    return KEY_SHOWN.get(key, key)


KEY_WIDTH, LABEL_WIDTH = 2, 9
"""The setup labels' columns: the key, then the label, right-aligned, and a space."""


def first_line(text: str, width: int) -> str:
    """What a label of `width` cells shows of `text` on its one line: the words that fit (a
    word longer than the line, cut)."""
    line = ""
    for word in text.split():
        joined = f"{line} {word}" if line else word
        if len(joined) > width:
            return line or word[:width]
        line = joined
    return line


class SetupLabels(Widget):
    """The key and the label of every setup field, one line each, beside the fields.

    One widget for the column, not two labels a row in a row of their own: the panel has
    thirty-one fields, and each widget costs its mounting, styling and, on every frame whose
    changes span it, its own pass through Textual's compositor."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"setup-labels--key", "setup-labels--label"}
    DEFAULT_CSS = """
    SetupLabels {
        width: 12;
        height: auto;
        & > .setup-labels--key { color: $text-accent; text-style: bold; }
        & > .setup-labels--label { color: $text-muted; }
    }
    """

    def __init__(self, rows: list[tuple[str, str]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows = rows
        """(key, label) for each field, top to bottom."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows)

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        width = self.size.width
        if not 0 <= y < len(self.rows):
            return Strip.blank(width, base)
        key, label = self.rows[y]
        return Strip(
            [
                Segment(
                    key.ljust(KEY_WIDTH), base + self.get_component_rich_style("setup-labels--key")
                ),
                Segment(
                    first_line(label, LABEL_WIDTH).rjust(LABEL_WIDTH) + " ",
                    base + self.get_component_rich_style("setup-labels--label"),
                ),
            ]
        ).adjust_cell_length(width, base)


def _is_select(field: str) -> bool:
    return field in SELECT_CHOICES or inputs.BY_FIELD[field].form == "switch"


class SetupPanel(VerticalScroll, FilledLater):
    """The user's desktop, utilisation, electricity, grid, horizon, run and own offers."""

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.border_title = "Your setup"
        self._shown: dict[str, str] = {}
        self._settings: Settings | None = None
        self._default_price: float | None = None
        self._bench_file: str | None = None
        """A bench file the settings named (`bench: PATH`): a choice of the bench select."""

    def later(self) -> Iterator[Widget]:
        """The fields beside their labels, mounted right after the screen's first frame
        (costcalc.tui.widgets.later)."""
        labels: list[tuple[str, str]] = []
        fields: list[Widget] = []
        for label, widget, tooltip, key in self._fields():
            widget.tooltip = tooltip + (f" (key: {key})" if key else "")
            labels.append((key, label))
            fields.append(widget)
        yield Horizontal(SetupLabels(labels), Vertical(*fields, id="setup-fields"), id="setup-rows")

    def _fields(self) -> Iterator[tuple[str, Input | Select[Any], str, str]]:
        """(label, widget, tooltip, key) of each field, top to bottom."""
        regions = [r.code for r in self.data.grid.data.regions]
        if self.data.grid.regions is not None:  # names people type: Germany, California, UK
            regions += [name for name, _code in self.data.grid.regions.complete("", limit=10_000)]
        for field in FIELDS:
            spec = inputs.BY_FIELD[field]
            if field == "gpu":
                widget: Input | Select[Any] = GpuInput(self.data.catalog, id="gpu")
            elif field in SELECT_CHOICES:
                widget = FieldSelect(
                    SELECT_CHOICES[field], id=field, allow_blank=False, compact=True
                )
            elif spec.form == "switch":
                widget = FieldSelect(SWITCH_CHOICES, id=field, allow_blank=False, compact=True)
            else:
                suggester = SuggestFromList(regions) if field == "home_region" else None
                widget = FieldInput(
                    id=field,
                    placeholder=PLACEHOLDERS.get(field, "none"),
                    compact=True,
                    suggester=suggester,
                )
            yield spec.label, widget, spec.help, key_text(field)
            if field == "utilisation":
                yield (
                    "Preset",
                    FieldSelect(UTILISATION_PRESETS, id="preset", prompt="typical…", compact=True),
                    "typical utilisation (most personal machines sit at 5-10 %)",
                    "",
                )

    # ------------------------------------------------------------------ showing

    def show(self, calc: Calculation, settings: Settings) -> None:
        """Put the calculation's inputs in the fields the user is not typing in."""
        if self.pending(lambda: self.show(calc, settings)):
            return
        s = calc.scenario
        self._settings = settings
        default = default_desktop_price_usd(settings, self.data, DEFAULT_GPU)
        self._default_price = None if default is None else round(calc.money.of(default))
        for field in FIELDS:
            if _is_select(field):
                value = getattr(settings, field)
                if field == "bench":
                    value = self._bench_choice(value)
                elif field in BLANK_IS_NONE and value is None:
                    value = ""
                self._set_select(field, value)
                continue
            text = self._text_for(field, calc, s)
            widget = self.query_one(f"#{field}", Input)
            self._shown[field] = text
            if widget is not self.screen.focused and widget.value != text:
                widget.value = text
                widget.remove_class("-invalid")
        preset = next((v for _, v in UTILISATION_PRESETS if v == s.utilisation), None)
        self._set_select("preset", preset)
        m = calc.measured  # an empty GPU W field says where its watts come from
        watts = f"measured {m.load_w:.0f}" if m and m.load_w_used and m.load_w else None
        self.query_one("#gpu_watts", Input).placeholder = watts or PLACEHOLDERS["gpu_watts"]

    def _text_for(self, field: str, calc: Calculation, s: Any) -> str:
        if field == "gpu":
            return calc.spec.name
        money = calc.money
        if field == "desktop_price_usd":  # empty when the GPU has no price: the user's to give
            price = calc.desktop.price_usd
            return "" if price is None else inputs.show_number(round(money.of(price)))
        if field == "usd_per_kwh":
            return inputs.show_number(round(money.of(calc.assumptions.usd_per_kwh), 4))
        if field == "home_region":
            return calc.assumptions.home_region
        return inputs.BY_FIELD[field].show(getattr(s, field))

    def _bench_choice(self, spec: str | None) -> str:
        """The bench select's value for the settings' `bench`; a file they name (as the CLI's
        `--bench PATH`) becomes a choice of its own beside 'latest'."""
        if spec is None:
            return ""
        choices = SELECT_CHOICES["bench"]
        if spec not in {value for _, value in choices} and spec != self._bench_file:
            self._bench_file = spec
            select: Select[Any] = self.query_one("#bench", Select)
            with select.prevent(Select.Changed):
                select.set_options([*choices, (f"file {Path(spec).name}", spec)])
        return spec

    def _set_select(self, select_id: str, value: Any) -> None:
        select: Select[Any] = self.query_one(f"#{select_id}", Select)
        with select.prevent(Select.Changed):
            if value is None and select_id == "preset":
                if not select.is_blank():  # clearing again redraws its label: a layout pass
                    select.clear()
            elif select.value != value:
                select.value = value

    # ------------------------------------------------------------------ applying

    def _parse(self, field: str, text: str) -> Any:
        value = inputs.BY_FIELD[field].parse(text)
        if field == "desktop_price_usd" and value == self._default_price:
            return None  # the prefilled default stays the default when the GPU changes
        if field == "home_region" and value is not None:
            return self.data.grid.home(value).code
        return value

    def revert(self, widget: Input) -> None:
        """Escape: the field shows its applied value again, nothing is applied."""
        if widget.id in self._shown:
            widget.value = self._shown[widget.id]
            widget.remove_class("-invalid")

    def apply(self, widget: Input) -> dict[str, Any] | None:
        """Enter in a field: its update for the caller to apply at once, before the next
        frame (a message would wait for one); None when its text is refused (it stays,
        marked)."""
        return self._read(widget)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        event.stop()
        if event.input.id and event.value != self._shown.get(event.input.id):
            update = self._read(event.input)
            if update is not None:
                self.post_message(SettingsChanged(update))

    def _read(self, widget: Input) -> dict[str, Any] | None:
        field = widget.id or ""
        try:
            if isinstance(widget, GpuInput):
                value: Any = widget.resolve().key
            else:
                value = self._parse(field, widget.value)
                if field in ("cloud_prices", "cloud_gpus", "exclude_tiers") and value is None:
                    value = ()
                if field == "cloud_gpus":
                    for name in value:
                        self.data.catalog.family(name)  # an unknown GPU is refused here
                if field == "profile" and value is not None and not is_measured_profile(value):
                    parse_profile(value)  # refused here, with its one line, not at the answer
        except CostcalcError as exc:
            widget.add_class("-invalid")
            self.notify(str(exc), title="Not applied", severity="error")
            return None
        widget.remove_class("-invalid")
        self._shown[field] = widget.value
        return {field: value}

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        chosen = event.select.value
        field = "utilisation" if event.select.id == "preset" else event.select.id or ""
        # Selects announce their first value on mount: only a change from the settings counts.
        if chosen is Select.NULL or self._settings is None:
            return
        value: Any = None if field in BLANK_IS_NONE and chosen == "" else chosen
        if getattr(self._settings, field) != value:
            self.post_message(SettingsChanged({field: value}))
