"""Price snapshots: the bundled, dated ones in prices/ and the user's refreshed copies.

Rule kept here: one snapshot per provider, so one bad file never hides the others. A refreshed
snapshot in the user data directory wins over the bundled one; if it is unreadable the bundled
one is used and the problem is reported, never silently swallowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, timezone
from pathlib import Path

from costcalc import locations
from costcalc.constants import PROVIDERS
from costcalc.errors import CostcalcError, DataFileError
from costcalc.models import (
    CarbonData,
    CloudOffer,
    ColabSnapshot,
    DesktopDefaults,
    PriceSnapshot,
)
from costcalc.overrides import apply_user_overrides
from costcalc.resources import load_yaml_file, load_yaml_resource

SPOT_STALE_AFTER = timedelta(days=1)
LIST_STALE_AFTER = timedelta(days=90)

Snapshot = PriceSnapshot | ColabSnapshot


def snapshot_file_name(provider: str) -> str:
    return provider.replace("-", "_") + ".yaml"


def check_provider(provider: str) -> str:
    if provider not in PROVIDERS:
        raise CostcalcError(f"unknown provider {provider!r}; choose from {', '.join(PROVIDERS)}")
    return provider


def _model_for(provider: str) -> type[PriceSnapshot] | type[ColabSnapshot]:
    return ColabSnapshot if provider == "colab" else PriceSnapshot


def load_bundled(provider: str) -> Snapshot:
    return load_yaml_resource("prices", snapshot_file_name(provider), _model_for(provider))


def refreshed_path(provider: str) -> Path:
    return locations.snapshots_dir() / snapshot_file_name(provider)


@dataclass(frozen=True)
class LoadedSnapshot:
    """A snapshot plus where it came from and what went wrong on the way, if anything."""

    provider: str
    snapshot: Snapshot
    origin: str  # "bundled" or the path of the refreshed file
    warning: str | None = None

    @property
    def fetched_at(self) -> datetime:
        return self.snapshot.fetched_at

    @property
    def is_spot(self) -> bool:
        return isinstance(self.snapshot, PriceSnapshot) and self.snapshot.spot


def load_snapshot(provider: str) -> LoadedSnapshot:
    """The refreshed snapshot when there is a good one, else the bundled one."""
    check_provider(provider)
    path = refreshed_path(provider)
    warning = None
    if path.exists():
        try:
            snapshot = load_yaml_file(path, _model_for(provider))
            return LoadedSnapshot(provider, snapshot, str(path))
        except DataFileError as exc:
            warning = f"{exc}; using the bundled {provider} prices instead"
    return LoadedSnapshot(provider, load_bundled(provider), "bundled", warning)


def is_stale(fetched_at: datetime, spot: bool, now: datetime) -> bool:
    """Spot prices go stale after a day, list prices after 90 days."""
    return now - fetched_at > (SPOT_STALE_AFTER if spot else LIST_STALE_AFTER)


def age_days(fetched_at: datetime, now: datetime) -> float:
    return max(0.0, (now - fetched_at).total_seconds() / 86400)


# --------------------------------------------------------------------------- offers


def offers_from_price_snapshot(snapshot: PriceSnapshot) -> list[CloudOffer]:
    fees = {plan.name: plan.monthly_fee_usd for plan in snapshot.plans}
    offers = []
    for row in snapshot.offers:
        offers.append(
            CloudOffer(
                provider=snapshot.provider,
                name=row.name,
                region=row.region,
                gpu=row.gpu,
                gpu_count=row.gpu_count,
                usd_per_hour=row.usd_per_hour,
                spot=snapshot.spot if row.spot is None else row.spot,
                interruption_bucket=row.interruption_bucket,
                savings_pct=row.savings_pct,
                billing_increment_s=row.billing_increment_s or snapshot.billing_increment_s,
                billing_minimum_s=(
                    snapshot.billing_minimum_s
                    if row.billing_minimum_s is None
                    else row.billing_minimum_s
                ),
                monthly_fee_usd=fees.get(row.plan, 0.0) if row.plan else 0.0,
                plan=row.plan,
                guaranteed=row.guaranteed,
                limits=row.limits,
                vcpus=row.vcpus,
                ram_gb=row.ram_gb,
                fetched_at=row.fetched_at or snapshot.fetched_at,
                source=row.source or snapshot.source,
            )
        )
    return offers


def offers_from_colab(snapshot: ColabSnapshot) -> list[CloudOffer]:
    """Each tier x each accelerator it may use: $/h = units per hour x $ per unit."""
    offers = []
    for tier in snapshot.tiers:
        for rate in snapshot.rates:
            if rate.gpu not in tier.gpus:
                continue
            offers.append(
                CloudOffer(
                    provider="colab",
                    name=f"{tier.name} {rate.label}",
                    region=snapshot.region,
                    gpu=rate.gpu,
                    usd_per_hour=rate.units_per_hour * tier.usd_per_unit,
                    monthly_fee_usd=tier.monthly_fee_usd,
                    included_usd_per_month=tier.compute_units_per_month * tier.usd_per_unit,
                    plan=tier.name,
                    guaranteed=tier.guaranteed,
                    limits=tier.limits,
                    # The hourly price is the observed burn rate; its date is the price's age.
                    fetched_at=datetime.combine(rate.observed, time(), tzinfo=timezone.utc),
                    source=f"{tier.source}; rate: {rate.source}",
                )
            )
    return offers


def offers_from(snapshot: Snapshot) -> list[CloudOffer]:
    if isinstance(snapshot, ColabSnapshot):
        return offers_from_colab(snapshot)
    return offers_from_price_snapshot(snapshot)


@dataclass
class PriceBook:
    """All offers from the chosen providers, with each provider's snapshot metadata."""

    snapshots: dict[str, LoadedSnapshot] = field(default_factory=dict)
    offers: list[CloudOffer] = field(default_factory=list)
    override_warnings: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [s.warning for s in self.snapshots.values() if s.warning] + self.override_warnings


def load_price_book(providers: Sequence[str] | None = None) -> PriceBook:
    book = PriceBook()
    for provider in PROVIDERS if providers is None else providers:
        loaded = load_snapshot(provider)
        book.snapshots[provider] = loaded
        book.offers.extend(offers_from(loaded.snapshot))
    # The user's own prices (config dir prices.yaml) win over every snapshot.
    book.offers, book.override_warnings = apply_user_overrides(book.offers, list(book.snapshots))
    return book


def filter_offers(
    offers: Iterable[CloudOffer], providers: Sequence[str] = (), gpus: Sequence[str] = ()
) -> list[CloudOffer]:
    return [
        o
        for o in offers
        if (not providers or o.provider in providers) and (not gpus or o.gpu in gpus)
    ]


# --------------------------------------------------------------------------- other data


def load_desktop_defaults() -> DesktopDefaults:
    return load_yaml_resource("prices", "desktop.yaml", DesktopDefaults)


def load_carbon() -> CarbonData:
    return load_yaml_resource("prices", "carbon.yaml", CarbonData)
