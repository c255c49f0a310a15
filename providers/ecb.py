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
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from costcalc.core.models import FxRates
from costcalc.providers.common import FeedError, as_text, named

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

NAME = "ecb-fx"
URL_ENV = "COSTCALC_ECB_URL"
DEFAULT_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
SOURCE = "European Central Bank, euro foreign exchange reference rates (eurofxref-daily.xml)"
LICENCE = (
    'ECB statistics: reuse free of charge with the source acknowledged ("Source: ECB"); the '
    "reference rates are published for information purposes only"
)

USD_PER_EUR_RANGE = (0.5, 3.0)
"""Plausible dollars per euro; outside it the file is not what it claims to be."""

_CURRENCY = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True)
class ReferenceRates:
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
    if not value > 0 or math.isinf(value):
        raise FeedError(f"implausible rate: {currency} at {text} per euro")
    return value


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
    return named(address, lambda: parse(client.get(address)))
