"""The CLI's side of the input table: flags for every scenario input, and the scenario they build.

Rule kept here: argparse only collects the texts; costcalc.core.inputs reads them, exactly as it
reads the app's fields and the environment, so a value means the same wherever it is typed. The
scenario is built in layers: bundled defaults, the saved settings file (unless --no-config),
the environment (COSTCALC_UTIL, COSTCALC_REGION, ...), then the flags.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from costcalc.core import inputs
from costcalc.core.errors import CostcalcError
from costcalc.core.scenario import Scenario, validate_scenario
from costcalc.store.settings import load_saved


def add_inputs(parser: argparse.ArgumentParser, fields: tuple[str, ...] | None = None) -> None:
    """One option per input (all of them by default), with its help line from the table."""
    for spec in inputs.INPUTS:
        if fields is not None and spec.field not in fields:
            continue
        help_text = spec.help.replace("%", "%%")
        if spec.form == "switch":
            parser.add_argument(
                spec.flag, dest=spec.field, action="store_const", const=True, help=help_text
            )
        elif spec.form == "list":
            parser.add_argument(
                spec.flag,
                dest=spec.field,
                action="append",
                metavar=spec.metavar,
                help=help_text,
            )
        else:
            choices = f" ({', '.join(spec.choices)})" if spec.choices else ""
            parser.add_argument(
                spec.flag,
                dest=spec.field,
                metavar=spec.metavar or spec.field.upper(),
                help=help_text + choices,
            )
        if spec.alias is not None:
            flag, value = spec.alias
            parser.add_argument(
                flag,
                dest=spec.field,
                action="store_const",
                const=value,
                help=f"{spec.flag} {value}",
            )
    parser.add_argument(
        "--no-config",
        action="store_true",
        help="ignore your saved settings (config.yaml, written by the app)",
    )


def flag_texts(ns: argparse.Namespace) -> dict[str, Any]:
    """The texts the user gave on the command line, by field."""
    return {
        spec.field: getattr(ns, spec.field)
        for spec in inputs.INPUTS
        if getattr(ns, spec.field, None) is not None
    }


def saved_note(saved_values: dict[str, Any], used: set[str], path: str) -> str | None:
    """The output's first line when saved settings filled inputs the flags did not give."""
    shown = [
        f"{inputs.BY_FIELD[k].what} {inputs.BY_FIELD[k].show(v)}"
        for k, v in saved_values.items()
        if k in used and k in inputs.BY_FIELD
    ]
    if not shown:
        return None
    return f"Using your saved settings ({path}): {', '.join(shown)}; --no-config ignores them."


def build_scenario(
    ns: argparse.Namespace, fields: tuple[str, ...] | None = None
) -> tuple[Any, str | None]:
    """The scenario of a command line, and the note to print when saved settings were used."""
    scenario, note, _ = scenario_and_saved(ns, fields)
    return scenario, note


def scenario_and_saved(
    ns: argparse.Namespace, fields: tuple[str, ...] | None = None
) -> tuple[Any, str | None, frozenset[str]]:
    """The scenario of a command line, the note to print when saved settings were used, and
    the inputs they filled (the verdict names a filter that came from them).

    `fields` (the inputs a command uses, as given to `add_inputs`) keeps the saved settings and
    the environment to those inputs, so a command never reports or applies one it ignores."""
    wanted = set(Scenario.__struct_fields__ if fields is None else fields)
    flags = inputs.parse_texts(flag_texts(ns))
    environ = getattr(ns, "environ", None)  # main passes it in; os.environ when built elsewhere
    env = inputs.env_layer(os.environ if environ is None else environ)
    env = {k: v for k, v in env.items() if k in wanted}
    saved: dict[str, Any] = {}
    found = None
    if not getattr(ns, "no_config", False):
        found = load_saved()
        saved = {k: v for k, v in found.values.items() if k in wanted}
        for warning in found.warnings:
            print(f"costcalc: warning: {warning}", file=sys.stderr)
    merged = inputs.merge(saved, env, flags)
    scenario = validate_scenario(merged)
    if "items_per_run" in flags and scenario.run_hours is None and scenario.bench is None:
        # Typed now, so wanted now; a standing COSTCALC_ITEMS or saved value waits for a run.
        # With a bench, its measured items per second give the run's hours.

        raise CostcalcError(
            "--items gives $ per item of one run: add --run-hours H, the hours one run takes "
            "on your desktop (e.g. --run-hours 12), or --bench latest to time the items"
        )
    used = {k for k in saved if k not in env and k not in flags and k in merged}
    note = saved_note(saved, used, str(found.path)) if found is not None and used else None
    return scenario, note, frozenset(used)
