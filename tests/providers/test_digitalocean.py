"""DigitalOcean GPU Droplets (Paperspace's GPU machines): parsing and the authenticated fetch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.edge.net import FetchError, FetchSettings, HttpClient
from costcalc.providers import digitalocean
from tests.conftest import FeedRoutes

FEEDS = Path(__file__).parent.parent / "fixtures" / "feeds"


def test_gpu_sizes_become_one_row_per_region() -> None:
    rows, following = digitalocean.parse((FEEDS / "do-sizes.json").read_bytes())
    assert following is None
    assert sorted((r.name, r.region) for r in rows) == [
        ("gpu-h100x1-80gb", "nyc2"),
        ("gpu-h100x1-80gb", "tor1"),
        ("gpu-h100x8-640gb", "tor1"),
        ("gpu-mi300x1-192gb", "atl1"),
    ]  # the basic droplet has no GPU; the AMD MI300X has a catalog row since issue 25
    eight = next(r for r in rows if r.gpu_count == 8)
    assert (eight.gpu, eight.usd_per_hour, eight.vcpus, eight.ram_gb) == (
        "h100_sxm5_80gb",
        26.0,
        160,
        1920.0,
    )


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("nvidia_h100", "h100_sxm5_80gb"),
        ("NVIDIA L40S", "l40s"),
        ("nvidia_rtx_6000_ada", "rtx6000_ada"),
        ("amd_mi300x", "mi300x"),  # a catalog row since issue 25
        ("amd_mi999x", None),
    ],
)
def test_model_names(model: str, key: str | None) -> None:
    assert digitalocean.gpu_key(model) == key


def test_fetch_sends_the_token_and_follows_pages(
    tls_feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads((FEEDS / "do-sizes.json").read_text())
    first = {
        **doc,
        "sizes": doc["sizes"][:2],
        "links": {"pages": {"next": tls_feed_server.url("/v2/sizes/2")}},
    }
    second = {**doc, "sizes": doc["sizes"][2:]}
    seen: list[str | None] = []

    def page(body: dict) -> Any:  # type: ignore[type-arg]
        def handler(request: Request) -> Response:
            seen.append(request.headers.get("Authorization"))
            return Response(json.dumps(body), content_type="application/json")

        return handler

    tls_feed_server.serve("/v2/sizes", page(first))
    tls_feed_server.serve("/v2/sizes/2", page(second))
    monkeypatch.setenv(digitalocean.URL_ENV, tls_feed_server.url("/v2/sizes"))
    assert tls_feed_server.url("/").startswith("https://")
    with HttpClient(FetchSettings(read_timeout_s=2, retries=0)) as client:
        rows = digitalocean.fetch(client, "tok-123")
    assert seen == ["Bearer tok-123", "Bearer tok-123"]
    assert len(rows) == 4  # three H100 rows and the MI300X


def test_a_plain_http_override_gets_no_token_and_says_why(
    feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    feed_server.serve_file("/v2/sizes", "do-sizes.json")
    monkeypatch.setenv(digitalocean.URL_ENV, feed_server.url("/v2/sizes"))
    with (
        HttpClient(FetchSettings(read_timeout_s=2, retries=0)) as client,
        pytest.raises(
            FetchError, match="plain http, not https: the DigitalOcean token was not sent"
        ),
    ):
        digitalocean.fetch(client, "tok-123")
    assert feed_server.hits == {}  # nothing was sent at all


def test_a_next_page_on_another_host_is_not_followed(
    tls_feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads((FEEDS / "do-sizes.json").read_text())
    elsewhere = tls_feed_server.url("/v2/sizes/2").replace("127.0.0.1", "localhost")
    first = {**doc, "links": {"pages": {"next": elsewhere}}}
    tls_feed_server.serve("/v2/sizes", lambda _r: Response(json.dumps(first)))
    monkeypatch.setenv(digitalocean.URL_ENV, tls_feed_server.url("/v2/sizes"))
    with (
        HttpClient(FetchSettings(read_timeout_s=2, retries=0)) as client,
        pytest.raises(FetchError, match="another host"),
    ):
        digitalocean.fetch(client, "tok-123")
    assert tls_feed_server.hits == {"/v2/sizes": 1}


def test_credentials_go_only_to_their_own_https_host() -> None:
    from costcalc.edge.net import credential_refusal

    host = "api.digitalocean.com"
    assert credential_refusal("https://api.digitalocean.com/v2/sizes", host) is None
    assert credential_refusal("https://127.0.0.1:8443/v2/sizes", host) is None
    assert "not https" in str(credential_refusal("http://api.digitalocean.com/v2", host))
    assert "is not api.digitalocean.com" in str(credential_refusal("https://evil.example/v2", host))
    assert credential_refusal("https://api.digitalocean.com.evil.example/", host) is not None


def test_token_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in digitalocean.TOKEN_ENVS:
        monkeypatch.delenv(name, raising=False)
    assert digitalocean.token() is None
    monkeypatch.setenv("DIGITALOCEAN_ACCESS_TOKEN", "abc")
    assert digitalocean.token() == "abc"
