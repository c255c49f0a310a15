"""A calculation as people read it: the table, the plain text and the JSON. Shared by the CLI
and the app.

Rule kept here: presentation only; every number comes from `compare` (through
`scenario.evaluate`), every column from `costcalc.columns` and every format from
`costcalc.display`, so the CLI, the JSON and the app always agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from costcalc import columns as cols
from costcalc import display, engine
from costcalc.compare import COMPARABLE, SCALE_OUT, Comparison
from costcalc.grid import describe
from costcalc.models import CloudOffer, GpuSpec, OfferResult
from costcalc.offers import is_stale
from costcalc.scenario import AppData, Calculation


class TableColumn(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def numeric(self) -> bool: ...


@dataclass(frozen=True)
class Plain:
    """A column of a listing that is not an offer table (`gpus`, `prices`)."""

    key: str
    title: str
    numeric: bool = True


def ranked(results: Sequence[OfferResult], run: bool) -> list[OfferResult]:
    """Cheapest first: by $ per run with a run, by $ a year otherwise; what cannot run, last."""
    if run:
        return sorted(results, key=lambda r: (r.fits is False, cols.sort_key(r, "run_usd")))
    return sorted(results, key=lambda r: (r.fits is False, r.usd_per_year))


def pick_rows(
    results: Sequence[OfferResult], top: int | None, run: bool = False
) -> list[OfferResult]:
    """The rows of a listing: all of them ranked, or (`top`) the best of each provider and then
    the cheapest offers with a guaranteed GPU (a free tier without one shows once, as its
    provider's row)."""
    order = ranked(results, run)
    if top is None:
        return order
    chosen: list[OfferResult] = []
    seen: set[str] = set()
    for result in order:
        if result.offer.provider not in seen and result.fits is not False:
            seen.add(result.offer.provider)
            chosen.append(result)
    fill = sorted(order, key=lambda r: (not r.offer.guaranteed, r.fits is False))
    for result in fill:
        if len(chosen) >= max(top, len(seen)):
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
) -> str:
    titles = [
        c.title_in(ctx) if ctx is not None and isinstance(c, cols.Column) else c.title
        for c in columns
    ]
    widths = [
        max([len(title), *(len(r[c.key]) for r in rows)])
        for title, c in zip(titles, columns, strict=True)
    ]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(w) if col.numeric else cell.ljust(w)
            for cell, w, col in zip(cells, widths, columns, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(titles)]
    out += [line([r[c.key] for c in columns]) for r in rows]
    return "\n".join(out)


def to_text(calc: Calculation, data: AppData, top: int | None) -> str:
    c, a, w = calc.comparison, calc.assumptions, calc.workload
    d = c.desktop
    run = w.run_hours is not None
    gpus = f"{calc.desktop.gpu_count}x {calc.spec.name}"
    grid = data.grid.home(a.home_region)
    m = calc.money
    lines = [
        f"Desktop: {gpus}, {display.usd(d.price_usd, m)} up front{card_text(calc)}, "
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
    comparable, scale_out, rest = groups(c)
    shown = cols.shown(
        cols.CLI_RUN_COLUMNS if run else cols.CLI_COLUMNS,
        run=run,
        batch=False,
        items=w.items_per_run is not None,
    )
    per_item = [r.run.usd_per_item for r in comparable if r.run is not None]
    if c.desktop_run is not None:
        per_item.append(c.desktop_run.usd_per_item)
    ctx = cols.Context(now=calc.now, items_unit=cols.items_unit(per_item), money=m)
    which = "all offers" if top is None else "cheapest offers"
    order = "cost per run" if run else "cost per year"
    lines += [
        "",
        f"Comparable cloud offers: {display.comparable_text(c, calc.spec, calc.desktop.gpu_count)}"
        f"; {which} by {order}, speed relative to your desktop:",
    ]
    rows = pick_rows(comparable, top, run)
    table = [cols.cells(r, shown, ctx) for r in rows]
    if run and c.desktop_run is not None:
        table.insert(0, desktop_cells(calc, shown, ctx))
    lines.append(
        render_table(shown, table, ctx)
        if table
        else "  no offers match your choice of providers (with only `custom`, give --cloud-price)"
    )
    if any(not r.offer.guaranteed for r in rows):
        lines.append("  * no guaranteed GPU (free tier): shown for reference, never the verdict")
    if scale_out:
        lines += [
            "",
            f"Scale-out: more GPUs than your desktop ({scaling_text(data, w.kind)}); "
            "--scale-out lets them be the verdict:",
            render_table(
                shown,
                [cols.cells(r, shown, ctx) for r in pick_rows(scale_out, 3 if top else None, run)],
                ctx,
            ),
        ]
    if rest:
        lines.append(
            f"  {len(rest)} offers with less memory per GPU or fewer GPUs are left out "
            "(--memory-gb admits smaller cards when the job needs less; --json lists them all)."
        )
    if c.break_even_utilisation is not None and c.best is not None:
        lines.append(
            f"  Over {a.horizon_years:g} years the desktop beats the cheapest comparable offer "
            f"above {display.percent(c.break_even_utilisation)} utilisation."
        )
    lines += ["", display.verdict(c, a, calc.spec, m)]
    if c.best is not None:
        lines.append(display.price_line(c.best, is_stale(c.best.offer, calc.now)))
    return "\n".join(lines)


def card_text(calc: Calculation) -> str:
    """What the default desktop price rests on: ' (RTX 4090 used, 2026-04-30, + base system)'."""
    card = calc.card
    if card is None:
        return ""
    when = f" of {card.observed:%Y-%m-%d}" if card.observed else ""
    return f" ({card.condition} card price{when} + a 2026 base system)"


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
        "run_usd": display.usd(r.usd, ctx.money),
        "run_usd_per_items": display.usd(r.usd_per_item * ctx.items_unit, ctx.money)
        if r.usd_per_item is not None
        else "-",
        "run_co2_kg": display.co2(r.co2_kg),
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


def to_json(calc: Calculation, data: AppData, top: int | None) -> str:
    c = calc.comparison
    run = calc.workload.run_hours is not None
    comparable, scale_out, rest = groups(c)
    rows = pick_rows(comparable, top, run) + pick_rows(scale_out, top, run)
    if top is None:
        rows += ranked(rest, run)
    doc = {
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
        "break_even_utilisation": c.break_even_utilisation,
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
        "verdict": display.verdict(c, calc.assumptions, calc.spec, calc.money),
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
        },
        "notes": list(calc.notes),
        "warnings": data.book.warnings,
    }
    return json.dumps(finite(doc), indent=2, allow_nan=False)


def finite(value: Any) -> Any:
    """The document with any non-finite number as null: `--json` is always valid JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
