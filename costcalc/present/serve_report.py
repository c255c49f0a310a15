"""Serving's answer as text and JSON (costcalc.core.serve.ServeAnswer).

Rule kept here: pure, nothing computed here: every figure is one `price_serving` produced. The
text puts the answer first (fits or not and what would; speed and latency; the three options per
million tokens and the cheapest at your volume, with the volume where it flips), then the offers
and hosted prices, on one screen at 80 columns.
"""

from __future__ import annotations

from typing import Any

from costcalc.core.records import plain
from costcalc.core.serve import ServeAnswer, ServeRun, named_gpu_fits
from costcalc.core.terminal import fill
from costcalc.present import display as fmt
from costcalc.present.report import Plain, render_table

OFFER_ROWS = 4
HOSTED_ROWS = 3
PRIORITY = ("label", "mixed", "input", "output", "tps", "ttft")


def usd_mtok(value: float | None) -> str:
    """'$0.031', '$1.24', '$12': dollars per million tokens."""
    if value is None:
        return "-"
    if value < 1:
        return f"${value:.3f}"
    return f"${value:,.2f}" if value < 100 else f"${value:,.0f}"


def count(value: float) -> str:
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def to_text(answer: ServeAnswer, width: int | None, offers: int = OFFER_ROWS) -> str:
    job = answer.job
    lines = _head(answer)
    lines.append(
        f"  Serving {job.prompt_tokens:,}-token prompts and {job.output_tokens:,}-token answers, "
        f"{job.concurrency:,} at a time, {count(job.daily_tokens)} tokens a day, {job.engine}."
    )
    run = answer.chosen
    if run is not None and run.speed is not None:
        sp = run.speed
        lines.append(
            f"  Speed: {sp.decode_tokens_per_s:,.0f} tokens/s decoding one sequence, "
            f"{sp.prefill_tokens_per_s:,.0f} tokens/s prefill; first token in "
            f"{_seconds(sp.ttft_s)}, then {sp.per_user_tokens_per_s:,.0f} tokens/s per user."
        )
        busy = run.busy_hours_per_day or 0.0
        lines.append(
            f"  Busy {busy:.1f} h a day; it serves at most "
            f"{count(run.tokens_per_day_capacity or 0)} tokens a day."
        )
    lines += ["", *_options(answer, width)]
    lines += _verdict(answer)
    lines += _tables(answer, width, offers)
    lines.append("--json carries every figure; docs/serve-model.md says how each is made.")
    return "\n".join(
        part for line in lines for part in (fill(line, width) if "\n" not in line else [line])
    )


def _seconds(value: float) -> str:
    return f"{value * 1000:,.0f} ms" if value < 1 else f"{value:,.1f} s"


def _head(answer: ServeAnswer) -> list[str]:
    job = answer.job
    run = answer.chosen
    model = f"{job.model.name} at {job.quant}"
    if run is None or run.memory is None:
        return [f"{model}:"]
    m = run.memory
    need = (
        f"{model} needs {m.total_gb:.1f} GB per GPU of {m.usable_gb:.1f} GB (weights "
        f"{m.weights_gb:.1f}, KV cache {m.kv_gb:.1f}, engine {m.overhead_gb:.1f})"
    )
    if run.fits:
        return [
            f"Fits {run.label}: {need}; up to {m.max_concurrency:,} sequences of "
            f"{job.context_tokens:,} tokens."
        ]
    lines = [f"Does not fit {run.label}: {need}."]
    instead = named_gpu_fits(answer)
    if instead:
        lines.append(f"  Instead: {instead}.")
    return lines


def _options(answer: ServeAnswer, width: int | None) -> list[str]:
    rows = []
    picks = (
        ("Your desktop", answer.chosen),
        ("Cheapest rented", answer.offers[0] if answer.offers else None),
        ("Cheapest hosted", answer.hosted[0] if answer.hosted else None),
    )
    for title, run in picks:
        if run is None or (run.where == "desktop" and not run.fits):
            continue
        rows.append(_cells(run, f"{title}: {run.label.removesuffix(' (your desktop)')}"))
    if not rows:
        return ["No option on file serves it."]
    return [
        f"$ per million tokens at {count(answer.job.daily_tokens)} tokens a day:",
        render_table(_columns("option"), rows, width=width, priority=PRIORITY),
    ]


def _columns(first: str) -> tuple[Plain, ...]:
    return (
        Plain("label", first, numeric=False, clip=True),
        Plain("input", "input"),
        Plain("output", "output"),
        Plain("mixed", "mixed"),
        Plain("tps", "tok/s"),
        Plain("ttft", "TTFT"),
    )


def _cells(run: ServeRun, label: str) -> dict[str, str]:
    sp = run.speed
    return {
        "label": label,
        "input": usd_mtok(run.usd_per_mtok_input),
        "output": usd_mtok(run.usd_per_mtok_output),
        "mixed": usd_mtok(run.usd_per_mtok),
        "tps": f"{sp.per_user_tokens_per_s:,.0f}" if sp else "-",
        "ttft": _seconds(sp.ttft_s) if sp else "-",
    }


def _verdict(answer: ServeAnswer) -> list[str]:
    lines = []
    best = answer.cheapest
    job = answer.job
    if best is not None:
        what = {"desktop": "your desktop", "offer": "renting", "hosted": "paying per token"}
        lines.append(
            f"Cheapest at {count(job.daily_tokens)} tokens a day: {what[best.where]} "
            f"({best.label}), {usd_mtok(best.usd_per_mtok)} per million tokens, "
            f"{fmt.usd(best.usd_per_day)} a day."
        )
    run = answer.chosen
    capacity = run.tokens_per_day_capacity if run is not None and run.fits else None
    if capacity is not None and capacity < job.daily_tokens:
        lines.append(
            f"  Your desktop serves at most {count(capacity)} tokens a day at this concurrency: "
            "raise --concurrency or rent."
        )
    if answer.flip.text:
        lines.append(f"  Flips: {answer.flip.text}.")
    if answer.hosted:
        lines.append("  Hosted latency is not on file (no stored measurement).")
    elif best is not None:
        lines.append(f"  No hosted price on file for {job.model.name}.")
    return lines


def _tables(answer: ServeAnswer, width: int | None, offers: int) -> list[str]:
    lines: list[str] = []
    if answer.offers:
        rows = [_cells(r, r.label) for r in answer.offers[:offers]]
        lines += [
            "",
            f"Rented offers that hold it, cheapest first ({len(answer.offers):,} of "
            f"{answer.offers_weighed:,} weighed):",
            render_table(_columns("offer"), rows, width=width, priority=PRIORITY),
        ]
    elif answer.offers_weighed:
        lines += ["", f"No rented offer holds it ({answer.offers_weighed:,} weighed)."]
    if len(answer.hosted) > 1:
        rows = [
            _cells(r, f"{r.label} ({r.hosted.date if r.hosted else ''})")
            for r in answer.hosted[:HOSTED_ROWS]
        ]
        lines += [
            "",
            f"Hosted APIs, cheapest first ({len(answer.hosted)}):",
            render_table(_columns("hosted"), rows, width=width, priority=PRIORITY),
        ]
    return lines


# --------------------------------------------------------------------------- JSON


def to_json(answer: ServeAnswer, *, top: int | None = 10) -> dict[str, Any]:
    """One object: the chosen GPU's `fits`, `decode_tokens_per_s` (batch 1),
    `prefill_tokens_per_s`, `max_concurrency` and `usd_per_million_tokens` at the top, the same
    per offer and per hosted price, the cheapest and the volume where the answer flips."""
    job = answer.job
    doc: dict[str, Any] = {
        "model": {"key": job.model.key, "name": job.model.name, "params": job.model.params},
        "serve": {
            "quant": job.quant,
            "engine": job.engine,
            "prompt_tokens": job.prompt_tokens,
            "output_tokens": job.output_tokens,
            "context": job.context_tokens,
            "concurrency": job.concurrency,
            "tokens_per_day": job.daily_tokens,
        },
    }
    doc.update(_run_json(answer.chosen) if answer.chosen is not None else {"gpu": None})
    best = answer.cheapest
    doc["cheapest"] = (
        {"where": best.where, "label": best.label, "usd_per_million_tokens": best.usd_per_mtok}
        if best is not None
        else None
    )
    doc["flip_tokens_per_day"] = answer.flip.tokens_per_day
    doc["flip"] = answer.flip.text or None
    doc["offers_weighed"] = answer.offers_weighed
    doc["offers"] = [_run_json(r) for r in answer.offers[:top]]
    doc["hosted"] = [_run_json(r) for r in answer.hosted[:top]]
    doc["desktops"] = [_run_json(r) for r in answer.desktops[:top]]
    doc["notes"] = list(answer.notes)
    return doc


def _run_json(run: ServeRun) -> dict[str, Any]:
    m, sp = run.memory, run.speed
    doc: dict[str, Any] = {
        "where": run.where,
        "label": run.label,
        "gpu": run.spec.key if run.spec else None,
        "gpu_count": run.gpus,
        "fits": run.fits,
        "decode_tokens_per_s": sp.decode_tokens_per_s if sp else None,
        "prefill_tokens_per_s": sp.prefill_tokens_per_s if sp else None,
        "max_concurrency": m.max_concurrency if m else None,
        "usd_per_million_tokens": run.usd_per_mtok,
        "usd_per_million_input_tokens": run.usd_per_mtok_input,
        "usd_per_million_output_tokens": run.usd_per_mtok_output,
        "usd_per_day": run.usd_per_day,
        "basis": run.basis,
    }
    if m is not None:
        doc["memory_gb_per_gpu"] = round(m.total_gb, 3)
        doc["usable_gb_per_gpu"] = round(m.usable_gb, 3)
        doc["memory"] = plain(m)
    if sp is not None:
        doc.update(
            concurrency=sp.concurrency,
            per_user_tokens_per_s=sp.per_user_tokens_per_s,
            aggregate_tokens_per_s=sp.aggregate_tokens_per_s,
            ttft_s=sp.ttft_s,
            decode_basis={
                "layer_ms": sp.decode.layer_ms,
                "layer_basis": sp.decode.layer_basis,
                "bandwidth_share": sp.decode.bandwidth_share,
                "share_basis": sp.decode.share_basis,
            },
            prefill_basis={
                "share": sp.prefill.share,
                "basis": sp.prefill.basis,
                "matmul_tflops": sp.prefill.matmul_tflops,
            },
        )
    if run.where == "desktop":
        doc.update(
            build_usd=run.build_usd,
            watts=run.watts,
            busy_hours_per_day=run.busy_hours_per_day,
            tokens_per_day_capacity=run.tokens_per_day_capacity,
            electricity_usd_per_million_tokens=run.electricity_usd_per_mtok,
            purchase_usd_per_day=run.fixed_usd_per_day,
        )
        if run.feasibility is not None:
            doc["desktop_fits"] = run.feasibility.fits
    if run.offer is not None:
        o = run.offer
        doc.update(
            provider=o.provider,
            offer=o.name,
            region=o.region,
            usd_per_hour=o.usd_per_hour,
            spot=o.spot,
            replicas=run.replicas,
            fetched_at=o.fetched_at.isoformat(),
        )
    if run.hosted is not None:
        h = run.hosted
        doc.update(
            provider=h.provider,
            provider_model_id=h.provider_model_id,
            date=h.date,
            date_basis=h.date_basis,
            price_page=h.price_page,
            source=h.source.url,
        )
    return doc
