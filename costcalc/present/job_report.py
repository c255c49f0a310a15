"""A job's answer as text, JSON and "why this number" (costcalc.core.job_cost.JobAnswer).

Rule kept here: pure, and nothing computed here: every figure is one `price_job` produced, and
every line of the explanation repeats the arithmetic the core did with the job's numbers, so a
reader can redo it and land on the figure shown. The text puts the answer first (fits or not,
and what would; hours; cost, energy and CO2 of a run; the cheapest and the fastest offer that
hold it), then where the memory and the time come from, then the tables, and keeps to one
screen at 80 columns with the default rows.
"""

from __future__ import annotations

from typing import Any

from costcalc.core import memfit
from costcalc.core.job import describe
from costcalc.core.job_cost import JobAnswer, JobRun
from costcalc.core.job_memory import MemoryPlan, usable_gb
from costcalc.core.records import plain
from costcalc.core.terminal import fill
from costcalc.present import display as fmt
from costcalc.present.explain import Explanation, num
from costcalc.present.report import Plain, render_table

OFFER_ROWS = 6
DESKTOP_ROWS = 4
OFFER_PRIORITY = ("label", "usd", "hours", "gpus", "co2", "kwh")
DESKTOP_PRIORITY = ("label", "build", "hours", "usd", "co2", "kwh")


def hours(value: float) -> str:
    """'0.4 h', '56 h', '2,569 h'."""
    return f"{value:.1f} h" if value < 10 else f"{value:,.0f} h"


def band(run: JobRun) -> str:
    """'43-64 h', or '528-907 h; 27 days' for a run of ten days or more."""
    low, high = run.time.hours_low * run.overhead, run.time.hours_high * run.overhead
    days = f"; {run.hours / 24:,.0f} days" if run.hours >= 240 else ""
    return f"{_h(low)}-{_h(high)} h{days}"


def _h(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"


def flops(value: float) -> str:
    """8.6e18: FLOPs as the papers write them."""
    mantissa, exponent = (
        f"{value:.2g}".split("e") if "e" in f"{value:.2g}" else (f"{value:.2g}", "")
    )
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def cost_text(run: JobRun) -> str:
    if run.usd is None:
        return "no price on file (give --cloud-price)"
    if run.where == "desktop" or run.usd_basis.startswith("electricity"):
        return f"{fmt.usd(run.usd)} of electricity"
    return fmt.usd(run.usd)


# --------------------------------------------------------------------------- text


def to_text(answer: JobAnswer, width: int | None = 80, *, offers: int = OFFER_ROWS) -> str:
    """The answer first (fits or not and what would, hours, cost, energy, CO2; the cheapest and
    fastest offers), then where memory and time come from, then the tables."""
    job = answer.job
    text = describe(job)
    run = answer.chosen
    lines = _verdict(answer, run, text.model) if run is not None else [f"{text.model}:"]
    lines.insert(1, f"  The job: {text.how}.")
    lines += _others(answer, run)
    if run is not None:
        lines += ["", *_memory_block(run.memory, run), _time_line(answer, run)]
    lines += _tables(answer, width, offers)
    if answer.yearly is not None and run is not None:
        y = answer.yearly
        lines.append(
            f"At {y.runs_per_year:g} runs a year: {fmt.usd(y.usd_per_year)} a year, "
            f"{y.hours_per_year:,.0f} h, {fmt.percent(y.utilisation)} of the year's hours "
            "(quick's utilisation)."
        )
    lines.append("--explain shows where every figure comes from.")
    # A table comes as one text of several lines, already fitted to the width: never wrapped.
    return "\n".join(
        part for line in lines for part in (fill(line, width) if "\n" not in line else [line])
    )


def _verdict(answer: JobAnswer, run: JobRun, model: str) -> list[str]:
    where = run.label if run.where != "offer" else f"{run.label} (the cheapest offer)"
    memory = run.memory
    usable = usable_gb(run.spec)
    need = f"{model} needs {memory.total_gb:.1f} GB per GPU of {usable:.1f} GB usable"
    if not memory.complete:
        need += " (its activations not modelled, not counted)"
    if run.fits:
        batch = f", batch up to {run.max_batch:,}" if memory.complete else ""
        head = f"Fits {where}: {need}{batch}."
    else:
        head = f"Does not fit {where}: {need}."
    lines = [head]
    if answer.would_fit:
        lines.append("  Fits with " + "; or ".join(answer.would_fit) + ".")
    as_asked = "As asked it would take" if not run.fits else "It takes"
    lines.append(
        f"  {as_asked} ~{hours(run.hours)} ({band(run)}), {run.gpu_hours:,.0f} GPU-hours, "
        f"{cost_text(run)}, {fmt.kwh(run.kwh)}, {fmt.co2(run.co2_kg)} CO2e a run."
    )
    return lines


def _others(answer: JobAnswer, run: JobRun | None) -> list[str]:
    lines = []
    cheapest = answer.offers[0] if answer.offers else None
    if cheapest is not None and cheapest is not run:
        lines.append(
            f"Cheapest offer that holds it: {cheapest.label}, {hours(cheapest.hours)} for "
            f"{fmt.usd(cheapest.usd)}."
        )
    fastest = answer.fastest
    if fastest is not None:
        lines.append(f"Fastest: {fastest.label}, {hours(fastest.hours)} for {cost_text(fastest)}.")
    if not answer.offers:
        lines.append(f"No cloud offer holds it ({answer.offers_weighed:,} weighed).")
    return lines


def _memory_block(plan: MemoryPlan, run: JobRun) -> list[str]:
    lines = [f"Memory per GPU ({run.gpus:,}x {run.spec.short_name}, batch {plan.batch:,}):"]
    for term in plan.terms:
        gb = "   n/a   " if not term.known else f"{term.gb_at(plan.batch):6.2f} GB"
        paged = ", paged" if term.pageable else ""
        lines.append(f"  {gb} {term.label}{paged}")
    usable = usable_gb(run.spec)
    lines.append(f"  {plan.total_gb:6.2f} GB in all, of {usable:.1f} GB usable per GPU")
    return lines


def _time_line(answer: JobAnswer, run: JobRun) -> str:
    t = run.time
    return (
        f"Time: {flops(answer.flops.hardware_flops)} FLOPs at {t.rate_tflops:,.0f} TFLOPS "
        f"(what its {t.path} sustain; datasheet {t.peak_tflops:,.0f}) x "
        f"{fmt.percent(t.mfu.share)} ({fmt.percent(t.mfu.low)}-{fmt.percent(t.mfu.high)}: "
        f"{t.mfu.pool}, {t.mfu.sources} sources) x {t.scaling:.2f} scaling x "
        f"{fmt.percent(t.effective_share)} effective time."
        + (f" Note: {t.mfu.note}." if t.mfu.note else "")
    )


def _tables(answer: JobAnswer, width: int | None, offers: int) -> list[str]:
    lines: list[str] = []
    if answer.offers:
        rows = [_offer_cells(r) for r in answer.offers[:offers]]
        columns = (
            Plain("label", "offer", numeric=False, clip=True),
            Plain("gpus", "GPUs"),
            Plain("hours", "hours"),
            Plain("usd", "$/run"),
            Plain("kwh", "kWh"),
            Plain("co2", "CO2"),
        )
        lines += [
            "",
            f"Cloud offers that hold it, cheapest first ({len(answer.offers):,} of "
            f"{answer.offers_weighed:,} weighed):",
            render_table(columns, rows, width=width, priority=OFFER_PRIORITY),
        ]
    if answer.desktops:
        rows = [_desktop_cells(r) for r in answer.desktops[:DESKTOP_ROWS]]
        columns = (
            Plain("label", "desktop", numeric=False, clip=True),
            Plain("build", "price"),
            Plain("hours", "hours"),
            Plain("usd", "power $"),
            Plain("kwh", "kWh"),
            Plain("co2", "CO2"),
        )
        lines += [
            "",
            f"Desktops that hold it and pass the fit checks, cheapest first "
            f"({len(answer.desktops)}):",
            render_table(columns, rows, width=width, priority=DESKTOP_PRIORITY),
        ]
    return lines


def _offer_cells(run: JobRun) -> dict[str, str]:
    return {
        "label": run.label,
        "gpus": f"{run.gpus:,}",
        "hours": _h(run.hours),
        "usd": fmt.usd(run.usd),
        "kwh": f"{run.kwh:,.1f}",
        "co2": fmt.co2(run.co2_kg),
    }


def _desktop_cells(run: JobRun) -> dict[str, str]:
    return {
        "label": run.label,
        "build": fmt.usd(run.build_usd),
        "hours": _h(run.hours),
        "usd": fmt.usd(run.usd),
        "kwh": f"{run.kwh:,.1f}",
        "co2": fmt.co2(run.co2_kg),
    }


# --------------------------------------------------------------------------- JSON


def to_json(answer: JobAnswer, *, top: int | None = 10, explain: bool = False) -> dict[str, Any]:
    """One object: the chosen run's figures at the top (`memory_gb_per_gpu`, `fits`, `hours`,
    `gpu_hours`, `cost`, `energy_kwh`, `co2_kg`), the job and its FLOPs, and every offer and
    desktop that holds it (the first `top`, or all)."""
    job = answer.job
    run = answer.chosen
    m = job.model
    doc: dict[str, Any] = {
        "model": {
            "key": m.key,
            "name": m.name,
            "params": m.params,
            "source": m.source_text,
        },
        "job": {
            "method": job.method,
            "tokens": job.total_tokens,
            "epochs": job.epochs,
            "dataset_items": job.dataset_items,
            "seq": job.sequence,
            "precision": job.precision,
            "optimizer": job.optimizer,
            "checkpointing": job.checkpointing,
            "sharding": job.sharding,
            "batch": job.batch,
            "lora_rank": job.lora_rank if job.trains_adapters else None,
        },
        "flops": plain(answer.flops),
    }
    doc.update(_run_json(run, chosen=True) if run is not None else {"gpu": None})
    doc["would_fit"] = list(answer.would_fit)
    doc["yearly"] = plain(answer.yearly) if answer.yearly is not None else None
    doc["offers_weighed"] = answer.offers_weighed
    fastest = answer.fastest
    doc["fastest"] = fastest.label if fastest is not None else None
    doc["offers"] = [_run_json(r) for r in answer.offers[:top]]
    doc["desktops"] = [_run_json(r) for r in answer.desktops[:top]]
    doc["notes"] = list(answer.notes)
    if explain:
        doc["explain"] = [{"title": e.title, "lines": list(e.lines)} for e in explanation(answer)]
    return doc


def _run_json(run: JobRun, chosen: bool = False) -> dict[str, Any]:
    t = run.time
    doc: dict[str, Any] = {
        "where": run.where,
        "label": run.label,
        "gpu": run.spec.key,
        "gpu_count": run.gpus,
        "instances": run.instances,
        "memory_gb_per_gpu": round(run.memory.total_gb, 3),
        "usable_gb_per_gpu": round(usable_gb(run.spec), 3),
        "fits": run.fits,
        "max_batch": run.max_batch,
        "hours": run.hours,
        "hours_low": t.hours_low * run.overhead,
        "hours_high": t.hours_high * run.overhead,
        "gpu_hours": run.gpu_hours,
        "cost": run.usd,
        "cost_basis": run.usd_basis,
        "energy_kwh": run.kwh,
        "co2_kg": run.co2_kg,
        "watts": run.watts,
        "pue": run.pue,
        "grid_gco2_per_kwh": run.gco2_per_kwh,
    }
    if run.offer is not None:
        o = run.offer
        doc.update(
            provider=o.provider,
            offer=o.name,
            region=o.region,
            usd_per_hour=o.usd_per_hour,
            spot=o.spot,
            price_kind=o.price_kind,
            fetched_at=o.fetched_at.isoformat(),
        )
    if run.build_usd is not None or run.where == "desktop":
        doc["build_usd"] = run.build_usd
    if chosen:
        doc["memory_complete"] = run.memory.complete
        doc["fixed_gb"] = run.memory.fixed_gb
        doc["per_item_gb"] = run.memory.per_item_gb
        doc["memory_terms"] = [plain(term) for term in run.memory.terms]
        doc["peak_tflops"] = t.peak_tflops
        doc["sustained_tflops"] = t.rate_tflops
        doc["share_of_peak"] = t.share_of_peak
        doc["mfu"] = {
            "share": t.mfu.share,
            "low": t.mfu.low,
            "high": t.mfu.high,
            "pool": t.mfu.pool,
            "sources": t.mfu.sources,
            "note": t.mfu.note,
        }
        doc["scaling"] = t.scaling
        doc["effective_time_share"] = t.effective_share
        doc["grid_source"] = run.grid_source
        if run.feasibility is not None:
            doc["desktop_fits"] = run.feasibility.fits
    return doc


# --------------------------------------------------------------------------- why this number


def explanation(answer: JobAnswer) -> list[Explanation]:
    """How the chosen run (else the cheapest offer) gets each figure, with its numbers."""
    run = answer.chosen or (answer.offers[0] if answer.offers else None)
    if run is None:
        return []
    return [
        _explain_memory(run),
        _explain_flops(answer),
        _explain_utilisation(run),
        _explain_hours(answer, run),
        _explain_money(run),
        *([] if answer.yearly is None else [_explain_year(answer, run)]),
    ]


def _explain_memory(run: JobRun) -> Explanation:
    plan = run.memory
    lines = [f"{run.gpus:,}x {run.spec.short_name}, batch {plan.batch:,} per GPU:"]
    for term in plan.terms:
        gb = f"{term.gb_at(plan.batch):.2f} GB" if term.known else "not counted"
        per = f" ({term.per_item_gb:.3f} GB per item)" if term.per_item_gb else ""
        paged = "; pages to CPU memory, not counted" if term.pageable else ""
        lines.append(f"{term.label}: {term.formula} = {gb}{per}{paged} [{term.source}]")
    usable = usable_gb(run.spec)
    reserve = memfit.RESERVE_BYTES / 1e9
    lines.append(
        f"total {plan.fixed_gb:.2f} GB + {plan.per_item_gb:.3f} GB x {plan.batch:,} = "
        f"{plan.total_gb:.2f} GB; usable {run.spec.memory_gb:g} GB x {memfit.USABLE_SHARE:g} - "
        f"{reserve:g} GB (CUDA context) = {usable:.2f} GB: "
        + ("fits" if run.fits else "does not fit")
        + f"; largest batch {run.max_batch:,}"
    )
    return Explanation("Memory per GPU", tuple(lines))


def _explain_flops(answer: JobAnswer) -> Explanation:
    f = answer.flops
    lines = [f"{f.formula} = {f.model_flops:.4g} FLOPs"]
    if f.hardware_flops != f.model_flops:
        lines.append(
            f"with activation checkpointing the forward pass runs twice: {f.hardware_flops:.4g} "
            "FLOPs computed (Korthikanti et al. 2022)"
        )
    lines.append(
        "6 N per token (Kaplan et al. 2020; 4 N with a frozen base), attention 12 L s q "
        "(Chowdhery et al. 2022, appendix B); an item's forward multiply-adds x 2 x 3"
    )
    return Explanation("Training FLOPs", tuple(lines))


def _explain_utilisation(run: JobRun) -> Explanation:
    mfu = run.time.mfu
    t = run.time
    lines = [
        f"{run.spec.short_name}: {t.path} sustain {t.rate_tflops:,.1f} TFLOPS (the speed "
        f"predictor's rate; datasheet peak {t.peak_tflops:,.1f})",
        f"{len(mfu.rows)} measurements of {mfu.pool} ({mfu.sources} sources), each as the "
        "share of its GPU's sustained rate it reached, its own run's scaling divided out:",
    ]
    for used in mfu.rows:
        r = used.row
        lines.append(
            f"{r.model} on {r.gpu}: {used.basis} -> {used.one_gpu:.3f} "
            f"[{r.source.what}, {r.source.date}]"
        )
    lines.append(
        f"median of each source's median: {mfu.share:.3f}; band {mfu.low:.3f}-{mfu.high:.3f}"
        + (f"; {mfu.note}" if mfu.note else "")
    )
    lines.append(
        f"in this run {t.rate_tflops:,.1f} x {mfu.share:.3f} x {t.scaling:.3f} scaling = "
        f"{fmt.percent(t.share_of_peak)} of the datasheet peak (MFU as papers count it)"
    )
    return Explanation("Share of peak", tuple(lines))


def _explain_hours(answer: JobAnswer, run: JobRun) -> Explanation:
    t = run.time
    f = answer.flops.hardware_flops
    lines = [
        f"scaling: {t.scaling_text} = {t.scaling:.3f} (costcalc/data/scaling.yaml; across "
        "servers mfu.yaml's across_servers)",
        f"{f:.4g} FLOPs / ({run.gpus:,} x {t.rate_tflops:.1f}e12 x {t.mfu.share:.3f} x "
        f"{t.scaling:.3f}) / 3600 / {t.effective_share:g} effective time = {t.hours:,.1f} h "
        f"(band {t.hours_low:,.1f}-{t.hours_high:,.1f} h)",
    ]
    if run.overhead != 1:
        lines.append(
            f"x {run.overhead:.3f} for spot interruptions (quick's rule) = {run.hours:,.1f} h"
        )
    lines.append(f"{run.hours:,.1f} h x {run.gpus:,} GPU(s) = {run.gpu_hours:,.0f} GPU-hours")
    return Explanation("Hours", tuple(lines))


def _explain_money(run: JobRun) -> Explanation:
    if run.usd is None:
        cost = "no price on file for these GPUs: give --cloud-price"
    elif run.usd_basis.startswith("electricity"):
        cost = f"{num(run.kwh)} kWh x {run.usd_basis.split(' at ')[1]} = {fmt.usd(run.usd)}"
    else:
        billed = f"{run.hours:,.2f} h, billed as the offer bills"
        cost = f"{run.usd_basis} for {billed} = {fmt.usd(run.usd)}"
    lines = [
        cost,
        f"{num(run.watts)} W x {run.hours:,.2f} h / 1000 = {num(run.kwh)} kWh",
        f"{num(run.kwh)} kWh x PUE {run.pue:g} x {num(run.gco2_per_kwh)} g/kWh / 1000 = "
        f"{num(run.co2_kg)} kg CO2e [{run.grid_source}]",
    ]
    return Explanation("Cost, energy and CO2 of a run", tuple(lines))


def _explain_year(answer: JobAnswer, run: JobRun) -> Explanation:
    y = answer.yearly
    assert y is not None
    return Explanation(
        "A year of runs",
        (
            f"{y.runs_per_year:g} runs x {fmt.usd(run.usd)} = {fmt.usd(y.usd_per_year)}",
            f"{y.runs_per_year:g} x {run.hours:,.2f} h = {y.hours_per_year:,.1f} h = "
            f"{fmt.percent(y.utilisation)} of 8,760 h",
        ),
    )
