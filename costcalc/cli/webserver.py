"""textual-serve's Server with the checks that make `costcalc serve` safe on a laptop that
browses the web, as Jupyter's server is.

Rule kept here: a request is answered only when (1) its Host names this server, so a page on a
DNS-rebound name is refused; (2) its Origin, where a browser sends one (every websocket), is the
page's own; (3) it carries the token of the printed URL, as `?token=` or as the cookie the first
page load sets. A websocket is one app process: at most `max_sessions` run at once, each at most
MAX_COLUMNS x MAX_ROWS cells. A refusal is 403 with its reason on one line, and one line on the
server's stderr.

textual-serve has no hooks for these, so two of its private methods are overridden: `_make_app`
(the aiohttp application, which gets the checks as middleware) and `_process_messages` (where a
browser's resize reaches the app). tests/cli/test_serve.py's refusal and resize tests fail if either
changes.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp_jinja2
from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from costcalc.core.terminal import printable

MAX_COLUMNS = 500
MAX_ROWS = 200
"""The largest terminal a session gets, in cells: a 20000 x 20000 one cost its app 526 MB."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


HOST = re.compile(
    r"(?P<name>[a-z0-9._-]+|\[(?P<ipv6>[0-9a-f:.]+)\])(?::[0-9]{1,5})?", re.IGNORECASE
)
"""A Host header as browsers send it: a name or an address, and a port."""


def host_name(host_header: str) -> str:
    """The name in a Host header, lower-case, without its port or an IPv6 address's brackets
    ('' when it is not a Host header a browser sends)."""
    found = HOST.fullmatch(host_header)
    if found is None:
        return ""
    return (found["ipv6"] or found["name"]).lower()


def host_allowed(host_header: str, names: frozenset[str]) -> bool:
    """Whether a Host header names this server: one of `names`, or an IP address, which no
    DNS-rebinding page can send (its Host is the attacker's domain name)."""
    name = host_name(host_header)
    if name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def fit_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size a browser asked for, within 1..MAX_COLUMNS x 1..MAX_ROWS (what is not a
    whole number: 80 x 24, textual-serve's own default)."""
    return _within(width, MAX_COLUMNS, 80), _within(height, MAX_ROWS, 24)


def _within(value: object, most: int, default: int) -> int:
    try:
        number = int(str(value))  # (a JSON 80.5, true or "1e9" is not a whole number)
    except ValueError:
        number = default
    return max(1, min(number, most))


class SizeCapped:
    """An app service whose terminal never grows past MAX_COLUMNS x MAX_ROWS."""

    def __init__(self, service: AppService) -> None:
        self._service = service

    def __getattr__(self, name: str) -> Any:
        return getattr(self._service, name)

    async def set_terminal_size(self, width: int, height: int) -> None:
        await self._service.set_terminal_size(*fit_size(width, height))


class GuardedServer(Server):
    """The app served to whoever holds the token, from this server's own pages only."""

    def __init__(
        self, command: str, *, host: str, port: int, names: frozenset[str], max_sessions: int
    ) -> None:
        super().__init__(command, host=host, port=port, title="costcalc")
        self.token = secrets.token_urlsafe(24)
        self.names = names
        """The host names (besides IP addresses) a Host header may give: see host_allowed."""
        self.max_sessions = max_sessions
        self.cookie = f"costcalc-serve-{port}"
        """Per port: cookies are not, and two servers on one machine must not share a token."""
        self.sessions = 0
        self.sockets: set[web.WebSocketResponse] = set()

    async def application(self) -> web.Application:
        """textual-serve's application, with the checks in front of every route."""
        app = await self._make_app()

        @web.middleware
        async def checked(request: web.Request, handler: Handler) -> web.StreamResponse:
            reason = self.refusal(request)
            if reason is not None:
                raise self.refuse(request, reason)
            response = await handler(request)
            if not response.prepared:  # (a websocket's headers are sent already)
                response.headers["Referrer-Policy"] = "no-referrer"  # the URL holds the token
            return response

        app.middlewares.append(checked)
        return app

    def refusal(self, request: web.Request) -> str | None:
        """Why `request` is refused (None: it is not)."""
        host = request.headers.get("Host", "")
        if not host_allowed(host, self.names):
            return f"Host {host!r} is not a name of this server"
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() != f"http://{host}".lower():
            return f"a page from {origin!r} may not use this server"
        given = request.query.get("token") or request.cookies.get(self.cookie) or ""
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            return "no token or a wrong one: open the URL that costcalc serve printed"
        return None

    def refuse(self, request: web.Request, reason: str) -> web.HTTPForbidden:
        print(
            printable(f"costcalc: refused {request.method} {request.path}: {reason}"),
            file=sys.stderr,
            flush=True,
        )
        return web.HTTPForbidden(text=f"costcalc serve: {reason}\n")

    async def handle_index(self, request: web.Request) -> web.Response:
        """textual-serve's page, with its addresses on the host the browser asked for (the
        cookie is that host's), and the cookie set when the URL carried the token."""
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"ws://{request.host}/ws",
            "config": {"static": {"url": f"http://{request.host}/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        if "token" in request.query:  # (the right one: the checks refuse any other)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict")
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if self.sessions >= self.max_sessions:
            raise self.refuse(
                request,
                f"{self.sessions} sessions are open, the most this server runs "
                "(--max-sessions): close a tab first",
            )
        width, height = fit_size(request.query.get("width", 80), request.query.get("height", 24))
        sized = request.clone(rel_url=request.rel_url.update_query(width=width, height=height))
        self.sessions += 1
        try:
            return await super().handle_websocket(sized)
        finally:
            self.sessions -= 1

    async def _process_messages(
        self, websocket: web.WebSocketResponse, app_service: AppService
    ) -> None:
        self.sockets.add(websocket)
        try:
            await super()._process_messages(websocket, SizeCapped(app_service))  # type: ignore[arg-type]
        finally:
            self.sockets.discard(websocket)

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: `costcalc serve` prints its one line once it listens (textual-serve's logo
        came before it did, and before a busy port's error)."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Close the browsers' websockets, so each app is told to quit and Ctrl+C does not wait
        for the tabs to close."""
        for websocket in list(self.sockets):
            await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"costcalc serve stopped")
