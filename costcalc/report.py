"""A comparison as people read it: table rows, plain text and JSON. Shared by the CLI and the TUI.

Rule kept here: presentation only; every number comes from `compare` and every format from
`costcalc.format`, so the CLI, the JSON and the app always agree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from costcalc import engine
from costcalc import format as fmt
from costcalc.compare import Comparison
from costcalc.loaders import AppData
from costcalc.models import (
    Assumptions,
    CloudOffer,
    DesktopBuild,
    GpuSpec,
    OfferResult,
    Workload,
)
from costcalc.snapshots import is_stale

BUCKET_LABELS = ("<5%", "5-10%", "10-15%", "15-20%", ">20%")


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    numeric: bool = True


OFFER_COLUMNS: tuple[Column, ...] = (
    Column("provider", "provider", numeric=False),
    Column("name", "offer", numeric=False),
    Column("gpus", "GPU", numeric=False),
    Column("region", "region", numeric=False),
    Column("usd_per_hour", "$/h"),
    Column("relative_speed", "speed"),
    Column("usd_per_year", "$/year"),
    Column("break_even_days", "break-even"),
    Column("co2_kg_per_year", "CO2/year"),
    Column("price_age_days", "price age"),
)
RUN_COLUMNS: tuple[Column, ...] = (
    Column("run_hours", "time/run"),
    Column("run_usd", "$/run"),
    Column("run_co2_kg", "CO2/run"),
)


def sort_key(result: OfferResult, column: str) -> Any:
    """Sort value of a column; 'never' and 'does not fit' sort last."""
    inf = float("inf")
    values: dict[str, Any] = {
        "provider": result.offer.provider,
        "name": result.offer.name,
        "gpus": (result.offer.gpu, result.offer.gpu_count),
        "region": result.offer.region,
        "usd_per_hour": result.offer.usd_per_hour,
        "relative_speed": result.relative_speed,
        "usd_per_year": result.usd_per_year,
        "break_even_days": inf if result.break_even_days is None else result.break_even_days,
        "co2_kg_per_year": result.co2_kg_per_year,
        "price_age_days": result.price_age_days,
        "run_hours": result.run.hours if result.run else inf,
        "run_usd": result.run.usd if result.run else inf,
        "run_co2_kg": result.run.co2_kg if result.run else inf,
        "usd_per_batch_item": (
            inf if result.usd_per_batch_item is None else result.usd_per_batch_item
        ),
        "interruption": (
            -1 if result.offer.interruption_bucket is None else result.offer.interruption_bucket
        ),
    }
    return values[column]


def offer_cells(result: OfferResult, now: datetime | None = None) -> dict[str, str]:
    """Every displayable cell of an offer row, formatted."""
    o = result.offer
    does_not_fit = result.fits is False
    age = fmt.age(result.price_age_days)
    if now is not None and is_stale(o.fetched_at, o.spot, now):
        age += " (stale)"
    run = result.run
    if does_not_fit:
        # A run that cannot start costs nothing meaningful: never show it as a price or $0.
        return {
            **_identity_cells(result, age),
            "usd_per_year": fmt.DOES_NOT_FIT,
            "break_even_days": "-",
            "co2_kg_per_year": "-",
            "run_hours": "-",
            "run_usd": fmt.DOES_NOT_FIT,
            "run_co2_kg": "-",
            "usd_per_batch_item": fmt.DOES_NOT_FIT,
        }
    return {
        **_identity_cells(result, age),
        "usd_per_year": fmt.usd(result.usd_per_year),
        "break_even_days": fmt.days_short(result.break_even_days),
        "co2_kg_per_year": fmt.co2(result.co2_kg_per_year),
        "run_hours": f"{run.hours:,.2f} h" if run else "-",
        "run_usd": fmt.usd(run.usd) if run else "-",
        "run_co2_kg": fmt.co2(run.co2_kg) if run else "-",
        "usd_per_batch_item": fmt.usd(result.usd_per_batch_item),
    }


def _identity_cells(result: OfferResult, age: str) -> dict[str, str]:
    o = result.offer
    return {
        "provider": o.provider,
        "name": o.name + ("" if o.guaranteed else " *"),
        "gpus": fmt.gpus(o.gpu, o.gpu_count),
        "region": o.region,
        "usd_per_hour": f"{o.usd_per_hour:,.3f}",
        "relative_speed": fmt.speed(result.relative_speed),
        "price_age_days": age,
        "interruption": (
            BUCKET_LABELS[o.interruption_bucket] if o.interruption_bucket is not None else "-"
        ),
    }


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


def render_table(columns: Sequence[Column], rows: Sequence[dict[str, str]]) -> str:
    widths = [max(len(c.title), *(len(r[c.key]) for r in rows)) for c in columns]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(w) if col.numeric else cell.ljust(w)
            for cell, w, col in zip(cells, widths, columns, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line([c.title for c in columns])]
    out += [line([r[c.key] for c in columns]) for r in rows]
    return "\n".join(out)


def to_text(
    comparison: Comparison,
    desktop: DesktopBuild,
    a: Assumptions,
    w: Workload,
    data: AppData,
    top: int | None,
    now: datetime,
) -> str:
    d = comparison.desktop
    spec = data.catalog.get(desktop.gpu)
    gpus = f"{desktop.gpu_count}x {spec.name}"
    grid = data.grid.home(a.home_region)
    lines = [
        f"Desktop: {gpus}, {fmt.usd(d.price_usd)} up front, {d.load_w:,.0f} W under load",
        f"  at {fmt.percent(a.utilisation)} utilisation: {fmt.kwh(d.kwh_per_year)} and "
        f"{fmt.usd(d.electricity_usd_per_year)} of electricity a year "
        f"(${a.usd_per_kwh:g}/kWh), {fmt.co2(d.co2_kg_per_year)} CO2e a year "
        f"({grid.name} grid, {grid.gco2_per_kwh:g} g/kWh)",
    ]
    if comparison.desktop_run is not None:
        r = comparison.desktop_run
        lines.append(
            f"  one {r.hours:g} h run: {fmt.usd(r.usd)} (electricity plus hardware share over "
            f"{a.horizon_years:g} years), {fmt.kwh(r.kwh)}, {fmt.co2(r.co2_kg)} CO2e"
        )
    rows = pick_rows(comparison, top)
    columns = OFFER_COLUMNS + (RUN_COLUMNS if w.run_hours else ())
    shown = "all offers" if top is None else "cheapest offers"
    lines += [
        "",
        f"Cloud, the same work ({shown} by cost per year; speed relative to your desktop):",
        render_table(columns, [offer_cells(r, now) for r in rows]),
    ]
    if any(not r.offer.guaranteed for r in rows):
        lines.append("  * no guaranteed GPU (free tier): shown for reference, never the verdict")
    if comparison.break_even_utilisation is not None and comparison.best is not None:
        lines.append(
            f"  Over {a.horizon_years:g} years the desktop beats the cheapest offer above "
            f"{fmt.percent(comparison.break_even_utilisation)} utilisation."
        )
    lines += ["", fmt.verdict(comparison, a)]
    best = comparison.best
    if best is not None and is_stale(best.offer.fetched_at, best.offer.spot, now):
        lines.append(
            f"  That price is {fmt.age(best.price_age_days)} old"
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
    run = result.run
    return {
        **cloud_offer_json(result.offer),
        # The Paperspace benchmark's ratios, per GPU: what each dollar an hour buys.
        "cost_efficiency": engine.cost_efficiency(
            result.offer.usd_per_gpu_hour,
            spec.bandwidth_gbs,
            spec.cuda_cores,
            spec.memory_gb,
            spec.fp32_tflops,
        ),
        "relative_speed": result.relative_speed,
        "hours_per_year": result.hours_per_year,
        "usd_per_year": result.usd_per_year,
        "break_even_days": result.break_even_days,
        "co2_kg_per_year": result.co2_kg_per_year,
        "fits": result.fits,
        "usd_per_batch_item": result.usd_per_batch_item,
        "run": asdict(run) if run is not None else None,
        "price_age_days": result.price_age_days,
    }


def to_json(
    comparison: Comparison,
    desktop: DesktopBuild,
    a: Assumptions,
    w: Workload,
    data: AppData,
    top: int | None,
) -> str:
    rows = pick_rows(comparison, top)
    doc = {
        "inputs": {
            "desktop": desktop.model_dump(),
            "assumptions": a.model_dump(),
            "workload": w.model_dump(),
        },
        "desktop": asdict(comparison.desktop),
        "desktop_run": asdict(comparison.desktop_run) if comparison.desktop_run else None,
        "offers": [offer_json(r, data.catalog.get(r.offer.gpu)) for r in rows],
        "best": (
            offer_json(comparison.best, data.catalog.get(comparison.best.offer.gpu))
            if comparison.best
            else None
        ),
        "break_even_utilisation": comparison.break_even_utilisation,
        "verdict": fmt.verdict(comparison, a),
        "warnings": data.book.warnings,
    }
    return json.dumps(doc, indent=2)
