"""Price history: every observation every refresh made, in SQLite, never rewritten.

Rule kept here: history is append-only. One refresh is one transaction (all its observations or
none), the database runs in WAL mode so `costcalc history` can read while cron writes, and a
broken database is reported in one line, never silently recreated.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from costcalc import locations
from costcalc.errors import CostcalcError
from costcalc.models import CloudOffer

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
"""

SPARK_BARS = "▁▂▃▄▅▆▇█"


class HistoryError(CostcalcError):
    """The history database cannot be read or written."""


@dataclass(frozen=True)
class Point:
    fetched_at: datetime
    usd_per_hour: float


@dataclass
class Series:
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
            yield conn
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{db}: price history unusable ({exc})") from exc


def record(offers: Sequence[CloudOffer], fetched_at: datetime, path: Path | None = None) -> int:
    """Append one refresh's observations in a single transaction; returns how many."""
    providers = ",".join(sorted({o.provider for o in offers}))
    with connect(path) as conn, conn:
        cursor = conn.execute(
            "INSERT INTO refreshes (fetched_at, providers) VALUES (?, ?)",
            (_stamp(fetched_at), providers),
        )
        refresh_id = cursor.lastrowid
        conn.executemany(
            "INSERT INTO observations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    return len(offers)


def query(
    gpu: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    path: Path | None = None,
) -> list[Series]:
    """Every series matching the filters, points oldest first; empty when there is no history."""
    db = path or locations.history_db()
    if not db.exists():
        return []
    clauses, params = [], []
    for column, value in (("gpu", gpu), ("provider", provider), ("region", region)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql = (
        "SELECT provider, name, region, gpu, gpu_count, fetched_at, usd_per_hour "
        f"FROM observations {where} ORDER BY provider, gpu, region, name, fetched_at"
    )
    series: dict[tuple[str, str, str], Series] = {}
    with connect(db) as conn:
        for prov, name, reg, key, count, stamp, usd in conn.execute(sql, params):
            one = series.setdefault((prov, name, reg), Series(prov, name, reg, key, count))
            one.points.append(Point(datetime.fromisoformat(stamp), usd))
    return list(series.values())


def sparkline(values: Sequence[float]) -> str:
    """One bar per value, scaled between the lowest and highest: '▁▃█'."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high - low < 1e-12:
        return SPARK_BARS[len(SPARK_BARS) // 2 - 1] * len(values)
    top = len(SPARK_BARS) - 1
    return "".join(SPARK_BARS[round((v - low) / (high - low) * top)] for v in values)
