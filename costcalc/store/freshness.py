"""How old each price file is, and which rows decide a desktop verdict on a single reading.

Rules kept here:
- A file's age is its rows' ages: the newest and the oldest `fetched_at` among its offers (a
  file's own date says only when it was last touched).
- A deciding row is the cheapest comparable offer for one of the cards people weigh a desktop
  against (DESKTOP_CARDS) at one of the utilisations the verdict turns on (UTILISATIONS).
- A row has a second reading when its snapshot came from a live feed (a user's refresh, or a
  bundle rebuilt by scripts/bundle_prices.py, whose notes start with FEED_NOTE), or when its
  `source` names another source after SECOND_READING ('...; cross-check: <source> <date> <price>').
  The offer model has no field for a second reading yet, so the source text carries it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, timezone

from msgspec import Struct
from msgspec.structs import replace

from costcalc.core.models import CloudOffer, DesktopDefaults, ElectricityData, FxRates, Scenario
from costcalc.core.offers import LoadedSnapshot, PriceBook, age_days
from costcalc.core.scenario import AppData, evaluate
from costcalc.core.staleness import CLOUD_LEGEND, is_stale
from costcalc.core.terminal import fill
from costcalc.present.display import age
from costcalc.present.report import Plain, render_table
from costcalc.providers import registry

DESKTOP_CARDS = ("rtx3090", "rtx4090", "rtx5090", "rtx_a6000", "rtx6000_ada", "rtx_pro6000")
"""The desktop cards whose verdict the bundled prices must carry (issue 25)."""

UTILISATIONS = (0.05, 0.15, 0.40, 0.80)

FEED_NOTE = "Rebuilt from the live feed"
"""How a bundled snapshot that scripts/bundle_prices.py fetched says so in its notes."""

SECOND_READING = "cross-check:"
"""Where a curated row's source text names its second, independent reading."""


class FileAge(Struct, frozen=True):
    """One price file: how many rows, the newest and the oldest, and where they came from."""

    provider: str
    file: str
    rows: int
    newest: datetime | None
    oldest: datetime | None
    origin: str
    """'feed' (fetched from the provider's own feed) or 'curated' (transcribed, dated rows)."""


class DecidingRow(Struct, frozen=True):
    """The cheapest comparable offer for one desktop card at one utilisation."""

    gpu: str
    utilisation: float
    offer: CloudOffer
    readings: str
    """'feed', 'two sources' or 'one source'."""


def is_feed(loaded: LoadedSnapshot) -> bool:
    """True when the snapshot was fetched from a live feed rather than transcribed."""
    notes = getattr(loaded.snapshot, "notes", None) or ""
    return loaded.origin != "bundled" or notes.startswith(FEED_NOTE)


def readings(offer: CloudOffer, feed: bool) -> str:
    if feed:
        return "feed"
    return "two sources" if SECOND_READING in offer.source.casefold() else "one source"


def file_ages(snapshots: Mapping[str, LoadedSnapshot]) -> list[FileAge]:
    """Each provider's file, with the dates of its newest and oldest rows."""
    found = []
    for name, loaded in snapshots.items():
        provider = registry.get(name)
        dates = [o.fetched_at for o in provider.offers(loaded.snapshot)]
        found.append(
            FileAge(
                provider=name,
                file=provider.snapshot_file,
                rows=len(dates),
                newest=max(dates, default=None),
                oldest=min(dates, default=None),
                origin="feed" if is_feed(loaded) else "curated",
            )
        )
    return found


def _moment(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def _dated(file: str, days: list[date], origin: str) -> FileAge:
    moments = [_moment(d) for d in days]
    return FileAge(
        file, file, len(days), max(moments, default=None), min(moments, default=None), origin
    )


def other_ages(
    desktop: DesktopDefaults, electricity: ElectricityData, fx: FxRates, fx_feed: bool
) -> list[FileAge]:
    """The files that hold no offers: the base system's parts, household electricity, the
    exchange rates (one row: the day the ECB published them)."""
    parts = [part.observed for tier in desktop.base_system_parts.values() for part in tier]
    return [
        _dated("desktop.yaml", parts, "curated"),
        _dated("electricity.yaml", [row.as_of for row in electricity.prices], "curated"),
        _dated("fx.yaml", [fx.as_of], "feed" if fx_feed else "curated"),
    ]


def deciding_rows(
    data: AppData,
    now: datetime,
    cards: Iterable[str] = DESKTOP_CARDS,
    utilisations: Iterable[float] = UTILISATIONS,
) -> list[DecidingRow]:
    """The cheapest comparable offer for each card at each utilisation (skipping a card the
    catalog or its prices cannot price), and how many readings it rests on."""
    feeds = {name for name, loaded in data.book.snapshots.items() if is_feed(loaded)}
    found = []
    for gpu in cards:
        for utilisation in utilisations:
            calc = evaluate(Scenario(gpu=gpu, utilisation=utilisation), data, now)
            best = calc.comparison.best
            if best is None:
                continue
            offer = best.offer
            found.append(
                DecidingRow(gpu, utilisation, offer, readings(offer, offer.provider in feeds))
            )
    return found


def with_book(data: AppData, book: PriceBook) -> AppData:
    """The same data with other prices: a bundle being built, not the installed one."""
    return replace(data, book=book)


# --------------------------------------------------------------------------- the table


def age_table(ages: Iterable[FileAge], now: datetime, width: int | None) -> str:
    columns = (
        Plain("file", "file", numeric=False),
        Plain("origin", "origin", numeric=False),
        Plain("rows", "rows"),
        Plain("newest", "newest", numeric=False),
        Plain("oldest", "oldest", numeric=False),
        Plain("age", "oldest age"),
    )

    def day(moment: datetime | None) -> str:
        return "-" if moment is None else f"{moment:%Y-%m-%d}"

    rows = [
        {
            "file": a.file,
            "origin": a.origin,
            "rows": f"{a.rows:,}",
            "newest": day(a.newest),
            "oldest": day(a.oldest),
            "age": "-" if a.oldest is None else age(age_days(a.oldest, now)),
        }
        for a in ages
    ]
    priority = ("file", "newest", "oldest", "origin", "rows", "age")
    return render_table(columns, rows, width=width, priority=priority)


def deciding_table(rows: Iterable[DecidingRow], now: datetime, width: int | None) -> str:
    columns = (
        Plain("gpu", "desktop", numeric=False),
        Plain("util", "util"),
        Plain("offer", "cheapest comparable offer", numeric=False, clip=True),
        Plain("price", "$/h"),
        Plain("date", "date", numeric=False),
        Plain("age", "age"),
        Plain("readings", "readings", numeric=False),
    )
    shown = [
        {
            "gpu": r.gpu,
            "util": f"{r.utilisation:.0%}",
            "offer": f"{r.offer.provider}: {r.offer.name} ({r.offer.region})",
            "price": f"{r.offer.usd_per_hour:,.2f}",
            "date": f"{r.offer.fetched_at:%Y-%m-%d}",
            "age": age(age_days(r.offer.fetched_at, now))
            + (" stale" if is_stale(r.offer, now) else ""),
            "readings": r.readings,
        }
        for r in rows
    ]
    priority = ("gpu", "util", "offer", "readings", "age", "price", "date")
    return render_table(columns, shown, width=width, priority=priority)


def report(data: AppData, now: datetime, width: int | None, others: Iterable[FileAge] = ()) -> str:
    """The freshness table (the providers' files, then `others`) and the deciding rows, with a
    last line naming those on one reading."""
    deciding = deciding_rows(data, now)
    lonely = sorted(
        {f"{r.offer.provider}: {r.offer.name}" for r in deciding if r.readings == "one source"}
    )
    tail = (
        f"deciding rows on one source: {', '.join(lonely)}"
        if lonely
        else "every deciding row has two sources or a live feed"
    )
    if any(is_stale(r.offer, now) for r in deciding):
        tail += f"; {CLOUD_LEGEND}"

    return "\n\n".join(
        [
            age_table([*file_ages(data.book.snapshots), *others], now, width),
            deciding_table(deciding, now, width),
            "\n".join(fill(tail, width)),
        ]
    )
