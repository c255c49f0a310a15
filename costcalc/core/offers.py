"""From a provider's dated snapshot to the offers the engine compares, and how old they are.

Rule kept here: pure. Snapshots arrive already loaded and validated (costcalc.store.snapshots reads
the files); nothing here touches a file, the network or the clock (`now` is passed in).
"""

from __future__ import annotations

from datetime import datetime, time, timezone

from msgspec import Struct, field

from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.models import CloudOffer, ColabSnapshot, PriceSnapshot

Snapshot = PriceSnapshot | ColabSnapshot


def age_days(fetched_at: datetime, now: datetime) -> float:
    return max(0.0, (now - fetched_at).total_seconds() / 86400)


def offers_from_price_snapshot(snapshot: PriceSnapshot) -> list[CloudOffer]:
    fees = {plan.name: plan.monthly_fee_usd for plan in snapshot.plans}
    offers = []
    for row in snapshot.offers:
        offers.append(
            CloudOffer(  # from validated rows: nothing to check again
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
                price_kind=row.price_kind or snapshot.price_kind,
                tier=row.tier,
                summary=row.summary,
                currency=row.currency or snapshot.currency,
                price_in_currency=row.price_in_currency,
                setup_fee_usd=row.setup_fee_usd,
                term_years=row.term_years,
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
                CloudOffer(  # from a validated snapshot
                    provider=snapshot.provider,
                    name=f"{tier.name} {rate.label}",
                    region=snapshot.region,
                    gpu=rate.gpu,
                    usd_per_hour=rate.units_per_hour * tier.usd_per_unit,
                    monthly_fee_usd=tier.monthly_fee_usd,
                    included_usd_per_month=tier.compute_units_per_month * tier.usd_per_unit,
                    plan=tier.name,
                    guaranteed=tier.guaranteed,
                    limits=tier.limits,
                    price_kind="observed",
                    # The hourly price is the observed burn rate; its date is the price's age.
                    fetched_at=datetime.combine(rate.observed, time(), tzinfo=timezone.utc),
                    source=f"{tier.source}; rate: {rate.source}",
                )
            )
    return offers


def custom_offer(gpu: str, gpu_count: int, usd_per_hour: float, now: datetime) -> CloudOffer:
    """An offer the user priced themselves, on the same GPUs as their desktop."""
    return CloudOffer(
        provider=CUSTOM_PROVIDER,
        name=f"${usd_per_hour:g}/h",
        region="-",
        gpu=gpu,
        gpu_count=gpu_count,
        usd_per_hour=usd_per_hour,
        fetched_at=now,
        source="your price (--cloud-price or the app's custom offer)",
    )


class LoadedSnapshot(Struct, frozen=True):
    """A provider's snapshot plus where it came from and what went wrong on the way, if anything."""

    provider: str
    snapshot: Snapshot
    origin: str
    """'bundled' or the path of the refreshed file."""
    warning: str | None = None

    @property
    def fetched_at(self) -> datetime:
        return self.snapshot.fetched_at


class PriceBook(Struct):
    """All offers from the chosen providers, with each provider's snapshot and the problems met
    loading them (a provider whose files are missing or broken is reported once and skipped)."""

    snapshots: dict[str, LoadedSnapshot] = field(default_factory=dict)
    offers: list[CloudOffer] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    """The loaded providers' names as people write them ('AWS EC2 spot' for aws-spot)."""
    short_labels: dict[str, str] = field(default_factory=dict)
    """What an offer table's provider column says for them ('AWS spot')."""

    @property
    def warnings(self) -> list[str]:
        return [s.warning for s in self.snapshots.values() if s.warning] + self.problems
