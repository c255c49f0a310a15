"""'Why this number': the selected offer's figures derived step by step (costcalc.explain)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from costcalc import explain
from costcalc.models import OfferResult
from costcalc.scenario import AppData, Calculation


def why_text(calc: Calculation, result: OfferResult, data: AppData) -> Text:
    # Speeds from a bench's measured split are not the predictor's prior: explained only when
    # the predictor made them.
    measured = calc.bench is not None and calc.bench.speed is not None
    why_speed = None
    if not measured:
        why_speed = data.predictor.explain(
            calc.spec,
            data.catalog.get(result.offer.gpu),
            calc.workload.kind,
            calc.workload.dtype,
        )
    parts = explain.explain_offer(
        result,
        calc.comparison,
        calc.desktop,
        calc.assumptions,
        calc.workload,
        data.catalog,
        data.grid,
        calc.money,
        why_speed,
    )
    text = Text()
    for index, part in enumerate(parts):
        if index:
            text.append("\n")
        text.append(part.title + "\n", style="bold underline")
        for line in part.lines:
            text.append("  " + line + "\n")
    return text


class WhyPanel(VerticalScroll):
    """The formulas with the user's numbers, for the offer under the cursor."""

    def __init__(self, data: AppData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data

    def compose(self) -> ComposeResult:
        yield Static(id="why-text")

    def show(self, calc: Calculation, result: OfferResult | None) -> None:
        body = self.query_one("#why-text", Static)
        if result is None:
            body.update("Select an offer in the table to see how its figures are derived.")
            return
        body.update(why_text(calc, result, self.data))
