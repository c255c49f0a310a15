"""Currency conversion at dated euro reference rates, and how money looks in each currency.

Rule kept here: pure (the rates arrive as an FxRates record, loaded by costcalc.store.snapshots).
Every conversion goes through the euro, the rates' base: USD -> EUR -> JPY, never a rate from
elsewhere. A currency the rates do not cover raises UnknownCurrency; nothing is guessed.
"""

from __future__ import annotations

from datetime import date

from msgspec import Struct

from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.models import FxRates

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "KRW": "₩"}
"""Currencies shown with a symbol; the rest are shown with their code ('CHF 1,234')."""

NO_CENTS = frozenset({"JPY", "KRW", "ISK", "HUF", "IDR", "CLP", "VND"})
"""Currencies whose amounts are written without decimals."""


class UnknownCurrency(CostcalcError):
    def __init__(self, currency: str, known: list[str]) -> None:
        super().__init__(
            f"no exchange rate for {quoted(currency)} in the ECB reference rates "
            f"(known: {', '.join(known)})"
        )
        self.currency = currency


class Converter:
    """Converts amounts between currencies at one day's reference rates."""

    def __init__(self, rates: FxRates) -> None:
        self.rates = rates
        per_eur = {"EUR": 1.0, **rates.per_eur}
        for peg in rates.pegs:  # a peg follows its anchor's rate of the same day
            if peg.currency not in per_eur and peg.anchor in per_eur:
                per_eur[peg.currency] = peg.per_anchor * per_eur[peg.anchor]
        self._per_eur = per_eur

    @property
    def as_of(self) -> date:
        return self.rates.as_of

    @property
    def label(self) -> str:
        """'ECB reference rates of 2026-09-24': what the output names as the rates it used."""
        return f"ECB reference rates of {self.as_of:%Y-%m-%d}"

    def currencies(self) -> list[str]:
        return sorted(self._per_eur)

    def knows(self, currency: str) -> bool:
        return currency.upper() in self._per_eur

    def per_eur(self, currency: str) -> float:
        """Units of `currency` one euro buys."""
        found = self._per_eur.get(currency.upper())
        if found is None:
            raise UnknownCurrency(currency, self.currencies())
        return found

    def rate(self, from_currency: str, to_currency: str) -> float:
        """Units of `to_currency` for one unit of `from_currency`."""
        return self.per_eur(to_currency) / self.per_eur(from_currency)

    def convert(self, amount: float, from_currency: str, to_currency: str) -> float:
        return amount * self.rate(from_currency, to_currency)

    def to_usd(self, amount: float, currency: str) -> float:
        return self.convert(amount, currency, "USD")

    def from_usd(self, amount_usd: float, currency: str) -> float:
        return self.convert(amount_usd, "USD", currency)


class Money(Struct, frozen=True):
    """The currency amounts are shown in: USD amounts times `per_usd`, with its symbol."""

    code: str = "USD"
    per_usd: float = 1.0
    as_of: date | None = None
    """The date of the rate (None for USD itself)."""

    @property
    def symbol(self) -> str:
        return symbol(self.code)

    def of(self, usd: float) -> float:
        return usd * self.per_usd

    def to_usd(self, amount: float) -> float:
        return amount / self.per_usd


USD = Money()


def money_for(fx: Converter, currency: str) -> Money:
    """The Money of `currency` at the converter's rates (UnknownCurrency when it has none)."""
    code = currency.upper()
    if code == "USD":
        return USD
    return Money(code, fx.rate("USD", code), fx.as_of)


def symbol(currency: str) -> str:
    """'€' for EUR; 'CHF ' (code and a space) where there is no common symbol."""
    code = currency.upper()
    return SYMBOLS.get(code, f"{code} ")


def format_money(amount: float, currency: str, decimals: int | None = None) -> str:
    """'€1,234', '£70.96' (decimals=2), '¥180,570', 'CHF 1,234'."""
    code = currency.upper()
    places = 0 if decimals is None or code in NO_CENTS else decimals
    sign = "-" if amount < 0 else ""
    return f"{sign}{symbol(code)}{abs(amount):,.{places}f}"


def format_unit_price(price: float, currency: str) -> str:
    """A price per kWh: '€0.387', '$0.173', '₹3.06', '¥36.8', 'CHF 0.299' (about three figures)."""
    places = 3 if price < 1 else 2 if price < 10 else 1 if price < 1000 else 0
    return f"{symbol(currency)}{price:,.{places}f}"
