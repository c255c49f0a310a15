"""Fault cases for URLs and credentials: one parser decides and connects, so no check sees one
host while the connection goes to another, and no key or query string reaches a stored file.

Every case runs against a real https server on 127.0.0.1 (tests/conftest.py) and checks what
the server received: a credential that left would show up in its log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.edge.net import BadUrl, FetchError, FetchSettings, HttpClient, address, public_url
from costcalc.providers import digitalocean, lambda_cloud
from costcalc.store.snapshots import refreshed_path
from tests.conftest import FEEDS, FeedRoutes

SECRET = "tok-secret-123"


class Recorder:
    """Every request the server received: its path and Authorization header."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str | None]] = []

    def __call__(self, body: bytes) -> object:
        def handler(request: Request) -> Response:
            self.seen.append((request.full_path, request.headers.get("Authorization")))
            return Response(body, content_type="application/json")

        return handler

    @property
    def keys(self) -> list[str | None]:
        return [key for _path, key in self.seen]


def settings() -> FetchSettings:
    return FetchSettings(read_timeout_s=2, retries=0)


# --------------------------------------------------------------------------- the one parser


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://other-host\\@api.digitalocean.com/v2/sizes", "backslash"),
        ("https://api.digitalocean.com\\@other-host/v2", "backslash"),
        ("https://user:pw@api.digitalocean.com/v2/sizes", "user or password"),
        ("https://api.digitalocean.com%2f@evil.example/", "user or password"),
        ("https://api.digitalocean.com%2eevil.example/", "encoded or non-ASCII"),
        ("https://ａpi.digitalocean.com/v2", "encoded or non-ASCII"),  # fullwidth a: IDNA folds it
        ("https://api.digitalocean.com:8443/v2", "port 8443"),
        ("https://[::1/v2", "not a valid URL"),
        ("file:///etc/passwd", "only http and https"),
        ("https://api.digitalocean.com/v2 sizes", "space"),
    ],
)
def test_unusual_authorities_are_refused_before_any_request(url: str, why: str) -> None:
    with pytest.raises(BadUrl, match=why):
        address(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://api.digitalocean.com/v2/sizes?page=2",
        "https://API.DigitalOcean.com:443/v2",
        "http://127.0.0.1:8080/spot.json",
        "https://[::1]:9443/v2",
    ],
)
def test_plain_urls_pass(url: str) -> None:
    assert address(url).host in {"api.digitalocean.com", "127.0.0.1", "::1"}


def test_a_refused_url_sends_nothing_and_says_so_in_one_line(feed_server: FeedRoutes) -> None:
    feed_server.serve_file("/spot.json", "spot.json")
    odd = feed_server.url("/spot.json").replace("127.0.0.1", "localhost\\@127.0.0.1")
    with HttpClient(settings()) as client, pytest.raises(FetchError) as caught:
        client.get(odd)
    assert "backslash" in str(caught.value) and "nothing was sent" in str(caught.value)
    assert feed_server.hits == {}


# --------------------------------------------------------------------------- credentials


def test_a_backslash_next_page_link_gets_no_token(
    tls_feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """urlsplit reads the host after the '@' (the first page's), urllib3 the one before the
    backslash: the link must be refused, not followed with the token."""
    doc = json.loads((FEEDS / "do-sizes.json").read_text())
    first_url = tls_feed_server.url("/v2/sizes")
    origin = first_url.removesuffix("/v2/sizes")  # https://127.0.0.1:PORT
    sneaky = origin.replace("127.0.0.1", "localhost") + "\\@" + origin[8:] + "/v2/sizes/2"
    recorder = Recorder()
    first = {**doc, "links": {"pages": {"next": sneaky}}}
    tls_feed_server.serve("/v2/sizes", recorder(json.dumps(first).encode()))
    monkeypatch.setenv(digitalocean.URL_ENV, first_url)
    with HttpClient(settings()) as client, pytest.raises(FetchError, match="token stays"):
        digitalocean.fetch(client, SECRET)
    assert recorder.keys == [f"Bearer {SECRET}"]  # the first page only
    assert set(tls_feed_server.hits) == {"/v2/sizes"}


def test_a_backslash_lambda_url_override_gets_no_key(
    tls_feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recorder = Recorder()
    tls_feed_server.serve(
        "/api/v1/instance-types", recorder((FEEDS / "lambda-instance-types.json").read_bytes())
    )
    port = tls_feed_server.url("/").split(":")[2].rstrip("/")
    monkeypatch.setenv(
        lambda_cloud.URL_ENV, f"https://localhost:{port}\\@cloud.lambda.ai/api/v1/instance-types"
    )
    monkeypatch.setenv(lambda_cloud.KEY_ENVS[0], SECRET)
    code = main(["refresh", "--provider", "lambda"])
    _out, err = capsys.readouterr()
    assert code == 1
    assert recorder.seen == [] and tls_feed_server.hits == {}
    assert "backslash" in err and "Traceback" not in err and SECRET not in err
    assert len([line for line in err.splitlines() if "lambda" in line]) == 1


def test_the_client_itself_refuses_a_key_for_a_foreign_host(tls_feed_server: FeedRoutes) -> None:
    """The last check is made on the prepared request, whatever the provider decided."""
    recorder = Recorder()
    tls_feed_server.serve("/x", recorder(b"{}"))
    url = tls_feed_server.url("/x").replace("127.0.0.1", "localhost")
    headers = {"Authorization": f"Bearer {SECRET}"}
    with HttpClient(settings()) as client:
        with pytest.raises(FetchError, match="credentials not sent"):
            client.get(url, headers=headers)  # no host named: none may receive them
        with pytest.raises(FetchError, match="credentials not sent"):
            client.get(url.replace("https:", "http:"), headers=headers, own_hosts=("localhost",))
        assert recorder.seen == []
        assert client.get(url, headers=headers, own_hosts=("localhost",)) == b"{}"
    assert recorder.keys == [f"Bearer {SECRET}"]


def test_the_clients_observer_cannot_be_swapped() -> None:
    heard: list[str] = []
    with HttpClient(settings()) as client:
        with pytest.raises(AttributeError):
            client.on_request = heard.append  # type: ignore[misc]
        sibling = client.observed(heard.append)
        assert client.on_request is None and sibling.on_request is not None
        assert sibling.session is client.session and sibling.ends_at == client.ends_at


# --------------------------------------------------------------------------- stored files


def test_query_strings_never_reach_a_stored_snapshot(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(
        "COSTCALC_RUNPOD_URL", aws_feeds.url("/runpod/graphql") + "?api_key=" + SECRET
    )
    assert main(["refresh", "--provider", "runpod"]) == 0
    out, err = capsys.readouterr()
    stored = refreshed_path("runpod").read_text()
    assert SECRET not in stored and SECRET not in out + err
    assert "source_url: http://127.0.0.1:" in stored


def test_public_url_keeps_host_and_path_only() -> None:
    assert public_url("https://u:p@h.example:8443/a/b?k=1#f") == "https://h.example:8443/a/b"
    assert public_url("https://[::1/x") == "(not a valid URL)"


def test_a_file_url_is_named_once(
    aws_feeds: FeedRoutes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    local = tmp_path / "spot.json"
    local.write_bytes((FEEDS / "spot.json").read_bytes())
    monkeypatch.setenv("COSTCALC_AWS_SPOT_URL", local.as_uri())
    assert main(["refresh", "--provider", "aws-spot"]) == 1
    _out, err = capsys.readouterr()
    failure = [line for line in err.splitlines() if "failed" in line]
    assert len(failure) == 1, err
    assert failure[0].count(local.as_uri()) <= 1 and "only http and https" in failure[0]
