"""The answer in three lines: the verdict, what it rests on (with the readings of its price),
and the desktop's yearly cost.

Rule kept here: words only. Every part of the answer is the calculation's (`scenario.evaluate`:
the decision, what would flip it, the readings of its price); this panel says it in fewer words
than the CLI."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from costcalc.core.scenario import Calculation
from costcalc.core.staleness import is_stale_result
from costcalc.present import display as fmt
from costcalc.present import flips, whole_cost
from costcalc.present.measured import compact_text
from costcalc.present.report import verdict_text
from costcalc.providers.registry import labels
from costcalc.tui.widgets.field import update_text


def basis_text(calc: Calculation) -> str:
    """What the verdict compares with and the filters on, then the kind and age of its price:
    the same lines the CLI prints under its verdict."""
    c = calc.comparison
    parts = [
        "Compared with "
        + fmt.comparable_text(c, calc.spec, calc.desktop.gpu_count, job=calc.job is not None)
        + filters_text(calc)
        + "."
    ]
    if c.best is not None:
        parts.append(fmt.price_line(c.best, is_stale_result(c.best)).strip())
    weighed = fmt.weighed_text(calc.weighed)
    if weighed is not None:
        parts.append(weighed)
    return " ".join(parts)


def filters_text(calc: Calculation) -> str:
    """', among offers filtered to ...' (the CLI's words: display.filters_text)."""
    text = fmt.filters_text(calc.scenario)
    prefix = "Chosen among offers filtered to "
    return f", among offers filtered to {text[len(prefix) : -1]}" if text else ""


def flips_text(calc: Calculation) -> str | None:
    """What would flip the verdict, in one line (the CLI's thresholds, shorter); without Buy,
    the nearest builds that work."""
    hours = calc.job.hours if calc.job is not None else None  # a job's runs a year, beside
    compact = flips.compact_text(calc.thresholds, calc.assumptions, calc.money, labels(), hours)
    # without Buy nothing flips it: what it would take to have a desktop that works instead
    return compact or fmt.alternatives_text(calc.alternatives, calc.money)


def desktop_text(calc: Calculation, flip: str | None = None) -> str:
    """The desktop's cost, then `flip` (what would flip the verdict; without Buy, the nearest
    builds that work: the verdict line says why there is none) on a line of its own.
    The utilisation above which the desktop pays back is said once: `flip` names it whenever
    there is one (Thresholds.utilisation is the comparison's figure), so after the desktop's
    cost only when there is no `flip`."""
    c, a, m = calc.comparison, calc.assumptions, calc.money
    d = c.desktop
    gpus = f"{calc.desktop.gpu_count}x {calc.spec.name}"
    desk = (
        f"Desktop {gpus}: {fmt.up_front(d.price_usd, m)}, "
        f"{fmt.usd(d.electricity_usd_per_year, m)} ({calc.electricity_text})"
        f" electricity and {fmt.co2(d.co2_kg_per_year)} CO2e a year at "
        f"{compact_text(calc.measured) if calc.measured else fmt.percent(a.utilisation)}."
    )
    if c.desktop_run is not None:
        r = c.desktop_run
        desk += f" One {r.hours:g} h run: {fmt.usd(r.usd, m)} (electricity + hardware share)."
    crossing = fmt.break_even_utilisation_text(c, a, subject="it") if flip is None else None
    if crossing is not None:
        desk += f" {crossing}"
    if flip is not None:
        desk += f"\n{flip}"
    return desk


def whole_cost_text(calc: Calculation, narrow: bool = False) -> str | None:
    """With owning counted in full, what the verdict compares (the line `quick` prints under
    its verdict); with the hybrid plan, its answer, whose table is in 'why this number' (w).
    At 80 columns the plan comes first and the comparison without its figures, which 'why this
    number' has: the verdict's few rows would cut them off."""
    basis = whole_cost.cash_basis_line(calc)
    if basis is not None and narrow:
        basis = basis.split(": ", 1)[0].removesuffix(".") + "."
    plan = None
    if calc.hybrid is not None:
        said, _table = whole_cost.plan_lines(calc.hybrid, calc.money)
        plan = f"{said[0]} (w: every owned count)."
    shown = [plan, basis] if narrow else [basis, plan]
    parts = [part for part in shown if part is not None]
    return " ".join(parts) if parts else None


class VerdictBar(Vertical):
    """Buy or rent, and by how much; updated on every recomputation."""

    def compose(self) -> ComposeResult:
        yield Static(id="verdict-line")
        yield Static(id="basis-line")
        yield Static(id="desktop-line")

    narrow = False
    """At 80 columns the basis line keeps only the kind and age of the verdict's price."""

    WIDE_ROWS = 2
    """Rows each line keeps in the full-width layout, its usual length there: a new verdict is
    a repaint, where a line growing from one row to two would lay out the screen (update_text)."""

    _fitted: tuple[int, bool] | None = None

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """At a new width or layout, each line takes its text's height again (at least
        WIDE_ROWS when wide), then keeps the most it has needed while texts change. (A line
        growing also resizes the bar: that keeps the heights.)"""
        fitted = (self.size.width, self.narrow)
        if fitted != self._fitted:
            self._fitted = fitted
            for line in self.query(Static):
                line.styles.min_height = None if self.narrow else self.WIDE_ROWS

    def show(self, calc: Calculation) -> None:
        self._fit()
        verdict = verdict_text(calc, labels())
        update_text(self.query_one("#verdict-line", Static), Text(verdict, style="bold"))
        basis = basis_text(calc)
        flip = flips_text(calc)
        spread = flips.compact_range_text(calc.price_range, calc.thresholds, calc.money)
        whole = whole_cost_text(calc, self.narrow)
        if self.narrow:  # no desktop line: what flips the verdict, then its price's age
            if "That is" in basis:
                basis = "That is" + basis.split("That is", 1)[1].split(": `costcalc refresh`")[0]
                basis = basis.rstrip(".") + "."
            basis = " ".join(part for part in (flip, whole, basis) if part)
            if calc.measured is not None:  # (the desktop line that says it is not shown)
                basis = f"{basis} Utilisation {compact_text(calc.measured)}."
        elif whole is not None:
            basis = f"{basis} {whole}"
        if spread is not None:
            basis = f"{basis} {spread}"
        aside = calc.comparison.set_aside
        if aside and not self.narrow:  # at 80 columns the table's "stale" says it
            basis = f"{basis} {fmt.set_aside_text(aside, calc.money, labels(), short=True)}"
        update_text(self.query_one("#basis-line", Static), basis)
        update_text(self.query_one("#desktop-line", Static), desktop_text(calc, flip))
