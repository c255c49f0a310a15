"""A measured utilisation in words: the line under the verdict, its 'why this number' and the
summary `costcalc monitor --show` prints.

Rule kept here: formatting only; every figure is costcalc.core.usage's."""

from __future__ import annotations

from costcalc.core.usage import MeasuredUse, inside_spread
from costcalc.present.display import percent, safe


def last_days(days: int) -> str:
    """'the last 30 days', 'the last day'."""
    return "the last day" if days == 1 else f"the last {days} days"


def period_text(m: MeasuredUse) -> str:
    """'2026-10-29 to 2026-11-28' (times when it is under two days)."""
    if (m.end - m.start).total_seconds() < 2 * 86_400:
        return f"{m.start:%Y-%m-%d %H:%M} to {m.end:%Y-%m-%d %H:%M} UTC"
    return f"{m.start:%Y-%m-%d} to {m.end:%Y-%m-%d}"


def spread_text(m: MeasuredUse) -> str | None:
    """'weekly 8%-31% over 4 weeks', or None with fewer than two weeks (or days)."""
    if m.spread_low is None or m.spread_high is None or m.spread_unit is None:
        return None
    unit = "weekly" if m.spread_unit == "week" else "daily"
    return (
        f"{unit} {percent(m.spread_low)}-{percent(m.spread_high)} over "
        f"{m.spread_count} {m.spread_unit}s"
    )


def gpus_text(m: MeasuredUse) -> str:
    """'2 GPUs on gpu-box' or '1 GPU on 2 hosts'."""
    gpus = f"{m.gpus} GPU{'s' if m.gpus != 1 else ''}"
    if len(m.hosts) == 1:
        return f"{gpus} on {safe(m.hosts[0])}"
    return f"{gpus} on {len(m.hosts)} hosts" if m.hosts else gpus


def summary_text(m: MeasuredUse) -> str:
    """'23% of the GPU-hours from 2026-10-29 to 2026-11-28 (2 GPUs on gpu-box, samples cover
    97%; weekly 8%-31% over 4 weeks)'."""
    spread = spread_text(m)
    return (
        f"{percent(m.busy_share)} of the GPU-hours from {period_text(m)} ({gpus_text(m)}, "
        f"samples cover {percent(m.coverage)}{'; ' + spread if spread else ''})"
    )


def power_text(m: MeasuredUse) -> str | None:
    """'287 W per GPU when busy (median)', or None without power readings."""
    if m.load_w is None:
        return None
    return f"{m.load_w:,.0f} W per GPU when busy (median)"


def verdict_line(m: MeasuredUse, break_even: float | None) -> str:
    """The line under the verdict: what was measured, and whether the verdict's break-even
    utilisation lies inside the measured spread (a busier or quieter week flips it)."""
    text = f"Utilisation measured over {last_days(m.window_days)}: {summary_text(m)}"
    if m.load_w_used:
        text += f"; {power_text(m)}, the desktop's GPU watts"
    if inside_spread(m, break_even) and break_even is not None:
        text += f". The break-even {percent(break_even)} lies inside that spread"
    return text + "."


def compact_text(m: MeasuredUse) -> str:
    """The app's: '23% measured (30 days, weekly 8%-31%)'."""
    spread = spread_text(m)
    days = f"{m.window_days} day{'s' if m.window_days != 1 else ''}"
    detail = days + (f", {spread.split(' over ')[0]}" if spread else "")
    return f"{percent(m.busy_share)} measured ({detail})"


def explain_lines(m: MeasuredUse) -> tuple[str, ...]:
    """How the busy share, its spread and the power were made, for 'why this number'."""
    lines = [
        f"busy share = busy GPU-hours / GPU-hours of the period = {_hours(m.busy_gpu_h)} / "
        f"{_hours(m.period_gpu_h)} = {percent(m.busy_share)}",
        f"a sample is busy from {m.threshold_pct:g}% utilization.gpu (NVML: the share of its "
        "last sample period a kernel ran) and counts for its interval; time without samples "
        "counts as idle",
        f"period {period_text(m)}, {gpus_text(m)}, {m.samples:,} samples "
        f"({', '.join(safe(s) for s in m.sources)}), covering {percent(m.coverage)} of it",
    ]
    spread = spread_text(m)
    if spread is not None:
        lines.append(f"spread: {spread}")
    if m.kernel_share is not None:
        lines.append(
            f"while busy, kernels ran {percent(m.kernel_share)} of the time (mean "
            "utilization.gpu): a job holds the GPU, and a rented one bills, all of it"
        )
    power = power_text(m)
    if power is not None:
        used = (
            "the desktop's GPU watts"
            if m.load_w_used
            else "not used: --gpu-watts was given, or the desktop's GPU is not the one sampled"
        )
        lines.append(f"power under load: {power}; {used}")
    return tuple(lines)


def _hours(value: float) -> str:
    """'165.6 h', '0.0278 h': a short sample still shows its hours."""
    return f"{value:,.1f} h" if value >= 0.1 else f"{value:.2g} h"
