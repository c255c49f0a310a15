"""`costcalc quick`: the one-shot answer for one desktop against every cloud offer."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from costcalc.cli import args as cli_args
from costcalc.cli import output
from costcalc.core import inputs
from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.errors import CostcalcError
from costcalc.core.scenario import evaluate
from costcalc.core.staleness import CLOUD_LEGEND
from costcalc.present import report
from costcalc.providers import registry
from costcalc.store.loaders import for_scenario, load_app_data, utc_now
from costcalc.store.readings import recorded_points

EXAMPLES = (
    "costcalc quick --gpu rtx4090 --util 40% --region DE --brief",
    "costcalc quick --gpu rtx4090 --model gpt2-124m --tokens 10B --runs-per-year 12",
    "costcalc quick --gpu 'RTX 6000 Ada' --cloud-gpu a100 --cloud-gpu h100 --json",
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "quick",
        help="one-shot comparison: desktop GPU versus every cloud offer",
        description=(
            "Compare buying a desktop with the given GPU against renting every cloud offer in "
            "the price snapshot, for the same amount of work at your utilisation. Inputs you "
            "leave out come from the environment (COSTCALC_UTIL, COSTCALC_REGION, ... : "
            "COSTCALC_ and the option's name), then from your config file (config.yaml, which "
            "you write) when there is one - a line under the verdict says which - then "
            "from the bundled defaults. --no-config ignores the config file. What you change in "
            "the app is the app's (app-state.yaml): it changes this answer only with "
            "--as-in-app, and a line after the verdict then names those inputs. A price older "
            f"than its kind allows is marked {CLOUD_LEGEND}."
        ),
        **output.examples(*EXAMPLES),
    )
    cli_args.add_inputs(p)
    cli_args.add_as_in_app(p)
    rows = p.add_mutually_exclusive_group()
    rows.add_argument(
        "--top",
        metavar="N",
        help="rows in each table of offers, no more (default: each provider's cheapest, at "
        "least 10; --json: all)",
    )
    rows.add_argument(
        "--all", action="store_true", help="show every offer (with --json: list every offer)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: the decision, its thresholds and price range, the best "
        "offers (--top N, default 10; --all for every offer)",
    )
    p.add_argument(
        "--brief",
        action="store_true",
        help="print only the answer: the verdict, what would flip it, its price's readings",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="after the answer, derive the verdict offer's figures step by step (the app's "
        "'why this number'); with --json, an \"explain\" field of lines",
    )
    output.add_wide(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    now = utc_now()
    top = inputs.whole(ns.top, "top") if ns.top else None
    if top is not None and top < 1:
        raise CostcalcError(f"top must be at least 1, got {ns.top!r}")
    scenario, sources = cli_args.scenario_and_sources(ns)
    data = for_scenario(load_app_data(_wanted(scenario.providers)), scenario)
    bench = _load_bench(scenario.bench)
    measured = measured_use(scenario, now)
    calc = evaluate(
        scenario,
        data,
        now,
        bench=bench,
        recorded=recorded_points,
        measured=measured,
        job_files=_job_files(scenario.model),
        monthly=measured_months(scenario, now),
    )
    labels = data.book.labels  # the providers loaded, by the book that loaded them
    code = _answer(ns, calc, data, top, sources, labels)
    # Diagnostics after the answer: its first line is the verdict, in a terminal and in a
    # `2>&1` pipe alike (stdout is flushed before stderr is written).
    sys.stdout.flush()
    for warning in data.book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    output.notes(calc.notes)
    return code


def _answer(
    ns: argparse.Namespace,
    calc: Any,
    data: Any,
    top: int | None,
    sources: Any,
    labels: Any,
) -> int:
    """Print the answer on stdout: the JSON document, or the text (and --explain)."""
    width = output.width()
    rows = None if ns.all else top or 10
    if ns.json:
        print(
            report.to_json(
                calc,
                data,
                top=rows,
                labels=labels,
                with_explain=ns.explain,
                saved_note=sources.note,
                saved=sources.saved,
                app_state_note=sources.app_note,
                exact_top=top is not None and not ns.all,
            )
        )
        return 0
    print(
        report.to_text(
            calc,
            data,
            rows,
            labels,
            width=width,
            wide=ns.wide,
            short_labels=data.book.short_labels,
            saved=sources.saved,
            after_verdict=sources.app_note,
            brief=ns.brief,
            exact_top=top is not None and not ns.all,
            saved_note=sources.note,
            after=len(data.book.warnings) + len(output.note_lines(calc.notes)),
        )
    )
    if ns.explain:
        print()
        print(report.explain_text(calc, data, width, labels))
    return 0


def _wanted(providers: Any) -> list[str] | None:
    """The providers to load: every one (None) unless the scenario names some; only then is
    the registry asked (for each name it knows)."""
    if not providers:
        return None

    return [registry.get(p).name for p in providers if p != CUSTOM_PROVIDER]


def measured_use(scenario: Any, now: Any) -> Any:
    """The busy share a `--util measured` asks for, read from the history (store.usage), or
    None for a number (nothing is imported then)."""
    from costcalc.core.usage import is_measured

    if not is_measured(scenario.utilisation):
        return None
    from costcalc.store.usage import measured_use as read

    return read(scenario.utilisation, now)


def measured_months(scenario: Any, now: Any) -> Any:
    """The busy share of each of the last twelve months a `--profile measured` asks for, read
    from the history (store.usage), or None (nothing is imported then)."""
    if scenario.profile is None:
        return None
    from costcalc.core.hybrid import is_measured_profile

    if not is_measured_profile(scenario.profile):
        return None
    from costcalc.store.usage import monthly_use

    return monthly_use(now)


def _job_files(model: str | None) -> Any:
    """The model list and the public runs' utilisation a `--model` needs, or None (nothing is
    read or imported without one)."""
    if model is None:
        return None
    from costcalc.store.bundled import load_job_files

    return load_job_files()


def _load_bench(spec: str | None) -> Any:
    """The saved bench result the scenario names, or None (nothing is imported without one)."""
    if spec is None:
        return None
    from costcalc.bench.store import resolve

    return resolve(spec)
