"""The refresh job: download each provider's prices, check them, store them, remember them.

Rules kept here:
- One failing provider never blocks the others, and never costs its last good snapshot: a
  payload is written only after it parsed, passed the plausibility checks and did not drop most
  of the previous snapshot's rows (unless forced); writes are atomic (temp file, fsync, rename).
- A price is judged per GPU against what ships (costcalc.core.plausible), so one reading is
  enough; a row that fails is held back (not stored) and named with the bound it broke. A feed
  whose prices, offer by offer, moved far from its last good snapshot's is held back whole
  (unless forced), with the median ratio.
- One refresh at a time: a file lock; a second refresh fails fast with RefreshLocked (exit 3).
- Every observation goes into the history database, one transaction per refresh.
- Nothing is pretended: providers without a machine-readable price list are reported as
  skipped, with the age of the curated table that stays in use.
- Progress is told as it happens, as events (a provider started, asked a host, said something,
  finished), so the app can keep one line per provider and the CLI can print a log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias
from urllib.parse import urlsplit

from msgspec import Struct, field
from msgspec.structs import replace

from costcalc.core.errors import CostcalcError, DataFileError
from costcalc.core.models import CloudOffer, OfferRow, PriceSnapshot
from costcalc.core.offers import Snapshot, age_days
from costcalc.core.plausible import (
    FEED_RATIO,
    FeedShift,
    Readings,
    ShippedPrices,
    feed_shift,
    judge,
)
from costcalc.core.records import ValidationError, plain, problem, revalidated
from costcalc.edge import locations
from costcalc.present.display import age
from costcalc.providers import registry
from costcalc.providers.base import Fetched, Provider, Skip
from costcalc.store.bundled import load_catalog
from costcalc.store.snapshots import (
    load_bundled,
    load_refreshed,
    refreshed_observations,
    refreshed_path,
    shipped_prices,
    write_refreshed,
)

if TYPE_CHECKING:
    from costcalc.core.catalog import GpuCatalog
    from costcalc.edge.net import FetchSettings, HttpClient

MOSTLY_IMPLAUSIBLE = 0.5
"""A payload with more than this share of its prices held back changed units or broke: it is
refused whole, and the last good snapshot stays."""

KEEP_AT_LEAST = 0.5
"""A payload with fewer rows than this share of the last refreshed snapshot is refused; in a
fresh home, one with fewer than this share of the bundled snapshot's rows in its regions is
refused when nothing confirmed its length, and said so otherwise."""

MAX_FIELD_CHARS = 1000
"""Longest text a stored offer or snapshot may carry: the bundled files' longest is a few
hundred characters; a feed with 1 MB names made a 107 MB snapshot no reader accepts."""

NAMES_SHOWN = 10
"""Unknown GPU names a result's message lists; `refresh --json` lists them all."""


class HeldBack(Struct, frozen=True):
    """One offer of a feed not stored: its price is not believable for its GPU, or its texts are
    too long to store."""

    offer: str
    """Its name, shortened to 60 characters as every text of a report is; so is the region."""
    region: str
    gpu: str
    """The catalog key."""
    gpu_name: str
    """The GPU as tables name it ('RTX 3090')."""
    gpu_count: int
    usd_per_hour: float
    bound: str
    """The rule it broke: a costcalc.core.plausible.Bound, or 'text length'."""
    reason: str
    """'$0.01 per GPU-hour, expected at least $0.0459: ...'."""

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.usd_per_hour / self.gpu_count

    @property
    def why(self) -> str:
        """The reason, with the GPU named before a price: 'RTX 3090 at $0.01 per GPU-hour, ...'."""
        return f"{self.gpu_name} at {self.reason}" if self.reason.startswith("$") else self.reason

    def __str__(self) -> str:
        return f"{self.offer} in {self.region}: {self.why}"


class HeldFeed(Struct, frozen=True):
    """A whole feed not stored: its prices, offer by offer, far from its last good snapshot's."""

    shift: FeedShift
    last_good_at: datetime
    """When the snapshot kept was fetched."""


class ProviderResult(Struct, frozen=True):
    """What happened to one provider in one refresh."""

    provider: str
    ok: bool
    message: str
    offers: int = 0
    skipped: bool = False
    unknown_gpus: tuple[str, ...] = ()
    """GPU names (or VM sizes) in the feed that no table maps: skipped, listed once."""
    held_back: tuple[HeldBack, ...] = ()
    """Offers whose price is not believable for their GPU (costcalc.core.plausible), or whose
    texts are too long to store: not stored, so they never reach a verdict; each says why."""
    held_feed: HeldFeed | None = None
    """Set when the whole feed was held back for moving too far from its last good snapshot."""
    label: str = ""
    """The provider as people name it: 'AWS EC2 spot'."""
    hosts: tuple[str, ...] = ()
    """The servers asked, in order (host, or host:port when the URL names a port)."""
    summary: str = ""
    """What happened in a few plain words, without the hosts: '1,059 offers',
    'HTTP 500 Internal Server Error after 3 retries', 'curated table, 40 d old (...)'."""

    @property
    def line(self) -> str:
        """The summary and whom it came from: '1,059 offers (api.runpod.io)'."""
        hosts = f" ({', '.join(self.hosts)})" if self.hosts else ""
        return f"{self.summary or self.message}{hosts}"


# --------------------------------------------------------------------------- progress events


class ProviderStarted(Struct, frozen=True):
    """A provider's turn began: the `index`-th of `total` (1-based)."""

    provider: str
    label: str
    index: int
    total: int

    def __str__(self) -> str:
        return f"{self.provider}: started ({self.index} of {self.total})"


class ProviderAsking(Struct, frozen=True):
    """A provider began its first download from `host` (each host is told once)."""

    provider: str
    host: str

    def __str__(self) -> str:
        return f"{self.provider}: asking {self.host}"


class ProviderSaid(Struct, frozen=True):
    """A provider's own progress line ('downloading 6 price lists', 'page 3')."""

    provider: str
    text: str

    def __str__(self) -> str:
        return f"{self.provider}: {self.text}"


class ProviderFinished(Struct, frozen=True):
    result: ProviderResult

    def __str__(self) -> str:
        r = self.result
        return f"{r.provider}: {'ok' if r.ok else 'failed'}: {r.message}"


RefreshEvent: TypeAlias = ProviderStarted | ProviderAsking | ProviderSaid | ProviderFinished
Progress = Callable[[RefreshEvent], None]
"""Told each event as it happens, from the refresh's own thread."""


class RefreshLocked(CostcalcError):
    """Another refresh holds the lock."""

    exit_code = 3


class Refused(Exception):
    """A payload that parsed but fails the checks; the message says which."""


class HeldWhole(Refused):
    """A payload whose prices moved too far from the last good snapshot's: held back whole."""

    def __init__(self, held: HeldFeed, provider: str) -> None:
        low, high = FEED_RATIO
        shift = held.shift
        super().__init__(
            f"held back whole: its prices are a median {shift.ratio:.2f}x those of the last good "
            f"snapshot of {held.last_good_at:%Y-%m-%d %H:%M} UTC ({shift.compared} offers in "
            f"both; expected {low:g}x-{high:g}x); run with --force if {provider} really "
            "changed its prices"
        )
        self.held = held


class RefreshReport(Struct):
    started_at: datetime
    results: list[ProviderResult] = field(default_factory=list)
    history_error: str | None = None
    notes: list[str] = field(default_factory=list)
    """What the user should know that is not a failure (an empty history file found)."""

    @property
    def failed(self) -> list[ProviderResult]:
        return [r for r in self.results if not r.ok]

    @property
    def exit_code(self) -> int:
        """0 when every provider refreshed (or had nothing to fetch), 1 when any failed."""
        return 1 if self.failed or self.history_error else 0


# --------------------------------------------------------------------------- checks


def check_known(snapshot: PriceSnapshot, catalog: GpuCatalog) -> None:
    """Every row names a GPU the catalog knows (the parsers map names; a slip is a bug)."""
    for row in snapshot.offers:
        if row.gpu not in catalog:
            raise Refused(f"{row.name} in {row.region}: unknown GPU {row.gpu!r}")


def check_sizes(snapshot: PriceSnapshot) -> None:
    """Refuse a snapshot whose own texts (source, notes, ...) are longer than any feed's."""
    for field_name in ("source", "source_url", "licence", "notes"):
        text = getattr(snapshot, field_name) or ""
        if len(text) > MAX_FIELD_CHARS:
            raise Refused(
                f"the feed's {field_name} is {len(text):,} characters long "
                f"(at most {MAX_FIELD_CHARS:,}); not a price list"
            )


def _oversized(row: OfferRow) -> str | None:
    longest = max((len(v) for v in plain(row).values() if isinstance(v, str)), default=0)
    if longest > MAX_FIELD_CHARS:
        return f"a text of {longest:,} characters (at most {MAX_FIELD_CHARS:,})"
    return None


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def check_confirmed(
    new: PriceSnapshot,
    previous: PriceSnapshot | None,
    unconfirmed: Sequence[str],
    force: bool,
    bundled: Snapshot | None = None,
) -> None:
    """A body whose length nothing confirmed (no Content-Length, not chunked) may be a cut
    connection that looks whole: it is trusted only when it holds no fewer offers than the last
    refreshed snapshot, or, in a fresh home, no fewer than KEEP_AT_LEAST of the `bundled` one's
    offers in its regions (a cut by the deadline is always an error, costcalc.edge.net)."""
    if not unconfirmed or force:
        return
    if previous is None:
        short = fewer_than_bundled(new, bundled)
        if short is not None:
            count = len({row_identity(r) for r in new.offers})
            raise Refused(
                f"refused: {unconfirmed[0]} came without a length to check it by and holds "
                f"{count} offers where the bundled prices have {short} (cut short?); run with "
                "--force to accept"
            )
        return
    old = len({row_identity(r) for r in previous.offers})
    count = len({row_identity(r) for r in new.offers})
    if count < old:
        raise Refused(
            f"refused: {unconfirmed[0]} came without a length to check it by and holds "
            f"{count} offers where the last snapshot had {old} (cut short?); run with --force "
            "to accept"
        )


def fewer_than_bundled(new: PriceSnapshot, bundled: Snapshot | None) -> str | None:
    """'38 in its region' (the bundled snapshot's offers there) when `new` has fewer than
    KEEP_AT_LEAST of the bundled snapshot's offers in the regions `new` covers (a user who asks
    for fewer regions gets fewer rows, and that is no shrinking); None otherwise."""
    if not isinstance(bundled, PriceSnapshot):
        return None
    regions = {row.region for row in new.offers}
    old = len({row_identity(r) for r in bundled.offers if r.region in regions})
    if len({row_identity(r) for r in new.offers}) >= KEEP_AT_LEAST * old:
        return None
    where = "its region" if len(regions) == 1 else f"its {len(regions)} regions"
    return f"{old} in {where}"


def hold_back(
    snapshot: PriceSnapshot,
    catalog: GpuCatalog,
    readings: Readings,
    shipped: ShippedPrices | None = None,
) -> tuple[PriceSnapshot, tuple[HeldBack, ...]]:
    """The snapshot without the rows whose price is not believable for their GPU (against the
    other readings and, given, what ships), and a record per row held back; Refused when most
    are (the feed changed units or broke)."""
    held: list[HeldBack] = []
    kept: list[OfferRow] = []
    for row in snapshot.offers:
        oversized = _oversized(row)
        found = judge(row.gpu, row.gpu_count, row.usd_per_hour, catalog, readings, shipped)
        if oversized is not None:
            bound, reason = "text length", oversized
        elif found is not None:
            bound, reason = found.bound, found.reason
        else:
            kept.append(row)
            continue
        name = catalog.get(row.gpu).short_name if row.gpu in catalog else row.gpu
        held.append(  # shortened: a megabyte name must not make a megabyte report
            HeldBack(
                _short(row.name),
                _short(row.region),
                _short(row.gpu),
                _short(name),
                row.gpu_count,
                row.usd_per_hour,
                bound,
                reason,
            )
        )
    if not held:
        return snapshot, ()
    if len(held) > MOSTLY_IMPLAUSIBLE * len(snapshot.offers):
        raise Refused(
            f"implausible prices in {len(held)} of {len(snapshot.offers)} offers, e.g. {held[0]}"
        )
    return replace(snapshot, **{"offers": tuple(kept)}), tuple(held)


def _readings(catalog: GpuCatalog) -> Readings:
    """What every GPU costs in the snapshots in use (the last snapshot of each provider,
    refreshed or bundled), without the user's own prices."""
    from costcalc.store.snapshots import load_price_book

    return Readings.of(load_price_book(overrides=False, catalog=catalog).offers)


def _without_secrets(snapshot: PriceSnapshot) -> PriceSnapshot:
    """The snapshot as it may be stored: its URL without a user, password or query string
    (an override's URL may carry a key there)."""
    from costcalc.edge.net import public_url

    if snapshot.source_url is None:
        return snapshot
    return replace(snapshot, **{"source_url": public_url(snapshot.source_url)})


def unstorable(exc: ValidationError) -> str:
    """One line for a feed value the snapshot's model refuses (a control character in a name,
    a negative count): which field, and why."""
    return f"the feed has a value costcalc cannot store ({problem(exc)})"


def row_identity(row: OfferRow) -> tuple[object, ...]:
    """What makes two feed rows the same offer: a repeated page or region repeats this."""
    return (row.name, row.region, row.gpu, row.gpu_count, row.spot, row.plan)


def deduplicated(snapshot: PriceSnapshot) -> tuple[PriceSnapshot, int]:
    """The snapshot with each offer once (the first of repeated rows), and how many repeats."""
    kept: dict[tuple[object, ...], OfferRow] = {}
    for row in snapshot.offers:
        kept.setdefault(row_identity(row), row)
    repeated = len(snapshot.offers) - len(kept)
    if not repeated:
        return snapshot, 0
    return replace(snapshot, **{"offers": tuple(kept.values())}), repeated


def check_not_shrunk(new: PriceSnapshot, previous: PriceSnapshot | None, force: bool) -> None:
    """Refuse a payload with far fewer offers than the last snapshot, counting each offer once
    on both sides (an older snapshot may hold repeated rows)."""
    if previous is None or force or not previous.offers:
        return
    old = len({row_identity(r) for r in previous.offers})
    new_count = len({row_identity(r) for r in new.offers})
    if new_count < KEEP_AT_LEAST * old:
        raise Refused(
            f"refused: {new_count} offers where the last snapshot had {old}; "
            "run with --force to accept"
        )


def _prices(snapshot: PriceSnapshot) -> dict[tuple[object, ...], float]:
    return {row_identity(row): row.usd_per_hour for row in snapshot.offers}


def check_shift(
    new: PriceSnapshot, previous: PriceSnapshot | None, provider: Provider, force: bool
) -> None:
    """Hold a payload back whole when its prices, offer by offer, lie far from the last good
    snapshot's (a feed that changed units or broke, or a price cut only --force accepts)."""
    if previous is None or force:
        return
    shift = feed_shift(_prices(new), _prices(previous))
    if shift is not None and shift.held_back:
        raise HeldWhole(HeldFeed(shift, previous.fetched_at), provider.label)


def _previous(provider: Provider) -> PriceSnapshot | None:
    """The last refreshed snapshot, if there is a readable one (the bundled one is not compared:
    it comes from other sources and other regions)."""
    path = refreshed_path(provider)
    if not path.exists():
        return None
    try:
        return load_refreshed(path, PriceSnapshot)
    except DataFileError:
        return None


# --------------------------------------------------------------------------- providers


def _skipped(provider: Provider, now: datetime, hint: str) -> ProviderResult:
    """What a provider without a fetch keeps: its curated prices, and their age."""
    bundled = load_bundled(provider)
    old = age(age_days(bundled.fetched_at, now))
    also = f"{hint}, or " if hint else ""
    message = (
        f"no machine-readable price list; kept the curated prices of "
        f"{bundled.fetched_at:%Y-%m-%d} ({old} old); {also}"
        f"override any price in {locations.price_overrides_file()}"
    )
    summary = f"curated table, {old} old ({hint or 'no public price feed'})"
    return ProviderResult(
        provider.name, True, message, skipped=True, label=provider.label, summary=summary
    )


def without_host(message: str, hosts: Sequence[str]) -> str:
    """An error without the 'host/path: ' or 'https://host/path: ' it starts with, when that
    host is one of `hosts` (the line names its hosts once, at its end)."""
    head, sep, rest = message.partition(": ")
    if not sep:
        return message
    if "://" in head:
        parts = urlsplit(head)
        server = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)
    else:
        server = head.split("/", 1)[0]
    return rest if server in hosts else message


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")


def _said(provider: str, text: str) -> ProviderSaid:
    """A provider's progress line with each URL in it shown without user, password or query
    (a URL override may carry a key there)."""
    from costcalc.edge.net import public_url

    return ProviderSaid(provider, _URL.sub(lambda found: public_url(found[0]), text))


class _Asked:
    """The hosts one provider asks, each told to `progress` the first time."""

    def __init__(self, provider: str, progress: Progress) -> None:
        self.provider = provider
        self.progress = progress
        self.hosts: list[str] = []

    def __call__(self, host: str) -> None:
        if host not in self.hosts:
            self.hosts.append(host)
            self.progress(ProviderAsking(self.provider, host))


# --------------------------------------------------------------------------- data feeds

FX_LABEL = "ECB exchange rates"


def refresh_fx(client: HttpClient, now: datetime, progress: Progress) -> ProviderResult:
    """Download the ECB's euro reference rates and keep them beside the bundled ones (not a price
    provider: no offers, no history); a bad file keeps the last good rates."""
    from costcalc.core.models import FxRates
    from costcalc.edge.net import FetchError, public_url
    from costcalc.providers import ecb
    from costcalc.providers.common import FeedError
    from costcalc.store.snapshots import FX_FILE, fx_path, load_bundled_file, load_fx

    asked = _Asked(ecb.NAME, progress)
    client = client.observed(asked)

    def failed(message: str) -> ProviderResult:
        hosts = tuple(asked.hosts)
        summary = without_host(message, hosts)
        return ProviderResult(
            ecb.NAME, False, message, label=FX_LABEL, hosts=hosts, summary=summary
        )

    try:
        progress(ProviderSaid(ecb.NAME, f"downloading {public_url(ecb.url())}"))
        rates = ecb.fetch(client)
        ecb.check_change(rates, load_fx().rates, now.date())
        fresh = ecb.to_fx_rates(rates, load_bundled_file(FX_FILE, FxRates), now)
        write_refreshed(fx_path(), revalidated(fresh))
    except (FetchError, FeedError, CostcalcError) as exc:
        return failed(str(exc))
    except ValidationError as exc:
        return failed(unstorable(exc))
    except Exception as exc:  # a feed's bug must not stop the refresh
        return failed(f"unexpected {type(exc).__name__}: {exc}")
    summary = f"{len(rates.per_eur)} euro reference rates of {rates.day}"
    return ProviderResult(
        ecb.NAME,
        True,
        f"refreshed, {summary}",
        label=FX_LABEL,
        hosts=tuple(asked.hosts),
        summary=summary,
    )


# --------------------------------------------------------------------------- the job


def _checked(
    snapshot: PriceSnapshot,
    provider: Provider,
    unconfirmed: Sequence[str],
    force: bool,
    shipped: ShippedPrices,
    known: Readings,
) -> tuple[PriceSnapshot, int, tuple[HeldBack, ...]]:
    """The snapshot as it may be stored, how many repeated rows it lost and the rows held back;
    Refused when it cannot be trusted as a whole."""
    snapshot, repeated = deduplicated(_without_secrets(revalidated(snapshot)))
    check_sizes(snapshot)
    previous = _previous(provider)
    check_shift(snapshot, previous, provider, force)
    catalog = load_catalog()
    snapshot, held = hold_back(snapshot, catalog, known, shipped)
    check_known(snapshot, catalog)
    check_not_shrunk(snapshot, previous, force)
    bundled = load_bundled(provider) if previous is None else None
    check_confirmed(snapshot, previous, unconfirmed, force, bundled)
    return snapshot, repeated, held


def _refresh_one(
    provider: Provider,
    client: HttpClient,
    now: datetime,
    force: bool,
    progress: Progress,
    shipped: ShippedPrices,
    known: Readings,
) -> tuple[ProviderResult, list[CloudOffer]]:
    from costcalc.edge.net import FetchError
    from costcalc.providers.common import FeedError

    name = provider.name
    asked = _Asked(name, progress)
    client = client.observed(asked)

    def failed(
        message: str, held: HeldFeed | None = None
    ) -> tuple[ProviderResult, list[CloudOffer]]:
        hosts = tuple(asked.hosts)
        summary = without_host(message, hosts)
        result = ProviderResult(
            name,
            False,
            message,
            label=provider.label,
            hosts=hosts,
            summary=summary,
            held_feed=held,
        )
        return result, []

    def said(text: str) -> None:
        progress(_said(name, text))

    try:
        outcome = provider.refresh(client, now, said)
        if getattr(provider, "catalogs", None) is not None:
            from costcalc.providers.from_catalogs import with_catalogs

            outcome = with_catalogs(provider, outcome, client, now, said)
        if isinstance(outcome, Skip):
            return _skipped(provider, now, outcome.hint), []
        unknown: tuple[str, ...] = ()
        readings: tuple[OfferRow, ...] = ()
        dated: tuple[OfferRow, ...] = ()
        note = ""
        if isinstance(outcome, Fetched):
            unknown, readings, note = outcome.unknown_gpus, outcome.readings, outcome.note
            dated = outcome.from_catalogs
            outcome = outcome.snapshot
        outcome, repeated, held = _checked(
            outcome, provider, client.unconfirmed, force, shipped, known
        )
        readings = _believable(readings, shipped, known)
        fresh = _previous(provider) is None
        short = fewer_than_bundled(outcome, load_bundled(provider)) if fresh else None
        write_refreshed(refreshed_path(provider), outcome)
    except HeldWhole as exc:
        return failed(str(exc), exc.held)
    except (FetchError, FeedError, Refused, CostcalcError) as exc:
        return failed(str(exc))
    except ValidationError as exc:
        return failed(unstorable(exc))
    except Exception as exc:  # one provider's bug must not stop the others
        return failed(f"unexpected {type(exc).__name__}: {exc}")
    count = len(outcome.offers)
    observed = [o for o in provider.offers(outcome) if o.fetched_at == now]
    observed += _catalog_observations(provider, outcome, dated, readings)
    message = f"refreshed, {count} offers" + (
        f" ({repeated} repeated rows dropped)" if repeated else ""
    )
    message += f"; {note}" if note else ""
    message += _unknown_note(unknown) + _held_note(held)
    message += f"; under half the bundled prices' {short}" if short else ""
    summary = f"{count:,} offers" + (
        f", {len(unknown)} unknown GPU {'name' if len(unknown) == 1 else 'names'} skipped"
        if unknown
        else ""
    )
    summary += f", {len(held)} implausible held back" if held else ""
    summary += f", under half the bundled {short}" if short else ""
    result = ProviderResult(
        name,
        True,
        message,
        offers=count,
        unknown_gpus=unknown,
        held_back=held,
        label=provider.label,
        hosts=tuple(asked.hosts),
        summary=summary,
    )
    return result, observed


def _believable(
    readings: Sequence[OfferRow], shipped: ShippedPrices, known: Readings
) -> tuple[OfferRow, ...]:
    """The cross-check readings whose price passes the checks an offer's would: a broken
    catalog must not widen an offer's range any more than it may set its price."""
    if not readings:
        return ()
    catalog = load_catalog()
    return tuple(
        r
        for r in readings
        if r.gpu in catalog
        and judge(r.gpu, r.gpu_count, r.usd_per_hour, catalog, known, shipped) is None
    )


def _catalog_observations(
    provider: Provider,
    stored: PriceSnapshot,
    dated: Sequence[OfferRow],
    readings: Sequence[OfferRow],
) -> list[CloudOffer]:
    """What a refresh observed through the catalogs: their rows as stored (dated by their
    catalog file, not by the refresh; a row held back is not stored) and their readings of the
    direct feed's offers, which the history keeps as other points of those offers
    (costcalc.core.ranges shows them)."""
    wanted = {row_identity(r) for r in dated}
    rows = tuple(r for r in stored.offers if row_identity(r) in wanted) + tuple(readings)
    if not rows:
        return []
    found: list[CloudOffer] = provider.offers(replace(stored, **{"offers": rows}))
    return found


def _unknown_note(unknown: tuple[str, ...]) -> str:
    """'; skipped 2 GPU names no table maps: A, B' (the first few; --json has them all)."""
    if not unknown:
        return ""
    shown = ", ".join(unknown[:NAMES_SHOWN])
    more = f" and {len(unknown) - NAMES_SHOWN} more" if len(unknown) > NAMES_SHOWN else ""
    noun = "name" if len(unknown) == 1 else "names"
    return f"; skipped {len(unknown)} GPU {noun} no table maps: {shown}{more}"


def _held_note(held: tuple[HeldBack, ...]) -> str:
    """'; held back 2 implausible prices: 1x H100, 2x H100 in global: H100 SXM at $0.01 per
    GPU-hour, expected ...': offers held back for the same reason in the same region are named
    together, the reason once (the first few offers; --json has them all, one by one)."""
    if not held:
        return ""
    groups: dict[tuple[str, str], list[HeldBack]] = {}
    for one in held[:NAMES_SHOWN]:
        groups.setdefault((one.region, one.why), []).append(one)
    shown = "; ".join(
        f"{', '.join(h.offer for h in same)} in {region}: {why}"
        for (region, why), same in groups.items()
    )
    more = f"; and {len(held) - NAMES_SHOWN} more" if len(held) > NAMES_SHOWN else ""
    noun = "price" if len(held) == 1 else "prices"
    return f"; held back {len(held)} implausible {noun}: {shown}{more}"


def _record(
    report: RefreshReport, write: Callable[[list[CloudOffer]], int], offers: list[CloudOffer]
) -> None:
    try:
        write(offers)
    except CostcalcError as exc:
        report.history_error = str(exc)


def lock_path() -> Path:
    return locations.data_dir() / "refresh.lock"


def run_refresh(
    providers: Sequence[str] | None = None,
    *,
    force: bool = False,
    progress: Progress | None = None,
    settings: FetchSettings | None = None,
) -> RefreshReport:
    """Refresh the given providers (all by default), telling `progress` each event as it
    happens. Raises RefreshLocked if another refresh is running."""
    import filelock

    from costcalc.edge.net import FetchSettings, HttpClient
    from costcalc.edge.resources import clear_temp_files
    from costcalc.store import history

    settings = settings or FetchSettings.from_env()  # a bad setting is exit 2 before any write
    names = list(dict.fromkeys(providers or registry.names()))
    wanted = [registry.get(p) for p in names]
    say = progress or (lambda _event: None)
    total = len(wanted) + (0 if providers else 1)
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
        clear_temp_files(locations.snapshots_dir(), older_than_s=0)
        if history.is_empty_file():
            report.notes.append(
                f"{locations.history_db()} was empty (0 bytes): the price history it held is "
                "lost; a new one starts with this refresh"
            )
        _record(report, history.reconcile, refreshed_observations())
        shipped = shipped_prices()
        # What every GPU costs in the prices in use when the refresh starts: read once, so a
        # provider refreshed early never moves the bounds a later one is judged by (and 31
        # providers do not each re-read the other 30 snapshots).
        known = _readings(load_catalog())
        with HttpClient(settings) as client:
            for index, provider in enumerate(wanted, start=1):
                say(ProviderStarted(provider.name, provider.label, index, total))
                result, observed = _refresh_one(provider, client, now, force, say, shipped, known)
                report.results.append(result)
                say(ProviderFinished(result))
                if observed:  # right after its snapshot: a kill here is back-filled next time
                    _record(report, lambda offers: history.record(offers, now), observed)
            if not providers:  # a full refresh also renews the exchange rates
                from costcalc.providers import ecb

                say(ProviderStarted(ecb.NAME, FX_LABEL, total, total))
                result = refresh_fx(client, now, say)
                report.results.append(result)
                say(ProviderFinished(result))
        return report
    finally:
        lock.release()
