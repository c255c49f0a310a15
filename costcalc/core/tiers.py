"""Tiers: what kind of offer each one is, and the one filter that leaves tiers out (`--exclude`).

Rule kept here: pure, and the only place an offer's tiers are decided. An offer is in one tier
of who hosts it (secure: the provider's own data centres; community; marketplace;
decentralised), one of how it is priced (on-demand, spot, committed), and may be free of
charge or an estimate. `--exclude`
leaves out every offer in any tier it names; `--offers spot|on-demand` is the same filter. Your
own offers (`--cloud-price`) are never left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from msgspec import Struct

from costcalc.core.constants import CUSTOM_PROVIDER, TIER_NAMES, OfferKind, TierName
from costcalc.core.models import CloudOffer

HOSTS: tuple[TierName, ...] = ("secure", "community", "marketplace", "decentralised")
PRICING: tuple[TierName, ...] = ("on-demand", "spot", "committed")

TIER_HELP: dict[TierName, str] = {
    "secure": "data centres: the provider's own (every provider not named below)",
    "community": "third-party hosts without a data-centre SLA (RunPod Community Cloud)",
    "marketplace": "independent hosts or resold capacity at their own prices (Vast.ai, "
    "Hyperbolic, Cudo, Prime Intellect, Spheron, Mithril, CloudRift, Excess Supply)",
    "decentralised": "anonymous operators of a decentralised network (Lium, Yotta)",
    "on-demand": "by the hour, no commitment",
    "spot": "interruptible capacity",
    "committed": "1- or 3-year reservations, savings plans and committed-use prices",
    "free": "free of charge (Colab's free tier)",
    "estimate": "derived prices no one observed (AWS spot from the Spot Advisor's savings)",
}
assert tuple(TIER_HELP) == TIER_NAMES, "every tier has one line of help"

TIERS_TEXT = ", ".join(TIER_NAMES)


def is_free(offer: CloudOffer) -> bool:
    """Free of charge: nothing by the hour and no plan (Colab's free tier). A GPU that is not
    guaranteed is another matter: Colab's Pay As You Go has none and costs $0.87/h for a G4."""
    return offer.usd_per_hour == 0 and offer.monthly_fee_usd == 0


def tiers_of(offer: CloudOffer) -> frozenset[TierName]:
    """Every tier `offer` is in."""
    pricing: TierName = offer.way  # on-demand, spot or committed (a term)
    found: set[TierName] = {offer.tier or "secure", pricing}
    if is_free(offer):
        found.add("free")
    if offer.price_kind == "estimate":
        found.add("estimate")
    return frozenset(found)


def left_out(
    exclude: Iterable[TierName], offer_kind: OfferKind | str = "all"
) -> frozenset[TierName]:
    """The tiers a scenario leaves out: those `--exclude` names, and what `--offers` implies
    (one way of paying keeps that way alone)."""
    found = set(exclude)
    if offer_kind in PRICING:
        found.update(way for way in PRICING if way != offer_kind)
    return frozenset(found)


def keeps(offer: CloudOffer, excluded: frozenset[TierName]) -> bool:
    """The one filter: an offer passes when it is in none of the `excluded` tiers."""
    return offer.provider == CUSTOM_PROVIDER or not (excluded and tiers_of(offer) & excluded)


def without(offers: Iterable[CloudOffer], excluded: frozenset[TierName]) -> list[CloudOffer]:
    return [o for o in offers if keeps(o, excluded)]


class Weighed(Struct, frozen=True):
    """Which tiers an answer weighed (among the offers it had) and which it left out."""

    hosts: tuple[TierName, ...]
    pricing: tuple[TierName, ...]
    left_out: tuple[TierName, ...]


def weighed(offers: Sequence[CloudOffer], excluded: frozenset[TierName]) -> Weighed:
    """The host and pricing tiers of the offers weighed (your own offers aside), in the
    vocabulary's order, and the tiers left out."""
    seen: set[TierName] = set()
    for offer in offers:
        if offer.provider != CUSTOM_PROVIDER:
            seen |= tiers_of(offer)
    return Weighed(
        hosts=tuple(t for t in HOSTS if t in seen),
        pricing=tuple(t for t in PRICING if t in seen),
        left_out=tuple(t for t in TIER_NAMES if t in excluded),
    )
