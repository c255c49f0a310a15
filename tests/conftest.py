"""Shared fixtures: every test gets its own COSTCALC_HOME, and nothing reaches the internet."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from costcalc.providers import registry

_LOOPBACK = ("127.0.0.1", "::1", "localhost")

PROVIDER_SETTINGS = (
    *(name for p in registry.every() for env in p.env for name in env.names),
    "COSTCALC_ECB_URL",  # the exchange rates' feed, which is no provider
)
"""Every provider's URL overrides and keys, as the providers declare them: a developer's own
settings never reach a test."""
_real_connect = socket.socket.connect
_real_create_connection = socket.create_connection


def _is_loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        return str(address[0]) in _LOOPBACK
    return isinstance(address, (str, bytes))  # AF_UNIX paths are local


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every user file at a fresh directory so no test reads or writes real files."""
    home = tmp_path / "costcalc-home"
    monkeypatch.setenv("COSTCALC_HOME", str(home))
    for name in PROVIDER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture(autouse=True)
def pipe_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the width a pipe gets, 80 columns, whatever terminal runs the suite;
    a test of another width sets COLUMNS itself."""
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 200-column terminal: prose on one line each, every column of a table shown. For
    tests about what the text says; tests/test_cli_width.py checks the narrow layout."""
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(autouse=True)
def no_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse any connection that is not to this machine: tests never touch the internet."""

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if not _is_loopback(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return _real_connect(self, address)

    def guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if not _is_loopback(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return _real_create_connection(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "create_connection", guarded_create_connection)


# --------------------------------------------------------------------------- price feeds
# A real HTTP server on 127.0.0.1 serving recorded-format feeds; tests swap a route's handler
# to make it misbehave (slow, 500, HTML, truncated, ...).

FEEDS = Path(__file__).parent / "fixtures" / "feeds"


class FeedRoutes:
    """path -> handler(request) -> Response, plus how often each path was asked for."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.handlers: dict[str, Any] = {}
        self.hits: dict[str, int] = {}

    def url(self, path: str) -> str:
        return self.base_url + path

    def serve_file(self, path: str, name: str, content_type: str = "application/json") -> None:
        from werkzeug import Response

        body = (FEEDS / name).read_bytes()
        self.handlers[path] = lambda _request: Response(body, content_type=content_type)

    def serve(self, path: str, handler: Any) -> None:
        self.handlers[path] = handler

    def dispatch(self, request: Any) -> Any:
        from werkzeug import Response

        self.hits[request.path] = self.hits.get(request.path, 0) + 1
        handler = self.handlers.get(request.path)
        return handler(request) if handler else Response("not found", status=404)


def _serve(ssl_context: Any = None) -> Iterator[FeedRoutes]:
    import re

    from pytest_httpserver import HTTPServer

    server = HTTPServer(host="127.0.0.1", port=0, threaded=True, ssl_context=ssl_context)
    server.start()
    routes = FeedRoutes(server.url_for("/"))
    server.expect_request(re.compile(".*")).respond_with_handler(routes.dispatch)
    try:
        yield routes
    finally:
        server.clear()
        if server.is_running():
            server.stop()


@pytest.fixture
def feed_server() -> Iterator[FeedRoutes]:
    yield from _serve()


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import trustme

    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(tmp_path_factory.mktemp("ca") / "ca.pem"))
    return ca


@pytest.fixture
def tls_feed_server(
    test_ca: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FeedRoutes]:
    """The feed server over https, with a certificate from a throwaway CA that requests trusts
    for this test only: credentials are sent only over https (costcalc.edge.net)."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    test_ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    bundle = tmp_path / "ca.pem"
    test_ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    yield from _serve(context)


@pytest.fixture
def aws_feeds(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    """Good AWS feeds on the local server, the env pointing at them, and short HTTP limits."""
    feed_server.serve_file("/spot.json", "spot.json")
    feed_server.serve_file("/spot-advisor-data.json", "spot-advisor-data.json")
    for region in ("us-east-1", "us-west-2", "eu-west-1"):
        feed_server.serve_file(f"/ondemand/{region}/index.json", f"ondemand-{region}.json")
    monkeypatch.setenv("COSTCALC_AWS_SPOT_URL", feed_server.url("/spot.json"))
    monkeypatch.setenv("COSTCALC_AWS_ADVISOR_URL", feed_server.url("/spot-advisor-data.json"))
    monkeypatch.setenv(
        "COSTCALC_AWS_ONDEMAND_URL", feed_server.url("/ondemand/{region}/index.json")
    )
    monkeypatch.setenv("COSTCALC_AWS_REGIONS", "us-east-1,us-west-2,eu-west-1")
    # a full refresh also fetches the ECB's exchange rates
    feed_server.serve_file("/eurofxref-daily.xml", "eurofxref-daily.xml", "text/xml")
    monkeypatch.setenv("COSTCALC_ECB_URL", feed_server.url("/eurofxref-daily.xml"))
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "0.5")
    monkeypatch.setenv("COSTCALC_HTTP_RETRIES", "2")
    monkeypatch.setenv("COSTCALC_HTTP_BACKOFF", "0.01")
    for name in ("COSTCALC_DIGITALOCEAN_TOKEN", "DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    serve_keyless_feeds(feed_server, monkeypatch)
    return feed_server


def serve_keyless_feeds(routes: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorded RunPod, Vast.ai, Azure and OCI feeds on the local server, with the env
    pointing at them: a refresh of every provider never leaves this machine (Lambda, without a
    key, is skipped)."""
    import json

    from werkzeug import Response

    routes.serve_file("/runpod/graphql", "runpod-gputypes.json")
    routes.serve_file("/vast/bundles/", "vast-bundles.json")
    routes.serve_file("/oci/shapes.json", "oci-shapes.json")
    routes.serve_file("/oci/products.json", "oci-products.json")
    first = json.loads((FEEDS / "azure-prices-page1.json").read_text())
    first["NextPageLink"] = routes.url("/azure/prices?$skip=1000")
    second = (FEEDS / "azure-prices-page2.json").read_text()

    def azure(request: Any) -> Any:
        body = second if request.args.get("$skip") else json.dumps(first)
        return Response(body, content_type="application/json")

    routes.serve("/azure/prices", azure)
    monkeypatch.setenv("COSTCALC_RUNPOD_URL", routes.url("/runpod/graphql"))
    monkeypatch.setenv("COSTCALC_VAST_URL", routes.url("/vast/bundles/"))
    monkeypatch.setenv("COSTCALC_AZURE_URL", routes.url("/azure/prices"))
    monkeypatch.setenv("COSTCALC_OCI_SHAPES_URL", routes.url("/oci/shapes.json"))
    monkeypatch.setenv("COSTCALC_OCI_URL", routes.url("/oci/products.json"))
