"""What would flip the verdict, and how far its price can be trusted, in words and as JSON: the
lines under the verdict in `quick`, `--explain` and the app's verdict panel.

Rule kept here: formatting only. Thresholds come from costcalc.core.thresholds, ranges from
costcalc.core.ranges; each sentence says which way a value must move and that it moves alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from costcalc.core import engine
from costcalc.core.compare import Comparison
from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.decision import NO_BUY
from costcalc.core.fx import USD, Money
from costcalc.core.models import Assumptions, OfferResult
from costcalc.core.ranges import PriceRange
from costcalc.core.thresholds import OfferThreshold, Thresholds
from costcalc.present import display, explain


def offer_name(result: OfferResult, labels: Mapping[str, str] | None) -> str:
    """'RunPod 1x RTX 4090 (Community Cloud)': provider and offer, no more."""
    offer = result.offer
    if offer.provider == CUSTOM_PROVIDER:
        return f"your own {offer.name} offer"
    provider = (labels or {}).get(offer.provider, offer.provider)
    return f"{provider} {offer.name}"


def hourly(value: float, money: Money) -> str:
    """An hourly price in the shown currency: $0.413/h."""
    return display.usd(value, money) + "/h"


def per_kwh(value: float, money: Money) -> str:
    return f"{money.symbol}{money.of(value):.3f}/kWh"


def threshold_text(
    t: Thresholds,
    a: Assumptions,
    money: Money = USD,
    labels: Mapping[str, str] | None = None,
    run_hours: float | None = None,
) -> str | None:
    """'Rent stays cheaper unless ...': each value that flips the verdict on its own; None
    without a Buy or Rent verdict. `run_hours`: a job's run on the desktop (`--model`), which
    turns the utilisation into runs a year."""
    if t.decision is None and t.desktop_price_usd is not None:
        price = display.usd_fixed(t.desktop_price_usd, money, 0)
        return f"Buying would pay back within {years(a)} at a desktop price under {price}."
    if t.decision not in ("rent", "buy") or t.offer is None:
        return None
    buy = t.decision == "buy"
    up = "falls below" if buy else "rises above"
    more = "more" if buy else "less"
    parts: list[str] = []
    if t.offer_flips_verdict and t.offer.usd_per_hour is not None:
        name = offer_name(t.offer.result, labels)
        parts.append(f"{name} {up} {hourly(t.offer.usd_per_hour, money)}")
    if t.utilisation is not None:
        parts.append(f"utilisation {up} {display.percent(t.utilisation)}")
        if run_hours is not None:
            parts[-1] += f" ({runs_at(t.utilisation, run_hours)} runs a year)"
    if t.desktop_price_usd is not None:
        price = display.usd_fixed(t.desktop_price_usd, money, 0)
        parts.append(f"the desktop costs {more} than {price}")
    if t.usd_per_kwh is not None:
        parts.append(f"electricity costs {more} than {per_kwh(t.usd_per_kwh, money)}")
    head = "Buy holds" if buy else "Rent stays cheaper"
    alone = "each alone, all else as it is" if len(parts) > 1 else "all else as it is"
    text = f"{head} unless {join_or(parts)} ({alone})." if parts else ""
    nots = never_text(t, a, money, labels)
    return " ".join(p for p in (text, nots) if p) or None


def runs_at(utilisation: float, run_hours: float) -> str:
    """The runs a year of `run_hours` each that a utilisation stands for: '120', '2.5'."""
    found = utilisation * engine.HOURS_PER_YEAR / run_hours
    return f"{found:,.0f}" if found >= 10 else f"{found:.2g}"


def compact_text(
    t: Thresholds,
    a: Assumptions,
    money: Money = USD,
    labels: Mapping[str, str] | None = None,
    run_hours: float | None = None,
) -> str | None:
    """The thresholds in one line, for the app's verdict panel: 'Flips to Buy, each alone:
    utilisation above 77%, a desktop under $442; not on its price alone (17 other offers rent
    cheaper too).' ('its': the verdict's offer, named on the line above)."""
    if t.decision is None and t.desktop_price_usd is not None:
        price = display.usd_fixed(t.desktop_price_usd, money, 0)
        return f"Buying would pay back within {years(a)} at a desktop price under {price}."
    if t.decision not in ("rent", "buy") or t.offer is None:
        return None
    buy = t.decision == "buy"
    up, more = ("below", "over") if buy else ("above", "under")
    parts: list[str] = []
    if t.offer_flips_verdict and t.offer.usd_per_hour is not None:
        parts.append(f"its price {up} {hourly(t.offer.usd_per_hour, money)}")
    if t.utilisation is not None:
        parts.append(f"utilisation {up} {display.percent(t.utilisation)}")
        if run_hours is not None:
            parts[-1] += f" ({runs_at(t.utilisation, run_hours)} runs a year)"
    if t.desktop_price_usd is not None:
        parts.append(f"a desktop {more} {display.usd_fixed(t.desktop_price_usd, money, 0)}")
    if t.usd_per_kwh is not None:
        parts.append(f"electricity {more} {per_kwh(t.usd_per_kwh, money)}")
    other = "Rent" if buy else "Buy"
    said = [f"Flips to {other}, each alone: {', '.join(parts)}" if parts else ""]
    if not buy and t.utilisation is None:
        said.append(f"no utilisation pays back within {years(a)}")
    if not buy and t.holders:
        count = len(t.holders)
        others = f"{count} other offers rent" if count > 1 else "another offer rents"
        said.append(f"not on its price alone ({others} cheaper too)")
    text = "; ".join(x for x in said if x)
    return text[:1].upper() + text[1:] + "." if text else None


def never_text(
    t: Thresholds, a: Assumptions, money: Money, labels: Mapping[str, str] | None
) -> str:
    """The thresholds that do not exist, said as such; and why the offer's price alone cannot
    flip a Rent held by other offers."""
    said: list[str] = []
    if t.decision == "rent" and t.utilisation is None:
        said.append(f"No utilisation pays back within {years(a)}.")
    if t.decision == "rent" and t.desktop_price_usd is None:
        said.append("No desktop price pays back: renting costs no more than its electricity.")
    elif t.decision == "rent" and t.usd_per_kwh is None:
        said.append("Even free electricity would not make it pay back.")
    if t.decision == "rent" and t.next_holder is not None and t.offer is not None:
        said.append(holders_text(t.offer, t.next_holder, len(t.holders), money, labels))
    if t.decision == "buy" and t.offer is not None and t.offer.usd_per_hour is None:
        name = offer_name(t.offer.result, labels)
        said.append(f"No price of {name} would make renting it cheaper.")
    return " ".join(said)


def holders_text(
    offer: OfferThreshold,
    nxt: OfferThreshold,
    count: int,
    money: Money,
    labels: Mapping[str, str] | None,
) -> str:
    """Why the deciding offer's price alone does not flip a Rent: `count` other offers (`nxt`
    the cheapest) keep renting cheaper."""
    others = f"{count} other comparable offers" if count > 1 else "another offer"
    nxt_until = f" until {hourly(nxt.usd_per_hour, money)}" if nxt.usd_per_hour is not None else ""
    alone = (
        f"; against it alone, buying pays back above {hourly(offer.usd_per_hour, money)}"
        if offer.usd_per_hour is not None
        else ""
    )
    return (
        f"Its price alone cannot flip it: {others} also keep renting cheaper (the next, "
        f"{offer_name(nxt.result, labels)} at {hourly(nxt.result.offer.usd_per_hour, money)}, "
        f"does{nxt_until}){alone}."
    )


def years(a: Assumptions) -> str:
    return f"{a.horizon_years:g} year" + ("" if a.horizon_years == 1 else "s")


def join_or(parts: list[str]) -> str:
    if len(parts) <= 2:
        return " or ".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def span_text(r: PriceRange) -> str:
    """The dates of the readings: '2025-06-21 to 2026-09-25', or the one date."""
    span = f"{r.first:%Y-%m-%d}"
    return span if r.last == r.first else f"{span} to {r.last:%Y-%m-%d}"


def range_text(
    r: PriceRange | None, t: Thresholds, money: Money = USD, name: str = "its price"
) -> str | None:
    """'Readings of its price: $0.31-0.34-0.44/h (low-median-high), 4 from 2025-06-21 to
    2026-09-25 ...; the verdict holds across them.'"""
    if r is None or t.decision in NO_BUY:
        return None
    whats = sorted({x.what for x in r.readings})
    kinds = "; ".join(whats)
    if r.count == 1:
        one = r.readings[0]
        return (
            f"One reading of {name}: {hourly(one.usd_per_hour, money)} ({one.what}, "
            f"{one.observed:%Y-%m-%d}); no second reading to check it against "
            "(`costcalc refresh` adds one to your history)."
        )
    span = span_text(r)
    recorded = sum(x.origin == "history" for x in r.readings)
    crossed = sum(x.origin == "cross-check" for x in r.readings)
    history = f", {recorded} from your refresh history" if recorded else ""
    if crossed:
        history += f", {crossed} from other dated sources"
    head = (
        f"Readings of {name}: low {hourly(r.low, money)}, median {hourly(r.median, money)}, "
        f"high {hourly(r.high, money)}: {r.count} readings, {span} ({kinds}{history})"
    )
    if t.decision is None:
        return f"{head}."
    if r.holds:
        return f"{head}; the verdict holds across them."
    other, at = flipped_at(r, t, money, 3)
    return f"{head}; at {at} it would be {other}: the verdict does not hold across them."


def flipped_at(r: PriceRange, t: Thresholds, money: Money, shown: int) -> tuple[str, str]:
    """The other answer, and the first `shown` readings at which the verdict would be it."""
    other = "Rent" if t.decision == "buy" else "Buy"
    return other, ", ".join(hourly(x.usd_per_hour, money) for x in r.flips_at[:shown])


def compact_range_text(r: PriceRange | None, t: Thresholds, money: Money = USD) -> str | None:
    """The readings of the verdict's price in one short sentence, for the app's verdict panel
    (range_text's figures, fewer words; it must fit the panel at 80 columns): '4 readings of
    its price, 2025-06-21 to 2026-10-20 (1 from your refreshes): $0.340 to $0.390/h, median
    $0.340; the verdict holds.'"""
    if r is None or t.decision in NO_BUY:
        return None
    if r.count == 1:  # its price and date are on the line already
        return "One reading of its price: none to check it against."
    recorded = sum(x.origin == "history" for x in r.readings)
    mine = f" ({recorded} from your refreshes)" if recorded else ""
    spread = (
        f"all {hourly(r.low, money)}"
        if r.low == r.high
        else f"{display.usd(r.low, money)} to {hourly(r.high, money)}, median "
        f"{display.usd(r.median, money)}"
    )
    head = f"{r.count} readings of its price, {span_text(r)}{mine}: {spread}"
    if t.decision is None:
        return f"{head}."
    if r.holds:
        return f"{head}; the verdict holds."
    other, at = flipped_at(r, t, money, 2)
    return f"{head}; {other} at {at}."


def offer_threshold_json(o: OfferThreshold | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {
        "provider": o.result.offer.provider,
        "name": o.result.offer.name,
        "region": o.result.offer.region,
        "usd_per_hour_now": o.result.offer.usd_per_hour,
        "usd_per_hour": o.usd_per_hour,
    }


def thresholds_json(t: Thresholds) -> dict[str, Any]:
    """The thresholds as numbers (USD), each with the way it must move to flip the verdict."""
    buy = t.decision == "buy"
    return {
        "note": "each value flips the verdict on its own, all other inputs as they are; "
        + (
            "Buy flips to Rent below the offer's price, the utilisation, above the desktop "
            "and electricity prices"
            if buy
            else "Rent flips to Buy above the offer's price (when offer_flips_verdict), the "
            "utilisation, below the desktop and electricity prices"
        ),
        "offer": offer_threshold_json(t.offer),
        "offer_flips_verdict": t.offer_flips_verdict,
        "held_by_next": offer_threshold_json(t.next_holder),
        "held_by": [
            {"provider": r.offer.provider, "name": r.offer.name, "region": r.offer.region}
            for r in t.holders[:5]
        ],
        "held_by_count": len(t.holders),
        "cloud_usd_per_year": t.cloud_usd_per_year,
        "utilisation": t.utilisation,
        "desktop_price_usd": t.desktop_price_usd,
        "usd_per_kwh": t.usd_per_kwh,
    }


def range_json(r: PriceRange | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "low_usd_per_hour": r.low,
        "median_usd_per_hour": r.median,
        "high_usd_per_hour": r.high,
        "count": r.count,
        "first": r.first.isoformat(),
        "last": r.last.isoformat(),
        "verdict_holds": r.holds,
        "readings": [
            {
                "usd_per_hour": x.usd_per_hour,
                "observed": x.observed.isoformat(),
                "what": x.what,
                "from_history": x.origin == "history",
                "origin": x.origin,
            }
            for x in r.readings
        ],
    }


def signed(value_usd: float, money: Money) -> str:
    """An amount in a formula with its sign before the currency: -$502.4."""
    return ("-" if value_usd < 0 else "") + explain.cur(abs(value_usd), money)


def explain_lines(
    t: Thresholds,
    comparison: Comparison,
    a: Assumptions,
    money: Money = USD,
    labels: Mapping[str, str] | None = None,
) -> list[str]:
    """How each threshold follows from the break-even equation, with the user's numbers:
    price x (1 - resale) = (cloud - electricity) a year x horizon (engine.break_even_days
    landing on the horizon)."""
    best, d = comparison.best, comparison.desktop
    if t.decision not in ("rent", "buy") or best is None or d.price_usd is None:
        return []
    cur = explain.cur
    num = explain.num
    cloud, power, price = best.usd_per_year, d.electricity_usd_per_year, d.price_usd
    # owning in full (a loan's interest, repairs): the same equation with both in it
    interest = a.owning.interest_share if a.owning is not None else 0.0
    repairs = a.owning.repairs_usd_per_year if a.owning is not None else 0.0
    net = 1 - a.resale_share + interest
    share = f"(1 - {num(a.resale_share)}" + (f" + {num(interest)})" if interest else ")")
    own = f"{cur(price, money)} x {share}"
    running = f"{cur(power, money)} + repairs {cur(repairs, money)}" if repairs else None
    lines = [
        (
            "buying pays back when price x (1 - resale + loan interest) <= (cloud - "
            "electricity - repairs) a year x "
            if a.owning is not None
            else "buying pays back when price x (1 - resale) <= (cloud - electricity) a year x "
        )
        + f"{num(a.horizon_years)} years; each threshold solves it for one input:",
    ]
    if t.cloud_usd_per_year is not None:
        lines.append(
            f"cloud a year at which it pays back = electricity{' + repairs' if repairs else ''}"
            f" + {own} / {num(a.horizon_years)} = {running or cur(power, money)} + "
            f"{cur(price * net / a.horizon_years, money)} = "
            f"{display.usd(t.cloud_usd_per_year, money)}"
        )
    if t.offer is not None and t.offer.usd_per_hour is not None:
        lines.append(
            f"{offer_name(best, labels)}: the $/h at which its year (billed as in the table, "
            f"{num(best.hours_per_year)} h) costs that = {hourly(t.offer.usd_per_hour, money)} "
            "(bisected on the verdict's rule)"
        )
    if t.next_holder is not None:
        lines.append(
            f"{len(t.holders)} other offers also cost less than that a year; the cheapest, "
            f"{offer_name(t.next_holder.result, labels)}, keeps Rent until "
            + (
                hourly(t.next_holder.usd_per_hour, money)
                if t.next_holder.usd_per_hour is not None
                else "any price"
            )
        )
    if t.desktop_price_usd is not None:
        lines.append(
            f"desktop price = ({cur(cloud, money)} - {cur(power, money)}"
            + (f" - repairs {cur(repairs, money)}" if repairs else "")
            + ") x "
            + f"{num(a.horizon_years)} / {share} = "
            f"{display.usd_fixed(t.desktop_price_usd, money, 0)}"
        )
    room = cloud - repairs - price * net / a.horizon_years
    kwh_text = (
        per_kwh(t.usd_per_kwh, money)
        if t.usd_per_kwh is not None
        else "none (not above zero: even free electricity leaves it short)"
    )
    lines.append(
        f"electricity = ({cur(cloud, money)} - "
        + (f"repairs {cur(repairs, money)} - " if repairs else "")
        + f"{own} / {num(a.horizon_years)}) / "
        f"{num(d.kwh_per_year)} kWh = {signed(room, money)} / {num(d.kwh_per_year)} kWh = "
        f"{kwh_text}"
    )
    util = (
        display.percent(t.utilisation) if t.utilisation is not None else f"none within {years(a)}"
    )
    lines.append(f"utilisation: the verdict's rule bisected over utilisation = {util}")
    return lines
