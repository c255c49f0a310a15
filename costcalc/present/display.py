"""How figures read: money, days, ages, energy, GPU names and the verdict, for the CLI and the app.

Rule kept here: formatting only, no arithmetic of its own beyond rounding for display.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from costcalc.core.compare import Comparison
from costcalc.core.decision import Decision, and_join
from costcalc.core.fx import USD, Money
from costcalc.core.models import Assumptions, GpuSpec, OfferResult
from costcalc.core.staleness import WHAT, max_age_days, stale_kind
from costcalc.core.terminal import printable
from costcalc.core.tiers import Weighed

if TYPE_CHECKING:
    from costcalc.core.alternatives import Alternative
    from costcalc.core.models import Scenario

safe = printable
"""Text from a feed, a file or the history database, fit for a terminal (no control characters)."""

DOES_NOT_FIT = "does not fit"
NEVER = "never"


def usd(value: float | None, money: Money = USD) -> str:
    """An amount computed in USD, shown in `money`'s currency: $2,311.20, €1,980; small amounts
    keep significant digits ($0.0074)."""
    if value is None or math.isnan(value):
        return "-"
    value = money.of(value)
    sign, cur = ("-" if value < 0 else ""), money.symbol
    value = abs(value)
    if value == 0:
        return f"{cur}0"
    if value < 0.01:
        return f"{sign}{cur}{value:.2g}" if value < 0.001 else f"{sign}{cur}{value:.4f}"
    if value < 1:
        return f"{sign}{cur}{value:.3f}"
    if value < 1000:
        return f"{sign}{cur}{value:,.2f}"
    return f"{sign}{cur}{value:,.0f}"


def usd_per_hour(value: float) -> str:
    return f"${value:,.3f}/h" if value < 10 else f"${value:,.2f}/h"


def percent(share: float) -> str:
    return f"{share * 100:.0f}%" if share >= 0.01 else f"{share * 100:.2g}%"


def days(value: float | None) -> str:
    """'~293 days (about 10 months)' or 'never'."""
    if value is None:
        return NEVER
    if value < 60:
        return f"~{value:.0f} days"
    months = value / (365 / 12)
    if months < 24:
        return f"~{value:,.0f} days (about {months:.0f} months)"
    return f"~{value:,.0f} days (about {value / 365:.1f} years)"


def days_short(value: float | None) -> str:
    if value is None:
        return NEVER
    return f"{value:,.0f} d" if value < 100_000 else ">100k d"


def age(value_days: float) -> str:
    """A price's age, in one format everywhere (tables, verdict, sources, --ages): '<1 d',
    '60 d', '1,059 d'; the staleness limits are in days too."""
    return "<1 d" if value_days < 1 else f"{value_days:,.0f} d"


def kwh(value: float) -> str:
    return f"{value:,.1f} kWh"


def co2(value_kg: float) -> str:
    if value_kg < 1:
        return f"{value_kg * 1000:.0f} g"
    if value_kg < 10_000:
        return f"{value_kg:,.1f} kg"
    return f"{value_kg / 1000:,.1f} t"


def speed(value: float) -> str:
    return f"{value:.2f}x"


def gpus(name: str, count: int) -> str:
    """'RTX 3090' for one GPU, '8x A100 SXM4 40GB' for several."""
    return f"{count}x {name}" if count > 1 else name


def gb(value: float) -> str:
    return f"{value:g} GB"


TIER_LABELS = {
    "community": "community cloud: third-party hosts, no data-centre SLA",
    "marketplace": "marketplace of independent hosts",
    "secure": "secure cloud",
}


def offer_label(result: OfferResult, labels: Mapping[str, str] | None = None) -> str:
    """'AWS EC2 spot p3.2xlarge (V100 SXM2 16GB, us-east-1), spot, ...' as a person reads it;
    `labels` maps provider keys to their names (the key itself without one)."""
    offer = result.offer
    parts = [gpus(result.spec.short_name, offer.gpu_count)]
    if offer.region != "-":
        parts.append(offer.region)
    provider = (labels or {}).get(offer.provider, offer.provider)
    label = f"{provider} {offer.name} ({', '.join(parts)})"
    kind = offer_kind_text(result)
    return f"{label}, {kind}" if kind else label


def offer_kind_text(result: OfferResult) -> str:
    """What sets an offer apart from a plain on-demand price: tier, marketplace summary, spot."""
    offer = result.offer
    bits = []
    if offer.tier in TIER_LABELS and offer.tier != "secure":
        bits.append(TIER_LABELS[offer.tier])
    if offer.summary:
        bits.append(offer.summary)
    if offer.spot:
        bits.append(f"spot, x{result.overhead:.3f} hours for interruptions")
    return "; ".join(bits)


def price_line(result: OfferResult, now_stale: bool) -> str:
    """Under the verdict: what kind of price it rests on, and how old it is."""
    offer = result.offer
    if offer.provider == "custom":
        return "  That is your own price (--cloud-price)."
    kind = {
        "observed": "an observed price",
        "list": "a list price",
        "estimate": "an estimate (derived, never observed)",
    }[offer.price_kind]
    line = f"  That is {kind} of {offer.fetched_at:%Y-%m-%d} ({age(result.price_age_days)} old)"
    if offer.currency != "USD" and offer.price_in_currency is not None:
        line += f", {offer.price_in_currency:,.4g} {offer.currency}/h converted"
    if now_stale:
        line += (
            f", stale ({WHAT[stale_kind(offer)]} over {max_age_days(offer):g} d): "
            "`costcalc refresh` fetches current prices"
        )
    return line + "."


def set_aside_text(
    set_aside: Sequence[OfferResult],
    money: Money = USD,
    labels: Mapping[str, str] | None = None,
    short: bool = False,
) -> str | None:
    """'Left out of the verdict as stale: Vast.ai 1x RTX 3090 (cheapest listing) at $0.130/h of
    2026-10-04 (53 d old; observed spot/marketplace prices over 7 d) and 1 more cheaper offer; ...'
    when offers cheaper a year were left out of the verdict for being stale prices of a kind that
    moves (Comparison.set_aside); None when none were. `short`: the app's panel, without the rule
    (its legend is on the price line) and the advice."""
    if not set_aside:
        return None
    first = set_aside[0]
    offer = first.offer
    provider = (labels or {}).get(offer.provider, offer.provider)
    more = len(set_aside) - 1
    others = f" and {more} more cheaper offer{'s' if more > 1 else ''}" if more else ""
    rate = f"{usd(offer.usd_per_hour, money)}/h"
    if short:
        return f"Left out as stale: {provider} {rate} ({age(first.price_age_days)} old){others}."
    head = f"Left out of the verdict as stale: {provider} {offer.name} at "
    return (
        f"{head}{rate} of {offer.fetched_at:%Y-%m-%d} ({age(first.price_age_days)} old; "
        f"{WHAT[stale_kind(offer)]} over {max_age_days(offer):g} d){others}; `costcalc refresh` "
        "fetches current prices."
    )


def weighed_text(w: Weighed) -> str | None:
    """'Weighed: secure on-demand and spot offers; left out: community, marketplace.' when a
    tier is left out (--exclude, --offers); None when every tier was weighed."""
    if not w.left_out:
        return None
    offers = f"{and_join(w.hosts)} {and_join(w.pricing)} offers" if w.hosts else "no offers"
    return f"Weighed: {offers}; left out: {', '.join(w.left_out)}."


def comparable_text(
    comparison: Comparison, desktop: GpuSpec, gpu_count: int, *, job: bool = False
) -> str:
    """What the verdict compares with, in words; `job`: the memory is a job's (`--model`),
    whose memory model decides which GPUs hold it."""
    rules = comparison.rules
    count = f"{gpu_count} GPU" if gpu_count == 1 else f"{gpu_count} GPUs"
    if job:
        more = " (or more: scale-out allowed)" if rules.scale_out else ""
        hold = "holds" if gpu_count == 1 and not more else "hold"
        return (
            f"{count}{more} that {hold} the job ({rules.memory_gb:.1f} GB per GPU on your "
            "desktop, by its memory model)"
        )
    why = (
        "the job's need (--memory-gb)"
        if rules.memory_from_job
        else f"your {desktop.short_name}'s memory; --memory-gb sets the job's need"
    )
    more = " or more (scale-out allowed)" if rules.scale_out else ""
    return f"{count}{more} with at least {gb(rules.memory_gb)} each ({why})"


def verdict(
    comparison: Comparison,
    a: Assumptions,
    desktop: GpuSpec,
    money: Money = USD,
    labels: Mapping[str, str] | None = None,
    *,
    decided: Decision | None,
    reason: str | None = None,
    use: str | None = None,
) -> str:
    """One line that answers the question: buy or rent, and by how much (`labels`: the
    providers' names, as offer_label). `decided` and `reason`: the calculation's decision and
    its reason (Calculation.decision), worded here, never made again: a build that does not
    work as a desktop has no Buy. `use`: the utilisation in other words ('10 runs a year (7.6%
    utilisation)')."""
    best = comparison.best
    desk = comparison.desktop
    at = f"at {use or percent(a.utilisation) + ' utilisation'}"
    if decided == "cannot_build" and comparison.desktop_fits:
        return no_build_verdict(reason, best, at, money, labels)
    if not comparison.desktop_fits:
        need = gb(round(comparison.rules.memory_gb, 1))
        have = gb(desktop.memory_gb)
        if comparison.rules.memory_gb <= desktop.memory_gb:  # the label holds it, the rest not
            from costcalc.core.memfit import usable_gb  # only without a fit

            have += f", {usable_gb(desktop.memory_gb):.1f} GB of it usable"
        head = (
            f"Rent: your {desktop.short_name} ({have}) cannot hold this job "
            f"({need} per GPU), so buying it would not run it"
        )
        if best is None:
            return f"{head}; no offer among your filters has {need} per GPU either."
        return (
            f"{head}; the cheapest offer that can is {offer_label(best, labels)} "
            f"({usd(best.usd_per_year, money)} a year {at})."
        )
    if desk.price_usd is None:
        return price_wanted(desktop, best, at, money, labels)
    if best is None:
        return (
            f"No comparable cloud offer to weigh against the desktop {at} (see the filters and "
            f"--scale-out); the desktop costs {usd(desk.price_usd, money)}."
        )
    label = offer_label(best, labels)
    cloud_year = usd(best.usd_per_year, money)
    if best.break_even_days is None:
        return (
            f"Rent: {at} the cheapest comparable offer, {label}, costs {cloud_year} a year, no "
            f"more than the desktop's electricity ({usd(desk.electricity_usd_per_year, money)}): "
            "buying never pays back."
        )
    when = days(best.break_even_days)
    if decided == "buy":
        return (
            f"Buy: {at} the desktop pays for itself after {when} against the cheapest comparable "
            f"offer, {label} ({cloud_year} a year)."
        )
    return (
        f"Rent: {at} the desktop would pay for itself only after {when}, beyond your "
        f"{a.horizon_years:g}-year horizon, against {label} ({cloud_year} a year)."
    )


def no_build_verdict(
    reason: str | None,
    best: OfferResult | None,
    at: str,
    money: Money,
    labels: Mapping[str, str] | None,
) -> str:
    """The verdict for a build that does not work as a desktop: why there is no Buy, then the
    rent answer."""
    why = reason or "the build does not work as a desktop"
    if best is None:
        return (
            f"No verdict (no Buy): {why}; and no comparable cloud offer among your filters "
            "either (see the filters and --scale-out)."
        )
    return (
        f"Rent (no Buy): {why}. {at.capitalize()} the cheapest comparable offer is "
        f"{offer_label(best, labels)} ({usd(best.usd_per_year, money)} a year)."
    )


def alternatives_text(alternatives: Sequence[Alternative], money: Money = USD) -> str | None:
    """'Nearest builds that work: 4x RTX A6000 (48 GB, blower cooler) on a 240 V/20 A
    dedicated circuit, $26,446 up front, 0.66x the speed; or 2x RTX 4090 on your 120 V/15 A
    circuit, $8,690 up front, 0.57x the speed.' None when there is none."""
    if not alternatives:
        return None
    parts = []
    for alt in alternatives:
        if alt.price_usd is None:
            price = "no dated price on file" if alt.circuit is None else "price not known"
            parts.append(f"{alt.takes} ({price})")
            continue
        same = abs(alt.relative_speed - 1) < 0.005
        pace = "the same speed" if same else f"{alt.relative_speed:.2f}x the speed"
        parts.append(f"{alt.takes}, {usd(alt.price_usd, money)} up front, {pace}")
    head = "Nearest builds that work" if len(parts) > 1 else "Nearest build that works"
    return f"{head}: {'; or '.join(parts)}."


FILTER_FIELDS = (
    "providers",
    "offer_kind",
    "cloud_regions",
    "cloud_gpus",
    "min_memory_gb",
    "offer_match",
)
"""The scenario's inputs that narrow the offers the verdict is chosen among."""


def filters_text(scenario: Scenario, saved: Collection[str] = ()) -> str:
    """'Chosen among offers filtered to providers vast; GPUs h100 (from your saved settings;
    --no-config ignores them).', or '' with no filter. `saved`: the inputs saved settings
    filled, named as such."""
    s = scenario
    active = []
    if s.providers:
        active.append(("providers", "providers " + ", ".join(s.providers)))
    if s.offer_kind != "all":
        active.append(("offer_kind", s.offer_kind))
    if s.cloud_regions:
        active.append(("cloud_regions", "regions " + ", ".join(s.cloud_regions)))
    if s.cloud_gpus:
        active.append(("cloud_gpus", "GPUs " + ", ".join(s.cloud_gpus)))
    if s.min_memory_gb is not None:
        active.append(("min_memory_gb", f"at least {s.min_memory_gb:g} GB"))
    if s.offer_match:
        active.append(("offer_match", f"matching '{s.offer_match}'"))
    if not active:
        return ""
    text = "; ".join(safe(what) for _, what in active)
    from_saved = [key for key, _ in active if key in saved]
    if from_saved:
        text += " (from your saved settings; --no-config ignores them)"
    return f"Chosen among offers filtered to {text}."


def no_price_reason(gpu_name: str) -> str:
    """Why there is no break-even: the one line that asks for the desktop's price."""
    return (
        f"no desktop price is known for the {gpu_name}: give --desktop-price for the "
        "break-even and the verdict"
    )


def price_wanted(
    desktop: GpuSpec,
    best: OfferResult | None,
    at: str,
    money: Money,
    labels: Mapping[str, str] | None,
) -> str:
    """The verdict's line when the desktop has no price: what renting costs, and what to add."""
    ask = no_price_reason(desktop.name)
    if best is None:
        return f"No verdict: {ask}; no comparable cloud offer among your filters either."
    return (
        f"No verdict: {ask}. {at.capitalize()} the cheapest comparable offer, "
        f"{offer_label(best, labels)}, costs {usd(best.usd_per_year, money)} a year."
    )


def break_even_utilisation_text(
    comparison: Comparison, a: Assumptions, subject: str = "the desktop"
) -> str | None:
    """'Over 3 years the desktop beats the cheapest comparable offer above 12% utilisation.',
    from the same computation as the verdict; None when there is no such figure."""
    if comparison.break_even_utilisation is None or comparison.best is None:
        return None
    return (
        f"Over {a.horizon_years:g} years {subject} beats the cheapest comparable offer above "
        f"{percent(comparison.break_even_utilisation)} utilisation."
    )


def up_front(price_usd: float | None, money: Money = USD) -> str:
    """'$2,200 up front', or that the price is not known."""
    return "price not known" if price_usd is None else f"{usd(price_usd, money)} up front"


def money_decimals(values: Iterable[float]) -> int:
    """Decimals that suit a whole column of amounts: none once they run to thousands (or all
    are above $100), cents otherwise, more for fractions of a cent. Zero (a free tier) is
    shown as 0 whatever the column."""
    known = [abs(v) for v in values if v and math.isfinite(v)]
    if not known:
        return 2
    low, high = min(known), max(known)
    if low >= 100 or (high >= 1000 and low >= 10):
        return 0
    if low >= 0.1:
        return 2
    if low >= 0.01:
        return 3
    return 4


def usd_fixed(value: float | None, money: Money = USD, decimals: int = 2) -> str:
    """An amount with the column's decimals: $391, $2,073 (not $390.95 beside $2,073)."""
    if value is None or math.isnan(value):
        return "-"
    amount = money.of(value)
    if amount == 0:
        return f"{money.symbol}0"
    sign = "-" if amount < 0 else ""
    return f"{sign}{money.symbol}{abs(amount):,.{decimals}f}"


def co2_unit(values_kg: Iterable[float]) -> str:
    """'g', 'kg' or 't' for a whole column: the unit its largest value reads best in."""
    known = [v for v in values_kg if math.isfinite(v)]
    high = max(known, default=0.0)
    if high < 1:
        return "g"
    return "t" if min(known) >= 10_000 else "kg"


def co2_in(value_kg: float, unit: str) -> str:
    if unit == "g":
        return f"{value_kg * 1000:,.0f} g"
    if unit == "t":
        return f"{value_kg / 1000:,.1f} t"
    return f"{value_kg:,.1f} kg"


def seconds(value: float) -> str:
    """A duration in seconds as people read it: '8,333', '42.5', '0.013', never '8.333e+03'."""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 1 else f"{value:.2g}"


def amount(value: float, decimals: int) -> str:
    """A plain amount (the header names the currency) with its table's decimals
    (`money_decimals` of every amount shown): 68.80 beside 6.57, not 68.8 beside 6.571."""
    return f"{value:,.{decimals}f}"


def clip(text: str, width: int) -> str:
    """`text` in `width` characters: cut at a word where one is near, with an ellipsis; a
    trailing marker (' *', no guaranteed GPU) always stays."""
    if len(text) <= width:
        return text
    marker = " *" if text.endswith(" *") else ""
    body = text[: len(text) - len(marker)]
    room = width - len(marker) - 1
    if room <= 0:
        return (body[: max(width - len(marker), 0)] + marker)[:width]
    cut = body[:room]
    space = cut.rfind(" ")
    if space >= room * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,(-") + "…" + marker
