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
from costcalc.compare import Comparison
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


def pick_rows(comparison: Comparison, top: int | None) -> list[OfferResult]:
    """Cheapest offers per year: the best of each provider always, then the cheapest offers
    with a guaranteed GPU (free tiers without one are shown once, by their provider's row)."""
    ranked = sorted(comparison.offers, key=lambda r: (r.fits is False, r.usd_per_year))
    if top is None:
        return ranked
    chosen: list[OfferResult] = []
    seen: set[str] = set()
    for result in ranked:
        if result.offer.provider not in seen and result.fits is not False:
            seen.add(result.offer.provider)
            chosen.append(result)
    fill = sorted(ranked, key=lambda r: (not r.offer.guaranteed, r.fits is False, r.usd_per_year))
    for result in fill:
        if len(chosen) >= max(top, len(seen)):
            break
        if result not in chosen:
            chosen.append(result)
    return sorted(chosen, key=lambda r: (r.fits is False, r.usd_per_year))


def render_table(columns: Sequence[TableColumn], rows: Sequence[dict[str, str]]) -> str:
    widths = [max([len(c.title), *(len(r[c.key]) for r in rows)]) for c in columns]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(w) if col.numeric else cell.ljust(w)
            for cell, w, col in zip(cells, widths, columns, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line([c.title for c in columns])]
    out += [line([r[c.key] for c in columns]) for r in rows]
    return "\n".join(out)


def to_text(calc: Calculation, data: AppData, top: int | None) -> str:
    c, a, w = calc.comparison, calc.assumptions, calc.workload
    d = c.desktop
    gpus = f"{calc.desktop.gpu_count}x {calc.spec.name}"
    grid = data.grid.home(a.home_region)
    lines = [
        f"Desktop: {gpus}, {display.usd(d.price_usd)} up front, {d.load_w:,.0f} W under load",
        f"  at {display.percent(a.utilisation)} utilisation: {display.kwh(d.kwh_per_year)} and "
        f"{display.usd(d.electricity_usd_per_year)} of electricity a year "
        f"(${a.usd_per_kwh:g}/kWh), {display.co2(d.co2_kg_per_year)} CO2e a year "
        f"({grid.name} grid, {grid.gco2_per_kwh:g} g/kWh)",
    ]
    if c.desktop_run is not None:
        r = c.desktop_run
        lines.append(
            f"  one {r.hours:g} h run: {display.usd(r.usd)} (electricity plus hardware share over "
            f"{a.horizon_years:g} years), {display.kwh(r.kwh)}, {display.co2(r.co2_kg)} CO2e"
        )
    rows = pick_rows(c, top)
    shown = cols.shown(cols.CLI_COLUMNS, run=w.run_hours is not None, batch=False)
    ctx = cols.Context(now=calc.now)
    which = "all offers" if top is None else "cheapest offers"
    lines += [
        "",
        f"Cloud, the same work ({which} by cost per year; speed relative to your desktop):",
        render_table(shown, [cols.cells(r, shown, ctx) for r in rows])
        if rows
        else "  no offers match your choice of providers (with only `custom`, give --cloud-price)",
    ]
    if any(not r.offer.guaranteed for r in rows):
        lines.append("  * no guaranteed GPU (free tier): shown for reference, never the verdict")
    if c.break_even_utilisation is not None and c.best is not None:
        lines.append(
            f"  Over {a.horizon_years:g} years the desktop beats the cheapest offer above "
            f"{display.percent(c.break_even_utilisation)} utilisation."
        )
    lines += ["", display.verdict(c, a)]
    best = c.best
    if best is not None and is_stale(best.offer, calc.now):
        lines.append(
            f"  That price is {display.age(best.price_age_days)} old"
            f"{' (a spot estimate)' if best.offer.spot else ''}: "
            "`costcalc refresh` fetches current prices."
        )
    return "\n".join(lines)


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
    rows = pick_rows(c, top)
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
        "verdict": display.verdict(c, calc.assumptions),
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
