"""`costcalc serve`: the same interactive app in a web browser.

textual-serve runs one `costcalc tui --served` process per browser tab and streams its screen
over a websocket. As Jupyter's server does, it answers only whoever holds the token of the URL it
prints, from this server's own pages (Host and Origin are checked), with at most --max-sessions
apps at once, each at most 500 x 200 cells (costcalc.cli.webserver). A served app reads your
settings but never saves them, and writes exports under COSTCALC_HOME, not the server's working
directory: a web page must not change what the CLI answers. It listens on 127.0.0.1 unless told
otherwise: opening it to a network is a choice the user makes by name.
"""

from __future__ import annotations

import argparse
import errno
import os
import shlex
import socket
import sys
from typing import Any

from costcalc.cli import output
from costcalc.core.errors import quoted
from costcalc.core.terminal import printable

LOOPBACK = ("127.0.0.1", "localhost", "::1")
EVERY_ADDRESS = ("0.0.0.0", "::", "")
MAX_SESSIONS = 4


def port_number(text: str) -> int:
    """A TCP port, 1-65535, or argparse's one-line error."""
    try:
        port = int(text) if len(text) <= 5 else -1
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"port must be a whole number from 1 to 65535: {quoted(text)}"
        )
    return port


def session_count(text: str) -> int:
    """How many apps may run at once: a whole number from 1, or argparse's one-line error."""
    try:
        count = int(text) if len(text) <= 6 else 0
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"sessions must be a whole number from 1: {text!r}")
    return count


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="open the interactive app in a web browser (on 127.0.0.1 by default)",
        description=(
            "Serve the interactive app over HTTP with textual-serve, one app per browser tab. "
            "Open the URL it prints: it holds a token, and a request without it (or the cookie "
            "the page sets) is refused, as is one whose Host is not this server's name or a "
            "websocket from another site's page. At most --max-sessions apps run at once, each "
            "at most 500 x 200 cells. A served app reads your settings but never saves them, "
            "and writes exports to the exports folder of costcalc's data folder "
            "(COSTCALC_HOME/data/exports when set). Listens on 127.0.0.1 unless --host says "
            "otherwise."
        ),
        **output.examples(
            "costcalc serve",
            "costcalc serve --port 8080",
            "costcalc serve --host 0.0.0.0 --max-sessions 8",
        ),
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)",
    )
    p.add_argument(
        "--port", type=port_number, default=8000, help="TCP port to listen on (default 8000)"
    )
    p.add_argument(
        "--max-sessions",
        type=session_count,
        default=MAX_SESSIONS,
        metavar="N",
        help=f"how many browser tabs may run the app at once (default {MAX_SESSIONS}); "
        "one more is refused",
    )
    p.set_defaults(run=run)


def app_command() -> str:
    """The command textual-serve starts per browser tab: this Python's own costcalc app, as
    served. `exec`: the shell textual-serve starts it with gives way to it, one process a tab."""
    shell_exec = "exec " if os.name == "posix" else ""
    return f"{shell_exec}{shlex.quote(sys.executable)} -m costcalc tui --served"


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (OSError when it cannot: a busy port, an unknown
    host, a port below 1024 without the right)."""
    family, _, _, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    return socket.create_server(address, family=family)


def cannot_listen(exc: OSError, host: str, port: int) -> str:
    """Why the server cannot start, on one line, naming the option that changes it."""
    reason = (exc.strerror or str(exc)).lower()
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is in use; choose another with --port N"
    if exc.errno == errno.EACCES:
        return f"cannot listen on port {port}: {reason}; choose another with --port N"
    return f"cannot listen on {host}: {reason}; check --host"


def host_names(host: str) -> frozenset[str]:
    """The names a browser may reach this server by (IP addresses are always let through):
    localhost and --host, and where it listens on every address, this machine's names."""
    names = {"localhost", host.lower().strip("[]")}
    if host in EVERY_ADDRESS:
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return frozenset(names - {""})


def url_host(host: str) -> str:
    """How the printed URL names the server: this machine's name where it listens on every
    address; an IPv6 address in brackets."""
    if host in EVERY_ADDRESS:
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def run(ns: argparse.Namespace) -> int:
    from aiohttp import web

    from costcalc.cli.webserver import GuardedServer

    try:
        sock = listen(ns.host, ns.port)
    except OSError as exc:
        text = cannot_listen(exc, ns.host, ns.port)
        print(printable(f"costcalc: {text}"), file=sys.stderr)
        return 2
    server = GuardedServer(
        app_command(),
        host=ns.host,
        port=ns.port,
        names=host_names(ns.host),
        max_sessions=ns.max_sessions,
    )
    url = f"http://{url_host(ns.host)}:{ns.port}/?token={server.token}"
    print(f"costcalc: serving the app at {url} (Ctrl+C stops)", file=sys.stderr, flush=True)
    if ns.host not in LOOPBACK:
        print(
            f"costcalc: warning: {ns.host} is not this machine only: anyone who reaches it "
            "with the URL above can use the app",
            file=sys.stderr,
            flush=True,
        )
    web.run_app(server.application(), sock=sock, print=None, access_log=None)
    return 0
