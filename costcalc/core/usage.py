"""Utilisation measured instead of guessed: the GPU's busy share over a window of samples.

costcalc's utilisation is the share of all hours the GPU works (DOMAIN.md section 1): the hours
a cloud GPU would be rented for the same work. A sample counts as busy when NVML's
`utilization.gpu` (the share of its last sample period, 1/6 s to 1 s, in which a kernel ran) is
at least BUSY_UTIL_PCT; the busy share is the busy GPU-time over the GPU-time of the period.
The mean of `utilization.gpu` would be a different figure: a training job that keeps kernels
running 60 % of the time still holds the GPU, and a rented one, all of its hours, so the mean
would price 60 % of the hours the cloud bills. The mean while busy is reported beside it.

The period of one GPU runs from its first sample in the window to the newest sample of all;
time inside it without a sample counts as idle (a machine that is off does no work), and the
share of it the samples cover is said, so a monitor that stopped for a week is visible.

Rule kept here: pure. The store sums the samples per GPU and day of the window
(costcalc.store.usage) and hands the sums in; nothing here reads a file or a clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Literal

from msgspec import Struct

from costcalc.core.errors import CostcalcError, quoted

MEASURED = "measured"
"""What `--util` takes for the measured busy share (`measured:14d` for another window)."""
MEASURED_PATTERN = r"measured(?::(\d{1,4})d)?"
"""Every way to write it: `measured`, `measured:7d`."""
MEASURED_TEXT = f"^{MEASURED_PATTERN}$"
"""The pattern a Scenario's utilisation text must match."""
DEFAULT_WINDOW_DAYS = 30
KEEP_DAYS = 400
"""Samples older than this are deleted (costcalc.store.usage.thin); no window reaches past it."""
BUSY_UTIL_PCT = 10.0
"""A sample is busy from this `utilization.gpu` on: an idle desktop GPU that drives the screens
reads 0-5 %, video playback up to about 10 %, training tens of percent (docs/monitor.md)."""
DAY_S = 86_400.0

Unit = Literal["week", "day"]


def is_measured(value: object) -> bool:
    """Whether a utilisation value asks for the measured busy share."""
    return isinstance(value, str) and re.fullmatch(MEASURED_PATTERN, value) is not None


def window_days(text: str) -> int:
    """The window `measured` or `measured:14d` names, in days (1 to KEEP_DAYS)."""
    found = re.fullmatch(MEASURED_PATTERN, text.strip().lower())
    if found is None:
        raise CostcalcError(f"utilisation: write measured or measured:14d, got {quoted(text)}")
    days = int(found[1]) if found[1] else DEFAULT_WINDOW_DAYS
    if not 1 <= days <= KEEP_DAYS:
        raise CostcalcError(
            f"utilisation {quoted(text)}: the window is 1 to {KEEP_DAYS} days (samples are kept "
            f"{KEEP_DAYS} days)"
        )
    return days


class MonthlyUse(Struct, frozen=True):
    """The busy share of each calendar month of the last twelve (the current one up to now),
    from the history's samples: what `--profile measured` makes the hybrid plan's year of."""

    shares: tuple[float | None, ...]
    """Twelve shares, January first; None for a month without a sample."""
    start: datetime
    """The first of the twelve months' first day."""
    end: datetime
    """When it was read: the current month is measured up to here."""
    gpus: int
    """The most GPUs a month's samples came from."""


def month_spans(now: datetime) -> list[tuple[datetime, datetime]]:
    """The last twelve calendar months as (first instant, end), oldest first: the current
    month ends at `now`, the others at the next month's first instant (UTC)."""
    first = datetime(now.year, now.month, 1, tzinfo=timezone.utc)
    starts = []
    for back in range(11, -1, -1):
        year, month = divmod(first.month - 1 - back, 12)
        starts.append(first.replace(year=first.year + year, month=month + 1))
    ends = [*starts[1:], now]
    return list(zip(starts, ends, strict=True))


class GpuDay(Struct, frozen=True):
    """One GPU's samples on one day of the window, summed (what the store's query returns)."""

    gpu: str
    """The GPU, as host/uuid (or host/index where a log gives no UUID)."""
    day: int
    """Day of the window, 0 the first."""
    busy_s: float
    sampled_s: float
    """Seconds the day's samples stand for (each sample its interval)."""
    samples: int
    first_at: datetime
    last_end_at: datetime
    """The last sample's time plus its interval."""
    util_busy_s: float = 0.0
    """Sum of utilization.gpu / 100 x busy seconds, over busy samples that report it."""
    util_known_busy_s: float = 0.0
    """Busy seconds whose samples report utilization.gpu (a Slurm export reports none)."""


class PowerBin(Struct, frozen=True):
    """Busy seconds at one whole number of watts: the store's histogram of power when busy."""

    watts: float
    busy_s: float


class MeasuredUse(Struct, frozen=True):
    """The measured busy share of a window, its spread and the power when busy."""

    busy_share: float
    window_days: int
    start: datetime
    """The period's start: the first sample in the window."""
    end: datetime
    """The period's end: the newest sample (plus its interval)."""
    gpus: int
    busy_gpu_h: float
    period_gpu_h: float
    coverage: float
    """Share of the period's GPU-time the samples stand for (the rest counted idle)."""
    samples: int
    names: tuple[str, ...] = ()
    """The GPUs' names as the samples give them ('NVIDIA GeForce RTX 3090')."""
    hosts: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    """nvml (costcalc monitor), nvidia-smi, dcgm, sacct."""
    spread_unit: Unit | None = None
    spread_low: float | None = None
    spread_high: float | None = None
    spread_count: int = 0
    """Weeks (or days, in a window of under two weeks of samples) the spread is taken over."""
    load_w: float | None = None
    """Median power of one GPU over busy samples (each weighted by its busy seconds)."""
    kernel_share: float | None = None
    """Mean utilization.gpu while busy: how much of the busy time kernels ran."""
    peak_memory_mib: float | None = None
    threshold_pct: float = BUSY_UTIL_PCT
    load_w_used: bool = False
    """Set by the evaluation: the desktop's GPU watts are `load_w` (same GPU, no --gpu-watts)."""


def measure(
    days: Sequence[GpuDay],
    power: Sequence[PowerBin],
    start: datetime,
    window: int,
    *,
    names: Sequence[str] = (),
    hosts: Sequence[str] = (),
    sources: Sequence[str] = (),
    peak_memory_mib: float | None = None,
) -> MeasuredUse | None:
    """The busy share of the window that starts at `start` and lasts `window` days, from its
    samples summed per GPU and day; None without a sample."""
    if not days:
        return None
    window_end = start + timedelta(days=window)
    end = min(max(d.last_end_at for d in days), window_end)
    firsts: dict[str, datetime] = {}
    for d in days:
        firsts[d.gpu] = min(d.first_at, firsts.get(d.gpu, d.first_at))
    available = [0.0] * window
    for first in firsts.values():
        for day in range(window):
            available[day] += _overlap_s(start, day, first, end)
    busy = [0.0] * window
    for d in days:
        if 0 <= d.day < window:
            busy[d.day] += d.busy_s
    period_s = sum(available)
    if period_s <= 0:
        return None
    busy_s = min(sum(busy), period_s)
    sampled_s = sum(d.sampled_s for d in days)
    util_known = sum(d.util_known_busy_s for d in days)
    unit, low, high, count = spread(busy, available, min(firsts.values()), end)
    return MeasuredUse(
        busy_share=busy_s / period_s,
        window_days=window,
        start=min(firsts.values()),
        end=end,
        gpus=len(firsts),
        busy_gpu_h=busy_s / 3600,
        period_gpu_h=period_s / 3600,
        coverage=min(sampled_s / period_s, 1.0),
        samples=sum(d.samples for d in days),
        names=tuple(sorted(set(names))),
        hosts=tuple(sorted(set(hosts))),
        sources=tuple(sorted(set(sources))),
        spread_unit=unit,
        spread_low=low,
        spread_high=high,
        spread_count=count,
        load_w=weighted_median([(b.watts, b.busy_s) for b in power]),
        kernel_share=sum(d.util_busy_s for d in days) / util_known if util_known > 0 else None,
        peak_memory_mib=peak_memory_mib,
    )


def _overlap_s(start: datetime, day: int, first: datetime, end: datetime) -> float:
    """Seconds of day `day` of the window between a GPU's first sample and the period's end."""
    day_start = start + timedelta(days=day)
    low, high = max(day_start, first), min(day_start + timedelta(days=1), end)
    return max((high - low).total_seconds(), 0.0)


def spread(
    busy: Sequence[float], available: Sequence[float], first: datetime, end: datetime
) -> tuple[Unit | None, float | None, float | None, int]:
    """The lowest and highest busy share of the period's weeks (its days when it is under two
    weeks long), counted back from the window's last day; a week or day counts when at least
    half of it lies in the period."""
    unit: Unit = "week" if (end - first).total_seconds() >= 14 * DAY_S else "day"
    size = 7 if unit == "week" else 1
    shares = []
    most = max(available) * size
    for stop in range(len(busy), 0, -size):
        begin = max(stop - size, 0)
        there = sum(available[begin:stop])
        if there > 0 and there >= 0.5 * most:
            shares.append(min(sum(busy[begin:stop]) / there, 1.0))
    if len(shares) < 2:
        return None, None, None, len(shares)
    return unit, min(shares), max(shares), len(shares)


def weighted_median(pairs: Sequence[tuple[float, float]]) -> float | None:
    """The value below which half the weight lies: the median of power over busy time."""
    pairs = sorted((v, w) for v, w in pairs if w > 0)
    total = sum(w for _, w in pairs)
    if total <= 0:
        return None
    running = 0.0
    for value, weight in pairs:
        running += weight
        if running >= total / 2:
            return value
    return pairs[-1][0]


def inside_spread(use: MeasuredUse, share: float | None) -> bool:
    """Whether a utilisation (the break-even one) lies within the measured weekly spread: a
    week like the busiest or the quietest would then have given the other answer."""
    if share is None or use.spread_low is None or use.spread_high is None:
        return False
    return use.spread_low <= share <= use.spread_high
