"""The refresh job: download each provider's prices, check them, store them, remember them.

Rules kept here:
- One failing provider never blocks the others, and never costs its last good snapshot: a
  payload is written only after it parsed, passed the plausibility checks and did not drop most
  of the previous snapshot's rows (unless forced); writes are atomic (temp file, fsync, rename).
- One refresh at a time: a file lock; a second refresh fails fast with RefreshLocked (exit 3).
- Every observation goes into the history database, one transaction per refresh.
- Nothing is pretended: providers without a machine-readable price list are reported as
  skipped, with the age of the curated table that stays in use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from costcalc import locations
from costcalc.constants import PROVIDERS
from costcalc.errors import CostcalcError, DataFileError
from costcalc.models import PriceSnapshot
from costcalc.snapshots import (
    Snapshot,
    age_days,
    check_provider,
    load_bundled,
    offers_from,
    refreshed_path,
)

if TYPE_CHECKING:
    from costcalc.net import FetchSettings, HttpClient

MIN_USD_PER_GPU_HOUR = 0.01
MAX_USD_PER_GPU_HOUR = 100.0
"""Plausible range of a cloud price per GPU-hour; outside it a feed changed units or broke."""

KEEP_AT_LEAST = 0.5
"""A payload with fewer rows than this share of the last refreshed snapshot is refused."""

Progress = Callable[[str], None]
T = TypeVar("T")


class RefreshLocked(CostcalcError):
    """Another refresh holds the lock."""

    exit_code = 3


class Refused(Exception):
    """A payload that parsed but fails the checks; the message says which."""


@dataclass(frozen=True)
class ProviderResult:
    """What happened to one provider in one refresh."""

    provider: str
    ok: bool
    message: str
    offers: int = 0
    skipped: bool = False


@dataclass
class RefreshReport:
    started_at: datetime
    results: list[ProviderResult] = field(default_factory=list)
    history_error: str | None = None

    @property
    def failed(self) -> list[ProviderResult]:
        return [r for r in self.results if not r.ok]

    @property
    def exit_code(self) -> int:
        """0 when every provider refreshed (or had nothing to fetch), 1 when any failed."""
        return 1 if self.failed or self.history_error else 0


# --------------------------------------------------------------------------- checks


def check_plausible(snapshot: PriceSnapshot) -> None:
    """Every row names a known GPU and a sane price per GPU-hour."""
    from costcalc.catalog import load_catalog

    catalog = load_catalog()
    for row in snapshot.offers:
        if row.gpu not in catalog:
            raise Refused(f"{row.name} in {row.region}: unknown GPU {row.gpu!r}")
        per_gpu = row.usd_per_hour / row.gpu_count
        if not MIN_USD_PER_GPU_HOUR <= per_gpu <= MAX_USD_PER_GPU_HOUR:
            raise Refused(
                f"implausible price: {row.name} in {row.region} at ${per_gpu:,.4g} per GPU-hour "
                f"(expected ${MIN_USD_PER_GPU_HOUR:g}-{MAX_USD_PER_GPU_HOUR:g})"
            )


def check_not_shrunk(new: PriceSnapshot, previous: PriceSnapshot | None, force: bool) -> None:
    if previous is None or force or not previous.offers:
        return
    if len(new.offers) < KEEP_AT_LEAST * len(previous.offers):
        raise Refused(
            f"refused: {len(new.offers)} offers where the last snapshot had "
            f"{len(previous.offers)}; run with --force to accept"
        )


def _previous(provider: str) -> PriceSnapshot | None:
    """The last refreshed snapshot, if there is a readable one (the bundled one is not compared:
    it comes from other sources and other regions)."""
    from costcalc.resources import load_yaml_file

    path = refreshed_path(provider)
    if not path.exists():
        return None
    try:
        return load_yaml_file(path, PriceSnapshot)
    except DataFileError:
        return None


# --------------------------------------------------------------------------- providers


@dataclass(frozen=True)
class Skip:
    """A provider with nothing to fetch, and why."""

    message: str


def _naming(url: str, parse: Callable[[], T]) -> T:
    """Run a fetch-and-parse, prefixing a parse failure with the URL it came from."""
    from providers.common import FeedError

    try:
        return parse()
    except FeedError as exc:
        raise FeedError(f"{url}: {exc}") from exc


def _aws_spot(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot:
    from providers import aws_spot, aws_spot_advisor

    progress(f"aws-spot: downloading {aws_spot.url()}")
    rows = _naming(aws_spot.url(), lambda: aws_spot.parse(aws_spot.fetch(client)))
    progress(f"aws-spot: downloading {aws_spot_advisor.url()}")
    advice = _naming(
        aws_spot_advisor.url(), lambda: aws_spot_advisor.parse(aws_spot_advisor.fetch(client))
    )
    return PriceSnapshot(
        provider="aws-spot",
        source="AWS EC2 spot price feed (spot.json) with Spot Instance Advisor savings and "
        "interruption buckets (spot-advisor-data.json), fetched by costcalc refresh",
        source_url=aws_spot.url(),
        licence="AWS data (c) Amazon Web Services; fetched for the user's own use",
        fetched_at=now,
        spot=True,
        billing_increment_s=1,
        billing_minimum_s=60,
        notes="Observed Linux spot prices, one per region (the feed has no zone detail). "
        "Spot capacity can be reclaimed with a 2-minute notice.",
        offers=tuple(aws_spot.with_advice(rows, advice)),
    )


def _aws_ondemand(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot:
    from providers import aws_ondemand

    progress(f"aws-ondemand: downloading {len(aws_ondemand.urls())} price list(s)")
    rows = aws_ondemand.fetch(client)
    return PriceSnapshot(
        provider="aws-ondemand",
        source="AWS EC2 on-demand prices (Linux, shared tenancy), fetched by costcalc refresh",
        source_url=aws_ondemand.urls()[0],
        licence="AWS data (c) Amazon Web Services; fetched for the user's own use",
        fetched_at=now,
        spot=False,
        billing_increment_s=1,
        billing_minimum_s=60,
        offers=tuple(sorted(rows, key=lambda r: (r.region, r.name))),
    )


def _curated(provider: str, now: datetime, hint: str) -> Skip:
    bundled = load_bundled(provider)
    days = age_days(bundled.fetched_at, now)
    return Skip(
        f"no machine-readable price list; kept the curated prices of "
        f"{bundled.fetched_at:%Y-%m-%d} ({days:.0f} days old); {hint}"
        f"override any price in {locations.price_overrides_file()}"
    )


def _paperspace(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot | Skip:
    from providers import digitalocean

    bearer = digitalocean.token()
    if bearer is None:
        hint = "set COSTCALC_DIGITALOCEAN_TOKEN to fetch DigitalOcean GPU Droplet prices, or "
        return _curated("paperspace", now, hint)
    progress(f"paperspace: downloading {digitalocean.url()}")
    fetched = digitalocean.fetch(client, bearer)
    droplets = [r.model_copy(update={"fetched_at": now}) for r in fetched]
    curated = load_bundled("paperspace")
    assert isinstance(curated, PriceSnapshot)
    return curated.model_copy(
        update={
            "source": f"{curated.source}; GPU Droplets: DigitalOcean API /v2/sizes, fetched by "
            "costcalc refresh",
            "offers": curated.offers + tuple(droplets),
        }
    )


def _colab(client: HttpClient, now: datetime, progress: Progress) -> PriceSnapshot | Skip:
    return _curated("colab", now, "")


Refresher = Callable[["HttpClient", datetime, Progress], "PriceSnapshot | Skip"]

REFRESHERS: dict[str, Refresher] = {
    "aws-spot": _aws_spot,
    "aws-ondemand": _aws_ondemand,
    "paperspace": _paperspace,
    "colab": _colab,
}


# --------------------------------------------------------------------------- the job


def _refresh_one(
    provider: str, client: HttpClient, now: datetime, force: bool, progress: Progress
) -> tuple[ProviderResult, Snapshot | None]:
    from costcalc.net import FetchError
    from costcalc.resources import write_model_yaml
    from providers.common import FeedError

    try:
        outcome = REFRESHERS[provider](client, now, progress)
        if isinstance(outcome, Skip):
            return ProviderResult(provider, True, outcome.message, skipped=True), None
        check_plausible(outcome)
        check_not_shrunk(outcome, _previous(provider), force)
        write_model_yaml(refreshed_path(provider), outcome)
    except (FetchError, FeedError, Refused, CostcalcError) as exc:
        return ProviderResult(provider, False, str(exc)), None
    except Exception as exc:  # one provider's bug must not stop the others
        return ProviderResult(provider, False, f"unexpected {type(exc).__name__}: {exc}"), None
    count = len(outcome.offers)
    return ProviderResult(provider, True, f"refreshed, {count} offers", offers=count), outcome


def _clear_stale_temp_files(directory: Path) -> None:
    """Temp files a killed refresh left behind (we hold the lock, so none is in use)."""
    if directory.is_dir():
        for stale in directory.glob(".*.tmp"):
            stale.unlink(missing_ok=True)


def lock_path() -> Path:
    return locations.data_dir() / "refresh.lock"


def run_refresh(
    providers: Sequence[str] | None = None,
    *,
    force: bool = False,
    progress: Callable[[str], None] | None = None,
    settings: FetchSettings | None = None,
) -> RefreshReport:
    """Refresh the given providers (all by default). Raises RefreshLocked if one is running."""
    import filelock

    from costcalc import history
    from costcalc.net import HttpClient

    wanted = [check_provider(p) for p in dict.fromkeys(providers or PROVIDERS)]
    say = progress or (lambda _message: None)
    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(path, timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise RefreshLocked(f"another refresh is running (lock {path}); try again later") from exc
    try:
        now = datetime.now(timezone.utc)
        report = RefreshReport(started_at=now)
        _clear_stale_temp_files(locations.snapshots_dir())
        written: list[Snapshot] = []
        with HttpClient(settings) as client:
            for provider in wanted:
                result, snapshot = _refresh_one(provider, client, now, force, say)
                report.results.append(result)
                say(f"{provider}: {'ok' if result.ok else 'failed'}: {result.message}")
                if snapshot is not None:
                    written.append(snapshot)
        offers = [o for s in written for o in offers_from(s) if o.fetched_at == now]
        if offers:
            try:
                history.record(offers, now)
            except CostcalcError as exc:
                report.history_error = str(exc)
        return report
    finally:
        lock.release()
