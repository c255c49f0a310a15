"""A calculation as people read it: the table, the plain text and the JSON. Shared by the CLI
and the app.

Rule kept here: presentation only; every number comes from `compare` (through
`scenario.evaluate`), every column from `costcalc.present.columns` and every format from
`costcalc.present.display`, so the CLI, the JSON and the app always agree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from costcalc.core import engine
from costcalc.core.compare import COMPARABLE, SCALE_OUT, Comparison
from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.grid import describe
from costcalc.core.models import CloudOffer, GpuSpec, OfferResult
from costcalc.core.ranges import Point, PriceRange, price_range, readings_of
from costcalc.core.scenario import AppData, Calculation
from costcalc.core.staleness import CLOUD_LEGEND, is_stale_result
from costcalc.core.struct import asdict, dataclass
from costcalc.core.terminal import fill, fill_all
from costcalc.core.thresholds import Thresholds, thresholds
from costcalc.present import columns as cols
from costcalc.present import display, explain, flips

Recorded = Iterable[Point]
"""Readings of the verdict's offer from outside the prices in use: the user's refresh history
and other dated sources, as (offer name, when, $/h, origin)."""


class TableColumn(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def numeric(self) -> bool: ...
    @property
    def width(self) -> cols.Width: ...


@dataclass(frozen=True)
class Plain:
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
    """The rows of a listing: all of them ranked, or (`top`) the best of each provider and then
    the cheapest offers with a guaranteed GPU (a free tier without one shows once, as its
    provider's row). `exact`: `top` rows at most (`--top N`), the verdict's offer (`best` when
    it is among `results`, else the cheapest guaranteed one that fits) first, then each
    provider's best in price order, then the cheapest of the rest."""
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
    if exact and verdict is not None:
        seen.add(verdict.offer.provider)
        chosen.append(verdict)
    for result in order:
        if result.offer.provider not in seen and result.fits is not False:
            seen.add(result.offer.provider)
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
) -> str:
    """The table as text. With `width`, only the columns that fit it, chosen by `priority`
    (the offer columns' PRIORITY by default; for a listing, its own order), with names cut
    to fit and a line under the table that says what was left out."""

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
    recorded: Recorded = (),
    saved: frozenset[str] = frozenset(),
    after_verdict: str | None = None,
    brief: bool = False,
    exact_top: bool = False,
) -> str:
    """The answer as text, the verdict first: the verdict, what would flip it, its price's
    readings and age; then the desktop's cost; then the tables. `labels`: the providers' names
    for the verdict (the CLI passes them); `short_labels`: the names a table's provider column
    gives them; `width`: the terminal's, which prose wraps to and tables fit (None: no limit);
    `wide`: tables show every column whatever the width; `recorded`: the user's history of the
    verdict's offer; `saved`: the inputs saved settings filled; `after_verdict`: a line to
    print right after the verdict (which inputs came from the app); `brief`: the verdict alone;
    `exact_top`: `top` rows in each table, no more (`--top N`; without it, every provider's
    best shows, at least `top` rows)."""
    c, w = calc.comparison, calc.workload
    run = w.run_hours is not None
    comparable, scale_out, rest = groups(c)
    shown = cols.shown(
        cols.CLI_RUN_COLUMNS if run else cols.CLI_COLUMNS,
        run=run,
        batch=False,
        items=w.items_per_run is not None,
    )
    rows = pick_rows(comparable, top, run, exact=exact_top, best=c.best)
    scale_top = top if exact_top else (3 if top else None)
    scale_rows = pick_rows(scale_out, scale_top, run, exact=exact_top)
    ctx = table_context(calc, [*rows, *scale_rows], short_labels)
    table_width = None if wide else width

    def prose(*texts: str) -> list[str]:  # tables are fit to the width, never wrapped
        return fill_all(texts, width)

    out = prose(*verdict_lines(calc, data, labels, recorded, saved))
    if after_verdict:
        out += prose(after_verdict)
    if brief:
        return "\n".join(out)
    which = "all offers" if top is None else "cheapest offers"
    order = "cost per run" if run else "cost per year"
    at = batch_words(calc, data)
    out += prose(
        "",
        *desktop_lines(calc, data),
        "",
        f"Comparable cloud offers: {display.comparable_text(c, calc.spec, calc.desktop.gpu_count)}"
        f"; {which} by {order}, speed relative to your desktop{at}:",
    )
    table = [cols.cells(r, shown, ctx) for r in rows]
    if run and c.desktop_run is not None:
        table.insert(0, desktop_cells(calc, shown, ctx))
    if table:
        out.append(render_table(shown, table, ctx, width=table_width))
    else:
        out += prose(
            "  no offers match your choice of providers (with only `custom`, give --cloud-price)"
        )
    if any(not r.offer.guaranteed for r in rows):
        out += prose("  * no guaranteed GPU (free tier): shown for reference, never the verdict")
    if scale_out:
        out += prose(
            "",
            f"Scale-out: more GPUs than your desktop ({scaling_text(data, w.kind)}); "
            "--scale-out lets them be the verdict:",
        )
        scale_table = [cols.cells(r, shown, ctx) for r in scale_rows]
        out.append(render_table(shown, scale_table, ctx, width=table_width))
    out += prose(*closing_lines(calc, len(rest)))
    return "\n".join(out)


def verdict_parts(
    calc: Calculation, data: AppData, recorded: Recorded = ()
) -> tuple[Thresholds, PriceRange | None]:
    """What would flip the verdict, and the readings of its offer's price."""
    c = calc.comparison
    found = thresholds(c, calc.assumptions)
    if c.best is None or c.best.offer.provider == CUSTOM_PROVIDER:
        return found, None  # the user's own price has no readings but itself
    readings = readings_of(c.best.offer, data.book.offers, recorded)
    return found, price_range(readings, found)


def verdict_lines(
    calc: Calculation,
    data: AppData,
    labels: Mapping[str, str] | None = None,
    recorded: Recorded = (),
    saved: frozenset[str] = frozenset(),
) -> list[str]:
    """The answer: the verdict (naming the filters it was chosen under), the values that
    would flip it, the readings of its price, and the kind and age of that price."""
    c, a = calc.comparison, calc.assumptions
    line = display.verdict(c, a, calc.spec, calc.money, labels)
    among = display.filters_text(calc.scenario, saved)
    if among:
        line = f"{line} {among}"
    lines = [line]
    found, prices = verdict_parts(calc, data, recorded)
    flip = flips.threshold_text(found, a, calc.money, labels)
    if flip is not None:
        lines.append(f"  {flip}")
    if c.best is not None and c.best.offer.provider != CUSTOM_PROVIDER:
        name = "its price"
        spread = flips.range_text(prices, found, calc.money, name)
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


def desktop_lines(calc: Calculation, data: AppData) -> list[str]:
    """What the desktop costs to buy and to run, and the currency amounts are in."""
    d, a, m = calc.comparison.desktop, calc.assumptions, calc.money
    gpus = f"{calc.desktop.gpu_count}x {calc.spec.name}"
    grid = data.grid.home(a.home_region)
    lines = [
        f"Desktop: {gpus}, {display.up_front(d.price_usd, m)}{card_text(calc)}, "
        f"{d.load_w:,.0f} W under load",
        f"  at {display.percent(a.utilisation)} utilisation: {display.kwh(d.kwh_per_year)} and "
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
        price_known=calc.desktop.price_usd is not None,
    )


def closing_lines(calc: Calculation, left_out: int) -> list[str]:
    """Under the tables: what was left out of them, and what "stale" in them means."""
    c = calc.comparison
    lines = []
    if left_out:
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
    if card.observed is None:
        what = "card launch price"
    else:
        what = f"{card.condition} card price of {card.observed:%Y-%m-%d}"
    if card.condition == "used" and not calc.scenario.used:
        what += ": no dated new price"
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
    bench's measured split did not make them: the user's, or the reference, which they can set."""
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
    from costcalc.core.bench_apply import explain_speed

    why_speed = explain_speed(
        calc.bench,
        data.predictor,
        calc.spec,
        data.catalog.get(result.offer.gpu),
        calc.workload.kind,
        calc.workload.dtype,
        calc.workload.batch,
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
    return [*parts, price_part(result)]


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
    found = thresholds(calc.comparison, calc.assumptions)
    return flips.explain_lines(found, calc.comparison, calc.assumptions, calc.money, labels)


def to_json(
    calc: Calculation,
    data: AppData,
    top: int | None,
    labels: Mapping[str, str] | None = None,
    *,
    with_explain: bool = False,
    recorded: Recorded = (),
    saved_note: str | None = None,
    saved: frozenset[str] = frozenset(),
    app_state_note: str | None = None,
    exact_top: bool = False,
) -> str:
    """The whole answer as one JSON document, the decision first; `top`: the offers listed (the
    best of each provider and the cheapest, at least `top`; None: every offer; `exact_top`:
    `top` in each table, no more, as `--top N` asks); `with_explain` adds the
    derivation of the verdict offer's figures ("explain": the lines `--explain` prints);
    `recorded`: the user's history of the verdict's offer; `saved_note`: the line saying which
    saved settings were used; `app_state_note`: with --as-in-app, the line saying which inputs
    came from what the app remembers."""
    c = calc.comparison
    found, prices = verdict_parts(calc, data, recorded)
    run = calc.workload.run_hours is not None
    comparable, scale_out, rest = groups(c)
    rows = pick_rows(comparable, top, run, exact=exact_top, best=c.best)
    rows += pick_rows(scale_out, top, run, exact=exact_top)
    if top is None:
        rows += ranked(rest, run)
    doc = {
        "decision": found.decision,
        "verdict": display.verdict(c, calc.assumptions, calc.spec, calc.money, labels),
        "thresholds": flips.thresholds_json(found),
        "thresholds_text": flips.threshold_text(found, calc.assumptions, calc.money, labels),
        "price_range": flips.range_json(prices),
        "filters": display.filters_text(calc.scenario, saved) or None,
        "saved_settings": saved_note,
        "app_state": app_state_note,
        "offers_listed": "all" if top is None else f"top {top} (--all for every offer)",
        "inputs": {
            "scenario": calc.scenario.model_dump(mode="json"),
            "desktop": calc.desktop.model_dump(),
            "assumptions": calc.assumptions.model_dump(),
            "workload": calc.workload.model_dump(),
        },
        "desktop": asdict(c.desktop),
        "desktop_run": asdict(c.desktop_run) if c.desktop_run else None,
        "offers": [offer_json(r, data.catalog.get(r.offer.gpu)) for r in rows],
        "best": offer_json(c.best, data.catalog.get(c.best.offer.gpu)) if c.best else None,
        "set_aside_stale": [offer_json(r, data.catalog.get(r.offer.gpu)) for r in c.set_aside],
        "break_even_utilisation": c.break_even_utilisation,
        "break_even_unknown": (
            display.no_price_reason(calc.spec.name) if c.desktop.price_usd is None else None
        ),
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
        "tiers": asdict(calc.weighed),
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
    if with_explain:
        doc["explain"] = explain_lines(calc, data)
        doc["explain_thresholds"] = threshold_lines(calc, labels)
    import json  # for --json alone: the text report needs none

    return json.dumps(finite(doc), indent=2, allow_nan=False)


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
