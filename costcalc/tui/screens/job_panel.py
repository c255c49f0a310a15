"""The Job panel (J): the verdict for a named training job, or what serving a model costs.

Train prices what `costcalc quick --model M --method X --tokens T --runs-per-year R` prices: its
fields are the main screen's settings, applied there (and remembered in app-state.yaml), so the
verdict on both screens is quick's for the same inputs. Serve answers as `costcalc job --serve
--model M --quant Q --tokens-per-day T` for the desktop's GPU and count: $ per million tokens on
the desktop, rented and hosted. A field is applied on Enter; one that does not parse, or a model
that is not on the list, stays in its field, marked, with a notification.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Footer, Header, Input, Label, Select, Static

from costcalc.core import inputs
from costcalc.core.constants import METHODS, QUANTS
from costcalc.core.errors import CostcalcError
from costcalc.core.records import ValidationError, plain, problem, validated
from costcalc.store.settings import Settings

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp
    from costcalc.tui.screens.main import MainScreen

MODES = (("Train: rent or buy for this job", "train"), ("Serve: $ per million tokens", "serve"))
TRAIN_FIELDS = {"train-model": "model", "train-tokens": "tokens", "train-runs": "runs_per_year"}
"""The train mode's text fields, by id: the settings each sets, read as quick reads its flag."""
SELECT_FIELDS = {"job-mode": "job_mode", "train-method": "method", "serve-quant": "serve_quant"}
METHOD_CHOICES = tuple((m, m) for m in METHODS)
QUANT_CHOICES = tuple((q, q) for q in QUANTS)


def _row(label: str, widget: Widget) -> Horizontal:
    return Horizontal(Label(label, classes="job-label"), widget, classes="job-row")


class JobPanel(Screen[None]):
    """A training job's verdict, or serving's $ per million tokens, from a few fields."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    app: CostcalcApp

    def __init__(self, main: MainScreen) -> None:
        super().__init__()
        self.main = main
        self._models: list[str] = []

    @property
    def settings(self) -> Settings:
        return self.main.settings

    def compose(self) -> ComposeResult:
        from costcalc.store.bundled import load_models

        self._models = [m.key for m in load_models().data.models]
        models = SuggestFromList(self._models, case_sensitive=False)
        s = self.settings
        yield Header()
        with VerticalScroll(id="job-panel"):
            yield _row(
                "Mode",
                Select(MODES, value=s.job_mode, id="job-mode", allow_blank=False, compact=True),
            )
            with Vertical(id="train-fields"):
                yield _row(
                    "Model",
                    Input(
                        id="train-model", placeholder="llama-3.1-8b", suggester=models, compact=True
                    ),
                )
                yield _row(
                    "Method",
                    Select(
                        METHOD_CHOICES,
                        value=s.method,
                        id="train-method",
                        allow_blank=False,
                        compact=True,
                    ),
                )
                yield _row(
                    "Tokens", Input(id="train-tokens", placeholder="2e8, 200M, 2B", compact=True)
                )
                yield _row(
                    "Runs/year",
                    Input(id="train-runs", placeholder="from utilisation", compact=True),
                )
            with Vertical(id="serve-fields"):
                yield _row(
                    "Model",
                    Input(
                        id="serve-model", placeholder="llama-3.1-8b", suggester=models, compact=True
                    ),
                )
                yield _row(
                    "Quant",
                    Select(
                        QUANT_CHOICES,
                        value=s.serve_quant,
                        id="serve-quant",
                        allow_blank=False,
                        compact=True,
                    ),
                )
                yield _row(
                    "Tokens/day",
                    Input(id="serve-tokens", placeholder="2e6 (default day)", compact=True),
                )
            yield Static(id="job-answer")
        yield Footer()
        calc = self.main.calc
        gpu = calc.spec.short_name if calc is not None else s.gpu or "desktop GPU"
        self.sub_title = f"Job on your {s.gpu_count}x {gpu} (Esc: back)"

    def on_mount(self) -> None:
        s = self.settings
        shown = {
            "train-model": s.model or "",
            "train-tokens": inputs.BY_FIELD["tokens"].show(s.tokens),
            "train-runs": inputs.BY_FIELD["runs_per_year"].show(s.runs_per_year),
            "serve-model": s.serve_model or s.model or "",
            "serve-tokens": inputs.BY_FIELD["tokens"].show(s.serve_tokens_per_day),
        }
        for field, text in shown.items():
            self.query_one(f"#{field}", Input).value = text
        self._show_mode()
        self.query_one("#train-model" if s.job_mode == "train" else "#serve-model").focus()

    # ------------------------------------------------------------------ showing

    def _show_mode(self) -> None:
        serve = self.settings.job_mode == "serve"
        self.query_one("#train-fields").display = not serve
        self.query_one("#serve-fields").display = serve
        self._answer(self._serve_text() if serve else self._train_text())

    def _answer(self, text: str) -> None:
        self.query_one("#job-answer", Static).update(Content(text))  # never markup

    def _train_text(self) -> str:
        from costcalc.present.report import job_line, verdict_text

        calc = self.main.calc
        if self.settings.model is None or calc is None or calc.job is None:
            return (
                "Name a model (costcalc job --list-models) and the tokens a run reads: the "
                "verdict is then for that job, as `costcalc quick --model` gives it, its hours "
                "and memory from the job's models; runs a year set the utilisation."
            )
        return f"{verdict_text(calc, self.app.data.book.labels)}\n\n{job_line(calc)}"

    def _serve_text(self) -> str:
        s = self.settings
        if s.serve_model is None:
            return (
                "Name a model, its quantisation and the tokens a day: $ per million tokens on "
                "your desktop, rented and hosted, as `costcalc job --serve` gives them."
            )
        from costcalc.present import serve_report

        try:
            answer = self._serving(s)
        except CostcalcError as exc:
            return str(exc)
        width = max(60, min(self.size.width - 4, 110)) if self.size.width else 76
        return serve_report.to_text(answer, width)

    def _serving(self, s: Settings) -> Any:
        """`costcalc job --serve` for the settings' model, on the desktop's GPU and count."""
        from costcalc.core.serve import ServeJob, ServeSetup, price_serving
        from costcalc.store.bundled import load_models, serve_data

        assert s.serve_model is not None
        given = {
            "model": plain(load_models().resolve(s.serve_model)),
            "quant": s.serve_quant,
            "tokens_per_day": s.serve_tokens_per_day,
        }
        job = validated(ServeJob, {k: v for k, v in given.items() if v is not None})
        calc = self.main.calc  # the desktop the main screen shows (the default GPU without one)
        gpu = calc.spec.key if calc is not None else s.gpu
        setup = ServeSetup(gpu=gpu, gpu_count=s.gpu_count, horizon_years=s.horizon_years)
        return price_serving(job, setup, serve_data(self.app.data, s.home_region))

    # ------------------------------------------------------------------ applying

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.settings.job_mode == "serve":
            self._apply_serve()
        else:
            self._apply_train()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        field = SELECT_FIELDS[event.select.id or ""]
        if event.value == getattr(self.settings, field):
            return  # a select announces its first value on mount: only a change counts
        if event.select.id == "job-mode":
            if self._change({"job_mode": event.value}):
                self._show_mode()
        elif event.select.id == "train-method":
            self._apply_train()
        elif event.select.id == "serve-quant":
            self._apply_serve()

    def _read(self, field_id: str, field: str) -> Any:
        widget = self.query_one(f"#{field_id}", Input)
        value = inputs.BY_FIELD[field].parse(widget.value)
        widget.remove_class("-invalid")
        return value

    def _refuse(self, field_id: str, exc: Exception) -> None:
        self.query_one(f"#{field_id}", Input).add_class("-invalid")
        self.notify(str(exc), title="Not applied", severity="error")

    def _apply_train(self) -> None:
        update: dict[str, Any] = {"method": self.query_one("#train-method", Select).value}
        for field_id, field in TRAIN_FIELDS.items():
            try:
                update[field] = self._read(field_id, field)
            except CostcalcError as exc:
                self._refuse(field_id, exc)
                return
        candidate = self._merged(update)
        if candidate is None:
            return
        try:  # quick's checks, before the settings change: a bad model is one notification
            self.main._evaluate(candidate)
        except CostcalcError as exc:
            self._refuse("train-model" if "model" in str(exc) else "train-tokens", exc)
            return
        if self._change(update):
            self._answer(self._train_text())

    def _apply_serve(self) -> None:
        update: dict[str, Any] = {"serve_quant": self.query_one("#serve-quant", Select).value}
        try:
            update["serve_model"] = self._read("serve-model", "model")
            update["serve_tokens_per_day"] = self._read("serve-tokens", "tokens")
        except CostcalcError as exc:
            self._refuse("serve-tokens", exc)
            return
        candidate = self._merged(update)
        if candidate is None:
            return
        if candidate.serve_model is not None:
            try:
                self._serving(candidate)
            except CostcalcError as exc:
                self._refuse("serve-model", exc)
                return
        if self._change(update):
            self._answer(self._serve_text())

    def _merged(self, update: dict[str, Any]) -> Settings | None:
        try:
            return validated(Settings, inputs.merge(plain(self.settings), update))
        except ValidationError as exc:
            self.notify(problem(exc), title="Not applied", severity="error")
            return None

    def _change(self, update: dict[str, Any]) -> bool:
        """Apply to the main screen's settings (its answer, and app-state.yaml, follow)."""
        before = self.settings
        self.main.change(update)
        return self.settings is not before
