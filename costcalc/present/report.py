"""A calculation as people read it: the table, the plain text and the JSON. Shared by the CLI
and the app.

Rule kept here: presentation only; every number comes from `compare` (through
`scenario.evaluate`), every column from `costcalc.present.columns` and every format from
`costcalc.present.display`, so the CLI, the JSON and the app always agree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core import engine
from costcalc.core.compare import COMPARABLE, SCALE_OUT, Comparison
from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.decision import NO_BUY
from costcalc.core.grid import describe
from costcalc.core.models import CloudOffer, GpuSpec, OfferResult
from costcalc.core.records import plain
from costcalc.core.scenario import AppData, Calculation
from costcalc.core.staleness import CLOUD_LEGEND, is_stale_result
from costcalc.core.terminal import fill, fill_all
from costcalc.present import columns as cols
from costcalc.present import display, explain, flips, marks, measured

MARK_WIDTH = 2
"""A row's mark and the space after it."""


class TableColumn(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def numeric(self) -> bool: ...
    @property
    def width(self) -> cols.Width: ...


class Plain(Struct, frozen=True):
    """A column of a listing that is not an offer table (`gpus`, `prices`)."""

    key: str
    title: str
    numeric: bool = True
    clip: bool = False
    """A name that may be cut with an ellipsis to fit the width."""

    @property
    def width(self) -> cols.Width:
        return "name" if self.clip else "figure" if self.numeric else "label"


def ranked(results: Sequence[OfferResult], run: bool) -> list[OfferResult]:
    """Cheapest first: by $ per run with a run, by $ a year otherwise; what cannot run, last."""
    if run:
        return sorted(results, key=lambda r: (r.fits is False, cols.sort_key(r, "run_usd")))
    return sorted(results, key=lambda r: (r.fits is False, r.usd_per_year))


def pick_rows(
    results: Sequence[OfferResult],
    top: int | None,
    run: bool = False,
    *,
    exact: bool = False,
    best: OfferResult | None = None,
) -> list[OfferResult]:
    """The rows of a listing, cheapest first: all of them, or (`top`) the verdict's offer
    (`best` when it is among `results`, else the cheapest guaranteed one that fits), the best
    of each provider and then the cheapest offers with a guaranteed GPU (an offer without one
    shows once, as its provider's row). `exact`: `top` rows at most (`--top N`): the verdict's
    offer, then each provider's best in price order, then the cheapest of the rest."""
    order = ranked(results, run)
    if top is None:
        return order
    chosen: list[OfferResult] = []
    seen: set[str] = set()
    verdict = (
        best
        if best is not None and best in results
        else next((r for r in order if r.offer.guaranteed and r.fits is not False), None)
    )
    if verdict is not None:  # the verdict's offer is always a row (the first one shown)
        if exact:
            seen.add(verdict.offer.provider)
        chosen.append(verdict)
    for result in order:
        if result.offer.provider not in seen and result.fits is not False:
            seen.add(result.offer.provider)
            if result is not verdict:
                chosen.append(result)
    if exact:
        chosen = chosen[:top]
    fill = sorted(order, key=lambda r: (not r.offer.guaranteed, r.fits is False))
    for result in fill:
        if len(chosen) >= (top if exact else max(top, len(seen))):
            break
        if result not in chosen:
            chosen.append(result)
    return ranked(chosen, run)


def groups(c: Comparison) -> tuple[list[OfferResult], list[OfferResult], list[OfferResult]]:
    """The comparable offers (the verdict's pool, scale-out included when allowed), the
    scale-out options, and the rest (less memory per GPU, fewer GPUs)."""
    pool = (COMPARABLE, SCALE_OUT) if c.rules.scale_out else (COMPARABLE,)
    comparable = [r for r in c.offers if r.role in pool]
    scale_out = [r for r in c.offers if r.role == SCALE_OUT and r.role not in pool]
    rest = [r for r in c.offers if r.role not in (COMPARABLE, SCALE_OUT)]
    return comparable, scale_out, rest


def scaling_text(data: AppData, kind: str) -> str:
    """The scale-out assumption in words, with its source."""
    nvlink = engine.multi_gpu_speedup(8, data.scaling.efficiency_per_doubling(kind, True))
    pcie = engine.multi_gpu_speedup(8, data.scaling.efficiency_per_doubling(kind, False))
    scaling = data.scaling.kinds.get(kind) or data.scaling.kinds["generic"]
    source = data.scaling.sources.get(scaling.source, scaling.source).split(",")[0]
    return (
        f"8 GPUs run {nvlink:.1f}x one over NVLink, {pcie:.1f}x over PCIe, for {kind} work "
        f"({source})"
    )


def render_table(
    columns: Sequence[TableColumn],
    rows: Sequence[dict[str, str]],
    ctx: cols.Context | None = None,
    *,
    width: int | None = None,
    priority: Sequence[str] | None = None,
    marks: Sequence[str] | None = None,
) -> str:
    """The table as text. With `width`, only the columns that fit it, chosen by `priority`
    (the offer columns' PRIORITY by default; for a listing, its own order), with names cut
    to fit and a line under the table that says what was left out. `marks`: one character
    a row (★, †, or a space), in a column of their own on the left, as the app shows them."""
    if marks is not None:
        room = None if width is None else max(width - MARK_WIDTH, 1)
        text = render_table(columns, rows, ctx, width=room, priority=priority)
        lines = text.split("\n")
        body = 1 + len(rows)  # the header and the rows; the lines under them keep their place
        marked = [
            f"{mark:<{MARK_WIDTH - 1}} {line}".rstrip()
            for mark, line in zip(["", *marks], lines[:body], strict=True)
        ]
        return "\n".join([*marked, *lines[body:]])

    def title_of(column: TableColumn) -> str:
        if ctx is not None and isinstance(column, cols.Column):
            return column.title_in(ctx)
        return column.title

    natural = {c.key: max([len(title_of(c)), *(len(r[c.key]) for r in rows)]) for c in columns}
    shown, widths, hidden = tuple(columns), tuple(natural[c.key] for c in columns), 0
    if width is not None:
        ranking = cols.PRIORITY if priority is None else priority
        shown, widths, hidden = cols.fit_columns(columns, natural, width, priority=ranking)

    def line(cells: Sequence[str]) -> str:
        parts = [
            display.clip(cell, w).rjust(w) if col.numeric else display.clip(cell, w).ljust(w)
            for cell, w, col in zip(cells, widths, shown, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line([title_of(c) for c in shown])]
    out += [line([r[c.key] for c in shown]) for r in rows]
    if hidden:
        left_out = ", ".join(title_of(c) for c in columns if c not in shown)
        more = f"{hidden} more column{'s' if hidden > 1 else ''}"
        out += fill(f"  --wide shows {more}: {left_out}", width, hang="    ")
    return "\n".join(out)


def to_text(
    calc: Calculation,
    data: AppData,
    top: int | None,
    labels: Mapping[str, str] | None = None,
    *,
    width: int | None = None,
    wide: bool = False,
    short_labels: Mapping[str, str] | None = None,
    saved: frozenset[str] = frozenset(),
    after_verdict: str | None = None,
    brief: bool = False,
    exact_top: bool = False,
    saved_note: str | None = None,
    after: int = 0,
) -> str:
    """The answer as text, the verdict first: the verdict, what would flip it, its price's
    readings and age (and `saved_note`, which saved settings were used); then the desktop's
    cost; then the tables. `labels`: the providers' names
    for the verdict (the CLI passes them); `short_labels`: the names a table's provider column
    gives them; `width`: the terminal's, which prose wraps to and tables fit (None: no limit);
    `wide`: tables show every column whatever the width; `saved`: the inputs saved settings
    filled; `after_verdict`: a line to print right after the verdict (which inputs came from the
    app); `brief`: the verdict alone;
    `exact_top`: `top` rows in each table, no more (`--top N`; without it, every provider's
    best shows, at least `top` rows; with a run, what keeps the answer and the `after` lines
    the caller prints under it (its notes) within RUN_LINES)."""
    c, w = calc.comparison, calc.workload
    run = w.run_hours is not None

    def prose(*texts: str) -> list[str]:  # tables are fit to the width, never wrapped
        return fill_all(texts, width)

    answer = verdict_lines(calc, labels, saved)
    out = prose(*answer, *([f"  {saved_note}"] if saved_note else []))
    if after_verdict:
        out += prose(f"  {after_verdict}")
    if brief:
        return "\n".join(out)
    out += prose("", *desktop_lines(calc, data), "")
    if calc.counts_whole_cost:
        from costcalc.present import whole_cost  # only with its inputs: quick's path stays light

        said, table = whole_cost.summary_lines(calc)
        if said or table:
            out += [*prose(*said), *table, ""]  # the plan's table is fit, not wrapped
    comparable, scale_out, rest = groups(c)
    closing = prose(*closing_lines(calc, len(rest)))
    tables = TableText(calc, data, top, width, wide, short_labels)
    if not run or top is None or exact_top:
        rows = pick_rows(comparable, top, run, exact=exact_top, best=c.best)
        scale_top = top if exact_top else (3 if top else None)
        scale_rows = pick_rows(scale_out, scale_top, run, exact=exact_top)
        return "\n".join([*out, *tables.lines(rows, scale_rows, scale_out), *closing])
    # A run's table is read for one figure an offer: by default the answer keeps to RUN_LINES,
    # the comparable offers first (--top N or --all for more).
    room = RUN_LINES - len(out) - len(closing) - after
    body: list[str] = []
    for n, scale_n in RUN_ROWS:
        rows = pick_rows(comparable, n or top, run, exact=n is not None, best=c.best)
        scale_rows = pick_rows(scale_out, scale_n, run, exact=True) if scale_n else []
        body = tables.lines(rows, scale_rows, scale_out)
        if len(body) <= room:
            break
    return "\n".join([*out, *body, *closing])


RUN_LINES = 50
"""The most lines a run's answer takes by default at any width of 80 or more (the verdict,
the desktop, the cost of one run on the cheapest offers); `--top N`, `--all` list more."""
RUN_ROWS: tuple[tuple[int | None, int], ...] = (
    (None, 3),
    (10, 3),
    (10, 0),
    (8, 0),
    (6, 0),
    (4, 0),
    (2, 0),
)
"""(comparable rows, scale-out rows) tried in turn until the answer fits RUN_LINES (None: the
default, each provider's cheapest): the scale-out table makes way before the comparable
offers do, and a line names its cheapest."""


class TableText:
    """The offer tables of `to_text` and the lines around them, for chosen rows."""

    def __init__(
        self,
        calc: Calculation,
        data: AppData,
        top: int | None,
        width: int | None,
        wide: bool,
        short_labels: Mapping[str, str] | None,
    ) -> None:
        self.calc, self.data, self.top = calc, data, top
        self.width, self.table_width = width, None if wide else width
        self.short_labels = short_labels

    def lines(
        self,
        rows: Sequence[OfferResult],
        scale_rows: Sequence[OfferResult],
        scale_out: Sequence[OfferResult],
    ) -> list[str]:
        """The comparable offers' table (the verdict's offer first, marked, and the desktop's
        own row after it with a run), its legend, then the scale-out table of `scale_rows`, or
        without them a line that counts the `scale_out` offers and names the cheapest."""
        calc, c, w = self.calc, self.calc.comparison, self.calc.workload
        run = w.run_hours is not None
        rows = marks.verdict_first(rows, c)
        ctx = table_context(calc, [*rows, *scale_rows], self.short_labels)
        per_items = w.items_per_run is not None and cols.items_column_adds(
            w.items_per_run, ctx.items_unit
        )
        shown = cols.shown(
            cols.CLI_RUN_COLUMNS if run else cols.CLI_COLUMNS,
            run=run,
            batch=False,
            items=per_items,
            target=calc.scenario.target_batch != "same",
        )
        which = "all offers" if self.top is None else "cheapest offers"
        order = "cost per run" if run else "cost per year"
        if w.items_per_run is not None and not per_items:
            order += f" of {w.items_per_run:,.0f} items"  # $ a run is $ per that many items
        at = batch_words(calc, self.data) if calc.job is None else " by the job's time model"
        comparable = display.comparable_text(
            c, calc.spec, calc.desktop.gpu_count, job=calc.job is not None
        )
        out = self.prose(
            f"Comparable cloud offers: {comparable}; {which} by {order}, speed relative to your "
            f"desktop{at}:"
        )
        table = [cols.cells(r, shown, ctx) for r in rows]
        row_marks = [marks.mark(r, c) for r in rows]
        if run and c.desktop_run is not None:
            at_row = 1 if rows and rows[0] is c.best else 0
            table.insert(at_row, desktop_cells(calc, shown, ctx))
            row_marks.insert(at_row, " ")
        left_out = ""
        marked = any(m.strip() for m in row_marks)
        if table:
            text = render_table(
                shown, table, ctx, width=self.table_width, marks=row_marks if marked else None
            )
            out += text.split("\n")
            left_out = next((line for line in out if line.startswith("  --wide shows")), "")
        else:
            out += self.prose(
                "  no offers match your choice of providers (with only `custom`, give "
                "--cloud-price)"
            )
        legend = marks.legend(rows, c)
        if legend is not None:
            out += self.prose(f"  {legend}")
        if not scale_out:
            return out
        head = f"Scale-out: more GPUs than your desktop ({scaling_text(self.data, w.kind)})"
        if not scale_rows:
            return [*out, *self.prose("", f"{head}: {self.scale_out_line(scale_out, ctx)}")]
        out += self.prose("", f"{head}; --scale-out lets them be the verdict:")
        scale_table = [cols.cells(r, shown, ctx) for r in scale_rows]
        scale_marks = [marks.mark(r, c) for r in scale_rows] if marked else None
        text = render_table(shown, scale_table, ctx, width=self.table_width, marks=scale_marks)
        # the line that says which columns made way, once when both tables say the same
        return out + [line for line in text.split("\n") if not left_out or line != left_out]

    def scale_out_line(self, scale_out: Sequence[OfferResult], ctx: cols.Context) -> str:
        """'118 offers, the cheapest RunPod 2x RTX PRO 6000 (Community Cloud) at $3.77 a run;
        --top N lists them, ...': the scale-out table in a sentence, where it made way."""
        cheapest = ranked(scale_out, self.calc.workload.run_hours is not None)[0]
        run, offer = cheapest.run, cheapest.offer
        cost = f" at {display.usd(run.usd, self.calc.money)} a run" if run is not None else ""
        return (
            f"{len(scale_out):,} offers, the cheapest {ctx.label(offer.provider)} {offer.name}"
            f"{cost}; --top N lists them, --scale-out lets them be the verdict."
        )

    def prose(self, *texts: str) -> list[str]:
        return fill_all(texts, self.width)


def verdict_lines(
    calc: Calculation,
    labels: Mapping[str, str] | None = None,
    saved: frozenset[str] = frozenset(),
) -> list[str]:
    """The answer: the verdict (naming the filters it was chosen under), the values that
    would flip it, the readings of its price, and the kind and age of that price."""
    c, a = calc.comparison, calc.assumptions
    line = verdict_text(calc, labels)
    among = display.filters_text(calc.scenario, saved)
    if among:
        line = f"{line} {among}"
    lines = [line]
    if calc.job is not None:
        lines.append(f"  {job_line(calc)}")
    if calc.cash_basis is not None:  # owning in full: say what the verdict weighed
        from costcalc.present.whole_cost import cash_basis_line

        lines.append(f"  {cash_basis_line(calc)}")
    hours = calc.job.hours if calc.job is not None else None
    flip = flips.threshold_text(calc.thresholds, a, calc.money, labels, hours)
    if flip is not None:
        lines.append(f"  {flip}")
    if calc.measured is not None:
        lines.append(f"  {measured.verdict_line(calc.measured, c.break_even_utilisation)}")
    nearest = display.alternatives_text(calc.alternatives, calc.money)
    if nearest is not None:
        lines.append(f"  {nearest}")
    spread = flips.range_text(calc.price_range, calc.thresholds, calc.money)
    if spread is not None:
        lines.append(f"  {spread}")
    if c.best is not None:
        lines.append(display.price_line(c.best, is_stale_result(c.best)))
    aside = display.set_aside_text(c.set_aside, calc.money, labels)
    if aside is not None:
        lines.append(f"  {aside}")
    weighed = display.weighed_text(calc.weighed)
    if weighed is not None:
        lines.append(f"  {weighed}")
    return lines


def verdict_text(calc: Calculation, labels: Mapping[str, str] | None = None) -> str:
    """The verdict line of `calc`, for the CLI, `--json` and the app alike."""
    return display.verdict(
        calc.comparison,
        calc.assumptions,
        calc.spec,
        calc.money,
        labels,
        decided=calc.decision,
        reason=calc.decision_reason,
        use=use_words(calc),
    )


def use_words(calc: Calculation) -> str:
    """'15% utilisation', or with a job's runs '10 runs a year (7.6% utilisation)'."""
    u = calc.assumptions.utilisation
    if calc.job is not None:
        from costcalc.present import job_quick  # only with a job: quick's path stays light

        words = job_quick.utilisation_words(calc.job, u)
        if words is not None:
            return words
    return f"{display.percent(u)} utilisation"


def job_line(calc: Calculation) -> str:
    """With `--model`, the line under the verdict: the run, its memory, its runs a year."""
    from costcalc.present import job_quick  # only with a job

    assert calc.job is not None
    return job_quick.job_line(
        calc.job, calc.spec, calc.desktop.gpu_count, calc.assumptions.utilisation
    )


def no_buy(calc: Calculation) -> str | None:
    """Why the desktop has no break-even to show (Calculation.decision_reason), when its
    decision has no Buy; None when it has."""
    return calc.decision_reason if calc.decision in NO_BUY else None


def desktop_lines(calc: Calculation, data: AppData) -> list[str]:
    """What the desktop costs to buy and to run, and the currency amounts are in."""
    d, a, m = calc.comparison.desktop, calc.assumptions, calc.money
    gpus = f"{calc.desktop.gpu_count}x {calc.spec.name}"
    grid = data.grid.home(a.home_region)
    lines = [
        f"Desktop: {gpus}, {display.up_front(d.price_usd, m)}{card_text(calc)}, "
        f"{d.load_w:,.0f} W under load",
        f"  at {use_words(calc)}: {display.kwh(d.kwh_per_year)} and "
        f"{display.usd(d.electricity_usd_per_year, m)} of electricity a year "
        f"({calc.electricity_text}), {display.co2(d.co2_kg_per_year)} CO2e a year "
        f"({grid.name} grid, {grid.gco2_per_kwh:g} g/kWh, {describe(grid)})",
    ]
    if m.code != "USD":
        lines.append(
            f"  amounts in {m.code} at {m.symbol.strip()}{m.per_usd:.4g} per US dollar "
            f"(ECB reference rates of {m.as_of:%Y-%m-%d})"
        )
    return lines


def table_context(
    calc: Calculation, rows: Sequence[OfferResult], labels: Mapping[str, str] | None
) -> cols.Context:
    """One number format per column over every row shown, the desktop's own row included."""
    desk = calc.comparison.desktop_run if calc.workload.run_hours is not None else None
    extra: dict[str, list[float]] = {}
    if desk is not None:
        extra = {"run_usd": [desk.usd], "run_co2_kg": [desk.co2_kg]}
        if desk.usd_per_item is not None:
            extra["run_usd_per_items"] = [desk.usd_per_item]
    return cols.context_for(
        rows,
        now=calc.now,
        money=calc.money,
        labels=labels,
        extra=extra,
        price_known=calc.desktop.price_usd is not None and no_buy(calc) is None,
    )


def closing_lines(calc: Calculation, left_out: int) -> list[str]:
    """Under the tables: what was left out of them, and what "stale" in them means."""
    c = calc.comparison
    lines = []
    why_not = no_buy(calc)
    if why_not is not None:
        lines.append(f"  Break-even is left out (no Buy): {why_not}.")
    if left_out and calc.job is not None:
        lines.append(
            f"  {left_out} offers that cannot hold the job or have fewer GPUs are left out "
            "(--json --all lists them all)."
        )
    elif left_out:
        lines.append(
            f"  {left_out} offers with less memory per GPU or fewer GPUs are left out "
            "(--memory-gb admits smaller cards when the job needs less; --json --all lists them "
            "all)."
        )
    if any(is_stale_result(r) for r in c.offers if r.role in (COMPARABLE, SCALE_OUT)):
        lines.append(f"  {CLOUD_LEGEND}.")
    return lines


def card_text(calc: Calculation) -> str:
    """What the default desktop price rests on: ' (used card price of 2026-04-30: no dated
    new price; lean base system $1,050)'."""
    card, base = calc.card, calc.base
    if card is None or base is None:
        return ""
    same = sum(1 for r in card.readings if r.condition == card.condition)
    if card.observed is None:
        what = "card launch price"
    elif same > 1:  # the median of dated readings (explain lists them)
        what = f"median of {same} {card.condition} card prices to {card.observed:%Y-%m-%d}"
    else:
        what = f"{card.condition} card price of {card.observed:%Y-%m-%d}"
    if card.condition == "used" and not calc.scenario.used:
        sold_new = any(r.condition == "new" for r in card.readings)
        what += ": discontinued, bought used" if sold_new else ": no dated new price"
    return f" ({what}; {base.tier} base system {display.usd(base.system.usd, calc.money)})"


def desktop_cells(
    calc: Calculation, shown: Sequence[cols.Column], ctx: cols.Context
) -> dict[str, str]:
    """The desktop's own row in a run table: its electricity plus its share of the hardware."""
    r = calc.comparison.desktop_run
    assert r is not None
    values = {
        "provider": "your desktop",
        "name": "electricity + hardware",
        "gpus": display.gpus(calc.spec.short_name, calc.desktop.gpu_count),
        "region": calc.assumptions.home_region,
        "usd_per_hour": "-",
        "relative_speed": display.speed(1.0),
        "run_hours": f"{r.hours:,.2f} h",
        "run_usd": ctx.usd("run_usd", r.usd),
        "run_usd_per_items": ctx.usd("run_usd_per_items", r.usd_per_item * ctx.items_unit)
        if r.usd_per_item is not None
        else "-",
        "run_co2_kg": ctx.co2("run_co2_kg", r.co2_kg),
        "price_kind": "-",
        "price_age_days": "-",
    }
    return {column.key: values.get(column.key, "-") for column in shown}


def cloud_offer_json(o: CloudOffer) -> dict[str, Any]:
    """An offer as the price snapshot has it, for `prices --json` and inside every result."""
    return {
        "provider": o.provider,
        "name": o.name,
        "region": o.region,
        "gpu": o.gpu,
        "gpu_count": o.gpu_count,
        "usd_per_hour": o.usd_per_hour,
        "spot": o.spot,
        "way": o.way,
        "term_years": o.term_years,
        "interruption_bucket": o.interruption_bucket,
        "guaranteed": o.guaranteed,
        "monthly_fee_usd": o.monthly_fee_usd,
        "price_kind": o.price_kind,
        "tier": o.tier,
        "summary": o.summary,
        "currency": o.currency,
        "price_in_currency": o.price_in_currency,
        "setup_fee_usd": o.setup_fee_usd,
        "fetched_at": o.fetched_at.isoformat(),
        "source": o.source,
    }


def offer_json(result: OfferResult, spec: GpuSpec) -> dict[str, Any]:
    return {
        **cloud_offer_json(result.offer),
        **cols.offer_fields(result),
        "fits": result.fits,
        # The Paperspace benchmark's ratios, per GPU: what each dollar an hour buys.
        "cost_efficiency": engine.cost_efficiency(
            result.offer.usd_per_gpu_hour,
            spec.bandwidth_gbs,
            spec.cuda_cores,
            spec.memory_gb,
            spec.fp32_tflops,
        ),
    }


def batch_words(calc: Calculation, data: AppData) -> str:
    """The batch per GPU the table's speeds are at, where the kind's split depends on it and a
    bench's measured split did not make them: the user's, or the reference, which they can set;
    with --target-batch, the desktop's and each offer's own (the table's batch column)."""
    target = calc.scenario.target_batch
    if target != "same":
        mine = f"batch {calc.workload.batch}" if calc.workload.batch else "the model's batch"
        each = "the largest batch that fits its GPU" if target == "max" else f"batch {target}"
        return f" at {mine} per GPU on your desktop and, on each offer, {each} (batch column)"
    if calc.workload.batch:
        return f" at batch {calc.workload.batch} per GPU"
    reference = data.predictor.kind_calibration(calc.workload.kind).reference_batch
    if reference is None or (calc.bench is not None and calc.bench.speed is not None):
        return ""
    return f" at the speed model's batch of {reference:g} per GPU (--batch N sets yours)"


def explain_parts(
    calc: Calculation, result: OfferResult, data: AppData
) -> list[explain.Explanation]:
    """How `result` gets its figures, step by step: what the app's "why this number" panel and
    `--explain` show. The speed is explained from the split that made it: the bench's, at the
    size it was measured (costcalc.core.bench_apply), or the predictor's."""
    from costcalc.core.bench_apply import explain_speed  # only for "why this number"

    why_speed = (
        explain_speed(
            calc.bench,
            data.predictor,
            calc.spec,
            data.catalog.get(result.offer.gpu),
            calc.workload.kind,
            calc.workload.dtype,
            calc.workload.batch,
            result.batch or None,
        )
        if calc.job is None  # a job's speed is its hours' ratio, explained with the job
        else None
    )
    if calc.batch_plan is not None and why_speed is not None:
        plan, gpu = calc.batch_plan, data.catalog.get(result.offer.gpu)
        why_speed = replace(
            why_speed,
            notes=(f"batch on the {gpu.short_name}: {plan.why(gpu)}", *why_speed.notes),
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
        no_buy=no_buy(calc),
    )
    if calc.measured is not None:
        why = explain.Explanation("Utilisation (measured)", measured.explain_lines(calc.measured))
        parts = [why, *parts]
    from costcalc.present import whole_cost  # "why this number" only

    extra = whole_cost.rent_extras(calc, result, calc.money)
    if extra is not None:
        parts.insert(2, extra)  # after the cloud cost it adds to
    owned = whole_cost.owning(calc, calc.money)
    if owned is not None:
        parts.insert(3 if extra is not None else 2, owned)  # before the break-even it moves
    if calc.job is not None:
        from costcalc.present import job_quick  # only with a job

        job_parts = job_quick.explain_parts(
            calc.job, result, calc.spec, calc.desktop.gpu_count, calc.assumptions.utilisation
        )
        parts = [*job_parts, *parts]
    parts.append(price_part(result))
    if calc.card is not None and calc.base is not None:  # a default price: what it rests on
        parts.append(
            explain.desktop_price(calc.card, calc.desktop, calc.base.system.usd, calc.money)
        )
    return parts


def price_part(result: OfferResult) -> explain.Explanation:
    """The offer's price: its kind and age, the rule that makes it stale when it is, and the
    legend (the app's table says 'stale' without room for it)."""
    line = display.price_line(result, is_stale_result(result)).strip()
    if result.offer.provider == CUSTOM_PROVIDER:
        return explain.Explanation("Price", (line,))
    return explain.Explanation("Price", (line, f"{CLOUD_LEGEND}."))


def explain_lines(calc: Calculation, data: AppData) -> list[str]:
    """The verdict offer's `explain_parts`, one string a line; none without a verdict offer."""
    best = calc.comparison.best
    if best is None:
        return []
    return explain.to_text(explain_parts(calc, best, data)).split("\n")


def explain_text(
    calc: Calculation,
    data: AppData,
    width: int | None = None,
    labels: Mapping[str, str] | None = None,
) -> str:
    """`explain_lines` under a heading that names the offer, wrapped to `width`."""
    lines = explain_lines(calc, data)
    best = calc.comparison.best
    if best is None:
        return "No verdict offer, so no figures to derive (see the filters and --scale-out)."
    flipping = threshold_lines(calc, labels)
    before = ["What would flip the verdict:", *flipping, ""] if flipping else []
    head = f"Why these figures, for {display.offer_label(best, labels)}:"
    return "\n".join(fill_all([*before, head, *lines], width))


def threshold_lines(calc: Calculation, labels: Mapping[str, str] | None = None) -> list[str]:
    """How each threshold of the verdict is derived (`--explain`), one string a line."""
    return flips.explain_lines(
        calc.thresholds, calc.comparison, calc.assumptions, calc.money, labels
    )


def to_json(
    calc: Calculation,
    data: AppData,
    top: int | None,
    labels: Mapping[str, str] | None = None,
    *,
    with_explain: bool = False,
    saved_note: str | None = None,
    saved: frozenset[str] = frozenset(),
    app_state_note: str | None = None,
    exact_top: bool = False,
) -> str:
    """The whole answer as one JSON document, the decision first; `top`: the offers listed (the
    best of each provider and the cheapest, at least `top`; None: every offer; `exact_top`:
    `top` in each table, no more, as `--top N` asks); `with_explain` adds the
    derivation of the verdict offer's figures ("explain": the lines `--explain` prints);
    `saved_note`: the line saying which saved settings were used; `app_state_note`: with
    --as-in-app, the line saying which inputs came from what the app remembers."""
    c = calc.comparison
    run = calc.workload.run_hours is not None
    comparable, scale_out, rest = groups(c)
    rows = pick_rows(comparable, top, run, exact=exact_top, best=c.best)
    rows += pick_rows(scale_out, top, run, exact=exact_top)
    if top is None:
        rows += ranked(rest, run)
    why_not = no_buy(calc)

    def listed(r: OfferResult) -> dict[str, Any]:
        found = offer_json(r, data.catalog.get(r.offer.gpu))
        # no Buy: a day the desktop would pay back by is no argument for buying it
        return found if why_not is None else {**found, "break_even_days": None}

    doc = {
        "decision": calc.decision,
        "decision_reason": calc.decision_reason,
        "verdict": verdict_text(calc, labels),
        "alternatives": [plain(alt) for alt in calc.alternatives],
        "thresholds": flips.thresholds_json(calc.thresholds),
        "thresholds_text": flips.threshold_text(
            calc.thresholds,
            calc.assumptions,
            calc.money,
            labels,
            calc.job.hours if calc.job is not None else None,
        ),
        "price_range": flips.range_json(calc.price_range),
        "filters": display.filters_text(calc.scenario, saved) or None,
        "saved_settings": saved_note,
        "app_state": app_state_note,
        "offers_listed": "all" if top is None else f"top {top} (--all for every offer)",
        "inputs": {
            "scenario": scenario_json(calc),
            "desktop": plain(calc.desktop),
            "assumptions": assumptions_json(calc.assumptions),
            "workload": plain(calc.workload),
        },
        "desktop": plain(c.desktop),
        "desktop_run": plain(c.desktop_run) if c.desktop_run else None,
        "offers": [listed(r) for r in rows],
        "best": listed(c.best) if c.best else None,
        "set_aside_stale": [listed(r) for r in c.set_aside],
        "break_even_utilisation": c.break_even_utilisation,
        "break_even_unknown": why_not
        or (display.no_price_reason(calc.spec.name) if c.desktop.price_usd is None else None),
        "desktop_fits": c.desktop_fits,
        "comparable_with": {
            "gpu_count": calc.desktop.gpu_count,
            "memory_gb_per_gpu": c.rules.memory_gb,
            "memory_from": "job" if c.rules.memory_from_job else "desktop GPU",
            "scale_out": c.rules.scale_out,
            "scale_out_assumption": scaling_text(data, calc.workload.kind),
            "spot_checkpoint_hours": c.rules.checkpoint_h,
            "spot_restart_hours": c.rules.restart_h,
        },
        "tiers": plain(calc.weighed),
        "currency": {
            "code": calc.money.code,
            "per_usd": calc.money.per_usd,
            "rates_as_of": calc.money.as_of.isoformat() if calc.money.as_of else None,
            "note": "every amount field is in USD; the text shows this currency",
        },
        "electricity": {
            "usd_per_kwh": calc.assumptions.usd_per_kwh,
            "label": calc.electricity_text,
            "source": calc.electricity.citation if calc.electricity else "given by the user",
            "period": calc.electricity.period if calc.electricity else None,
        },
        "grid": {
            "region": calc.assumptions.home_region,
            "gco2_per_kwh": calc.assumptions.home_gco2_per_kwh,
            "basis": describe(data.grid.home(calc.assumptions.home_region)),
        },
        "desktop_price": {
            "card_usd": calc.card.usd if calc.card else None,
            "condition": calc.card.condition if calc.card else "given by the user",
            "as_of": calc.card.observed.isoformat() if calc.card and calc.card.observed else None,
            "source": calc.card.source if calc.card else None,
            "base_tier": calc.base.tier if calc.base else None,
            "base_usd": calc.base.system.usd if calc.base else None,
            "base_summary": calc.base.system.summary if calc.base else None,
        },
        "physical_fit": fit_json(calc),
        "notes": list(calc.notes),
        "warnings": data.book.warnings,
    }
    if calc.measured is not None:
        doc["measured_utilisation"] = plain(calc.measured)
    if calc.counts_whole_cost:
        from costcalc.present import whole_cost  # only with its inputs

        doc.update(whole_cost.to_json(calc))
    if calc.job is not None:
        from costcalc.present import job_quick  # only with a job

        doc["job"] = job_quick.to_json(calc.job, calc.assumptions.utilisation)
    if with_explain:
        doc["explain"] = explain_lines(calc, data)
        doc["explain_thresholds"] = threshold_lines(calc, labels)

    import json  # for --json alone: the text report needs none (nor does quick for one provider)

    return json.dumps(finite(doc), indent=2, allow_nan=False)


def assumptions_json(a: Any) -> dict[str, Any]:
    """The assumptions as plain values; `owning` only when counted, so an answer without a loan
    or repairs reads as before they existed."""
    found = plain(a)
    if found.get("owning") is None:
        found.pop("owning", None)
    return found


JOB_INPUTS = (
    "model",
    "method",
    "tokens",
    "epochs",
    "dataset_items",
    "seq",
    "optimizer",
    "checkpointing",
    "sharding",
    "lora_rank",
)
"""The scenario's job inputs (`--model` and what describes the job): listed when a model is."""


def scenario_json(calc: Calculation) -> dict[str, Any]:
    """The scenario's inputs as given: the job's only with a model (they change nothing
    without one), runs a year only when given."""
    found = plain(calc.scenario)
    if calc.job is None:
        found = {k: v for k, v in found.items() if k not in JOB_INPUTS}
    if found.get("runs_per_year") is None:
        found.pop("runs_per_year", None)
    return found


def fit_json(calc: Calculation) -> dict[str, Any] | None:
    """Whether the build physically works: the four checks and the wall circuit."""
    if calc.fit is None:
        return None
    f = calc.fit.feasibility
    return {
        "fits": f.fits,
        "checks": [{"check": k.name, "ok": k.ok, "detail": k.detail} for k in f.checks],
        "wall_w": f.wall_w,
        "circuit": f.circuit.key if f.circuit is not None else None,
        "circuit_limit_w": f.circuit.continuous_w if f.circuit is not None else None,
        "circuit_source": calc.fit.circuit_source,
    }


def finite(value: Any) -> Any:
    """The document with any non-finite number as null: `--json` is always valid JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
