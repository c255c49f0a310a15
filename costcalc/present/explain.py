"""'Why this number': the formulas behind one offer's figures, with the user's numbers in them.

Rule kept here: pure and textual-free. Every figure shown as a result is the one
`costcalc.core.compare` produced; the intermediate numbers come from the same `costcalc.core.engine`
functions compare uses, so a reader can redo each line on a pocket calculator and land on the
figure in the table (a test checks they agree).
"""

from __future__ import annotations

from msgspec import Struct

from costcalc.core import commitment, engine
from costcalc.core.catalog import CardPrice, GpuCatalog
from costcalc.core.compare import Comparison
from costcalc.core.fx import USD, Money
from costcalc.core.grid import GridIndex
from costcalc.core.models import Assumptions, CardReading, DesktopBuild, OfferResult, Workload
from costcalc.core.predict import SpeedBreakdown
from costcalc.present import display as fmt


class Explanation(Struct, frozen=True):
    """One figure: a title and the lines that derive it."""

    title: str
    lines: tuple[str, ...]


def cur(value_usd: float, m: Money) -> str:
    """An amount inside a formula, in the shown currency: $0.12, €2,200."""
    return f"{m.symbol}{num(m.of(value_usd))}"


def num(value: float) -> str:
    """A number as a person writes it in a formula: 8,760, 591.3, 0.15, 0.0074."""
    if value == 0:
        return "0"
    size = abs(value)
    if size >= 1000:
        return f"{value:,.0f}"
    if size >= 100:
        return f"{value:.0f}" if value == round(value) else f"{value:.1f}"
    return f"{value:.4g}"


def desktop_price(
    card: CardPrice, desktop: DesktopBuild, base_usd: float, m: Money = USD
) -> Explanation:
    """The default desktop price: the card's price (with the dated readings it is the median
    of, and their spread) times the GPU count, plus the base system."""
    lines: list[str] = []
    condition = card.condition
    readings = sorted(
        (r for r in card.readings if r.condition == condition),
        key=lambda r: (r.observed, r.usd),
        reverse=True,
    )
    if card.observed is None:
        lines.append(f"card: launch price {cur(card.usd, m)} (no dated street price on file)")
    elif not readings:
        lines.append(
            f"card: {condition} price {cur(card.usd, m)} of {card.observed}: {card.source}"
        )
    else:
        sources = len({r.url.split("/")[2] for r in readings})  # one site, one source
        lines.append(
            f"card: {condition} price {cur(card.usd, m)} = the median of {len(readings)} dated "
            f"{condition} readings from {sources} source{'s' if sources > 1 else ''}"
            + (" (one source only)" if sources == 1 else "")
            + ":"
        )
        lines += [f"  {_reading(r, m)}" for r in readings]
        low, high = min(r.usd for r in readings), max(r.usd for r in readings)
        oldest = min(r.observed for r in readings)
        lines.append(
            f"spread: {cur(low, m)} to {cur(high, m)} ({num(high / low)}x), {oldest} to "
            f"{card.observed}"
        )
    other = "used" if condition == "new" else "new"
    others = [r for r in card.readings if r.condition == other]
    if others:
        prices = sorted(r.usd for r in others)
        half = len(prices) // 2
        middle = prices[half] if len(prices) % 2 else (prices[half - 1] + prices[half]) / 2
        found = (
            f"median {cur(middle, m)} of {len(others)} readings ({cur(prices[0], m)} to "
            f"{cur(prices[-1], m)})"
            if len(others) > 1
            else f"{cur(middle, m)}, one reading of {others[0].observed}"
        )
        use = "--used prices the desktop with it" if other == "used" else "not the price used"
        lines.append(f"{other} cards: {found}; {use}")
    total = card.usd * desktop.gpu_count + base_usd
    lines.append(
        f"desktop = {desktop.gpu_count} x {cur(card.usd, m)} + base system {cur(base_usd, m)} = "
        f"{fmt.usd(total, m)}"
    )
    return Explanation("Desktop price", tuple(lines))


def _reading(r: CardReading, m: Money) -> str:
    """'$1,207  2026-09-30  GPU Poet October 2026 report: ...' ($700-1,000 when a range)."""
    spread = (
        f" ({cur(r.low_usd, m)}-{cur(r.high_usd, m)})"
        if r.low_usd is not None and r.high_usd is not None
        else ""
    )
    return f"{cur(r.usd, m)}{spread}, {r.observed}: {r.source}"


def electricity(
    comparison: Comparison, desktop: DesktopBuild, a: Assumptions, m: Money = USD
) -> Explanation:
    d = comparison.desktop
    u = a.utilisation
    lines = [
        f"load = ({num(desktop.gpu_watts)} W x {desktop.gpu_count} GPU + "
        f"{num(desktop.system_watts)} W rest) / PSU {num(a.psu_efficiency)} = "
        f"{num(d.load_w)} W",
        f"kWh/year = {num(d.load_w)} W x {num(u)} x 8,760 h / 1000"
        + (
            f" + idle {num(desktop.idle_watts)} W x {num(1 - u)} x 8,760 h / 1000"
            if a.always_on
            else ""
        )
        + f" = {fmt.kwh(d.kwh_per_year)}",
        f"{m.symbol.strip()}/year = {num(d.kwh_per_year)} kWh x {cur(a.usd_per_kwh, m)}/kWh = "
        f"{fmt.usd(d.electricity_usd_per_year, m)}",
    ]
    return Explanation("Electricity (desktop)", tuple(lines))


def cloud_cost(result: OfferResult, a: Assumptions, m: Money = USD) -> Explanation:
    o = result.offer
    per_year = f"{m.symbol.strip()}/year"
    spot = f" x interruptions {num(result.overhead)}" if result.overhead != 1 else ""
    lines = [
        f"hours/year = {num(a.utilisation)} x 8,760 h / speed {num(result.relative_speed)}{spot}"
        f" = {num(result.hours_per_year)} h (the desktop's work, on {fmt.offer_label(result)})",
    ]
    if result.overhead != 1:
        lines.append(
            "interruptions: checkpoints, lost work and restarts of a spot offer, priced from its "
            "interruption frequency (costcalc.core.engine.interruption_overhead)"
        )
    if o.term_years is not None:
        instances = commitment.instances_needed(result.hours_per_year)
        terms = commitment.terms_paid(o.term_years, a.horizon_years)
        spread = terms * o.term_years / a.horizon_years
        share = f" x {terms} x {o.term_years} / {num(a.horizon_years)} years" if spread != 1 else ""
        lines += [
            f"a {o.term_years}-year commitment is paid for every hour of its term, used or not; "
            f"{terms} term{'s' if terms > 1 else ''} cover your {num(a.horizon_years)}-year horizon"
            + ("" if o.term_years <= a.horizon_years else ", longer than it: never the verdict"),
            f"{per_year} = 8,760 h x {cur(o.usd_per_hour, m)}/h x {instances} "
            f"instance{'s' if instances > 1 else ''}{share} = {fmt.usd(result.usd_per_year, m)}",
        ]
    elif o.monthly_fee_usd or o.included_usd_per_month:
        usage = result.hours_per_year * o.usd_per_hour / engine.MONTHS_PER_YEAR
        lines.append(
            f"{per_year} = 12 x (fee {cur(o.monthly_fee_usd, m)} + max(0, "
            f"{num(result.hours_per_year)} h x {cur(o.usd_per_hour, m)}/h / 12 - included "
            f"{cur(o.included_usd_per_month, m)})) = 12 x ({cur(o.monthly_fee_usd, m)} + "
            f"{cur(max(0.0, usage - o.included_usd_per_month), m)}) = "
            f"{fmt.usd(result.usd_per_year, m)}"
        )
    elif o.billing_increment_s >= 86_400 or o.setup_fee_usd:
        billed = engine.billed_hours_per_year(result.hours_per_year, o.billing_increment_s)
        unit = num(o.billing_increment_s / 3600)
        setup = (
            f" + setup {cur(o.setup_fee_usd, m)} / {num(a.horizon_years)} years"
            if o.setup_fee_usd
            else ""
        )
        lines += [
            f"billed: whole periods of {unit} h: {num(billed)} h",
            f"{per_year} = {num(billed)} h x {cur(o.usd_per_hour, m)}/h{setup} = "
            f"{fmt.usd(result.usd_per_year, m)}",
        ]
    else:
        lines.append(
            f"{per_year} = {num(result.hours_per_year)} h x {cur(o.usd_per_hour, m)}/h = "
            f"{fmt.usd(result.usd_per_year, m)}"
        )
    return Explanation("Cloud cost", tuple(lines))


def break_even(
    result: OfferResult,
    comparison: Comparison,
    desktop: DesktopBuild,
    a: Assumptions,
    m: Money = USD,
    desktop_name: str | None = None,
    no_buy: str | None = None,
) -> Explanation:
    """d with the user's numbers; `desktop_name` names the GPU when its price is missing;
    `no_buy`: why the desktop cannot be bought (Calculation.decision_reason), so no day is."""
    cloud_day = result.usd_per_year / engine.DAYS_PER_YEAR
    power_day = comparison.desktop.electricity_usd_per_year / engine.DAYS_PER_YEAR
    resale = a.resale_share
    price = "price x (1 - resale)" if resale else "price"
    head = (
        f"{price} + electricity/day x d = cloud/day x d  ->  "
        f"d = {price} / (cloud/day - electricity/day)"
    )
    if no_buy is not None:
        return Explanation("Break-even", (f"none (no Buy): {no_buy}",))
    if desktop.price_usd is None:
        missing = fmt.no_price_reason(desktop_name or desktop.gpu)
        return Explanation("Break-even", (head, missing))
    if result.break_even_days is None:
        verdict = (
            f"cloud/day {cur(cloud_day, m)} <= electricity/day {cur(power_day, m)}: "
            "buying never pays back"
        )
        return Explanation("Break-even", (head, verdict))
    horizon_days = a.horizon_years * engine.DAYS_PER_YEAR
    within = "within" if engine.pays_back(result.break_even_days, a.horizon_years) else "beyond"
    net = f" x (1 - {num(resale)})" if resale else ""
    lines = (
        head,
        f"d = {fmt.usd(desktop.price_usd, m)}{net} / ({fmt.usd(result.usd_per_year, m)}/365 - "
        f"{fmt.usd(comparison.desktop.electricity_usd_per_year, m)}/365) = "
        f"{num(desktop.price_usd * (1 - resale))} / ({num(cloud_day)} - {num(power_day)}) = "
        f"{result.break_even_days:,.2f} days",
        f"{fmt.days(result.break_even_days)}: {within} your {num(a.horizon_years)}-year horizon "
        f"({num(horizon_days)} days)",
    )
    return Explanation("Break-even", lines)


def carbon(
    result: OfferResult,
    comparison: Comparison,
    a: Assumptions,
    catalog: GpuCatalog,
    grid: GridIndex,
) -> Explanation:
    d = comparison.desktop
    o = result.offer
    offer_grid = grid.for_offer(o.provider, o.region)
    host_w = grid.data.cloud_host_w_per_gpu
    board_w = catalog.get(o.gpu).board_power_w
    kwh = result.hours_per_year * engine.cloud_server_w(o.gpu_count, board_w, host_w) / 1000
    lines = [
        f"desktop: {num(d.kwh_per_year)} kWh x PUE {num(a.home_pue)} x "
        f"{num(a.home_gco2_per_kwh)} g/kWh ({a.home_region}) / 1000 = "
        f"{fmt.co2(d.co2_kg_per_year - d.embodied_co2_kg_per_year)}/year"
        + (
            f" + embodied {fmt.co2(d.embodied_co2_kg_per_year)}/year"
            if d.embodied_co2_kg_per_year
            else ""
        ),
        f"cloud kWh = {num(result.hours_per_year)} h x {o.gpu_count} x ({num(board_w)} W board + "
        f"{num(host_w)} W host) / 1000 = {fmt.kwh(kwh)}",
        f"cloud: {num(kwh)} kWh x PUE {num(offer_grid.pue)} x {num(offer_grid.gco2_per_kwh)} "
        f"g/kWh / 1000 = {fmt.co2(result.co2_kg_per_year)}/year",
    ]
    return Explanation("Carbon", tuple(lines))


def run(result: OfferResult, a: Assumptions, w: Workload, m: Money = USD) -> Explanation | None:
    if w.run_hours is None:
        return None
    if result.fits is False:
        return Explanation("One run", (f"{fmt.DOES_NOT_FIT}: the GPU cannot hold the workload",))
    r = result.run
    if r is None:
        return None
    o = result.offer
    share = ""
    if o.monthly_fee_usd:
        runs_per_month = engine.runs_per_month(a.utilisation, w.run_hours)
        plan_usd = engine.plan_share_usd(o.monthly_fee_usd, runs_per_month)
        share = (
            f" + plan {cur(o.monthly_fee_usd, m)}/month / {num(max(runs_per_month, 1.0))} runs"
            f" = {cur(plan_usd, m)}"
        )
    spot = f" x interruptions {num(result.overhead)}" if result.overhead != 1 else ""
    lines = [
        f"time = {num(w.run_hours)} h / speed {num(result.relative_speed)}{spot} = {num(r.hours)} h"
        f" (billed {num(r.billed_hours)} h: per {o.billing_increment_s} s, "
        f"minimum {o.billing_minimum_s} s)",
        f"cost = {num(r.billed_hours)} h x {cur(o.usd_per_hour, m)}/h{share} = {fmt.usd(r.usd, m)}",
        f"CO2 = {fmt.kwh(r.kwh)} -> {fmt.co2(r.co2_kg)}",
    ]
    if result.usd_per_batch_item is not None:
        batch = w.max_batch.get(o.gpu, 0) * o.gpu_count
        lines.append(
            f"{m.symbol.strip()} per batch item = {cur(o.usd_per_hour, m)}/h / batch {batch} = "
            f"{fmt.usd(result.usd_per_batch_item, m)}"
        )
    return Explanation("One run", tuple(lines))


def speed(result: OfferResult, why: SpeedBreakdown, catalog: GpuCatalog) -> Explanation:
    """The predicted speed of one offer GPU against the desktop's: each part of the work, its
    share of the work (the mean of its shares on the two GPUs) and the rate ratio that scales
    it, the fixed cost of a step on each side, the offer's own batch where it runs one, and the
    product of the factors; then the GPU counts that take it to the table's speed."""
    source, target = catalog.get(why.source), catalog.get(why.target)
    at = f" at batch {why.batch:g} per GPU" if why.batch else ""
    if why.target_batch:
        mine = f"batch {why.batch:g}" if why.batch else "the model's batch"
        theirs = f"{why.target_batch:g} on the {target.short_name}"
        at = f", {mine} on the {source.short_name} and {theirs}"
    lines = [
        f"{target.short_name} against {source.short_name}, {why.kind} work in {why.dtype}{at}:"
    ]
    for part in why.parts:
        if part.part == "overhead":
            lines.append(
                f"fixed cost of a step (launches, the host): {part.source_share:.0%} of the "
                f"step on the {source.short_name}, {part.target_share:.0%} on the "
                f"{target.short_name} -> x {num(part.factor)}"
            )
            continue
        if part.part == "batch":
            lines.append(
                f"batch: the {target.short_name} runs {part.target_path} per GPU against "
                f"{part.source_path}, its fixed costs spread over {num(part.rate_ratio)}x the "
                f"work -> x {num(part.factor)}"
            )
            continue
        lines.append(
            f"{part.part}: {part.weight:.0%} of the work, rate x {num(part.rate_ratio)} "
            f"({part.target_path} vs {part.source_path}) -> x {num(part.factor)}"
        )
    low, high = why.band
    lines.append(
        f"speed per GPU = {' x '.join(num(p.factor) for p in why.parts)} = {num(why.speedup)}"
        f" (likely {num(why.speedup / high)}-{num(why.speedup / low)})"
    )
    if abs(result.relative_speed - why.speedup) > 1e-9 * why.speedup:
        scaling = result.relative_speed / why.speedup
        lines.append(
            f"speed = {num(why.speedup)} x GPU count scaling {num(scaling)} = "
            f"{num(result.relative_speed)}"
        )
    lines += [f"note: {note}" for note in dict.fromkeys(why.notes)]
    return Explanation("Speed", tuple(lines))


def explain_offer(
    result: OfferResult,
    comparison: Comparison,
    desktop: DesktopBuild,
    a: Assumptions,
    w: Workload,
    catalog: GpuCatalog,
    grid: GridIndex,
    money: Money = USD,
    why_speed: SpeedBreakdown | None = None,
    no_buy: str | None = None,
) -> list[Explanation]:
    """Every figure of one offer row, derived step by step, amounts in `money`'s currency;
    with `why_speed` (the predictor's breakdown for the offer's GPU), how its speed came about;
    `no_buy`: why the desktop has no Buy, said instead of a break-even day."""
    name = catalog.get(desktop.gpu).name
    parts = [
        electricity(comparison, desktop, a, money),
        cloud_cost(result, a, money),
        break_even(result, comparison, desktop, a, money, name, no_buy),
        carbon(result, comparison, a, catalog, grid),
    ]
    one_run = run(result, a, w, money)
    if one_run is not None:
        parts.append(one_run)
    if why_speed is not None:
        parts.append(speed(result, why_speed, catalog))
    return parts


def to_text(parts: list[Explanation]) -> str:
    return "\n\n".join(p.title + "\n" + "\n".join("  " + line for line in p.lines) for p in parts)
