"""`costcalc quick`: the one-shot answer for one desktop against every cloud offer."""

from __future__ import annotations

import argparse
from typing import Any

from costcalc.cli import args as cli_args


def register(sub: Any) -> None:
    p = sub.add_parser(
        "quick",
        help="one-shot comparison: desktop GPU versus every cloud offer",
        description=(
            "Compare buying a desktop with the given GPU against renting every cloud offer in "
            "the price snapshot, for the same amount of work at your utilisation. Inputs you "
            "leave out come from your saved settings (the app's config.yaml) when there are any "
            "- the first line of the output says which - then from the environment "
            "(COSTCALC_UTIL, COSTCALC_REGION, ... : COSTCALC_ and the option's name), then from "
            "the bundled defaults. --no-config ignores the saved settings."
        ),
    )
    cli_args.add_inputs(p)
    rows = p.add_mutually_exclusive_group()
    rows.add_argument(
        "--top", metavar="N", help="rows of comparable offers to show (default 10; --json: all)"
    )
    rows.add_argument("--all", action="store_true", help="show every offer")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    import sys

    from costcalc import inputs, report
    from costcalc.constants import CUSTOM_PROVIDER
    from costcalc.loaders import load_app_data, utc_now
    from costcalc.scenario import evaluate
    from providers import registry

    now = utc_now()
    top = inputs.whole(ns.top, "top") if ns.top else None
    if top is not None and top < 1:
        from costcalc.errors import CostcalcError

        raise CostcalcError(f"top must be at least 1, got {ns.top!r}")
    scenario, note = cli_args.build_scenario(ns)
    wanted = [registry.get(p).name for p in scenario.providers if p != CUSTOM_PROVIDER]
    data = load_app_data(wanted or ([] if scenario.providers else None))
    bench = _load_bench(scenario.bench)
    calc = evaluate(scenario, data, now, bench=bench)
    for warning in data.book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    for line in calc.notes:
        print(f"costcalc: note: {line}", file=sys.stderr)
    if ns.json:
        print(report.to_json(calc, data, top=top))
        return 0
    if note:
        print(note)
    print(report.to_text(calc, data, top=None if ns.all else top or 10))
    return 0


def _load_bench(spec: str | None) -> Any:
    """The saved bench result the scenario names, or None (nothing is imported without one)."""
    if spec is None:
        return None
    from costcalc.bench.store import resolve

    return resolve(spec)
