"""HTTP for the refresh job: one requests session with timeouts, a wall-clock deadline, bounded
retries, a size cap and a credentials policy.

Rules kept here:
- this is the only module that imports requests, and only the refresh job imports it (lazily),
  so `costcalc quick` and the app start without it;
- every download ends by its deadline, however slowly its bytes arrive: a watchdog shuts the
  request's sockets when the time is up (the connect, the headers and the body alike), and the
  whole refresh has a deadline of its own;
- one URL parser decides and connects (`address`): a URL is prepared as requests will send it
  and read with urllib3's own parser; anything unusual in its authority (a backslash, userinfo,
  percent signs, a non-ASCII host, an odd port) is refused before any request, so no check can
  see one host while the connection goes to another;
- credentials travel only over https, to their provider's own host (or this machine), checked by
  the client on the prepared URL it is about to send; a plain-http or foreign-host URL gets no
  credentials and says why;
- the client's observer is given when it is made and never changed (`observed` makes a sibling
  sharing the session and deadline), so no provider can inherit another's hook;
- every failure becomes one FetchError line that names the host and what went wrong; a response
  is read as a stream and refused as soon as it passes its byte limit (each feed names its own,
  sized from its real answers, under the client's `max_bytes`) or, streamed line by line, its
  line limit: never buffered whole first.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import requests
from msgspec import Struct
from msgspec.structs import replace
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util import parse_url
from urllib3.util.retry import Retry

from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.version import VERSION as __version__

CHUNK_BYTES = 64 * 1024
MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest line a streamed price list may have: a CSV row is a few hundred bytes."""
LOOPBACK = ("127.0.0.1", "::1", "localhost")
Hosts = tuple[str, ...]


class FetchError(Exception):
    """A download that failed: connection, deadline, HTTP status, size or credentials."""


# --------------------------------------------------------------------------- settings


def _env_number(
    name: str, default: float, *, low: float, high: float, whole: bool = False
) -> float:
    """A finite number from the environment within [low, high], or CostcalcError (exit 2)."""
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        raise CostcalcError(f"{name} must be a number, got {quoted(text)}") from None
    if not math.isfinite(value) or not low <= value <= high or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise CostcalcError(f"{name} must be {kind} from {low:g} to {high:g}, got {quoted(text)}")
    return value


class FetchSettings(Struct, frozen=True):
    """How patient and how trusting a refresh is with a server."""

    connect_timeout_s: float = 10.0
    read_timeout_s: float = 30.0
    """Longest silence while waiting for a byte."""
    deadline_s: float = 120.0
    """Longest one download may take, connect to last byte, whatever the pace of its bytes."""
    refresh_deadline_s: float = 600.0
    """Longest a whole refresh may take; providers not reached by then fail with a message."""
    retries: int = 3
    backoff_s: float = 1.0
    max_bytes: int = 64 * 1024 * 1024
    """Largest payload accepted from any feed (spot.json is about 3 MB); a feed's own limit,
    given with each request, is smaller."""
    max_stream_bytes: int = 8 * 1024 * 1024 * 1024
    """Largest line-streamed payload accepted (Price List bulk CSVs run to several GB)."""
    max_stream_lines: int = 20_000_000
    """Most lines a streamed payload may have: a region's Price List bulk CSV has a few million
    rows of about a kilobyte; this is the byte limit's worth at 400 bytes a line."""

    @classmethod
    def from_env(cls) -> FetchSettings:
        """Defaults, tuned by COSTCALC_HTTP_TIMEOUT (silence, s), COSTCALC_HTTP_DEADLINE (one
        download, s), COSTCALC_REFRESH_DEADLINE (the whole refresh, s), COSTCALC_HTTP_RETRIES,
        COSTCALC_HTTP_BACKOFF (s) and COSTCALC_HTTP_MAX_MB. A bad value is a usage error."""
        base = cls()
        return replace(
            base,
            read_timeout_s=_env_number(
                "COSTCALC_HTTP_TIMEOUT", base.read_timeout_s, low=0.05, high=3600
            ),
            deadline_s=_env_number("COSTCALC_HTTP_DEADLINE", base.deadline_s, low=0.1, high=86400),
            refresh_deadline_s=_env_number(
                "COSTCALC_REFRESH_DEADLINE", base.refresh_deadline_s, low=0.1, high=86400
            ),
            retries=int(
                _env_number("COSTCALC_HTTP_RETRIES", base.retries, low=0, high=10, whole=True)
            ),
            backoff_s=_env_number("COSTCALC_HTTP_BACKOFF", base.backoff_s, low=0, high=60),
            max_bytes=int(
                _env_number("COSTCALC_HTTP_MAX_MB", base.max_bytes / 2**20, low=0.001, high=4096)
                * 2**20
            ),
        )


# --------------------------------------------------------------------------- the deadline


class Deadline:
    """A wall-clock limit for one request: when it passes, the request's sockets are shut, which
    ends a blocked connect, header read or body read at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self.fire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        _current.deadline = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        _current.deadline = None

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def fire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


_current = threading.local()
"""The deadline of the request this thread is making (the refresh runs one at a time per thread)."""


def _watch(sock: Any) -> None:
    deadline: Deadline | None = getattr(_current, "deadline", None)
    if deadline is not None and sock is not None:
        deadline.watch(sock)


class _WatchedHTTPConnection(HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _watch(self.sock)


class _WatchedHTTPSConnection(HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _watch(self.sock)


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


def make_session(settings: FetchSettings) -> requests.Session:
    """A session that retries 5xx answers with exponential backoff, and opens a fresh, watched
    connection for every request (so every socket has its deadline). A host that cannot be
    reached (no name, refused, no route, connect timeout) is not retried: it will not be there
    a second later, and with no network every retry only delays the line that says so."""
    retry = Retry(
        total=settings.retries,
        connect=0,
        read=0,  # a server too slow once is too slow again: fail within the timeout
        status=settings.retries,
        other=0,
        redirect=5,
        backoff_factor=settings.backoff_s,
        status_forcelist=(500, 502, 503, 504),
        allowed_methods=frozenset({"GET", "POST"}),  # our POSTs are read-only price queries
        raise_on_status=False,
        respect_retry_after_header=False,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry, pool_connections=1, pool_maxsize=1)
    adapter.poolmanager.pool_classes_by_scheme = {
        "http": _WatchedHTTPPool,
        "https": _WatchedHTTPSPool,
    }
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers.update(
        {
            "User-Agent": f"costcalc/{__version__}",
            "Accept-Encoding": "gzip, deflate",
            "Connection": "close",
        }
    )
    return session


# --------------------------------------------------------------------------- URLs

DEFAULT_PORTS = {"http": 80, "https": 443}
_ODD_IN_URL = re.compile(r"[\\\s\x00-\x1f\x7f]")
"""A backslash, whitespace or a control character: parsers disagree on what each means."""
_AUTHORITY = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)")


class BadUrl(FetchError):
    """A URL refused before any request: its reason says what is unusual in it."""


class Address(Struct, frozen=True):
    """A URL as requests will send it: the prepared text, and the scheme, host and port urllib3
    connects to."""

    url: str
    scheme: str
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)


def address(url: str) -> Address:
    """The one parser that both decides and connects: refuse anything unusual in the URL's
    authority, then prepare it as requests does and read the host urllib3 will connect to;
    BadUrl (a FetchError) names what is wrong."""
    if _ODD_IN_URL.search(url):
        raise BadUrl("has a backslash, a space or a control character; not a plain URL")
    scheme = url.partition(":")[0].lower()
    if scheme not in DEFAULT_PORTS:
        raise BadUrl(f"is a {scheme or 'schemeless'} URL; only http and https are fetched")
    authority = _AUTHORITY.match(url)
    raw = authority[1] if authority else ""
    if "@" in raw:
        raise BadUrl("names a user or password before the host; not sent")
    if "%" in raw or not raw.isascii():
        raise BadUrl("has an encoded or non-ASCII host name; write the host in plain ASCII")
    prepared = requests.models.PreparedRequest()
    try:
        prepared.prepare_url(url, None)
        parsed = parse_url(str(prepared.url))
        port = parsed.port or DEFAULT_PORTS[scheme]
    except Exception as exc:  # requests and urllib3 raise a dozen kinds for a malformed URL
        raise BadUrl(f"is not a valid URL ({_reason(exc)})") from None
    host = (parsed.host or "").strip("[]").lower()
    if not host or host != _split_host(url):
        raise BadUrl("reads as different hosts to different parsers; not a plain URL")
    checked = Address(str(prepared.url), scheme, host, port)
    if port != DEFAULT_PORTS[scheme] and not checked.loopback:
        raise BadUrl(f"names port {port}; only {scheme}'s own port {DEFAULT_PORTS[scheme]} is used")
    return checked


def _split_host(url: str) -> str:
    """The host as the standard library reads it, for the two-parser agreement check."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:  # 'Invalid IPv6 URL'
        return ""


def public_url(url: str) -> str:
    """What may be stored or printed of a URL: scheme, host, port and path; never a user, a
    password, a query string (which may carry a key) or a fragment."""
    try:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"
    except ValueError:
        return "(not a valid URL)"


# --------------------------------------------------------------------------- credentials


def host_of(url: str) -> str:
    return urlsplit(url).hostname or ""


def credential_refusal(url: str, own_host: str) -> str | None:
    """Why credentials must not go to `url`, or None when they may: https, and the provider's
    own host (or a subdomain of it) or this machine, as the connection will see it."""
    try:
        target = address(url)
    except BadUrl as exc:
        return f"the URL {exc}"
    if target.scheme != "https":
        return f"{target.host} is plain {target.scheme}, not https"
    host = target.host
    if target.loopback or host == own_host or host.endswith("." + own_host):
        return None
    return f"{host} is not {own_host}"


def same_origin(first: str, following: str) -> bool:
    """A next-page link stays on the first page's scheme, host and port (as connected to)."""
    try:
        return address(first).origin == address(following).origin
    except BadUrl:
        return False


# --------------------------------------------------------------------------- the client


class HttpClient:
    """GET and POST with limits; `get`/`post_json` return the whole (decompressed) body,
    `iter_lines` streams it line by line."""

    def __init__(
        self,
        settings: FetchSettings | None = None,
        *,
        on_request: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings or FetchSettings.from_env()
        self.session = make_session(self.settings)
        self.ends_at = time.monotonic() + self.settings.refresh_deadline_s
        """The refresh's own deadline: no download starts, or runs, past it."""
        self._on_request = on_request
        self.unconfirmed: list[str] = []
        """Downloads whose length nothing confirmed (no Content-Length, not chunked): a cut
        connection would look like a whole answer, so the refresh compares them with the last
        snapshot before trusting them."""

    @property
    def on_request(self) -> Callable[[str], None] | None:
        """Told the host of every download as it starts (the refresh says whom it is asking);
        fixed when the client is made."""
        return self._on_request

    def observed(self, on_request: Callable[[str], None]) -> HttpClient:
        """A client with the same session and deadline that tells `on_request` of each download
        and keeps its own list of unconfirmed downloads: one per provider."""
        sibling = copy.copy(self)
        sibling._on_request = on_request
        sibling.unconfirmed = []
        return sibling

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        own_hosts: Hosts = (),
        max_bytes: int | None = None,
    ) -> bytes:
        """The whole (decompressed) body, refused as it streams once past `max_bytes` (the
        feed's own limit; never more than the settings' `max_bytes`). A request with an
        Authorization header is sent only when its prepared URL is https on one of `own_hosts`
        (or this machine)."""
        request = _Request("GET", url, headers, None, own_hosts)
        return b"".join(self._chunks(request, self._limit(max_bytes)))

    def post_json(
        self,
        url: str,
        body: Any,
        headers: Mapping[str, str] | None = None,
        *,
        own_hosts: Hosts = (),
        max_bytes: int | None = None,
    ) -> bytes:
        """POST a JSON query (GraphQL, a search) and return the answer's bytes (`get`'s limit)."""
        request = _Request("POST", url, headers, body, own_hosts)
        return b"".join(self._chunks(request, self._limit(max_bytes)))

    def _limit(self, max_bytes: int | None) -> int:
        return min(max_bytes or self.settings.max_bytes, self.settings.max_bytes)

    def iter_lines(self, url: str, headers: Mapping[str, str] | None = None) -> Iterator[str]:
        """Decoded text lines, each ending in a line break but perhaps the last (so a parser can
        tell a body cut mid-line), read chunk by chunk in linear time: memory holds a chunk and
        the unfinished line, never the body; a line longer than MAX_LINE_BYTES, or more lines
        than `max_stream_lines`, is refused."""
        pending = bytearray()
        request = _Request("GET", url, headers, None, ())
        most = self.settings.max_stream_lines
        count = 0
        for chunk in self._chunks(request, self.settings.max_stream_bytes):
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    break
                count += 1
                if count > most:
                    raise FetchError(f"{_where(url)}: more than {most:,} lines; not a price list")
                pending += chunk[start:end]
                yield _line(pending)
                pending.clear()
                start = end + 1
            pending += chunk[start:]
            if len(pending) > MAX_LINE_BYTES:
                raise FetchError(
                    f"{_where(url)}: a line longer than {MAX_LINE_BYTES // 2**20} MB; "
                    "not a price list"
                )
        if pending:
            yield pending.decode("utf-8-sig", errors="replace")

    def _deadline(self, url: str) -> Deadline:
        remaining = self.ends_at - time.monotonic()
        if remaining <= 0:
            limit = self.settings.refresh_deadline_s
            raise FetchError(f"{_where(url)}: not tried, the refresh's {limit:g} s deadline passed")
        return Deadline(min(self.settings.deadline_s, remaining))

    def _chunks(self, request: _Request, max_bytes: int) -> Iterator[bytes]:
        url = request.url
        try:
            target = address(url)
        except BadUrl as exc:
            raise BadUrl(f"{public_url(url)}: the URL {exc}; nothing was sent") from None
        if self._on_request is not None:
            self._on_request(host_and_port(target.url))
        deadline = self._deadline(url)
        with deadline:
            try:
                yield from self._read(request, max_bytes)
            except FetchError:
                if deadline.expired:
                    raise self._late(url, deadline) from None
                raise
            except Exception as exc:
                if deadline.expired:
                    raise self._late(url, deadline) from exc
                raise FetchError(f"{_where(url)}: download broke off ({_reason(exc)})") from exc
            if deadline.expired:  # the watchdog's shutdown reads as a clean end of the body
                raise self._late(url, deadline)

    def _late(self, url: str, deadline: Deadline) -> FetchError:
        return FetchError(f"{_where(url)}: no complete answer within {deadline.seconds:g} s")

    def _prepare(self, request: _Request) -> requests.PreparedRequest:
        """The request exactly as it will be sent; credentials checked on its prepared URL."""
        prepared = self.session.prepare_request(
            requests.Request(
                request.method, request.url, headers=dict(request.headers or {}), json=request.body
            )
        )
        if "Authorization" in prepared.headers:
            refusals = [credential_refusal(str(prepared.url), h) for h in request.own_hosts]
            if None not in refusals:
                why = refusals[0] if refusals else "no host may receive them"
                raise FetchError(f"{_where(request.url)}: {why}: credentials not sent")
        return prepared

    def _read(self, request: _Request, max_bytes: int) -> Iterator[bytes]:
        url = request.url
        timeout = (self.settings.connect_timeout_s, self.settings.read_timeout_s)
        prepared = self._prepare(request)
        # what session.request would add: proxies and the CA bundle from the environment
        env = self.session.merge_environment_settings(str(prepared.url), {}, True, None, None)
        try:
            response = self.session.send(prepared, timeout=timeout, **env)
        except requests.exceptions.RequestException as exc:
            raise FetchError(f"{_where(url)}: {self._explain(exc)}") from exc
        with response:
            if response.status_code != 200:
                retried = (
                    f" after {self.settings.retries} retries" if response.status_code >= 500 else ""
                )
                raise FetchError(
                    f"{_where(url)}: HTTP {response.status_code} {response.reason}{retried}"
                )
            declared = response.headers.get("Content-Length")
            encoded = response.headers.get("Content-Encoding", "identity") != "identity"
            if declared and declared.isdigit() and not encoded and int(declared) > max_bytes:
                too_big = f"body of {_size(int(declared))} exceeds {_size(max_bytes)}"
                raise FetchError(f"{_where(url)}: {too_big}")
            if not declared and "chunked" not in response.headers.get("Transfer-Encoding", ""):
                self.unconfirmed.append(_where(url))
            received = 0
            for chunk in response.raw.stream(CHUNK_BYTES, decode_content=True):
                received += len(chunk)
                if received > max_bytes:
                    raise FetchError(f"{_where(url)}: body exceeds {_size(max_bytes)}")
                yield chunk

    def _explain(self, exc: requests.exceptions.RequestException) -> str:
        """One readable clause for what requests/urllib3 report in nested exception text."""
        text = str(exc)
        if isinstance(exc, requests.exceptions.ConnectTimeout) or "connect timeout" in text:
            return f"cannot connect within {self.settings.connect_timeout_s:g} s"
        if isinstance(exc, requests.exceptions.ReadTimeout) or "Read timed out" in text:
            return f"no answer within {self.settings.read_timeout_s:g} s"
        if isinstance(exc, requests.exceptions.TooManyRedirects) or "redirect" in text.lower():
            return "too many redirects (a redirect loop?)"
        if isinstance(exc, requests.exceptions.RetryError):
            return f"still failing after {self.settings.retries} retries ({_reason(exc)})"
        if "Connection refused" in text:
            return "cannot connect (connection refused)"
        if "NameResolution" in text or "Name or service not known" in text:
            return "cannot connect (host name not found; offline?)"
        if isinstance(exc, requests.exceptions.ConnectionError):
            return f"cannot connect ({_reason(exc)})"
        return _reason(exc)


class _Request(Struct, frozen=True):
    method: str
    url: str
    headers: Mapping[str, str] | None
    body: Any
    own_hosts: Hosts
    """The hosts an Authorization header may go to (with their subdomains)."""


def _line(data: bytearray) -> str:
    return data.decode("utf-8-sig", errors="replace").rstrip("\r") + "\n"


def host_and_port(url: str) -> str:
    """'api.runpod.io', or '127.0.0.1:8080' when the URL names a port: how messages name a
    server (never the path or query, which may be long, percent-encoded or carry keys)."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.hostname or url}{port}"


def _where(url: str) -> str:
    """How a message names a download: the host and path, without a query string (which may
    carry keys) and without percent-encoding noise."""
    return f"{host_and_port(url)}{unquote(urlsplit(url).path)}"


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    for marker in ("Caused by ", "] "):
        if marker in text:
            text = text.rsplit(marker, 1)[-1]
    return text.strip("()'\" ")[:160]


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n} bytes"
