"""The `costcalc` command: parse, call, print.

Rule kept here: this package holds no arithmetic. Each subcommand lives in its own module that
imports only argparse at module level; heavy imports (the engine's data, requests, torch,
textual) happen inside the command that needs them, so `costcalc quick` stays fast and never
loads textual, torch or requests. Results go to stdout, diagnostics to stderr; exit codes: 0 ok,
1 partial failure, 2 bad input or data, 3 another refresh holds the lock, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from costcalc import __version__

COMMAND_MODULES: tuple[str, ...] = (
    "costcalc.cli.quick",
    "costcalc.cli.listing",
    "costcalc.cli.refresh",
    "costcalc.cli.history",
    "costcalc.cli.bench",
    "costcalc.cli.predict",
    "costcalc.cli.tui",
)
"""Each module has `register(subparsers)`; a module not written yet is skipped."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="costcalc",
        description=(
            "Rent cloud GPUs or buy a desktop? Cost per run, break-even days, kWh and CO2. "
            "Without a command, opens the interactive app."
        ),
    )
    parser.add_argument("--version", action="version", version=f"costcalc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # pydantic looks for plugins by scanning every installed distribution's entry points on the
    # first model it builds: a fifth of `costcalc quick`'s start-up, for observability hooks a
    # command-line run never uses. Set the variable yourself (e.g. to 0) to keep plugins on.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from costcalc.errors import CostcalcError

    parser = build_parser()
    args = parser.parse_args(argv)
    run: Any = getattr(args, "run", None)
    if run is None:
        return _open_app(parser)
    try:
        return int(run(args))
    except CostcalcError as exc:
        print(f"costcalc: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("costcalc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _open_app(parser: argparse.ArgumentParser) -> int:
    try:
        tui = importlib.import_module("costcalc.cli.tui")
    except ModuleNotFoundError:
        parser.print_help()
        return 0
    return int(tui.run(argparse.Namespace()))
