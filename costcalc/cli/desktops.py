"""`costcalc desktops`: which desktop? n x card builds side by side, and whether they fit."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from costcalc.cli import args as cli_args
from costcalc.cli import output
from costcalc.cli.quick import measured_use
from costcalc.core import desktops
from costcalc.core.records import plain
from costcalc.core.terminal import fill
from costcalc.present import desktops_report
from costcalc.providers import registry
from costcalc.store.loaders import load_app_data, utc_now

FIELDS = (
    "utilisation",
    "home_region",
    "usd_per_kwh",
    "horizon_years",
    "resale_share",
    "kind",
    "dtype",
    "batch",
    "target_batch",
    "memory_gb",
    "psu_efficiency",
    "always_on",
    "base",
    "exclude_tiers",
)
"""The scenario inputs that change a build's figures (and the tiers its break-even offer is
chosen among); they read exactly as in `quick`."""

EXAMPLES = (
    "costcalc desktops --gpu rtx4090 --gpu rtx6000_ada --count 1,2,4",
    "costcalc desktops --gpu 5090 --gpu 3090 --count 1,2 --region DE --util 30%",
    "costcalc desktops --gpu rtx4090 --gpu rtx_a6000 --memory-gb 40 --json",
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "desktops",
        help="compare desktop builds (n x GPU): price, speed, TCO, break-even, and fit",
        description=(
            "Compare desktop builds side by side: every --gpu at every --count. Each build "
            "shows its price, GPU memory, wall power, electricity and CO2 a year, speed "
            "relative to one card of the first --gpu, total cost of ownership over the "
            "horizon, that cost per hour of work, break-even against the cheapest comparable "
            "cloud offer, and whether it physically works: slots on the assumed workstation "
            "board, cooling, the largest PSU sold for your voltage and one wall circuit of "
            "your region. A build that does not fit is shown with the reason and never wins."
        ),
        **output.examples(*EXAMPLES),
    )
    p.add_argument(
        "--gpu",
        dest="gpus",
        action="append",
        metavar="NAME",
        help="a card to compare (repeatable): rtx4090, 'RTX 6000 Ada', a6000 ...",
    )
    p.add_argument(
        "--count",
        dest="counts",
        action="append",
        metavar="N[,N...]",
        help="GPUs per build, 1 to 8 (repeatable or comma-separated; default 1,2,4)",
    )
    p.add_argument(
        "--circuit",
        metavar="KEY",
        help="wall circuit to check against instead of your region's: na-15a, na-20a, "
        "na-240v-20a, uk-13a, eu-16a, jp-15a, au-10a",
    )
    cli_args.add_inputs(p, fields=FIELDS)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_wide(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    now = utc_now()
    counts = desktops.parse_counts(ns.counts or ["1,2,4"])
    scenario, note = cli_args.build_scenario(ns, fields=FIELDS)
    data = load_app_data()
    gpus = desktops.resolve_gpus(ns.gpus or [], data.catalog)
    measured = measured_use(scenario, now)
    result = desktops.compare_builds(
        scenario, data, gpus, counts, now, circuit_key=ns.circuit, measured=measured
    )
    hw = data.hardware
    assert hw is not None  # compare_builds refuses data without it
    for warning in data.book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    if ns.json:
        dump = {k: v for k, v in plain(scenario).items() if k in FIELDS}
        scenario_json = {**dump, "gpus": [g.key for g in gpus], "counts": list(counts)}
        print(
            desktops_report.to_json(result, hw, scenario=scenario_json, warnings=data.book.warnings)
        )
        return 0
    width = output.width()
    if note:
        print("\n".join(fill(note, width)))
    if measured is not None:
        from costcalc.present.measured import verdict_line

        print("\n".join(fill(verdict_line(measured, None), width)))
    labels = registry.labels()
    print(
        desktops_report.to_text(result, hw, data.catalog, width=width, wide=ns.wide, labels=labels)
    )
    return 0
