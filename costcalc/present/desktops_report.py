"""The desktop comparison as people read it: the table, the plain text and the JSON.

Rule kept here: presentation only. Every figure comes from costcalc.core.desktops, every format from
costcalc.present.display; the columns are defined once (title, cell, sort key) so the CLI table and
the app can share them. Builds are named as people name them ("2x GeForce RTX 4090"), never by
catalog key; catalog keys appear only in the JSON, next to the names."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.desktops import BuildResult, DesktopsComparison
from costcalc.core.hardware import DesktopHardware
from costcalc.core.records import plain
from costcalc.core.terminal import fill_all
from costcalc.present import display
from costcalc.present.columns import Width
from costcalc.present.report import cloud_offer_json, finite, render_table

UNKNOWN = "?"


class BuildColumn(Struct, frozen=True):
    key: str
    title: str
    numeric: bool
    cell: Callable[[BuildResult], str]
    sort: Callable[[BuildResult], Any]
    ranking: bool = False
    """A figure that ranks builds: '-' for a build that cannot win (does not fit, too little
    memory, no price), as a GPU that cannot hold a job gets no price in the offer table."""

    @property
    def width(self) -> Width:
        """A build's name is never cut (fewer figures make way): it is what the table is about."""
        return "figure" if self.numeric else "label"


def _yes_no(value: bool | None) -> str:
    return UNKNOWN if value is None else ("yes" if value else "no")


def _memory(b: BuildResult) -> str:
    text = f"{b.gpu_count}x {b.spec.memory_gb:g} GB"
    return text + " (too small)" if b.holds_job is False else text


def _ecc(b: BuildResult) -> str:
    ecc = b.card.ecc if b.card is not None else None
    return {"yes": "yes", "driver toggle": "toggle", "no": "no", None: UNKNOWN}[ecc]


def _break_even(b: BuildResult) -> str:
    return "no offer" if b.cloud is None else display.days_short(b.cloud.break_even_days)


def _money(value: float | None, b: BuildResult) -> str:
    return display.usd(value) if b.price_known and value is not None else "-"


def _column(
    key: str,
    title: str,
    cell: Callable[[BuildResult], str],
    sort: Callable[[BuildResult], Any],
    *,
    numeric: bool = True,
    ranking: bool = False,
) -> BuildColumn:
    return BuildColumn(key, title, numeric, cell, sort, ranking)


INF = float("inf")

COLUMNS: tuple[BuildColumn, ...] = (
    _column("build", "build", lambda b: b.label, lambda b: b.label, numeric=False),
    _column(
        "price_usd",
        "price",
        lambda b: _money(b.desktop.price_usd, b),
        lambda b: b.desktop.price_usd,
    ),
    _column("memory", "GPU memory", _memory, lambda b: b.total_memory_gb, numeric=False),
    _column("wall_w", "wall W", lambda b: f"{b.energy.load_w:,.0f}", lambda b: b.energy.load_w),
    _column(
        "electricity",
        "power $/yr",
        lambda b: display.usd(b.energy.electricity_usd_per_year),
        lambda b: b.energy.electricity_usd_per_year,
    ),
    _column(
        "co2",
        "CO2/yr",
        lambda b: display.co2(b.energy.co2_kg_per_year),
        lambda b: b.energy.co2_kg_per_year,
    ),
    _column(
        "speed", "speed", lambda b: display.speed(b.relative_speed), lambda b: b.relative_speed
    ),
    _column(
        "batch",
        "batch",
        lambda b: "-" if b.batch is None else str(b.batch) if b.batch else "none",
        lambda b: -1 if b.batch is None else b.batch,
    ),
    _column("tco", "TCO", lambda b: _money(b.tco_usd, b), lambda b: b.tco_usd),
    _column(
        "tco_per_work_hour",
        "$/work h",
        lambda b: display.usd(b.tco_usd_per_work_hour),
        lambda b: b.tco_usd_per_work_hour,
        ranking=True,
    ),
    _column(
        "break_even",
        "break-even",
        _break_even,
        lambda b: INF if b.break_even_days is None else b.break_even_days,
        ranking=True,
    ),
    _column("ecc", "ECC", _ecc, _ecc, numeric=False),
    _column("fits", "fits", lambda b: _yes_no(b.fits), lambda b: _yes_no(b.fits), numeric=False),
)
BY_KEY = {c.key: c for c in COLUMNS}

PRIORITY: tuple[str, ...] = (
    "build",
    "fits",
    "tco_per_work_hour",
    "break_even",
    "price_usd",
    "speed",
    "batch",
    "memory",
    "tco",
    "electricity",
    "wall_w",
    "co2",
    "ecc",
)
"""Which columns a narrow terminal keeps: the build, whether it fits, and what ranks it."""


def cells(b: BuildResult) -> dict[str, str]:
    """Every cell of a build's row; ranking figures are '-' for a build that cannot win."""
    return {col.key: "-" if col.ranking and not b.can_win else col.cell(b) for col in COLUMNS}


# --------------------------------------------------------------------------- text


def columns_for(c: DesktopsComparison) -> tuple[BuildColumn, ...]:
    """The columns with something to show: the batch only where each card runs its own."""
    varies = any(b.batch is not None for b in c.builds)
    return tuple(col for col in COLUMNS if col.key != "batch" or varies)


def to_text(
    c: DesktopsComparison,
    hw: DesktopHardware,
    catalog: GpuCatalog,
    *,
    width: int | None = None,
    wide: bool = False,
    labels: Mapping[str, str] | None = None,
) -> str:
    """The comparison as text: prose wrapped to `width`, the table fit to it unless `wide`;
    `labels`: the providers' names (the key without one)."""
    rows = [cells(b) for b in c.builds]
    table = render_table(columns_for(c), rows, width=None if wide else width, priority=PRIORITY)
    lines = after_table_lines(c, catalog, labels)
    head = [*header_lines(c, hw), ""]
    return "\n".join([*fill_all(head, width), table, *fill_all(lines, width)])


def after_table_lines(
    c: DesktopsComparison, catalog: GpuCatalog, labels: Mapping[str, str] | None = None
) -> list[str]:
    """Everything under the table: its key, why builds do not fit, the cloud offers they are
    weighed against, the verdict, what is not priced and the notes (the CLI and the app)."""
    lines = _table_key(c)
    lines += _why_not(c)
    lines += _cloud_lines(c, catalog, labels)
    lines += ["", _verdict(c)]
    lines += _reliability_lines(c)
    lines += [f"Note: {n}." for n in c.notes]
    return lines


def header_lines(c: DesktopsComparison, hw: DesktopHardware) -> list[str]:
    """What the comparison assumes: use, place, horizon, baseline and the box it is built in."""
    a, w = c.assumptions, c.workload
    resale = f", {a.resale_share:.0%} resale" if a.resale_share else ", no resale"
    at = f", batch {w.batch} per GPU" if w.batch else ""
    if any(b.batch is not None for b in c.builds):
        mine = f"batch {w.batch}" if w.batch else "the speed model's batch"
        at = f", {mine} per GPU on one {c.baseline.name} and each build at its own (batch column)"
    circuit = (
        f"one {c.circuit.label} ({c.circuit.continuous_w:,.0f} W continuous, {c.circuit_source})"
        if c.circuit is not None
        else f"no circuit on file ({c.circuit_source})"
    )
    b = hw.board
    return [
        f"Desktop builds at {display.percent(a.utilisation)} utilisation, ${a.usd_per_kwh:g}/kWh, "
        f"{a.home_region} grid ({a.home_gco2_per_kwh:g} g/kWh), {a.horizon_years:g}-year "
        f"horizon{resale}; {w.kind} at {w.dtype}{at}.",
        f"Speed is relative to one {c.baseline.name}. Fit checked in the assumed workstation, "
        f"{b.name} ({b.board_slots} slots, case with {b.case_positions} positions), on {circuit}.",
    ]


def _table_key(c: DesktopsComparison) -> list[str]:
    years = f"{c.assumptions.horizon_years:g}"
    tiers = sorted({(b.gpu_count, b.base_tier) for b in c.builds if b.base_tier is not None})
    bases = ", ".join(f"{tier} for {n} GPU{'s' if n > 1 else ''}" for n, tier in tiers)
    key = [
        f"  TCO: price - resale + electricity over {years} years; $/work h: TCO per hour of "
        f"work at one {c.baseline.name}'s speed; break-even: days until the build has cost "
        "less than the cheapest comparable cloud offer doing the same work.",
        f"  price: the cards (new where a dated new price exists, else used, else launch) plus "
        f"the base system ({bases}; --base chooses).",
    ]
    if c.workload.memory_gb is not None:
        key.append(
            f"  GPU memory is per GPU: the job's {c.workload.memory_gb:g} GB must fit on each "
            "card (the model is not split across GPUs)."
        )
    return key


def _why_not(c: DesktopsComparison) -> list[str]:
    lines: list[str] = []
    for title, wanted in (("Does not fit:", False), ("Fit not known:", None)):
        builds = [b for b in c.builds if b.fits is wanted]
        if builds:
            lines += ["", title]
            for b in builds:
                lines.append(f"  {b.label}: {'; '.join(b.feasibility.reasons)}")
    return lines


def offer_text(b: BuildResult, catalog: GpuCatalog, labels: Mapping[str, str] | None = None) -> str:
    if b.cloud is None:
        return "no comparable offer (same GPU count, as much memory per GPU)"
    o = b.cloud.offer
    gpu = catalog.get(o.gpu).name if o.gpu in catalog else o.gpu
    where = f", {o.region}" if o.region != "-" else ""
    return (
        f"{(labels or {}).get(o.provider, o.provider)} {o.name} ({o.gpu_count}x {gpu}{where}), "
        f"{display.usd(b.cloud.usd_per_year)} a year for the same work"
    )


def _cloud_lines(
    c: DesktopsComparison, catalog: GpuCatalog, labels: Mapping[str, str] | None = None
) -> list[str]:
    shown = [b for b in c.builds if b.can_win]
    if not shown:
        return []
    lines = ["", "Cheapest comparable cloud offer (same GPU count, as much memory per GPU):"]
    return lines + [f"  {b.label}: {offer_text(b, catalog, labels)}" for b in shown]


def _verdict(c: DesktopsComparison) -> str:
    best = c.best
    if best is None:
        none = "No build fits and holds the job with a known price"
        nearest = display.alternatives_text(c.nearest)
        return f"{none}. {nearest}" if nearest else f"{none}: nothing to recommend."
    return (
        f"Best value that fits: {best.label}, {display.usd(best.tco_usd_per_work_hour)} per "
        f"hour of work ({display.usd(best.tco_usd)} over {c.assumptions.horizon_years:g} years)."
    )


def _reliability_lines(c: DesktopsComparison) -> list[str]:
    lines = ["", "Not priced (reliability factors, per card class):"]
    for r in c.reliability.values():
        lines += [
            f"  {r.label}:",
            f"    ECC: {r.ecc}",
            f"    Drivers: {r.drivers}",
            f"    Warranty: {r.warranty}",
            f"    Licence: {r.licence}",
        ]
    return [*lines, ""]


# --------------------------------------------------------------------------- JSON


def build_json(b: BuildResult) -> dict[str, Any]:
    f = b.feasibility
    price = b.price_known
    return {
        "label": b.label,
        "gpu": b.spec.key,
        "gpu_name": b.spec.name,
        "gpu_count": b.gpu_count,
        "segment": b.spec.segment,
        "price_usd": b.desktop.price_usd if price else None,
        "card_price_usd": b.spec.desktop_price_usd,
        "card_price_basis": _price_basis(b),
        "base_system_usd": b.base_system_usd,
        "base_tier": b.base_tier,
        "memory_per_gpu_gb": b.spec.memory_gb,
        "total_memory_gb": b.total_memory_gb,
        "memory_split_across_gpus": False,
        "holds_job": b.holds_job,
        "gpu_watts": b.desktop.gpu_watts,
        "system_watts": b.desktop.system_watts,
        "dc_load_w": f.dc_load_w,
        "wall_w": b.energy.load_w,
        "kwh_per_year": b.energy.kwh_per_year,
        "electricity_usd_per_year": b.energy.electricity_usd_per_year,
        "co2_kg_per_year": b.energy.co2_kg_per_year,
        "relative_speed": b.relative_speed,
        **({} if b.batch is None else {"batch": b.batch}),
        "tco_usd": b.tco_usd if price else None,
        "tco_usd_per_work_hour": b.tco_usd_per_work_hour if price else None,
        "cloud": _cloud_json(b),
        "break_even_days": b.break_even_days,
        "fits": b.fits,
        "can_win": b.can_win,
        "decision": b.decision,
        "decision_reason": b.decision_reason,
        "reasons": list(f.reasons),
        "checks": [{"check": k.name, "ok": k.ok, "detail": k.detail} for k in f.checks],
        "slots_needed": f.slots_needed,
        "psu_needed_w": f.psu_needed_w,
        "psu_max_w": f.psu_max_w,
        "circuit_limit_w": f.circuit.continuous_w if f.circuit is not None else None,
        "card": plain(b.card) if b.card is not None else None,
    }


def _price_basis(b: BuildResult) -> str | None:
    s = b.spec
    if s.street_price_usd is not None:
        return f"street price {s.street_price_date}" if s.street_price_date else "street price"
    return "launch price" if s.launch_price_usd is not None else None


def _cloud_json(b: BuildResult) -> dict[str, Any] | None:
    if b.cloud is None:
        return None
    return {
        **cloud_offer_json(b.cloud.offer),
        "relative_speed": b.cloud.relative_speed,
        "usd_per_year": b.cloud.usd_per_year,
        "hours_per_year": b.cloud.hours_per_year,
        "break_even_days": b.cloud.break_even_days,
    }


def to_json(
    c: DesktopsComparison,
    hw: DesktopHardware,
    *,
    scenario: dict[str, Any],
    warnings: Sequence[str] = (),
) -> str:
    board = hw.board
    doc = {
        "inputs": {
            "scenario": scenario,
            "baseline_gpu": c.baseline.key,
            "assumptions": plain(c.assumptions),
            "workload": plain(c.workload),
        },
        "platform": {
            "board": board.name,
            "board_slots": board.board_slots,
            "case_positions": board.case_positions,
            "open_air_gap_slots": hw.cooling.open_air_gap_slots,
            "psu_headroom": hw.psus.headroom,
            "circuit": plain(c.circuit) if c.circuit is not None else None,
            "circuit_source": c.circuit_source,
            "data_as_of": hw.as_of.isoformat(),
        },
        "builds": [build_json(b) for b in c.builds],
        "best": c.best.label if c.best is not None else None,
        "nearest": [plain(alt) for alt in c.nearest],
        "reliability": {k: plain(r) for k, r in c.reliability.items()},
        "notes": list(c.notes),
        "warnings": list(warnings),
    }
    return json.dumps(finite(doc), indent=2, allow_nan=False)
