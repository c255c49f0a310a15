"""The answer in two lines: the desktop's yearly cost and the verdict against the cheapest offer."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from costcalc import display as fmt
from costcalc.scenario import Calculation


def desktop_text(calc: Calculation) -> str:
    c, a = calc.comparison, calc.assumptions
    d = c.desktop
    gpus = f"{calc.desktop.gpu_count}x {calc.spec.name}"
    desk = (
        f"Desktop {gpus}: {fmt.usd(d.price_usd)} up front, {fmt.usd(d.electricity_usd_per_year)}"
        f" electricity and {fmt.co2(d.co2_kg_per_year)} CO2e a year at "
        f"{fmt.percent(a.utilisation)}."
    )
    if c.break_even_utilisation is not None and c.best is not None:
        desk += (
            f" Over {a.horizon_years:g} years it beats the cheapest offer above "
            f"{fmt.percent(c.break_even_utilisation)} utilisation."
        )
    return desk


class VerdictBar(Vertical):
    """Buy or rent, and by how much; updated on every recomputation."""

    def compose(self) -> ComposeResult:
        yield Static(id="verdict-line")
        yield Static(id="desktop-line")

    def show(self, calc: Calculation) -> None:
        line = Text(fmt.verdict(calc.comparison, calc.assumptions), style="bold")
        self.query_one("#verdict-line", Static).update(line)
        self.query_one("#desktop-line", Static).update(desktop_text(calc))
