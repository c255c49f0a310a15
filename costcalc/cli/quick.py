"""`costcalc quick`: the one-shot answer for one desktop GPU against every cloud offer."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from costcalc.cli import args as types
from costcalc.constants import CUSTOM_PROVIDER, DTYPES, KINDS, PROVIDERS

if TYPE_CHECKING:
    from costcalc.bench.apply import BenchEffects

PROVIDER_CHOICES = (*PROVIDERS, CUSTOM_PROVIDER)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "quick",
        help="one-shot comparison: desktop GPU versus every cloud offer",
        description=(
            "Compare buying a desktop with the given GPU against renting every cloud offer in "
            "the price snapshot, for the same amount of work at your utilisation."
        ),
    )
    p.add_argument(
        "--gpu",
        help="desktop GPU, e.g. rtx3090, 'RTX 4090', a6000 (default: the --bench GPU)",
    )
    p.add_argument("--gpu-count", type=types.count("GPU count"), default=1, help="GPUs in it")
    p.add_argument(
        "--util",
        type=types.utilisation,
        default=0.15,
        help="share of all hours the GPU works: 0.15 or 15%% (default 15%%, a PhD desktop)",
    )
    p.add_argument(
        "--desktop-price",
        type=types.non_negative("desktop price"),
        metavar="USD",
        help="whole machine, up front (default: GPU price + base system)",
    )
    p.add_argument(
        "--gpu-watts",
        type=types.non_negative("GPU watts"),
        metavar="W",
        help="draw of one GPU under load (default: its board power)",
    )
    p.add_argument(
        "--system-watts",
        type=types.non_negative("system watts"),
        metavar="W",
        help="draw of the rest of the system under load (default 100 W for 1-2 GPUs)",
    )
    p.add_argument(
        "--idle-watts",
        type=types.non_negative("idle watts"),
        metavar="W",
        help="whole-system idle draw, counted with --always-on",
    )
    p.add_argument(
        "--always-on",
        action="store_true",
        help="the machine idles between jobs instead of being switched off",
    )
    p.add_argument(
        "--psu-efficiency",
        type=types.share("PSU efficiency"),
        default=1.0,
        help="1 (default) counts the watts as drawn at the wall; 0.9 adds PSU losses",
    )
    p.add_argument(
        "--kwh-price",
        type=types.non_negative("electricity price"),
        metavar="USD",
        help="electricity price per kWh (default from the bundled data)",
    )
    p.add_argument(
        "--region",
        metavar="CODE",
        help="home grid for CO2: country (US, DE), state (US-CA) or cloud region",
    )
    p.add_argument(
        "--cloud-price",
        type=types.non_negative("cloud price"),
        action="append",
        metavar="USD_PER_HOUR",
        default=[],
        help="add a custom offer at this $/h on the same GPUs (repeatable)",
    )
    p.add_argument(
        "--provider",
        action="append",
        choices=PROVIDER_CHOICES,
        default=[],
        help="only these providers (repeatable)",
    )
    p.add_argument(
        "--horizon",
        type=types.positive("horizon"),
        default=3.0,
        metavar="YEARS",
        help="years you will use the desktop (default 3)",
    )
    p.add_argument(
        "--resale",
        type=types.non_negative("resale share"),
        default=0.0,
        metavar="SHARE",
        help="share of the price you get back after the horizon",
    )
    p.add_argument(
        "--embodied",
        action="store_true",
        help="add the desktop's manufacturing carbon, spread over its life",
    )
    p.add_argument(
        "--run-hours",
        type=types.positive("run hours"),
        metavar="H",
        help="one training run takes H hours on the desktop: cost it on every offer",
    )
    p.add_argument(
        "--items",
        type=types.positive("items"),
        metavar="N",
        help="items (samples) one run processes: adds $ per item",
    )
    p.add_argument(
        "--memory-gb",
        type=types.positive("memory"),
        metavar="GB",
        help="GPU memory the run needs: smaller GPUs are marked 'does not fit'",
    )
    p.add_argument(
        "--dtype",
        choices=DTYPES,
        default="fp16",
        help="training precision used to compare GPU speeds (default fp16 AMP)",
    )
    p.add_argument(
        "--kind", choices=KINDS, default="generic", help="workload kind used to compare GPU speeds"
    )
    p.add_argument(
        "--top",
        type=types.count("top"),
        metavar="N",
        help="rows to show (default 10; all offers with --run-hours or --json)",
    )
    p.add_argument(
        "--bench",
        metavar="latest|PATH",
        help="use a saved bench result: its GPU as the desktop, its measured speed split, "
        "its memory fit for the largest batch per GPU (a CPU bench gives only the memory fit)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    import sys

    from costcalc import report
    from costcalc.compare import compare
    from costcalc.loaders import custom_offer, load_app_data, utc_now
    from costcalc.models import Workload
    from costcalc.scenario import build_assumptions, build_desktop
    from costcalc.snapshots import filter_offers

    now = utc_now()
    wanted = [p for p in ns.provider if p != CUSTOM_PROVIDER]
    providers = wanted or ([] if ns.provider else list(PROVIDERS))
    data = load_app_data(providers)
    bench = _load_bench(ns.bench)
    spec = data.catalog.resolve(_desktop_gpu(ns.gpu, bench))
    effects = _bench_effects(bench, spec.key, ns, data.catalog)
    desktop = build_desktop(
        spec,
        data.desktop_defaults,
        ns.gpu_count,
        price_usd=ns.desktop_price,
        gpu_w=ns.gpu_watts if ns.gpu_watts is not None or effects is None else effects.gpu_w,
        rest_of_system_w=ns.system_watts,
        idle_w=ns.idle_watts,
    )
    assumptions = build_assumptions(
        data.grid,
        utilisation=ns.util,
        usd_per_kwh=data.default_usd_per_kwh if ns.kwh_price is None else ns.kwh_price,
        region=ns.region,
        psu_efficiency=ns.psu_efficiency,
        stays_on=ns.always_on,
        horizon_years=ns.horizon,
        resale_fraction=ns.resale,
        include_embodied=ns.embodied,
    )
    workload = Workload(
        run_hours=ns.run_hours or (effects.run_hours if effects else None),
        items_per_run=ns.items,
        memory_gb=ns.memory_gb,
        max_batch=effects.max_batch if effects else {},
        kind=ns.kind,
        dtype=ns.dtype,
    )
    offers = filter_offers(data.book.offers, providers)
    offers += [custom_offer(spec.key, ns.gpu_count, p, now) for p in ns.cloud_price]
    comparison = compare(
        desktop,
        assumptions,
        workload,
        offers,
        data.catalog,
        data.grid,
        now,
        speed=effects.speed if effects else None,
    )
    for warning in data.book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)

    if ns.json:
        print(report.to_json(comparison, desktop, assumptions, workload, data, top=ns.top))
    else:
        top = ns.top or (None if ns.run_hours else 10)
        print(report.to_text(comparison, desktop, assumptions, workload, data, top=top, now=now))
    return 0


# --------------------------------------------------------------------------- --bench


def _load_bench(spec: str | None) -> Any:
    """The saved bench result asked for, or None; its notes go to stderr."""
    if spec is None:
        return None
    import sys

    from costcalc.bench.apply import desktop_gpu
    from costcalc.bench.results import resolve

    bench = resolve(spec)
    if desktop_gpu(bench) is None:
        print(
            f"costcalc: note: the bench ran on {bench.environment.device_name} ({bench.device}), "
            "not a catalog GPU: only its memory fit (largest batch per GPU) is used; give the "
            "desktop GPU with --gpu and the run time with --run-hours",
            file=sys.stderr,
        )
    return bench


def _desktop_gpu(gpu: str | None, bench: Any) -> str:
    from costcalc.errors import CostcalcError

    if gpu is not None:
        return gpu
    if bench is not None:
        from costcalc.bench.apply import desktop_gpu

        found = desktop_gpu(bench)
        if found is not None:
            return found
    raise CostcalcError("say which desktop GPU with --gpu (or use a GPU bench with --bench)")


def _bench_effects(
    bench: Any, gpu_key: str, ns: argparse.Namespace, catalog: Any
) -> BenchEffects | None:
    """What the bench changes for this desktop; None without --bench (nothing is imported)."""
    if bench is None:
        return None
    from costcalc.bench.apply import effects

    return effects(bench, gpu_key, ns.kind, ns.dtype, ns.items, catalog)
