"""Price history: every price costcalc has held, in SQLite, never rewritten.

Rules kept here:
- history is append-only and idempotent: an observation is (provider, offer, region, GPUs,
  spot, time); recording it twice stores it once;
- the refresh records each provider's prices in one transaction right after its snapshot is
  written, and begins by back-filling what a killed refresh wrote to a snapshot but not here
  (`reconcile`), so snapshots and history never disagree for longer than until the next refresh;
- reading (`query`) shows the recorded points together with the prices of the snapshots in use,
  bundled ones included, so history starts from the prices costcalc ships;
- the database runs in WAL mode so `costcalc history` can read while cron writes, and a broken
  database is reported in one line, never silently recreated.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path

from msgspec import Struct, field

from costcalc.core.errors import CostcalcError
from costcalc.core.models import CloudOffer
from costcalc.edge import locations

SCHEMA = """
CREATE TABLE IF NOT EXISTS refreshes (
    id INTEGER PRIMARY KEY,
    fetched_at TEXT NOT NULL,
    providers TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS observations (
    refresh_id INTEGER NOT NULL REFERENCES refreshes(id),
    provider TEXT NOT NULL,
    name TEXT NOT NULL,
    region TEXT NOT NULL,
    gpu TEXT NOT NULL,
    gpu_count INTEGER NOT NULL,
    usd_per_hour REAL NOT NULL,
    spot INTEGER NOT NULL,
    interruption_bucket INTEGER,
    savings_pct REAL,
    fetched_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS observations_by_series
    ON observations (gpu, provider, region, name, fetched_at);
CREATE TABLE IF NOT EXISTS gpu_samples (
    host TEXT NOT NULL,
    gpu TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    taken_at TEXT NOT NULL,
    span_s REAL NOT NULL,
    busy_s REAL NOT NULL,
    util_pct REAL,
    memory_used_mib REAL,
    power_w REAL,
    energy_mj REAL,
    merged INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS gpu_samples_once ON gpu_samples (host, gpu, taken_at);
CREATE INDEX IF NOT EXISTS gpu_samples_by_time ON gpu_samples (taken_at);
"""
"""The GPU's own samples (costcalc monitor, imported logs) live beside the prices in their own
table, which costcalc.store.usage owns: unlike prices they are thinned with age (merged into
hours after usage.RAW_DAYS, deleted after KEEP_DAYS). A table added to an older database by
`CREATE ... IF NOT EXISTS` leaves the prices as they were."""

UNIQUE = """
DELETE FROM observations WHERE rowid NOT IN (
    SELECT min(rowid) FROM observations
    GROUP BY provider, name, region, gpu, gpu_count, spot, fetched_at
);
CREATE UNIQUE INDEX IF NOT EXISTS observations_once
    ON observations (provider, name, region, gpu, gpu_count, spot, fetched_at);
PRAGMA user_version = 2;
"""
"""Version 2: one row per observation (version 1 stored a repeated feed row twice)."""

SPARK_BARS = "▁▂▃▄▅▆▇█"


class HistoryError(CostcalcError):
    """The history database cannot be read or written."""


class Point(Struct, frozen=True):
    fetched_at: datetime
    usd_per_hour: float


class Series(Struct):
    """How the price of one offer (provider, name, region) moved."""

    provider: str
    name: str
    region: str
    gpu: str
    gpu_count: int
    points: list[Point] = field(default_factory=list)


def _stamp(moment: datetime) -> str:
    """Fixed-width UTC text, so that text order is time order in SQL."""
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


@contextmanager
def connect(path: Path | None = None) -> Iterator[sqlite3.Connection]:
    db = path or locations.history_db()
    db.parent.mkdir(parents=True, exist_ok=True)
    try:
        with closing(sqlite3.connect(db, timeout=10.0)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA busy_timeout=10000")
            conn.executescript(SCHEMA)
            if conn.execute("PRAGMA user_version").fetchone()[0] < 2:
                conn.executescript(UNIQUE)
            yield conn
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{db}: {_advice(exc)}") from exc


def _advice(exc: sqlite3.DatabaseError) -> str:
    """What went wrong and what to do: a full disk is not a broken file."""
    text = str(exc)
    if "full" in text or "No space" in text:
        return (
            "price history not written: the disk is full; free some space (the history is intact)"
        )
    if "readonly" in text or "read-only" in text:
        return "price history not written: the file or its directory is read-only"
    return f"price history unusable ({text}); move the file aside to start a new one"


def is_empty_file(path: Path | None = None) -> bool:
    """True when the history file exists with no bytes at all: whatever it held is gone (a
    disk or a copy failed), and SQLite would start a new one without a word."""
    db = path or locations.history_db()
    try:
        return db.is_file() and db.stat().st_size == 0
    except OSError:
        return False


def record(offers: Sequence[CloudOffer], fetched_at: datetime, path: Path | None = None) -> int:
    """Append observations in a single transaction (all of them or none); an observation already
    recorded is not stored again. Returns how many were new."""
    providers = ",".join(sorted({o.provider for o in offers}))
    with connect(path) as conn, conn:
        cursor = conn.execute(
            "INSERT INTO refreshes (fetched_at, providers) VALUES (?, ?)",
            (_stamp(fetched_at), providers),
        )
        refresh_id = cursor.lastrowid
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO observations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    refresh_id,
                    o.provider,
                    o.name,
                    o.region,
                    o.gpu,
                    o.gpu_count,
                    o.usd_per_hour,
                    int(o.spot),
                    o.interruption_bucket,
                    o.savings_pct,
                    _stamp(o.fetched_at),
                )
                for o in offers
            ],
        )
        added = conn.total_changes - before
        if not added:  # nothing new: no refresh row that records nothing
            conn.execute("DELETE FROM refreshes WHERE id = ?", (refresh_id,))
        return added


def reconcile(held: Sequence[CloudOffer], path: Path | None = None) -> int:
    """Record the prices of the snapshots in use that history lacks (a refresh killed between
    writing a snapshot and recording it); returns how many were missing."""
    if not held:
        return 0
    return record(held, max(o.fetched_at for o in held), path)


def query(
    gpu: str | Collection[str] | None = None,
    provider: str | None = None,
    region: str | None = None,
    path: Path | None = None,
    held: Sequence[CloudOffer] = (),
) -> list[Series]:
    """Every series matching the filters, points oldest first: what was recorded, plus `held`,
    the prices of the snapshots in use (one point each, at their dates). `gpu`: a catalog key,
    or several (a family's)."""
    gpus = None if gpu is None else frozenset((gpu,) if isinstance(gpu, str) else gpu)
    series: dict[tuple[str, str, str], Series] = {}
    seen: set[tuple[str, str, str, datetime]] = set()
    for prov, name, reg, key, count, when, usd in _recorded(gpus, provider, region, path):
        one = series.setdefault((prov, name, reg), Series(prov, name, reg, key, count))
        one.points.append(Point(when, usd))
        seen.add((prov, name, reg, when))
    for o in held:
        if (gpus is not None and o.gpu not in gpus) or provider not in (None, o.provider):
            continue
        if region not in (None, o.region) or (o.provider, o.name, o.region, o.fetched_at) in seen:
            continue
        one = series.setdefault(
            (o.provider, o.name, o.region),
            Series(o.provider, o.name, o.region, o.gpu, o.gpu_count),
        )
        one.points.append(Point(o.fetched_at, o.usd_per_hour))
        one.points.sort(key=lambda p: p.fetched_at)
    return sorted(series.values(), key=lambda s: (s.provider, s.gpu, s.region, s.name))


def _recorded(
    gpus: frozenset[str] | None, provider: str | None, region: str | None, path: Path | None
) -> list[tuple[str, str, str, str, int, datetime, float]]:
    db = path or locations.history_db()
    if not db.exists():
        return []
    clauses, params = [], []
    if gpus is not None:
        clauses.append(f"gpu IN ({', '.join('?' * len(gpus))})")
        params.extend(sorted(gpus))
    for column, value in (("provider", provider), ("region", region)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql = (
        "SELECT provider, name, region, gpu, gpu_count, fetched_at, usd_per_hour "
        f"FROM observations {where} ORDER BY provider, gpu, region, name, fetched_at"
    )
    with connect(db) as conn:
        return [
            (prov, name, reg, key, count, datetime.fromisoformat(stamp), usd)
            for prov, name, reg, key, count, stamp, usd in conn.execute(sql, params)
        ]


def sparkline(values: Sequence[float]) -> str:
    """One bar per value, scaled between the lowest and highest: '▁▃█'."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high - low < 1e-12:
        return SPARK_BARS[len(SPARK_BARS) // 2 - 1] * len(values)
    top = len(SPARK_BARS) - 1
    return "".join(SPARK_BARS[round((v - low) / (high - low) * top)] for v in values)
