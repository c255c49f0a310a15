"""HTTP for the refresh job: one requests session with timeouts, bounded retries and a size cap.

Rule kept here: this is the only module that imports requests, and only the refresh job imports
it (lazily), so `costcalc quick` and the TUI start without it. Every failure becomes one FetchError
line that names the URL and what went wrong; a response is never trusted past `max_bytes`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from costcalc import __version__

CHUNK_BYTES = 64 * 1024


class FetchError(Exception):
    """A download that failed: connection, timeout, HTTP status or size."""


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass(frozen=True)
class FetchSettings:
    """How patient and how trusting a refresh is with a server."""

    connect_timeout_s: float = 10.0
    read_timeout_s: float = 30.0
    total_timeout_s: float = 300.0
    retries: int = 3
    backoff_s: float = 1.0
    max_bytes: int = 64 * 1024 * 1024
    """Largest JSON payload accepted (spot.json is about 3 MB)."""
    max_stream_bytes: int = 8 * 1024 * 1024 * 1024
    """Largest line-streamed payload accepted (Price List bulk CSVs run to several GB)."""

    @classmethod
    def from_env(cls) -> FetchSettings:
        """Defaults, tuned by COSTCALC_HTTP_TIMEOUT (read timeout, s), COSTCALC_HTTP_RETRIES,
        COSTCALC_HTTP_BACKOFF (s) and COSTCALC_HTTP_MAX_MB."""
        base = cls()
        return cls(
            connect_timeout_s=base.connect_timeout_s,
            read_timeout_s=_env_float("COSTCALC_HTTP_TIMEOUT", base.read_timeout_s),
            total_timeout_s=base.total_timeout_s,
            retries=int(_env_float("COSTCALC_HTTP_RETRIES", base.retries)),
            backoff_s=_env_float("COSTCALC_HTTP_BACKOFF", base.backoff_s),
            max_bytes=int(_env_float("COSTCALC_HTTP_MAX_MB", base.max_bytes / 2**20) * 2**20),
        )


def make_session(settings: FetchSettings) -> requests.Session:
    """A session that retries connection errors and 5xx answers with exponential backoff."""
    retry = Retry(
        total=settings.retries,
        connect=settings.retries,
        read=0,  # a server too slow once is too slow again: fail within the timeout
        status=settings.retries,
        other=0,
        backoff_factor=settings.backoff_s,
        status_forcelist=(500, 502, 503, 504),
        allowed_methods=frozenset({"GET"}),
        raise_on_status=False,
        respect_retry_after_header=False,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers.update(
        {"User-Agent": f"costcalc/{__version__}", "Accept-Encoding": "gzip, deflate"}
    )
    return session


class HttpClient:
    """GET with limits; `get` returns the whole (decompressed) body, `iter_lines` streams it."""

    def __init__(self, settings: FetchSettings | None = None) -> None:
        self.settings = settings or FetchSettings.from_env()
        self.session = make_session(self.settings)

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, url: str, headers: Mapping[str, str] | None = None) -> bytes:
        chunks = []
        for chunk in self._chunks(url, headers, self.settings.max_bytes):
            chunks.append(chunk)
        return b"".join(chunks)

    def iter_lines(self, url: str, headers: Mapping[str, str] | None = None) -> Iterator[str]:
        """Decoded text lines, read chunk by chunk: memory holds one chunk, not the body."""
        pending = b""
        for chunk in self._chunks(url, headers, self.settings.max_stream_bytes):
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode("utf-8-sig", errors="replace").rstrip("\r") + "\n"
        if pending:
            yield pending.decode("utf-8-sig", errors="replace")

    def _open(self, url: str, headers: Mapping[str, str] | None) -> requests.Response:
        timeout = (self.settings.connect_timeout_s, self.settings.read_timeout_s)
        try:
            response = self.session.get(
                url, headers=dict(headers or {}), timeout=timeout, stream=True
            )
        except requests.exceptions.RequestException as exc:
            raise FetchError(f"{url}: {self._explain(exc)}") from exc
        if response.status_code != 200:
            response.close()
            tried = f" after {self.settings.retries} retries" if response.status_code >= 500 else ""
            raise FetchError(f"{url}: HTTP {response.status_code} {response.reason}{tried}")
        return response

    def _chunks(
        self, url: str, headers: Mapping[str, str] | None, max_bytes: int
    ) -> Iterator[bytes]:
        started = time.monotonic()
        response = self._open(url, headers)
        with response:
            declared = response.headers.get("Content-Length")
            encoded = response.headers.get("Content-Encoding", "identity") != "identity"
            if declared and declared.isdigit() and not encoded and int(declared) > max_bytes:
                too_big = f"body of {_size(int(declared))} exceeds {_size(max_bytes)}"
                raise FetchError(f"{url}: {too_big}")
            received = 0
            try:
                for chunk in response.raw.stream(CHUNK_BYTES, decode_content=True):
                    received += len(chunk)
                    if received > max_bytes:
                        raise FetchError(f"{url}: body exceeds {_size(max_bytes)}")
                    if time.monotonic() - started > self.settings.total_timeout_s:
                        raise FetchError(
                            f"{url}: download took over {self.settings.total_timeout_s:g} s"
                        )
                    yield chunk
            except FetchError:
                raise
            except Exception as exc:  # urllib3 read timeouts, resets, bad gzip
                raise FetchError(f"{url}: download broke off ({_reason(exc)})") from exc

    def _explain(self, exc: requests.exceptions.RequestException) -> str:
        """One readable clause for what requests/urllib3 report in nested exception text."""
        text = str(exc)
        if isinstance(exc, requests.exceptions.ConnectTimeout) or "connect timeout" in text:
            return f"cannot connect within {self.settings.connect_timeout_s:g} s"
        if isinstance(exc, requests.exceptions.ReadTimeout) or "Read timed out" in text:
            return f"no answer within {self.settings.read_timeout_s:g} s"
        if isinstance(exc, requests.exceptions.RetryError):
            return f"still failing after {self.settings.retries} retries ({_reason(exc)})"
        if "Connection refused" in text:
            return "cannot connect (connection refused)"
        if "NameResolution" in text or "Name or service not known" in text:
            return "cannot connect (host name not found)"
        if isinstance(exc, requests.exceptions.ConnectionError):
            return f"cannot connect ({_reason(exc)})"
        return _reason(exc)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    for marker in ("Caused by ", "] "):
        if marker in text:
            text = text.rsplit(marker, 1)[-1]
    return text.strip("()'\" ")[:160]


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n} bytes"
