"""The CLI's side of the input table: flags for every scenario input, and the scenario they build.

Rule kept here: argparse only collects the texts; costcalc.core.inputs reads them, exactly as it
reads the app's fields and the environment, so a value means the same wherever it is typed. The
scenario is built in layers: bundled defaults, the user's config file (unless --no-config),
what the app remembers (only with `quick --as-in-app`), the environment (COSTCALC_UTIL,
COSTCALC_REGION, ...), then the flags. Nothing the app does changes a command line's answer
unless that command line asks for it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Collection
from typing import Any

from msgspec import Struct

from costcalc.core import inputs
from costcalc.core.errors import CostcalcError
from costcalc.core.models import Scenario
from costcalc.core.scenario import validate_scenario
from costcalc.store.settings import load_app_state, load_saved


def add_inputs(parser: argparse.ArgumentParser, fields: tuple[str, ...] | None = None) -> None:
    """One option per input (all of them by default), with its help line from the table."""
    for spec in inputs.INPUTS:
        if fields is not None and spec.field not in fields:
            continue
        help_text = spec.help.replace("%", "%%")
        # another command's spelling, unless this command has an option of that name
        flags = [spec.flag, *(f for f in spec.also if f not in parser._option_string_actions)]
        if spec.form == "switch":
            parser.add_argument(
                *flags, dest=spec.field, action="store_const", const=True, help=help_text
            )
        elif spec.form == "list":
            parser.add_argument(
                *flags,
                dest=spec.field,
                action="append",
                metavar=spec.metavar,
                help=help_text,
            )
        else:
            choices = f" ({', '.join(spec.choices)})" if spec.choices else ""
            parser.add_argument(
                *flags,
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
        help="ignore your config file (config.yaml)",
    )


def add_as_in_app(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as-in-app",
        action="store_true",
        help="answer as the app does: the inputs you changed in the app (app-state.yaml, "
        "which the app writes) over your config file; a line after the verdict names them. "
        "Without it, nothing done in the app changes this answer",
    )


def flag_texts(ns: argparse.Namespace) -> dict[str, Any]:
    """The texts the user gave on the command line, by field."""
    return {
        spec.field: getattr(ns, spec.field)
        for spec in inputs.INPUTS
        if getattr(ns, spec.field, None) is not None
    }


def _shown(values: dict[str, Any], used: Collection[str]) -> list[str]:
    return [
        f"{inputs.BY_FIELD[k].what} {inputs.BY_FIELD[k].show(v)}"
        for k, v in values.items()
        if k in used and k in inputs.BY_FIELD
    ]


def saved_note(saved_values: dict[str, Any], used: set[str], path: str) -> str | None:
    """The output's first line when the config file filled inputs the flags did not give."""
    shown = _shown(saved_values, used)
    if not shown:
        return None
    return f"Using your saved settings ({path}): {', '.join(shown)}; --no-config ignores them."


def app_state_note(remembered: dict[str, Any], used: Collection[str], path: str) -> str:
    """The line after the verdict with --as-in-app: which inputs came from the app."""
    shown = _shown(remembered, used)
    if not shown:
        return f"As in the app: it remembers no input this answer takes from it ({path})."
    return f"As in the app: {', '.join(shown)} came from what the app remembers ({path})."


class Sources(Struct, frozen=True):
    """Where a command line's inputs came from, beyond its flags."""

    note: str | None = None
    """The first line: the config file's inputs that were used."""
    saved: frozenset[str] = frozenset()
    """The inputs the config file filled (the verdict names a filter that came from it)."""
    app_note: str | None = None
    """With --as-in-app, the line after the verdict: the inputs the app's state filled."""


def build_scenario(
    ns: argparse.Namespace, fields: tuple[str, ...] | None = None
) -> tuple[Any, str | None]:
    """The scenario of a command line, and the note to print when saved settings were used."""
    scenario, sources = scenario_and_sources(ns, fields)
    return scenario, sources.note


def scenario_and_sources(
    ns: argparse.Namespace, fields: tuple[str, ...] | None = None
) -> tuple[Any, Sources]:
    """The scenario of a command line and where its inputs came from (`Sources`).

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
    remembered: dict[str, Any] = {}
    state = None
    if getattr(ns, "as_in_app", False):
        state = load_app_state()
        remembered = {k: v for k, v in state.values.items() if k in wanted}
        for warning in state.warnings:
            print(f"costcalc: warning: {warning}", file=sys.stderr)
    merged = inputs.merge(saved, remembered, env, flags)
    scenario = validate_scenario(merged)
    if "items_per_run" in flags and scenario.run_hours is None and scenario.bench is None:
        # Typed now, so wanted now; a standing COSTCALC_ITEMS or saved value waits for a run.
        # With a bench, its measured items per second give the run's hours.

        raise CostcalcError(
            "--items gives $ per item of one run: add --run-hours H, the hours one run takes "
            "on your desktop (e.g. --run-hours 12), or --bench latest to time the items"
        )
    later = {*remembered, *env, *flags}
    used = {k for k in saved if k not in later and k in merged}
    note = saved_note(saved, used, str(found.path)) if found is not None and used else None
    from_app = {k for k in remembered if k not in env and k not in flags}
    app_note = app_state_note(remembered, from_app, str(state.path)) if state is not None else None
    return scenario, Sources(note, frozenset(used), app_note)
