"""The monitor job: this machine's GPUs, read at an interval into the history database, until a
count, a duration or a signal stops it. A feed like the refresh job's, from the GPU itself.

Rules kept here:
- readings are written in batches (every FLUSH_S of samples, one transaction each) and once more
  when the job stops, so a stop (SIGINT, SIGTERM: the caller sets `stop`) loses nothing read;
- a sample stands for the interval after it: the busy share counts it that long;
- after a stall (a suspended laptop) the schedule restarts from now: no burst of samples to
  catch up, and the time missed counts as idle, as a machine asleep does no work;
- the clock and the wait are passed in (`clock`, `stop.wait`), so a test runs a day of samples
  in a second with only the GPU faked.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from costcalc.edge.nvml import Gpus, Reading
from costcalc.store import usage

if TYPE_CHECKING:
    from pathlib import Path

FLUSH_S = 300.0
"""Seconds of samples kept in memory before they are written: a write every 5 minutes."""
THIN_S = 3600.0
"""How often a long run merges and deletes old samples (store.usage.thin)."""


class Stop(Protocol):
    """What tells the job to stop: a threading.Event, set by a signal handler."""

    def wait(self, timeout: float | None = None) -> bool: ...

    def is_set(self) -> bool: ...


class Outcome(Struct, frozen=True):
    samples: int
    """Readings taken (one per GPU each)."""
    written: int
    gpus: int
    stopped: bool
    """Stopped by a signal rather than by its count or duration."""


def run(
    gpus: Gpus,
    *,
    host: str,
    interval_s: float,
    clock: Callable[[], datetime],
    stop: Stop,
    samples: int | None = None,
    duration_s: float | None = None,
    flush_s: float = FLUSH_S,
    path: Path | None = None,
) -> Outcome:
    """Read every GPU each `interval_s` until `samples` readings, `duration_s` seconds or
    `stop`; the samples go to the history database (`path`, default the user's)."""
    usage.thin(clock(), path)
    started = due = flushed = thinned = clock()
    batch: list[usage.Sample] = []
    taken = written = 0
    stopped = False
    while True:
        now = clock()
        batch += [_sample(r, host, interval_s) for r in gpus.read(now)]
        taken += 1
        if samples is not None and taken >= samples:
            break
        if duration_s is not None and (now - started).total_seconds() + interval_s >= duration_s:
            break
        if (now - flushed).total_seconds() >= flush_s:
            written += usage.record(batch, path)
            batch, flushed = [], now
            if (now - thinned).total_seconds() >= THIN_S:
                usage.thin(now, path)
                thinned = now
        due += timedelta(seconds=interval_s)
        wait_s = (due - clock()).total_seconds()
        if wait_s < 0:
            due, wait_s = clock(), 0.0
        if stop.is_set() or stop.wait(wait_s):
            stopped = True
            break
    written += usage.record(batch, path)
    return Outcome(taken, written, len(gpus.uuids), stopped)


def _sample(reading: Reading, host: str, interval_s: float) -> usage.Sample:
    return usage.Sample(
        host=host,
        gpu=reading.uuid or str(reading.index),
        name=reading.name,
        source="nvml",
        taken_at=reading.taken_at,
        span_s=interval_s,
        util_pct=reading.util_pct,
        memory_used_mib=reading.memory_used_mib,
        power_w=reading.power_w,
        energy_mj=reading.energy_mj,
    )
