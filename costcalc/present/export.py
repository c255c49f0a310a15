"""A table as a file: CSV for a spreadsheet, Markdown for a note or an issue.

Rules kept here: Markdown says what the screen says (the app hands over the rows it shows, in its
order, with its filters, as formatted cells). CSV holds what a spreadsheet can sum: plain numbers
(no "$", thousands separators or units in a cell) under headers that carry the unit
(`cost_per_year_usd`, `break_even_days`, `speed_x`), and an empty cell where there is no figure
("never", "does not fit").
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from msgspec import Struct, field

from costcalc.core.models import OfferResult, RunCost
from costcalc.core.scenario import Calculation
from costcalc.present import columns as cols

Kind = Literal["csv", "markdown"]

Value = str | float | int | None
"""A CSV cell before writing: text, a number, or nothing (an empty cell)."""


class ExportRow(Struct, frozen=True):
    """One row of the table: where it sits, its cells as shown, and its figures as numbers."""

    part: str
    cells: Mapping[str, str]
    values: Mapping[str, Value] = field(default_factory=dict)


def _money(
    get: Callable[[OfferResult], float | None],
) -> Callable[[OfferResult, cols.Context], Value]:
    def value(r: OfferResult, ctx: cols.Context) -> Value:
        usd = get(r)
        return None if usd is None else ctx.money.of(usd)

    return value


def _run(get: Callable[[RunCost], float | None]) -> Callable[[OfferResult, cols.Context], Value]:
    return lambda r, _ctx: get(r.run) if r.run is not None else None


CSV_FIELDS: dict[str, tuple[tuple[str, Callable[[OfferResult, cols.Context], Value]], ...]] = {
    "provider": (("provider", lambda r, c: c.label(r.offer.provider)),),
    "name": (
        ("offer", lambda r, _c: r.offer.name),
        ("guaranteed_gpu", lambda r, _c: "yes" if r.offer.guaranteed else "no"),
    ),
    "gpus": (
        ("gpu", lambda r, _c: r.spec.short_name),
        ("gpu_count", lambda r, _c: r.offer.gpu_count),
    ),
    "region": (("region", lambda r, _c: r.offer.region),),
    "extras": (
        ("plan_per_month_{cur}", _money(lambda r: r.offer.monthly_fee_usd or None)),
        ("vcpus", lambda r, _c: r.offer.vcpus),
        ("ram_gb", lambda r, _c: r.offer.ram_gb),
    ),
    "usd_per_hour": (("price_per_hour_{cur}", _money(lambda r: r.offer.usd_per_hour)),),
    "relative_speed": (("speed_x", lambda r, _c: r.relative_speed),),
    "offer_batch": (("batch_per_gpu", lambda r, _c: r.batch),),
    "usd_per_year": (("cost_per_year_{cur}", _money(lambda r: r.usd_per_year)),),
    "break_even_days": (
        ("break_even_days", lambda r, c: r.break_even_days if c.price_known else None),
    ),
    "co2_kg_per_year": (("co2_kg_per_year", lambda r, _c: r.co2_kg_per_year),),
    "price_age_days": (("price_age_days", lambda r, _c: r.price_age_days),),
    "price_kind": (("price_kind", lambda r, c: cols.BY_KEY["price_kind"].cell(r, c)),),
    "run_hours": (("hours_per_run", _run(lambda run: run.hours)),),
    "run_usd": (("cost_per_run_{cur}", _money(lambda r: r.run.usd if r.run else None)),),
    "run_usd_per_items": (
        ("cost_per_item_{cur}", _money(lambda r: r.run.usd_per_item if r.run else None)),
    ),
    "run_co2_kg": (("co2_kg_per_run", _run(lambda run: run.co2_kg)),),
    "usd_per_batch_item": (("cost_per_batch_item_{cur}", _money(lambda r: r.usd_per_batch_item)),),
    "interruption": (
        (
            "interruption",
            lambda r, c: (
                None
                if r.offer.interruption_bucket is None
                else cols.BY_KEY["interruption"].cell(r, c)
            ),
        ),
    ),
}
"""Each column's CSV fields: a header with its unit ('{cur}': the currency's code) and the
figure as a number. A test checks every column has some."""

NUMBER_FORMAT = ".10g"
"""Ten significant digits: every figure as computed (no rounding to what the screen shows),
no thousands separator, an exponent only for tiny $ per item."""


def _money_of(ctx: cols.Context, usd: float | None) -> Value:
    return None if usd is None else ctx.money.of(usd)


def csv_headers(columns: Sequence[cols.Column], ctx: cols.Context) -> list[str]:
    cur = ctx.money.code.lower()
    return [name.format(cur=cur) for c in columns for name, _get in CSV_FIELDS[c.key]]


def offer_values(
    result: OfferResult, columns: Sequence[cols.Column], ctx: cols.Context
) -> dict[str, Value]:
    """An offer's figures by CSV header; none for what a GPU that cannot hold the job cannot
    have (as its cells say 'does not fit')."""
    cur = ctx.money.code.lower()
    unfit = result.fits is False
    out: dict[str, Value] = {}
    for column in columns:
        for name, get in CSV_FIELDS[column.key]:
            blank = unfit and column.blank_when_unfit
            out[name.format(cur=cur)] = None if blank else get(result, ctx)
    return out


def desktop_values(calc: Calculation, ctx: cols.Context) -> dict[str, Value]:
    """The desktop's own row in a run table, as numbers (its electricity plus its share of the
    hardware for one run)."""
    run = calc.comparison.desktop_run
    cur = ctx.money.code.lower()
    values: dict[str, Value] = {
        "provider": "your desktop",
        "offer": "electricity + hardware",
        "gpu": calc.spec.short_name,
        "gpu_count": calc.desktop.gpu_count,
        "region": calc.assumptions.home_region,
        "speed_x": 1.0,
    }
    if run is not None:
        values |= {
            "hours_per_run": run.hours,
            f"cost_per_run_{cur}": ctx.money.of(run.usd),
            f"cost_per_item_{cur}": _money_of(ctx, run.usd_per_item),
            "co2_kg_per_run": run.co2_kg,
        }
    return values


def _csv_cell(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return ""
        return format(value, NUMBER_FORMAT)
    return str(value)


def export_text(
    rows: Sequence[ExportRow],
    columns: Sequence[cols.Column],
    ctx: cols.Context,
    kind: str,
) -> str:
    """`rows` under the columns: CSV with a number per figure, or Markdown as shown."""
    if kind == "csv":
        headers = ["part", *csv_headers(columns, ctx)]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        for row in rows:
            values = {"part": row.part, **row.values}
            writer.writerow([_csv_cell(values.get(h)) for h in headers])
        return out.getvalue()
    if kind != "markdown":
        raise ValueError(f"unknown export kind {kind!r}")
    titles = ["part", *(c.title_in(ctx) for c in columns)]
    numeric = [False, *(c.numeric for c in columns)]
    table = [[row.part, *(row.cells.get(c.key, "") for c in columns)] for row in rows]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    return "\n".join([line(titles), rule, *(line(r) for r in table)]) + "\n"
