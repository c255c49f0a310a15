"""The `costcalc` command: parse, call, print.

Rule kept here: this package holds no arithmetic. Each subcommand lives in its own module,
imported only when that command runs (`COMMANDS`), which imports what every run of it needs at
module level; what only some runs need (requests, torch, textual, aiohttp, the bench) is
imported inside the function that needs it, so `costcalc quick` stays fast and never loads
textual, torch or requests. This module imports almost nothing: `--version` and `--help` answer
without the engine. Results go to stdout, diagnostics to stderr; exit codes: 0 ok,
1 partial failure, 2 bad input or data, 3 another refresh holds the lock, 130 interrupted.
"""

from __future__ import annotations

import os
import sys

from costcalc.core.version import VERSION as __version__

TYPE_CHECKING = False  # typing itself is not imported for `costcalc --version`
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn

COMMANDS: dict[str, str] = {
    "quick": "costcalc.cli.quick",
    "gpus": "costcalc.cli.listing",
    "prices": "costcalc.cli.prices",
    "refresh": "costcalc.cli.refresh",
    "history": "costcalc.cli.history",
    "bench": "costcalc.cli.bench",
    "predict": "costcalc.cli.predict",
    "desktops": "costcalc.cli.desktops",
    "job": "costcalc.cli.job",
    "monitor": "costcalc.cli.monitor",
    "tui": "costcalc.cli.tui",
    "serve": "costcalc.cli.serve",
}
"""Command -> the module whose `register(subparsers)` defines it."""

SUMMARIES: dict[str, str] = {
    "quick": "one-shot comparison: desktop GPU versus every cloud offer",
    "gpus": "list the GPU catalog with specs and sources",
    "prices": "where is a GPU cheapest: cloud offers sorted by $ per GPU-hour",
    "refresh": "download fresh prices from the providers (run it from cron)",
    "history": "show how prices moved across refreshes (sparklines or JSON)",
    "bench": "measure this machine with PyTorch: matmul, bandwidth, training steps, max batch",
    "predict": "predict how long work timed on one GPU takes on another",
    "desktops": "compare desktop builds (n x GPU): price, speed, TCO, break-even, and fit",
    "job": "price a training job: memory, hours, cost, kWh and CO2 per run, everywhere",
    "monitor": "sample the GPU's utilisation and power for --util measured (or import logs)",
    "tui": "open the interactive app (the default when no command is given)",
    "serve": "open the interactive app in a web browser (on 127.0.0.1 by default)",
}
"""Command -> its line in `costcalc --help`, the same as its module gives (a test says so):
`--help`, `--version` and a run without a command list the commands without importing them."""


def build_parser(only: str | None = None, *, summaries: bool = False) -> argparse.ArgumentParser:
    """The full parser, or (`only`) just the one command a run needs, or (`summaries`) the
    commands as names and help lines only, to keep start-up short."""
    from costcalc.cli import output

    parser = output.OneLineParser(
        prog="costcalc",
        description=(
            "Rent cloud GPUs or buy a desktop? Cost per run, break-even days, kWh and CO2. "
            "Without a command, opens the interactive app (in a terminal; in a pipe it prints "
            "this help)."
        ),
        **output.examples(
            "costcalc quick --gpu rtx4090 --util 40% --region DE --currency EUR",
            "costcalc desktops --gpu rtx4090 --gpu rtx_a6000 --count 1,2",
            "costcalc prices --gpu h100",
        ),
    )
    parser.add_argument("--version", action="version", version=f"costcalc {__version__}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=output.OneLineParser
    )
    if summaries and only is None:
        for command, line in SUMMARIES.items():
            sub.add_parser(command, help=line, formatter_class=output.HelpWithExamples)
        return parser
    modules = [COMMANDS[only]] if only in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        __import__(name)
        sys.modules[name].register(sub)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand a command line names, if its first word is one."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def console() -> NoReturn:
    """The `costcalc` executable (and `python -m costcalc`)."""
    sys.exit(main())


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run one command line. `environ` is where COSTCALC_<FLAG> inputs are read (default: the
    process's environment); main never changes the process's environment."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:  # argparse's answer, without argparse (or re) to give it
        print(f"costcalc {__version__}")
        return 0
    from costcalc.core.errors import CostcalcError
    from costcalc.core.terminal import printable

    command = _command_in(words)
    parser = build_parser(only=command, summaries=command is None)
    args = parser.parse_args(words)
    args.environ = os.environ if environ is None else environ
    run: Any = getattr(args, "run", None)
    if run is None:
        if not (sys.stdout.isatty() and sys.stdin.isatty()):
            # In a pipe or from cron there is no one to use the app: say what there is instead.
            parser.print_help()
            return 0
        return _open_app(parser)
    try:
        return int(run(args))
    except CostcalcError as exc:  # what the user typed may be in it: printable text only
        print(f"costcalc: error: {printable(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("costcalc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a home directory that is a file, read-only, full, ...
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        text = printable(f"{exc.strerror or exc}{where}")
        print(f"costcalc: error: {text}; check COSTCALC_HOME", file=sys.stderr)
        return 2


def _open_app(parser: argparse.ArgumentParser) -> int:
    import argparse

    from costcalc.cli import tui

    return int(tui.run(argparse.Namespace()))
