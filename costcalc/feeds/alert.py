"""An alert when the answer flips: the saved scenario's answer before and after a refresh.

Rules kept here:
- The saved scenario is what a bare `costcalc quick` answers (config.yaml and the environment;
  with `--as-in-app`, the app's remembered inputs over them): the CLI builds it, and it is
  evaluated twice with one clock, on the prices before the refresh and after it, so that only
  the prices differ between the two answers.
- Two events, one line each: the decision changed (Rent to Buy, Buy to Rent, to or from no
  Buy), or, the decision holding, the verdict offer's price crossed the price at which buying
  pays back against it alone (costcalc.core.thresholds) while other offers keep the answer.
- Notifications go through apprise (the optional `notify` extra), imported only when a
  `--notify` URL is given; a notification URL is never printed whole (it may carry a token),
  only apprise's privacy form of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct

from costcalc.core.errors import CostcalcError
from costcalc.core.models import CloudOffer, OfferResult
from costcalc.present.display import percent, usd_per_hour

if TYPE_CHECKING:
    from costcalc.core.bench_results import BenchResult
    from costcalc.core.models import Scenario
    from costcalc.core.scenario import Calculation

EXIT_ALERT = 4
"""`costcalc refresh`'s exit code when the alert fired (docs/cron.md)."""
INSTALL = "pip install 'costcalc[notify]'"


class Answer(Struct, frozen=True):
    """The saved scenario's answer on one set of prices, and the providers' names it used."""

    calc: Calculation
    labels: Mapping[str, str]


class Alert(Struct, frozen=True):
    kind: Literal["flipped", "crossed"]
    line: str
    """One line, 'costcalc: the answer flipped: Rent → Buy for ...'."""
    title: str
    """The notification's title."""


def answer(
    scenario: Scenario,
    providers: Sequence[str] | None,
    now: datetime,
    bench: BenchResult | None = None,
) -> Answer:
    """The scenario evaluated on the prices in use now (the refreshed snapshots, else the
    bundled ones, with your own prices), as `costcalc quick` evaluates it."""
    from costcalc.core.scenario import evaluate
    from costcalc.store.loaders import for_scenario, load_app_data

    data = for_scenario(load_app_data(providers), scenario)
    return Answer(evaluate(scenario, data, now, bench=bench), dict(data.book.labels))


def check(before: Answer, after: Answer) -> Alert | None:
    """The alert the change from `before` to `after` calls for, or None."""
    old, new = before.calc.decision, after.calc.decision
    if old != new:
        why = _why(before, after)
        line = (
            f"costcalc: the answer flipped: {_word(old)} → {_word(new)} for {_what(after.calc)}"
            + (f": {why}" if why else "")
        )
        return Alert("flipped", line, f"costcalc: {_word(old)} → {_word(new)}")
    return _crossed(before, after)


def _word(decision: str | None) -> str:
    return {"buy": "Buy", "rent": "Rent", None: "no verdict"}.get(decision, "Rent (no Buy)")


def _what(calc: Calculation) -> str:
    """'1x RTX 3090 at 15% utilisation'."""
    return (
        f"{calc.desktop.gpu_count}x {calc.spec.short_name} at "
        f"{percent(calc.assumptions.utilisation)} utilisation"
    )


def _name(offer: CloudOffer, labels: Mapping[str, str]) -> str:
    return f"{labels.get(offer.provider, offer.provider)} {offer.name} in {offer.region}"


def _same(offer: CloudOffer) -> tuple[object, ...]:
    """What makes an offer the same one on two sets of prices."""
    return (
        offer.provider,
        offer.name,
        offer.region,
        offer.gpu,
        offer.gpu_count,
        offer.spot,
        offer.plan,
        offer.term_years,
    )


def _found(calc: Calculation, offer: CloudOffer) -> OfferResult | None:
    key = _same(offer)
    return next((r for r in calc.comparison.offers if _same(r.offer) == key), None)


def _why(before: Answer, after: Answer) -> str:
    """What moved: the verdict offer's price, or which offer decides now."""
    old_best, new_best = before.calc.comparison.best, after.calc.comparison.best
    if old_best is None or new_best is None:
        return ""
    labels = after.labels
    new_price = usd_per_hour(new_best.offer.usd_per_hour)
    if _same(old_best.offer) == _same(new_best.offer):
        was = usd_per_hour(old_best.offer.usd_per_hour)
        return f"{_name(new_best.offer, labels)} went from {was} to {new_price}"
    now = _found(after.calc, old_best.offer)
    moved = (
        f"{_name(old_best.offer, before.labels)} went from "
        f"{usd_per_hour(old_best.offer.usd_per_hour)} to {usd_per_hour(now.offer.usd_per_hour)}"
        if now is not None and now.offer.usd_per_hour != old_best.offer.usd_per_hour
        else f"{_name(old_best.offer, before.labels)} no longer decides"
    )
    cheapest = _name(new_best.offer, labels)
    return f"{moved}; the cheapest comparable offer is now {cheapest} at {new_price}"


def _crossed(before: Answer, after: Answer) -> Alert | None:
    """The verdict offer's price past the price that flips the answer against it alone, while
    the decision holds (other offers keep it)."""
    from costcalc.core.thresholds import thresholds

    calc = before.calc
    found = thresholds(calc.comparison, calc.assumptions, calc.decision)
    if found.offer is None or found.offer.usd_per_hour is None or calc.decision is None:
        return None
    limit = found.offer.usd_per_hour
    was = found.offer.result.offer
    now = _found(after.calc, was)
    if now is None:
        return None
    price = now.offer.usd_per_hour
    rising = calc.decision == "rent"
    if (rising and not price >= limit > was.usd_per_hour) or (
        not rising and not price <= limit < was.usd_per_hour
    ):
        return None
    side = "above" if rising else "below"
    holders = len(found.holders)
    others = (
        "1 other comparable offer keeps"
        if holders == 1
        else f"{holders} other comparable offers keep"
    )
    keeps = f"{others} it" if rising else "it stays"
    line = (
        f"costcalc: {_name(was, before.labels)} crossed its flip price: "
        f"{usd_per_hour(was.usd_per_hour)} → {usd_per_hour(price)} (against it alone the answer "
        f"flips {side} {usd_per_hour(limit)}) for {_what(after.calc)}; the answer stays "
        f"{_word(after.calc.decision)}: {keeps}"
    )
    return Alert("crossed", line, f"costcalc: {_name(was, before.labels)} crossed its flip price")


# --------------------------------------------------------------------------- notifications


def notifier(urls: Sequence[str]) -> Any:
    """An apprise.Apprise for `urls`; CostcalcError (exit 2) when apprise is not installed or a
    URL is not one it can send to."""
    try:
        import apprise
    except ImportError:
        raise CostcalcError(f"--notify needs apprise, which is not installed: {INSTALL}") from None
    sender = apprise.Apprise()
    for url in urls:
        if not sender.add(url):
            scheme = url.partition("://")[0] if "://" in url else url[:20]
            raise CostcalcError(
                f"--notify: apprise cannot send to a {scheme!r} URL (see apprise's list of "
                "services); nothing was refreshed"
            )
    return sender


def send(sender: Any, alert: Alert) -> str | None:
    """Send `alert` to every URL of `sender`; one line naming the ones that failed, or None."""
    import logging

    logger = logging.getLogger("apprise")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # its own warnings would be lines of their own
    try:
        failed = [
            server.url(privacy=True)
            for server in sender
            if not server.notify(body=alert.line, title=alert.title)
        ]
    finally:
        logger.setLevel(level)
    if not failed:
        return None
    return f"the alert could not be sent to {', '.join(failed)}"
