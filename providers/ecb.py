"""ECB euro foreign exchange reference rates: a data feed for currency conversion, not a price list.

Format (eurofxref-daily.xml; the 90-day and historical files repeat the dated Cube):
    <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"
                     xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
      <gesmes:subject>Reference rates</gesmes:subject> ...
      <Cube><Cube time='2026-09-24'><Cube currency='USD' rate='1.1367'/> ...</Cube></Cube>
    </gesmes:Envelope>
Rates are units of currency per euro. Source: ECB; reuse is free with the source acknowledged.

Rule kept here: parse is pure and refuses anything that is not this shape (HTML, a truncated
download, a document with a DTD, rates that are not positive numbers, a file without USD);
fetch is the only function that touches the network.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from msgspec import Struct

from costcalc.core.models import FxRates

from .common import FeedError, as_text, named

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

NAME = "ecb-fx"
URL_ENV = "COSTCALC_ECB_URL"
DEFAULT_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
MAX_BYTES = 1024 * 1024
"""Largest answer read: the day's thirty-odd rates are about 1.5 kB."""
SOURCE = "European Central Bank, euro foreign exchange reference rates (eurofxref-daily.xml)"
LICENCE = (
    'ECB statistics: reuse free of charge with the source acknowledged ("Source: ECB"); the '
    "reference rates are published for information purposes only"
)

USD_PER_EUR_RANGE = (0.7, 1.8)
"""Plausible dollars per euro: the ECB's rate has stayed within 0.82-1.60 since 1999; outside
this the file is not what it claims to be."""

PER_EUR_RANGE = (1e-3, 1e5)
"""Plausible units of any currency per euro: the ECB's list spans 0.85 (GBP) to about 18,000
(IDR), 2026."""

DAILY_CHANGE = 1.25
"""Largest believable move of a rate per day since the rates it replaces (a currency crisis
day, such as TRY on 2021-12-20, moved about 25 %)."""

MOST_CHANGE = 3.0
"""Largest believable move over any span: a rate that moved more than this since the last
rates (or the bundled ones) is a wrong file, not a market."""

_CURRENCY = re.compile(r"^[A-Z]{3}$")


class ReferenceRates(Struct, frozen=True):
    day: date
    per_eur: dict[str, float]


def url() -> str:
    return os.environ.get(URL_ENV) or DEFAULT_URL


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _document(payload: bytes | str) -> ET.Element:
    text = as_text(payload)
    head = text.lstrip()[:300].lower()
    if not head:
        raise FeedError("empty payload")
    if "<html" in head or "<!doctype html" in head:
        raise FeedError("got HTML, not the ECB's XML")
    if "<!doctype" in text[:2000].lower() or "<!entity" in text.lower():
        raise FeedError("XML with a DTD or entities is not an ECB rates file")
    if not head.startswith("<"):
        raise FeedError("not XML")
    try:
        return ET.fromstring(text)
    except ET.ParseError as exc:
        if "no element found" in str(exc) or "unclosed token" in str(exc):
            raise FeedError(f"XML ends early at byte {len(text)} (truncated download?)") from exc
        raise FeedError(f"not valid XML: {exc}") from exc


def _rate(text: str | None, currency: str) -> float:
    try:
        value = float(text or "")
    except ValueError:
        raise FeedError(f"unexpected shape: rate of {currency} is {text!r}, not a number") from None
    low, high = PER_EUR_RANGE
    if not low <= value <= high or math.isinf(value):
        raise FeedError(f"implausible rate: {currency} at {text} per euro")
    return value


def check_change(rates: ReferenceRates, previous: FxRates, today: date) -> None:
    """Refuse rates dated in the future, or any rate that moved more since `previous` (the
    rates in use) than DAILY_CHANGE a day allows, and never more than MOST_CHANGE."""
    if rates.day > today + timedelta(days=1):
        raise FeedError(f"implausible date: rates of {rates.day}, after today ({today})")
    days = max(1, (rates.day - previous.as_of).days)
    limit = min(DAILY_CHANGE**days, MOST_CHANGE)
    for currency, value in rates.per_eur.items():
        before = previous.per_eur.get(currency)
        if before and not 1 / limit <= value / before <= limit:
            raise FeedError(
                f"implausible rate: {currency} at {value:g} per euro, {before:g} in the rates of "
                f"{previous.as_of} (a move of more than {limit:.3g}x in {days} days)"
            )


def drifted(rates: FxRates, reference: FxRates) -> str | None:
    """Why stored `rates` cannot be right next to the bundled `reference`, or None."""
    for currency, value in rates.per_eur.items():
        before = reference.per_eur.get(currency)
        low, high = PER_EUR_RANGE
        if not low <= value <= high or (
            before and not 1 / MOST_CHANGE <= value / before <= MOST_CHANGE
        ):
            return f"implausible rate: {currency} at {value:g} per euro"
    return None


def parse(payload: bytes | str) -> ReferenceRates:
    """The newest day's rates in an ECB reference-rate file."""
    root = _document(payload)
    if _local(root.tag) != "Envelope":
        raise FeedError(f"unexpected shape: the document is <{_local(root.tag)}>, not an Envelope")
    days = [e for e in root.iter() if _local(e.tag) == "Cube" and "time" in e.attrib]
    if not days:
        raise FeedError("unexpected shape: no dated <Cube time=...> element")
    try:
        dated = [(date.fromisoformat(e.attrib["time"]), e) for e in days]
    except ValueError as exc:
        raise FeedError(f"unexpected shape: bad date in <Cube time=...>: {exc}") from None
    day, cube = max(dated, key=lambda pair: pair[0])
    per_eur: dict[str, float] = {}
    for item in cube:
        currency = item.attrib.get("currency", "")
        if _local(item.tag) != "Cube" or not _CURRENCY.match(currency):
            raise FeedError(f"unexpected shape: {ET.tostring(item, encoding='unicode')[:80]}")
        if currency in per_eur:
            raise FeedError(f"unexpected shape: {currency} is given twice in the rates of {day}")
        per_eur[currency] = _rate(item.attrib.get("rate"), currency)
    if "USD" not in per_eur:
        raise FeedError(f"no USD rate in the rates of {day} ({len(per_eur)} currencies)")
    low, high = USD_PER_EUR_RANGE
    if not low <= per_eur["USD"] <= high:
        raise FeedError(f"implausible rate: USD at {per_eur['USD']} per euro")
    return ReferenceRates(day, per_eur)


def to_fx_rates(rates: ReferenceRates, bundled: FxRates, fetched_at: datetime) -> FxRates:
    """The snapshot to store: the day's ECB rates, with the bundled pegs (they follow their
    anchors' new rates)."""
    from costcalc.edge.net import public_url

    return FxRates(
        source=f"{SOURCE}, {public_url(url())}, fetched by costcalc refresh",
        licence=LICENCE,
        as_of=rates.day,
        fetched_at=fetched_at,
        per_eur=rates.per_eur,
        pegs=bundled.pegs,
    )


def fetch(client: HttpClient) -> ReferenceRates:
    address = url()
    return named(address, lambda: parse(client.get(address, max_bytes=MAX_BYTES)))
