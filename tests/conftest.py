"""Shared fixtures: every test gets its own COSTCALC_HOME, and nothing reaches the internet."""

from __future__ import annotations

import contextlib
import inspect
import itertools
import re
import socket
from collections.abc import Callable, Iterator
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


# --------------------------------------------------------------------------- markers
# Given by where a test lives and what it uses, never by hand, so `-m "not app and not network
# and not subprocess"` (the fast subset in the README) stays true as tests are added.

MARK_BY_FOLDER = {"tui": "app", "bench": "bench"}
"""tests/<folder>/ -> its marker: the Textual app under Pilot; the bench, which runs torch."""

NETWORK_FIXTURES = frozenset({"_http_feed_server", "_tls_feed_server", "httpserver"})
"""The local HTTP servers feeds come from (feed_server, tls_feed_server, aws_feeds and every
fixture built on them use one): a test that uses one is `network`."""

SPAWNING_FILES = frozenset({"tests/tui/test_detect.py"})
"""Files whose tests start processes from inside costcalc (a fake nvidia-smi, a shell script),
which reading the test's own code cannot see."""

SPAWNING_NAMES = frozenset({"subprocess", "Popen"})
APP_NAMES = frozenset({"run_test"})
"""Textual's App.run_test: a test outside tests/tui that drives the app is `app` too."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        relative = item.path.relative_to(root)
        folder = relative.parts[1] if len(relative.parts) > 2 else ""
        names = _names_used(item)
        if folder in MARK_BY_FOLDER:
            item.add_marker(MARK_BY_FOLDER[folder])
        elif APP_NAMES & names:
            item.add_marker("app")
        if NETWORK_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker("network")
        if relative.as_posix() in SPAWNING_FILES or SPAWNING_NAMES & names:
            item.add_marker("subprocess")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip importing tests/tui or tests/bench (textual, torch: seconds) when `-m` deselects
    every test a folder can hold: the fast subset starts in half the time."""
    marker = MARK_BY_FOLDER.get(collection_path.name)
    if marker is None or collection_path.parent != config.rootpath / "tests":
        return None
    return True if _never_selects(config.getoption("markexpr"), marker) else None


def _never_selects(markexpr: str, marker: str) -> bool:
    """Whether `markexpr` is false for every test carrying `marker`, whatever else it carries."""
    if not markexpr:
        return False
    try:
        from _pytest.mark.expression import Expression  # pytest's own parser: private, so...

        expression = Expression.compile(markexpr)
    except Exception:  # ...any change or error there means: collect as usual
        return False
    others = sorted(set(re.findall(r"[\w.-]+", markexpr)) - {"and", "or", "not", marker})
    for values in itertools.product((False, True), repeat=len(others)):
        if expression.evaluate(_holds({marker: True, **dict(zip(others, values, strict=True))})):
            return False
    return True


def _holds(truth: dict[str, bool]) -> Callable[..., bool]:
    return lambda name, **_: truth.get(name, False)


def _names_used(item: pytest.Item) -> set[str]:
    """The global and attribute names in the test's code and in the helpers it calls from its
    own module or the suite's helper modules (tests.imports, ...), at any depth."""
    function = getattr(item, "function", None)
    module = getattr(item, "module", None)
    if function is None or module is None:
        return set()
    names: set[str] = set()
    seen: set[int] = set()
    pending = [function.__code__]
    while pending:
        code = pending.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        names.update(code.co_names)
        pending.extend(const for const in code.co_consts if inspect.iscode(const))
        for name in code.co_names:
            helper = getattr(module, name, None)
            if inspect.isfunction(helper) and (
                helper.__module__ == module.__name__ or helper.__module__.startswith("tests.")
            ):
                pending.append(helper.__code__)
    return names


@pytest.fixture(autouse=True)
def processes_are_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that starts a process must carry the `subprocess` marker, so the fast subset never
    quietly grows slow: one that is not marked fails here, saying what to add."""
    if request.node.get_closest_marker("subprocess") is not None:
        return
    import subprocess

    def refuse(self: subprocess.Popen[Any], args: Any, *rest: Any, **more: Any) -> None:
        raise RuntimeError(
            f"test started a process ({args!r}) without the subprocess marker: add"
            " @pytest.mark.subprocess, or the file to SPAWNING_FILES in tests/conftest.py"
        )

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    parsed_bundled_files: dict[str, bytes],
) -> Iterator[Path]:
    """Point every user file at a fresh directory so no test reads or writes real files."""
    home = tmp_path / "costcalc-home"
    monkeypatch.setenv("COSTCALC_HOME", str(home))
    if request.node.get_closest_marker("cold_cache") is None:
        _fill_parse_cache_on_first_use(monkeypatch, parsed_bundled_files)
        if request.node.get_closest_marker("subprocess") is not None:
            from costcalc.edge import locations

            locations.cache_dir()  # now: a child process reads the disk, not this hook
    for name in PROVIDER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture(scope="session")
def parsed_bundled_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The parse cache's entries for the bundled data files, made once per session in a
    throwaway home: parsing them again in every test's fresh home cost 0.4-0.9 s a test."""
    from costcalc.edge.resources import load_yaml_resource
    from costcalc.store.loaders import bundled_files

    home = tmp_path_factory.mktemp("warm-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COSTCALC_HOME", str(home))
        for package, name, model in bundled_files():
            load_yaml_resource(package, name, model)
    return {
        entry.name: entry.read_bytes() for entry in (home / "cache" / "parsed").glob("*.msgpack")
    }


def _fill_parse_cache_on_first_use(
    monkeypatch: pytest.MonkeyPatch, entries: dict[str, bytes]
) -> None:
    """A test's home starts with the session's parse cache, as a user's second run does. It is
    written when the code first asks where a home's cache is (a test may move between homes),
    so tests that never read data files pay nothing; each home gets its own copy, so what one
    test does to it no other test sees. A test about the cache itself is marked `cold_cache`
    and starts with none."""
    from costcalc.edge import locations

    real_cache_dir_text = locations.cache_dir_text
    filled: set[str] = set()

    def cache_dir_text() -> str:
        directory = real_cache_dir_text()
        if directory not in filled:
            filled.add(directory)
            write_parse_cache(Path(directory), entries)
        return directory

    monkeypatch.setattr(locations, "cache_dir_text", cache_dir_text)


def write_parse_cache(directory: Path, entries: dict[str, bytes]) -> None:
    """The entries into `directory`/parsed, unless the home already has a parse cache."""
    parsed = directory / "parsed"
    with contextlib.suppress(OSError):  # a home that cannot hold files is a test of its own
        if parsed.exists():
            return
        parsed.mkdir(parents=True)
        for name, data in entries.items():
            (parsed / name).write_bytes(data)


@pytest.fixture(autouse=True)
def pipe_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the width a pipe gets, 80 columns, whatever terminal runs the suite;
    a test of another width sets COLUMNS itself."""
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 200-column terminal: prose on one line each, every column of a table shown. For
    tests about what the text says; tests/cli/test_cli_width.py checks the narrow layout."""
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
    """One test's routes: path -> handler(request) -> Response, plus how often each path was
    asked for. The server is shared by the session; each test's routes live under a path prefix
    of their own, so a request a finished test left in flight never reaches the next test."""

    def __init__(self, base_url: str, prefix: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.prefix = prefix
        self.handlers: dict[str, Any] = {}
        self.prefixes: dict[str, Any] = {}
        self.hits: dict[str, int] = {}

    def url(self, path: str) -> str:
        return self.base_url + self.prefix + path

    def serve_file(self, path: str, name: str, content_type: str = "application/json") -> None:
        from werkzeug import Response

        body = (FEEDS / name).read_bytes()
        self.handlers[path] = lambda _request: Response(body, content_type=content_type)

    def serve(self, path: str, handler: Any) -> None:
        self.handlers[path] = handler

    def serve_prefix(self, prefix: str, handler: Any) -> None:
        """`handler` answers every path under `prefix` no exact route answers."""
        self.prefixes[prefix] = handler

    def dispatch(self, request: Any) -> Any:
        from werkzeug import Response

        path = request.path.removeprefix(self.prefix)
        self.hits[path] = self.hits.get(path, 0) + 1
        handler = self.handlers.get(path) or next(
            (h for start, h in self.prefixes.items() if path.startswith(start)), None
        )
        return handler(request) if handler else Response("not found", status=404)


class FeedServer:
    """A real HTTP server on 127.0.0.1, started once per session (starting and stopping one per
    test cost half a second each) and handing each request to the routes of the test whose
    prefix its path carries."""

    def __init__(self, ssl_context: Any = None) -> None:
        from pytest_httpserver import HTTPServer

        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True, ssl_context=ssl_context)
        self.server.start()
        self.server.expect_request(re.compile(".*")).respond_with_handler(self._dispatch)
        self.tests: dict[str, FeedRoutes] = {}
        self.started = 0

    def _dispatch(self, request: Any) -> Any:
        from werkzeug import Response

        prefix = "/" + request.path.split("/", 2)[1]
        routes = self.tests.get(prefix)
        return routes.dispatch(request) if routes else Response("no such test", status=404)

    def routes(self) -> Iterator[FeedRoutes]:
        """Fresh, empty routes for one test, removed (and the server's log cleared) after it."""
        self.started += 1
        prefix = f"/test-{self.started}"
        routes = FeedRoutes(self.server.url_for("/"), prefix)
        self.tests[prefix] = routes
        try:
            yield routes
        finally:
            del self.tests[prefix]
            self.server.clear_log()
            self.server.clear_handler_errors()

    def stop(self) -> None:
        if self.server.is_running():
            self.server.stop()


@pytest.fixture(scope="session")
def _http_feed_server() -> Iterator[FeedServer]:
    server = FeedServer()
    yield server
    server.stop()


@pytest.fixture
def feed_server(_http_feed_server: FeedServer) -> Iterator[FeedRoutes]:
    yield from _http_feed_server.routes()


@pytest.fixture(scope="session")
def test_ca() -> Any:
    import trustme

    return trustme.CA()


@pytest.fixture(scope="session")
def _tls_feed_server(test_ca: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    test_ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    bundle = tmp_path_factory.mktemp("ca") / "ca.pem"
    test_ca.cert_pem.write_to_path(str(bundle))
    server = FeedServer(context)
    yield server, bundle
    server.stop()


@pytest.fixture
def tls_feed_server(
    _tls_feed_server: tuple[FeedServer, Path], monkeypatch: pytest.MonkeyPatch
) -> Iterator[FeedRoutes]:
    """The feed server over https, with a certificate from a throwaway CA that requests trusts
    for this test only: credentials are sent only over https (costcalc.edge.net)."""
    server, bundle = _tls_feed_server
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    yield from server.routes()


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


@pytest.fixture
def catalog_feeds(aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    """aws_feeds with the recorded catalogs in place of empty ones (a catalog no copy was
    recorded for answers 404)."""
    aws_feeds.prefixes.clear()
    serve_catalogs(aws_feeds, monkeypatch, recorded=True)
    return aws_feeds


def serve_keyless_feeds(
    routes: FeedRoutes, monkeypatch: pytest.MonkeyPatch, *, catalogs: bool = False
) -> None:
    """The recorded RunPod, Vast.ai, Azure and OCI feeds on the local server, with the env
    pointing at them, and the catalogs (gpuhunt, SkyPilot): recorded with `catalogs`, else
    reachable and empty, so a test of the direct feeds sees them alone. A refresh of every
    provider never leaves this machine (Lambda, without a key, is skipped)."""
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
    serve_catalogs(routes, monkeypatch, recorded=catalogs)
    monkeypatch.setenv("COSTCALC_RUNPOD_URL", routes.url("/runpod/graphql"))
    monkeypatch.setenv("COSTCALC_VAST_URL", routes.url("/vast/bundles/"))
    monkeypatch.setenv("COSTCALC_AZURE_URL", routes.url("/azure/prices"))
    monkeypatch.setenv("COSTCALC_OCI_SHAPES_URL", routes.url("/oci/shapes.json"))
    monkeypatch.setenv("COSTCALC_OCI_URL", routes.url("/oci/products.json"))


SKYPILOT_HEADER = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
GPUHUNT_HEADER = (
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,"
    "gpu_vendor,flags,cpu_arch,provider_data"
)
EMPTY_COMMITS = b'[{"commit": {"committer": {"date": "2026-11-20T06:00:00Z"}}}]'

CATALOGS = FEEDS / "catalogs"
"""Recorded copies of gpuhunt's published catalog and SkyPilot's catalog CSVs, laid out as their
hosts serve them (tests/fixtures/feeds/README.md says where each came from)."""


def zipped(name: str, body: bytes) -> bytes:
    """`body` as the one member `name` of a zip archive, as gpuhunt's CI publishes a catalog."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, body)
    return buffer.getvalue()


EMPTY_VERSION = "20261120-1"


def serve_catalogs(
    routes: FeedRoutes, monkeypatch: pytest.MonkeyPatch, *, recorded: bool = True
) -> None:
    """The catalogs on the local server, the env pointing at them: the recorded copies
    (gpuhunt's version files and zips, SkyPilot's vms.csv files and GitHub's commits answers
    for their dates; a catalog no copy was recorded for answers 404, as a missing file does),
    or, with `recorded=False`, every catalog reachable and listing no GPU, so a test of a
    provider's own feed sees that feed alone."""
    from werkzeug import Response

    def body(data: bytes, kind: str) -> Any:
        return lambda _request: Response(data, content_type=kind)

    hunt, sky = CATALOGS / "gpuhunt", CATALOGS / "skypilot"
    if recorded:
        for folder in sorted(hunt.iterdir()):
            version = (folder / "version").read_text().strip()
            csv = (folder / version / f"{folder.name}.csv").read_bytes()
            routes.serve(f"/gpuhunt/{folder.name}/version", body(version.encode(), "text/plain"))
            archive = zipped(f"{folder.name}.csv", csv)
            routes.serve(
                f"/gpuhunt/{folder.name}/{version}/catalog.zip", body(archive, "application/zip")
            )
        for folder in sorted((sky / "v8").iterdir()):
            path = f"/skypilot/v8/{folder.name}/vms.csv"
            routes.serve(path, body((folder / "vms.csv").read_bytes(), "text/csv"))
    else:

        def empty(request: Any) -> Any:
            path = request.path.removeprefix(routes.prefix)
            if path.endswith("/version"):
                return Response(EMPTY_VERSION, content_type="text/plain")
            if path.endswith("/catalog.zip"):
                name = path.split("/")[2]
                return Response(zipped(f"{name}.csv", f"{GPUHUNT_HEADER}\n".encode()))
            return Response(f"{','.join(SKYPILOT_HEADER)}\n", content_type="text/csv")

        routes.serve_prefix("/gpuhunt/", empty)
        routes.serve_prefix("/skypilot/", empty)

    def commits(request: Any) -> Any:
        path = str(request.args.get("path", ""))
        cloud = path.removeprefix("catalogs/v8/").removesuffix("/vms.csv")
        answer = sky / "commits" / f"{cloud}.json"
        if not recorded:
            return Response(EMPTY_COMMITS, content_type="application/json")
        found = "/" not in cloud and answer.is_file()
        return Response(answer.read_bytes() if found else b"[]", content_type="application/json")

    routes.serve("/github/commits", commits)
    monkeypatch.setenv("COSTCALC_GPUHUNT_URL", routes.url("/gpuhunt"))
    monkeypatch.setenv("COSTCALC_SKYPILOT_URL", routes.url("/skypilot"))
    monkeypatch.setenv("COSTCALC_SKYPILOT_COMMITS_URL", routes.url("/github/commits"))
