"""The GPU's samples in the history database: written by `costcalc monitor` and by imported logs,
read back as the busy share of a window (costcalc.core.usage does the arithmetic).

Rules kept here:
- a sample is (host, GPU, time): writing it twice stores it once, so an import run twice or a
  monitor restarted counts nothing twice; each batch is one transaction, written whole or not;
- samples older than RAW_DAYS are merged into one row per GPU and hour (busy and sampled seconds
  summed, utilisation averaged over time, power averaged over busy time, the peak memory) and
  rows older than KEEP_DAYS are deleted (`thin`): a year of 10-second samples of one GPU stays
  under 10 MB, and the median power of a window older than RAW_DAYS is taken over hours;
- a window is summed in SQL (per GPU and day, and a histogram of the power when busy), so
  millions of samples reach Python as a few hundred rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from msgspec import Struct

from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.usage import (
    BUSY_UTIL_PCT,
    DAY_S,
    KEEP_DAYS,
    GpuDay,
    MeasuredUse,
    MonthlyUse,
    PowerBin,
    measure,
    month_spans,
    window_days,
)
from costcalc.edge import locations
from costcalc.store.history import _stamp, connect

if TYPE_CHECKING:
    from pathlib import Path

RAW_DAYS = 35
"""Days every sample is kept as taken: more than the default window of 30 days, whose median
power and spread are then taken over the samples themselves."""
_JD_UNIX_EPOCH = 2440587.5
"""The Julian day of 1970-01-01T00:00Z, which SQLite's julianday() counts from."""


class Sample(Struct, frozen=True):
    """One GPU at one time, standing for `span_s` seconds (the interval to the next sample)."""

    host: str
    gpu: str
    """Its UUID where the source gives one, else its index."""
    name: str
    source: str
    """nvml (costcalc monitor), nvidia-smi, dcgm or sacct."""
    taken_at: datetime
    span_s: float
    util_pct: float | None
    memory_used_mib: float | None = None
    power_w: float | None = None
    energy_mj: float | None = None
    busy_s: float | None = None
    """Busy seconds when the source says them (a Slurm export's allocated GPU-time); else the
    whole span when `util_pct` is at least BUSY_UTIL_PCT."""
    rows: int = 0
    """0 for a sample as taken; the samples or jobs it sums otherwise."""

    @property
    def busy_seconds(self) -> float:
        if self.busy_s is not None:
            return self.busy_s
        busy = self.util_pct is not None and self.util_pct >= BUSY_UTIL_PCT
        return self.span_s if busy else 0.0


def record(samples: Sequence[Sample], path: Path | None = None) -> int:
    """Write `samples` in one transaction; returns how many were new."""
    if not samples:
        return 0
    with connect(path) as conn, conn:
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO gpu_samples (host, gpu, name, source, taken_at, span_s, "
            "busy_s, util_pct, memory_used_mib, power_w, energy_mj, merged) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    s.host,
                    s.gpu,
                    s.name,
                    s.source,
                    _stamp(s.taken_at),
                    s.span_s,
                    s.busy_seconds,
                    s.util_pct,
                    s.memory_used_mib,
                    s.power_w,
                    s.energy_mj,
                    s.rows,
                )
                for s in samples
            ],
        )
        return conn.total_changes - before


_OLD_ROWS = """
    taken_at < :raw AND (merged = 0 OR (host, gpu, substr(taken_at, 1, 13)) IN (
        SELECT host, gpu, substr(taken_at, 1, 13) FROM gpu_samples
        WHERE merged = 0 AND taken_at < :raw))
"""
"""Samples older than the raw cutoff, with the hour rows they are to be merged into."""

_MERGE = f"""
CREATE TEMP TABLE hours AS SELECT
    host, gpu, max(name) AS name, max(source) AS source,
    substr(taken_at, 1, 13) || ':00:00.000000+00:00' AS hour,
    sum(span_s) AS span_s, sum(busy_s) AS busy_s,
    sum(util_pct * span_s) / nullif(sum(CASE WHEN util_pct IS NOT NULL THEN span_s END), 0)
        AS util_pct,
    max(memory_used_mib) AS memory_used_mib,
    sum(CASE WHEN busy_s > 0 THEN power_w * busy_s END)
        / nullif(sum(CASE WHEN busy_s > 0 AND power_w IS NOT NULL THEN busy_s END), 0)
        AS power_w,
    sum(CASE WHEN merged = 0 THEN 1 ELSE merged END) AS rows
FROM gpu_samples WHERE {_OLD_ROWS} GROUP BY host, gpu, hour;
"""


def thin(now: datetime, path: Path | None = None) -> int:
    """Merge samples older than RAW_DAYS into hours and delete rows older than KEEP_DAYS, in one
    transaction; returns the rows removed."""
    keep = _stamp(now - timedelta(days=KEEP_DAYS))
    hour = now.astimezone(timezone.utc).replace(minute=0, second=0, microsecond=0)
    raw = _stamp(hour - timedelta(days=RAW_DAYS))  # whole hours only: an hour is merged once
    with connect(path) as conn, conn:
        before = conn.total_changes
        conn.execute("DELETE FROM gpu_samples WHERE taken_at < ?", (keep,))
        deleted = conn.total_changes - before
        if conn.execute(
            "SELECT 1 FROM gpu_samples WHERE merged = 0 AND taken_at < ? LIMIT 1", (raw,)
        ).fetchone():
            conn.execute("DROP TABLE IF EXISTS temp.hours")
            conn.execute(_MERGE, {"raw": raw})
            gone = conn.execute(f"DELETE FROM gpu_samples WHERE {_OLD_ROWS}", {"raw": raw})
            conn.execute(
                "INSERT INTO gpu_samples (host, gpu, name, source, taken_at, span_s, busy_s, "
                "util_pct, memory_used_mib, power_w, energy_mj, merged) SELECT host, gpu, "
                "name, source, hour, span_s, busy_s, util_pct, memory_used_mib, power_w, NULL, "
                "rows FROM temp.hours"
            )
            added = conn.execute("SELECT count(*) FROM temp.hours").fetchone()[0]
            conn.execute("DROP TABLE temp.hours")
            deleted += gone.rowcount - added
        return deleted


def measured_use(text: str, now: datetime, path: Path | None = None) -> MeasuredUse:
    """The busy share `text` (`measured`, `measured:14d`) asks for, from the samples of the
    window that ends `now`; CostcalcError saying how to get samples when there are none."""
    days = window_days(text)
    db_text = str(path) if path is not None else locations.history_db_text()
    found = read_window(days, now, path) if locations.exists(db_text) else None
    if found is None:
        raise CostcalcError(
            f"utilisation {quoted(text)}: no GPU samples in the last {days} days in {db_text}; "
            "run `costcalc monitor` on the desktop, or import a log with "
            "`costcalc monitor --import FILE` (docs/monitor.md)"
        )
    return found


def read_window(days: int, now: datetime, path: Path | None = None) -> MeasuredUse | None:
    """The samples of the `days` before `now`, summed and measured; None without any."""
    return read_span(now - timedelta(days=days), now, days, path)


def monthly_use(now: datetime, path: Path | None = None) -> MonthlyUse:
    """The busy share of each of the last twelve calendar months, each measured as a window of
    its own (`read_span`); CostcalcError saying how to get samples when no month has any."""
    db_text = str(path) if path is not None else locations.history_db_text()
    shares: list[float | None] = [None] * 12
    gpus = 0
    spans = month_spans(now)
    if locations.exists(db_text):
        for start, end in spans:
            days = max(math.ceil((end - start).total_seconds() / DAY_S), 1)
            found = read_span(start, end, days, path)
            if found is not None:
                shares[start.month - 1] = found.busy_share
                gpus = max(gpus, found.gpus)
    if gpus == 0:
        raise CostcalcError(
            f"profile 'measured': no GPU samples in the last twelve months in {db_text}; "
            "run `costcalc monitor` on the desktop, or import a log with "
            "`costcalc monitor --import FILE` (docs/monitor.md), or give the months as "
            "jan:400,feb:300,..."
        )
    return MonthlyUse(tuple(shares), spans[0][0], now, gpus)


def read_span(
    start: datetime, end: datetime, window: int, path: Path | None = None
) -> MeasuredUse | None:
    """The samples from `start` to `end` (a window of `window` days from `start`), summed and
    measured; None without any."""
    now = end
    span = {"start": _stamp(start), "end": _stamp(now), "jd0": _julian(start)}
    where = "taken_at >= :start AND taken_at < :end"
    with connect(path) as conn:
        gpu_days = [
            GpuDay(
                gpu=f"{host}/{gpu}",
                day=day,
                busy_s=busy,
                sampled_s=sampled,
                samples=rows,
                first_at=datetime.fromisoformat(first),
                last_end_at=_from_julian(last_end),
                util_busy_s=util_busy,
                util_known_busy_s=util_known,
            )
            for host, gpu, day, busy, sampled, rows, first, last_end, util_busy, util_known in (
                conn.execute(
                    "SELECT host, gpu, CAST(julianday(taken_at) - :jd0 AS INTEGER) AS day, "
                    "sum(busy_s), sum(span_s), sum(CASE WHEN merged = 0 THEN 1 ELSE merged END), "
                    "min(taken_at), max(julianday(taken_at) + span_s / 86400.0), "
                    "sum(CASE WHEN util_pct IS NOT NULL THEN util_pct / 100.0 * busy_s "
                    "ELSE 0 END), sum(CASE WHEN util_pct IS NOT NULL THEN busy_s ELSE 0 END) "
                    f"FROM gpu_samples WHERE {where} GROUP BY host, gpu, day",
                    span,
                )
            )
        ]
        bins = [
            PowerBin(watts, busy)
            for watts, busy in conn.execute(
                "SELECT round(power_w), sum(busy_s) FROM gpu_samples "
                f"WHERE {where} AND busy_s > 0 AND power_w IS NOT NULL GROUP BY round(power_w)",
                span,
            )
        ]
        labels = conn.execute(
            f"SELECT DISTINCT host, name, source FROM gpu_samples WHERE {where}", span
        ).fetchall()
        peak = conn.execute(
            f"SELECT max(memory_used_mib) FROM gpu_samples WHERE {where}", span
        ).fetchone()[0]
    return measure(
        gpu_days,
        bins,
        start,
        window,
        names=[name for _, name, _ in labels if name],
        hosts=[host for host, _, _ in labels],
        sources=[source for _, _, source in labels],
        peak_memory_mib=peak,
    )


def summarise(samples: Sequence[Sample]) -> MeasuredUse | None:
    """The busy share of `samples` alone, over their own period (what an imported log holds),
    summed as `read_window` sums the database's."""
    if not samples:
        return None
    start = min(s.taken_at for s in samples)
    end = max(s.taken_at + timedelta(seconds=s.span_s) for s in samples)
    days = max(math.ceil((end - start).total_seconds() / DAY_S), 1)
    sums: dict[tuple[str, int], list[Sample]] = {}
    power: dict[float, float] = {}
    for s in samples:
        day = int((s.taken_at - start).total_seconds() // DAY_S)
        sums.setdefault((f"{s.host}/{s.gpu}", day), []).append(s)
        if s.busy_seconds > 0 and s.power_w is not None:
            watts = float(round(s.power_w))
            power[watts] = power.get(watts, 0.0) + s.busy_seconds
    gpu_days = [
        GpuDay(
            gpu=gpu,
            day=day,
            busy_s=sum(s.busy_seconds for s in found),
            sampled_s=sum(s.span_s for s in found),
            samples=sum(s.rows or 1 for s in found),
            first_at=min(s.taken_at for s in found),
            last_end_at=max(s.taken_at + timedelta(seconds=s.span_s) for s in found),
            util_busy_s=sum(
                s.util_pct / 100 * s.busy_seconds for s in found if s.util_pct is not None
            ),
            util_known_busy_s=sum(s.busy_seconds for s in found if s.util_pct is not None),
        )
        for (gpu, day), found in sums.items()
    ]
    memory = [s.memory_used_mib for s in samples if s.memory_used_mib is not None]
    return measure(
        gpu_days,
        [PowerBin(w, b) for w, b in power.items()],
        start,
        days,
        names=[s.name for s in samples if s.name],
        hosts=[s.host for s in samples],
        sources=[s.source for s in samples],
        peak_memory_mib=max(memory) if memory else None,
    )


class Held(Struct, frozen=True):
    """What the history holds of one host's samples from one source."""

    host: str
    source: str
    gpus: int
    rows: int
    first_at: datetime
    last_at: datetime


def held(path: Path | None = None) -> list[Held]:
    """Every host and source the samples come from, oldest first."""
    db_text = str(path) if path is not None else locations.history_db_text()
    if not locations.exists(db_text):
        return []
    with connect(path) as conn:
        rows = conn.execute(
            "SELECT host, source, count(DISTINCT gpu), count(*), min(taken_at), max(taken_at) "
            "FROM gpu_samples GROUP BY host, source ORDER BY min(taken_at)"
        ).fetchall()
    return [
        Held(host, source, gpus, n, datetime.fromisoformat(first), datetime.fromisoformat(last))
        for host, source, gpus, n, first, last in rows
    ]


def forget(host: str, path: Path | None = None) -> int:
    """Delete every sample of `host` (an import of the wrong file); returns how many."""
    with connect(path) as conn, conn:
        return int(conn.execute("DELETE FROM gpu_samples WHERE host = ?", (host,)).rowcount)


def _julian(moment: datetime) -> float:
    return moment.timestamp() / 86_400 + _JD_UNIX_EPOCH


def _from_julian(day: float) -> datetime:
    return datetime.fromtimestamp((day - _JD_UNIX_EPOCH) * 86_400, tz=timezone.utc)
