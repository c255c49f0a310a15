"""How figures read: money, days, ages, energy, GPU names and the verdict, for the CLI and the app.

Rule kept here: formatting only, no arithmetic of its own beyond rounding for display.
"""

from __future__ import annotations

import math

from costcalc.compare import Comparison
from costcalc.models import Assumptions, OfferResult
from costcalc.terminal import printable

safe = printable
"""Text from a feed, a file or the history database, fit for a terminal (no control characters)."""

DOES_NOT_FIT = "does not fit"
NEVER = "never"


def usd(value: float | None) -> str:
    """$2,311.20; small amounts keep significant digits ($0.0074)."""
    if value is None or math.isnan(value):
        return "-"
    if value == 0:
        return "$0"
    if abs(value) < 0.01:
        return f"${value:.2g}" if abs(value) < 0.001 else f"${value:.4f}"
    if abs(value) < 1:
        return f"${value:.3f}"
    if abs(value) < 1000:
        return f"${value:,.2f}"
    return f"${value:,.0f}"


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
    if value_days < 1 / 24:
        return "now"
    if value_days < 1:
        return f"{value_days * 24:.0f} h"
    if value_days < 365:
        return f"{value_days:.0f} d"
    return f"{value_days / 365:.1f} y"


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


def gpus(gpu: str, count: int) -> str:
    """'rtx3090' for one GPU, '8x a100_sxm4_40gb' for several."""
    return f"{count}x {gpu}" if count > 1 else gpu


def offer_label(result: OfferResult) -> str:
    offer = result.offer
    gpus_text = gpus(offer.gpu, offer.gpu_count)
    where = f"{gpus_text}, {offer.region}" if offer.region != "-" else gpus_text
    return f"{offer.provider} {offer.name} ({where})"


def verdict(comparison: Comparison, a: Assumptions) -> str:
    """One line that answers the question: buy or rent, and by how much."""
    best = comparison.best
    desk = comparison.desktop
    at = f"at {percent(a.utilisation)} utilisation"
    if best is None:
        return f"No cloud offer to compare with {at}; the desktop costs {usd(desk.price_usd)}."
    label = offer_label(best)
    cloud_year = usd(best.usd_per_year)
    if best.break_even_days is None:
        return (
            f"Rent: {at} the cheapest offer, {label}, costs {cloud_year} a year, no more than "
            f"the desktop's electricity ({usd(desk.electricity_usd_per_year)}): "
            "buying never pays back."
        )
    horizon_days = a.horizon_years * 365
    when = days(best.break_even_days)
    if best.break_even_days <= horizon_days:
        return (
            f"Buy: {at} the desktop pays for itself after {when} against the cheapest offer, "
            f"{label} ({cloud_year} a year)."
        )
    return (
        f"Rent: {at} the desktop would pay for itself only after {when}, beyond your "
        f"{a.horizon_years:g}-year horizon, against {label} ({cloud_year} a year)."
    )
