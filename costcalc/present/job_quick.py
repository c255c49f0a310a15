"""The job of a `quick --model` answer in words: the line under the verdict, its JSON and its
"why this number" (costcalc.core.job_quick.QuickJob, made by `scenario.evaluate`).

Rule kept here: pure, and nothing computed here but the ratios the core's figures already imply;
the hours, memory and utilisation are the ones `evaluate` made from costcalc job's models, and
the explanation repeats `costcalc job`'s own lines (present/job_report) for the desktop and the
offer, so a reader lands on the table's speed as the desktop's hours over the offer's.
"""

from __future__ import annotations

from typing import Any

from costcalc.core import engine, memfit
from costcalc.core.job_quick import QuickJob, time_key
from costcalc.core.job_time import JobTime
from costcalc.core.models import GpuSpec, OfferResult
from costcalc.core.records import plain
from costcalc.present.explain import Explanation, num


def _h(hours: float) -> str:
    """'0.4 h', '66 h', '2,569 h' (as costcalc job says them)."""
    return f"{hours:.1f} h" if hours < 10 else f"{hours:,.0f} h"


def share(value: float) -> str:
    """'7.6%', '15%': a utilisation made from runs, to the figure the runs give."""
    return f"{value * 100:.2g}%" if value < 0.1 else f"{value * 100:.0f}%"


def runs(value: float) -> str:
    """'10', '2.5', '1,200': runs a year."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def run_text(job: QuickJob, spec: GpuSpec, gpu_count: int) -> str:
    """'a run of Llama 3.1 8B (LoRA rank 16 on 200M tokens ..., bf16, AdamW) takes ~66 h
    (54-79 h) on your RTX 3090'."""
    t = job.desktop
    band = f"{_h(t.hours_low)[:-2]}-{_h(t.hours_high)}"
    gpus = f"{gpu_count}x {spec.short_name}" if gpu_count > 1 else spec.short_name
    return (
        f"a run of {job.text.model} ({job.text.how}) takes ~{_h(job.hours)} ({band}) on your {gpus}"
    )


def job_line(job: QuickJob, spec: GpuSpec, gpu_count: int, utilisation: float) -> str:
    """The line under the verdict: the run, its memory against the desktop's, and the runs a
    year the utilisation stands for (or that were given)."""
    memory = job.memory
    per_gpu = f"{memory.total_gb:.1f} GB per GPU"
    if job.fits:
        held = f"{per_gpu} of its {job.usable_gb:.1f} GB usable"
    else:
        held = f"{per_gpu}, more than its {job.usable_gb:.1f} GB usable (`costcalc job` says "
        held += "what would fit)"
    if not memory.complete:
        held += " (its activations are not modelled)"
    if job.runs_per_year is not None:
        year = (
            f"{runs(job.runs_per_year)} runs a year keep it busy {share(utilisation)} of the "
            "year's hours"
        )
    else:
        year = (
            f"{share(utilisation)} utilisation is {runs(job.runs_at(utilisation))} runs a year "
            "(--runs-per-year sets them)"
        )
    return f"The job: {run_text(job, spec, gpu_count)} and needs {held}; {year}."


def utilisation_words(job: QuickJob | None, utilisation: float) -> str | None:
    """'10 runs a year (7.6% utilisation)' for the verdict, when the runs made it; else None."""
    if job is None or job.runs_per_year is None:
        return None
    return f"{runs(job.runs_per_year)} runs a year ({share(utilisation)} utilisation)"


# --------------------------------------------------------------------------- JSON


def to_json(job: QuickJob, utilisation: float) -> dict[str, Any]:
    """The job as `quick --json` carries it: the model, the job's inputs, the run on the
    desktop (hours with their band, memory per GPU, fits), and the runs a year."""
    j, t, m = job.job, job.desktop, job.job.model
    return {
        "model": {"key": m.key, "name": m.name, "params": m.params, "source": m.source_text},
        "method": j.method,
        "tokens": j.total_tokens,
        "epochs": j.epochs,
        "dataset_items": j.dataset_items,
        "seq": j.sequence,
        "precision": j.precision,
        "optimizer": j.optimizer,
        "checkpointing": j.checkpointing,
        "sharding": j.sharding,
        "batch": j.batch,
        "lora_rank": j.lora_rank if j.trains_adapters else None,
        "described": f"{job.text.model}: {job.text.how}",
        "flops": job.flops.hardware_flops,
        "desktop_hours": t.hours,
        "desktop_hours_low": t.hours_low,
        "desktop_hours_high": t.hours_high,
        "desktop_gpu_hours": t.gpu_hours,
        "memory_gb_per_gpu": round(job.memory.total_gb, 3),
        "usable_gb_per_gpu": round(job.usable_gb, 3),
        "memory_complete": job.memory.complete,
        "fits": job.fits,
        "runs_per_year": job.runs_per_year,
        "utilisation_from_runs": job.utilisation_from_runs,
        "runs_per_year_at_utilisation": job.runs_at(utilisation),
        "mfu": {"share": t.mfu.share, "low": t.mfu.low, "high": t.mfu.high, "pool": t.mfu.pool},
        "memory_terms": [plain(term) for term in job.memory.terms],
    }


# --------------------------------------------------------------------------- why this number


def _time_line(who: str, t: JobTime, flops: float) -> str:
    return (
        f"{who}: {flops:.4g} FLOPs / ({t.gpus:,} x {t.rate_tflops:.1f}e12 ({t.path}) x "
        f"{t.mfu.share:.3f} share of it ({t.mfu.pool}) x {t.scaling:.3f} scaling) / 3600 / "
        f"{t.effective_share:g} effective time = {t.hours:,.2f} h"
    )


def explain_parts(
    job: QuickJob, result: OfferResult, spec: GpuSpec, gpu_count: int, utilisation: float
) -> list[Explanation]:
    """How the job makes the offer's figures: its hours on the desktop and on the offer (the
    speed is their ratio), the desktop's memory, and the utilisation its runs make."""
    flops = job.flops.hardware_flops
    mine = job.desktop
    lines = [
        f"{job.text.model}: {job.text.how}",
        f"training FLOPs: {job.flops.formula} = {flops:.4g} computed",
        _time_line(f"your {gpu_count}x {spec.short_name}", mine, flops),
    ]
    theirs = job.times.get(time_key(result.offer.gpu, result.offer.gpu_count))
    if theirs is not None:
        offer = f"the offer's {result.offer.gpu_count}x {result.spec.short_name}"
        lines.append(_time_line(offer, theirs, flops))
        ratio = num(mine.hours / theirs.hours)
        lines.append(
            f"speed = {mine.hours:,.2f} h / {theirs.hours:,.2f} h = {ratio} (the job's hours, "
            "`costcalc job`'s time model; not the generic speed ratio)"
        )
    reserve = memfit.RESERVE_BYTES / 1e9
    lines.append(
        f"memory per GPU on your desktop: {job.memory.total_gb:.2f} GB; usable "
        f"{spec.memory_gb:g} GB x {memfit.USABLE_SHARE:g} - {reserve:g} GB = "
        f"{job.usable_gb:.2f} GB: " + ("fits" if job.fits else "does not fit")
    )
    parts = [Explanation("The job", tuple(lines))]
    if job.runs_per_year is not None:
        hours = job.runs_per_year * mine.hours
        parts.append(
            Explanation(
                "Utilisation (from the runs)",
                (
                    f"{job.runs_per_year:g} runs x {mine.hours:,.2f} h = {hours:,.1f} h; "
                    f"{hours:,.1f} h / {engine.HOURS_PER_YEAR:,.0f} h = {utilisation:.4f} "
                    f"({share(utilisation)})",
                ),
            )
        )
    return parts
