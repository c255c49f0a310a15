"""The break-even view: both curves at full size, with the figures they cross at."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from costcalc.core.models import OfferResult
from costcalc.core.scenario import Calculation
from costcalc.present import display as fmt
from costcalc.present.report import no_buy
from costcalc.tui.widgets.breakeven import BreakEvenView, short_label

if TYPE_CHECKING:
    from costcalc.tui.app import CostcalcApp


def summary(calc: Calculation, selected: OfferResult | None) -> str:
    a = calc.assumptions
    lines = []
    if calc.desktop.price_usd is None:  # every break-even below would read "never"
        return fmt.no_price_reason(calc.spec.name)
    why = no_buy(calc)
    if why is not None:
        return f"no break-even (no Buy): {why}"
    for label, result in (("selected", selected), ("cheapest", calc.comparison.best)):
        if result is None:
            continue
        lines.append(
            f"{label}: {short_label(result)} ({fmt.usd(result.usd_per_year, calc.money)} a year) — "
            f"break-even {fmt.days(result.break_even_days)} at {fmt.percent(a.utilisation)}"
        )
    if calc.comparison.break_even_utilisation is not None:
        lines.append(
            f"over {a.horizon_years:g} years the desktop beats the cheapest offer above "
            f"{fmt.percent(calc.comparison.break_even_utilisation)} utilisation"
        )
    return "\n".join(lines)


class BreakEvenScreen(Screen[None]):
    """Cumulative cost over days and break-even days over utilisation, full size."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("e", "app.pop_screen", "Back", show=False),
    ]

    app: CostcalcApp

    def __init__(self, calc: Calculation, selected: OfferResult | None) -> None:
        super().__init__()
        self.calc = calc
        self.selected = selected

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(summary(self.calc, self.selected), id="breakeven-summary")
        yield BreakEvenView(self.app.data, id="breakeven-full")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(BreakEvenView).draw(self.calc, self.selected)
