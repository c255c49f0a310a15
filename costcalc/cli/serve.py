"""`costcalc serve`: the same interactive app in a web browser, for a lab's shared machine.

textual-serve runs one `costcalc tui` process per browser tab and streams its screen over a
websocket; the app is the one the terminal shows, with the same settings file. It listens on
127.0.0.1 unless told otherwise: whoever reaches the address can drive the app (its refresh and
bench included), so opening it to a network is a choice the user makes by name.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from costcalc.cli import output

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def port_number(text: str) -> int:
    """A TCP port, 1-65535, or argparse's one-line error."""
    try:
        port = int(text) if len(text) <= 5 else -1
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        from costcalc.core.errors import quoted

        raise argparse.ArgumentTypeError(
            f"port must be a whole number from 1 to 65535: {quoted(text)}"
        )
    return port


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="open the interactive app in a web browser (on 127.0.0.1 by default)",
        description=(
            "Serve the interactive app over HTTP with textual-serve: each browser tab gets its own "
            "app, with the settings saved in your config file. Listens on 127.0.0.1 unless "
            "--host says otherwise; anyone who can reach the address can use the app."
        ),
        **output.examples("costcalc serve", "costcalc serve --port 8080"),
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)",
    )
    p.add_argument(
        "--port", type=port_number, default=8000, help="TCP port to listen on (default 8000)"
    )
    p.set_defaults(run=run)


def app_command() -> str:
    """The command textual-serve starts per browser tab: this Python's own costcalc app."""
    return f"{shlex.quote(sys.executable)} -m costcalc tui"


def run(ns: argparse.Namespace) -> int:
    from textual_serve.server import Server

    url = f"http://{ns.host}:{ns.port}"
    print(f"costcalc: serving the app at {url} (Ctrl+C stops)", file=sys.stderr)
    if ns.host not in LOOPBACK:
        print(
            f"costcalc: warning: {ns.host} is not this machine only: anyone who reaches {url} "
            "can use the app",
            file=sys.stderr,
        )
    Server(app_command(), host=ns.host, port=ns.port, title="costcalc").serve()
    return 0
