"""Renting costs more than GPU-hours: the volume that keeps the data between runs, the data
downloaded after each run, and the minutes each run pays for before it trains.

A rented run reads a dataset that was uploaded to the provider and kept on its volume (a
network volume, a persistent disk, a shared filesystem), and ends with a checkpoint and results
downloaded (egress). Each provider prices these from its own page: the volume per GB-month,
egress per GB beyond a free monthly allowance, ingress (free at every provider priced here).
prices/storage.yaml holds those rates, dated and sourced; a provider without a sourced rate has
none, and the answer says its storage and transfer are left out. Boot and setup minutes are
the user's figure: billed at the offer's own price per hour, and not shortened by a faster GPU.

Rule kept here: pure. The rates arrive as a loaded file; a year's figures are computed for the
busy hours given, so the verdict, the break-even utilisation (which tries other hours) and the
thresholds all count them the same way.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from msgspec import Struct

from costcalc.core.engine import HOURS_PER_YEAR, MONTHS_PER_YEAR
from costcalc.core.records import Meta, Record

Unit = Literal["GB", "GiB"]
GIB_PER_GB = 1e9 / 2**30
"""A price per GiB times this is the price per GB (1 GiB is 1.074 GB)."""


class StorageRate(Record, frozen=True, kw_only=True):
    """One provider's volume, egress and ingress prices, as its page states them on a date."""

    providers: Annotated[tuple[str, ...], Meta(min_length=1)]
    """The providers (costcalc.providers names) these rates price."""
    label: str
    volume: str
    """What the rate is for: 'EBS gp3 volume', 'network volume'."""
    volume_usd_per_month: Annotated[float, Meta(ge=0)] | None = None
    """Per GB-month (or GiB-month, `volume_unit`); None: not sourced, left out."""
    volume_unit: Unit = "GB"
    egress_usd_per_gb: Annotated[float, Meta(ge=0)] | None = None
    """Per GB (or GiB, `egress_unit`) beyond the free allowance; None: not sourced, left out."""
    egress_unit: Unit = "GB"
    free_egress_gb_per_month: Annotated[float, Meta(ge=0)] = 0.0
    ingress_free: bool = True
    """Uploads cost nothing (every provider priced here says so)."""
    observed: date
    """The day the rates were read."""
    source: Annotated[str, Meta(min_length=1)]
    """Who says so, and what each figure is."""
    url: Annotated[str, Meta(pattern=r"^https://")]

    def __post_init__(self) -> None:
        if not self.ingress_free:
            raise ValueError("only free ingress is priced: give the provider's ingress rate")

    @property
    def volume_usd_per_gb_month(self) -> float | None:
        return _per_gb(self.volume_usd_per_month, self.volume_unit)

    @property
    def egress_usd_per_gb_decimal(self) -> float | None:
        return _per_gb(self.egress_usd_per_gb, self.egress_unit)


def _per_gb(price: float | None, unit: Unit) -> float | None:
    """A price per `unit` (GB or GiB) as one per decimal GB."""
    if price is None:
        return None
    return price * GIB_PER_GB if unit == "GiB" else price


class StorageFile(Record, frozen=True, kw_only=True):
    """prices/storage.yaml: what renting's storage and transfer cost, provider by provider."""

    schema_version: Literal[1] = 1
    as_of: date
    source: str
    licence: str
    rates: tuple[StorageRate, ...]
    left_out: dict[str, str]
    """Providers with no sourced rate, and why."""

    def __post_init__(self) -> None:
        named = [p for rate in self.rates for p in rate.providers]
        twice = sorted({p for p in named if named.count(p) > 1} | (set(named) & set(self.left_out)))
        if twice:
            raise ValueError(f"providers priced twice or both priced and left out: {twice}")

    def by_provider(self) -> dict[str, StorageRate]:
        return {p: rate for rate in self.rates for p in rate.providers}


class DataUse(Struct, frozen=True):
    """What each rented run moves and keeps, from the scenario (GB, hours)."""

    dataset_gb: float = 0.0
    checkpoint_gb: float = 0.0
    egress_gb: float = 0.0
    storage_gb: float | None = None
    """Kept on the volume between runs; None: the dataset and one checkpoint."""
    setup_h: float = 0.0
    runs_per_year: float | None = None
    """Given by the user; None: busy hours / run_hours."""
    run_hours: float | None = None
    """One run's hours on the desktop."""

    @property
    def kept_gb(self) -> float:
        if self.storage_gb is not None:
            return self.storage_gb
        return self.dataset_gb + self.checkpoint_gb

    @property
    def per_run(self) -> bool:
        """Whether anything is counted per run (and so runs a year are needed)."""
        return bool(self.checkpoint_gb or self.egress_gb or self.setup_h or self.uploads_each_run)

    @property
    def uploads_each_run(self) -> bool:
        """Nothing kept between runs: the dataset goes up for each run."""
        return self.storage_gb == 0 and self.dataset_gb > 0

    def runs(self, busy_hours: float) -> float:
        """Runs a year: the user's, else the desktop's busy hours a year over one run's hours."""
        if self.runs_per_year is not None:
            return self.runs_per_year
        if self.run_hours:
            return busy_hours / self.run_hours
        return 0.0


class ExtraYear(Struct, frozen=True):
    """One provider's storage and transfer for a year of runs."""

    runs: float
    kept_gb: float
    storage_usd: float
    egress_gb: float
    """Downloaded a year: runs x (checkpoint + other egress)."""
    billable_egress_gb: float
    """Beyond the free allowance: 12 x max(0, egress a month - free a month)."""
    egress_usd: float
    ingress_gb: float
    setup_hours: float
    """Hours of boot and setup a year (runs x minutes / 60), billed at the offer's price."""
    rate: StorageRate | None
    """None: the provider has no sourced rate; storage and transfer are left out."""

    @property
    def usd(self) -> float:
        """Storage and egress a year (setup is billed in the offer's hours)."""
        return self.storage_usd + self.egress_usd


class RentExtras(Struct, frozen=True):
    """What renting adds beyond the GPU-hours, for every provider the rates name."""

    use: DataUse
    rates: dict[str, StorageRate]
    """By provider; a provider missing here is left out."""
    left_out: dict[str, str]
    """Providers the file says have no sourced rate, and why."""
    as_of: date

    def setup_hours(self, busy_hours: float) -> float:
        """Hours of boot and setup a year: runs x the setup time."""
        return self.use.runs(busy_hours) * self.use.setup_h

    def year(self, provider: str, busy_hours: float) -> ExtraYear:
        """The provider's storage, egress and setup for the runs of `busy_hours` desktop hours."""
        use = self.use
        runs = use.runs(busy_hours)
        rate = self.rates.get(provider)
        egress_gb = runs * (use.checkpoint_gb + use.egress_gb)
        ingress_gb = use.dataset_gb * (runs if use.uploads_each_run else 1.0)
        if rate is None:
            return ExtraYear(runs, use.kept_gb, 0.0, egress_gb, 0.0, 0.0, ingress_gb, 0.0, None)
        volume = rate.volume_usd_per_gb_month or 0.0
        storage_usd = use.kept_gb * volume * MONTHS_PER_YEAR
        monthly = egress_gb / MONTHS_PER_YEAR
        billable = max(monthly - rate.free_egress_gb_per_month, 0.0) * MONTHS_PER_YEAR
        egress_usd = billable * (rate.egress_usd_per_gb_decimal or 0.0)
        return ExtraYear(
            runs,
            use.kept_gb,
            storage_usd,
            egress_gb,
            billable,
            egress_usd,
            ingress_gb,
            runs * use.setup_h,
            rate,
        )

    def extra_usd(self, provider: str, busy_hours: float) -> float:
        """`year(...).usd`, for the engine's inner loop."""
        return self.year(provider, busy_hours).usd

    def missing(self, providers: set[str]) -> list[str]:
        """Which of `providers` have no sourced rate."""
        return sorted(p for p in providers if p not in self.rates)


def data_use(
    *,
    dataset_gb: float | None,
    checkpoint_gb: float | None,
    egress_gb: float | None,
    storage_gb: float | None,
    setup_minutes: float,
    runs_per_year: float | None,
    run_hours: float | None,
) -> DataUse | None:
    """The data each run moves, or None when no input counts any."""
    given = (dataset_gb, checkpoint_gb, egress_gb, storage_gb)
    if all(v is None for v in given) and not setup_minutes:
        return None
    return DataUse(
        dataset_gb=dataset_gb or 0.0,
        checkpoint_gb=checkpoint_gb or 0.0,
        egress_gb=egress_gb or 0.0,
        storage_gb=storage_gb,
        setup_h=setup_minutes / 60,
        runs_per_year=runs_per_year,
        run_hours=run_hours,
    )


def runs_from_hours(runs_per_year: float, run_hours: float) -> float:
    """The utilisation `runs_per_year` runs of `run_hours` make: runs x hours / 8,760."""
    return runs_per_year * run_hours / HOURS_PER_YEAR
