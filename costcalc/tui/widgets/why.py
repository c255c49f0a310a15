"""'Why this number': the selected offer's figures step by step (costcalc.present.explain)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from costcalc.core.models import OfferResult
from costcalc.core.scenario import AppData, Calculation
from costcalc.present.explain import Explanation
from costcalc.present.report import explain_parts
from costcalc.present.whole_cost import plan_lines


def why_text(calc: Calculation, result: OfferResult, data: AppData) -> Text:
    """The hybrid plan (with --hybrid), the offer's derivation, then the comparison's notes
    (what `quick` prints on stderr: an input that is not used, a fallback, a known lean of the
    speeds)."""
    parts = explain_parts(calc, result, data)
    if calc.notes:
        parts.append(Explanation("Notes", calc.notes))
    text = Text() if calc.hybrid is None else plan_text(calc)
    for index, part in enumerate(parts):
        if index or text:
            text.append("\n")
        text.append(part.title + "\n", style="bold underline")
        for line in part.lines:
            text.append("  " + line + "\n")
    return text


def plan_text(calc: Calculation) -> Text:
    """The lines `quick --hybrid` prints, first (the comparison's, whatever the row): its table
    two cells further left, which keeps a row within 80 columns beside the scrollbar, the chosen
    count in bold."""
    assert calc.hybrid is not None
    said, table = plan_lines(calc.hybrid, calc.money)
    title, *prose = said
    text = Text(title + "\n", style="bold underline")
    for line in prose:
        text.append(line + "\n")
    for line in table:
        text.append(line.removeprefix("  ") + "\n", style="bold" if line.endswith("<-") else "")
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
