"""A provider added the documented way (docs/providers.md): its own module (here, the code
below), its own dated data file (tests/fixtures/toyprices/toy.yaml), this test module, and one
registry line (the `registered` fixture). Nothing else in costcalc changes, yet every command,
the refresh job and the app know it."""

from __future__ import annotations

import json
import os
import sys
import types
from collections.abc import Iterator
from datetime import datetime

import pytest

from costcalc.cli import main
from costcalc.core.models import OfferRow, PriceSnapshot
from costcalc.providers import registry
from costcalc.providers.base import EnvVar, FeedProvider, Progress
from costcalc.providers.common import FeedError, expect, load_json, price
from tests.conftest import FeedRoutes

# --------------------------------------------------------------------------- the module

URL_ENV = "COSTCALC_TOY_URL"
GPUS = {"RTX 4090": "rtx4090", "A100 80GB SXM": "a100_sxm4_80gb"}


def parse(payload: bytes) -> list[OfferRow]:
    """{"machines": [{"id", "gpu", "gpus", "usd_hourly", "zone"}]} -> rows (pure)."""
    machines = expect(expect(load_json(payload), dict, "the document").get("machines"), list, "m")
    rows = []
    for machine in machines:
        gpu = GPUS.get(str(machine.get("gpu")))
        usd = price(machine.get("usd_hourly"))
        if gpu is None or usd is None:
            continue
        rows.append(
            OfferRow(
                name=str(machine["id"]),
                region=str(machine["zone"]),
                gpu=gpu,
                gpu_count=int(machine.get("gpus", 1)),
                usd_per_hour=usd,
            )
        )
    if not rows:
        raise FeedError("no GPU machines in the answer")
    return rows


def fetch(client: object, now: datetime, progress: Progress) -> PriceSnapshot:
    url = os.environ.get(URL_ENV) or "https://toy.example/api/machines"
    progress(f"downloading {url}")
    rows = parse(client.get(url))  # type: ignore[attr-defined]
    return PriceSnapshot(provider="toy", source="Toy API", fetched_at=now, offers=tuple(rows))


TOY = FeedProvider(
    name="toy",
    label="Toy GPU Cloud",
    snapshot_file="toy.yaml",
    snapshot_package="tests.fixtures.toyprices",
    fetch=fetch,
    env=(EnvVar(URL_ENV, "machines API URL"),),
)
PROVIDER = TOY
"""What the registry line names: this module's PROVIDER."""


# --------------------------------------------------------------------------- the registry line


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(registry.MODULES, "toy", __name__)
    yield


# --------------------------------------------------------------------------- what users see


def test_prices_lists_the_bundled_toy_offers(
    registered: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prices", "--provider", "toy", "--json"]) == 0
    offers = json.loads(capsys.readouterr().out)
    assert {(o["name"], o["gpu"], o["usd_per_hour"]) for o in offers} == {
        ("toy-4090", "rtx4090", 0.55),
        ("toy-a100x2", "a100_sxm4_80gb", 3.10),
    }
    assert all(o["source"].startswith("Toy GPU Cloud price list") for o in offers)


def test_quick_compares_against_it(registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quick", "--gpu", "rtx4090", "--provider", "toy", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {o["provider"] for o in doc["offers"]} == {"toy"}
    assert doc["best"]["name"] == "toy-4090"


def test_refresh_fetches_it_and_isolates_its_faults(
    registered: None,
    feed_server: FeedRoutes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from werkzeug import Response

    body = json.dumps(
        {"machines": [{"id": "toy-4090", "gpu": "RTX 4090", "usd_hourly": "0.49", "zone": "eu-1"}]}
    )
    feed_server.serve("/machines", lambda _r: Response(body, content_type="application/json"))
    monkeypatch.setenv(URL_ENV, feed_server.url("/machines"))
    assert main(["refresh", "--provider", "toy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["offers"] == 1
    assert main(["prices", "--provider", "toy", "--json"]) == 0
    assert [o["usd_per_hour"] for o in json.loads(capsys.readouterr().out)] == [0.49]

    feed_server.serve("/machines", lambda _r: Response("<html>down</html>", status=200))
    assert main(["refresh", "--provider", "toy", "--provider", "colab"]) == 1
    err = capsys.readouterr().err
    assert "toy failed" in err and "got HTML" in err
    assert main(["prices", "--provider", "toy", "--json"]) == 0  # the last good snapshot stays
    assert [o["usd_per_hour"] for o in json.loads(capsys.readouterr().out)] == [0.49]


def test_a_broken_bundled_file_is_reported_once_and_skipped(
    registered: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = types.ModuleType("toy_broken")
    broken.PROVIDER = FeedProvider(  # type: ignore[attr-defined]
        name="toy", label="Toy GPU Cloud", snapshot_file="missing.yaml"
    )
    monkeypatch.setitem(sys.modules, broken.__name__, broken)
    monkeypatch.setitem(registry.MODULES, "toy", broken.__name__)
    assert main(["quick", "--gpu", "rtx3090", "--json"]) == 0
    out, err = capsys.readouterr()
    problems = [line for line in err.splitlines() if "missing.yaml" in line]
    assert len(problems) == 1 and "Toy GPU Cloud offers are left out" in problems[0]
    assert json.loads(out)["best"] is not None  # every other provider still works


async def test_the_app_offers_it_in_the_provider_filter(registered: None) -> None:
    from textual.widgets import Select

    from costcalc.tui.app import make_app
    from tests.tui.conftest import FIXED_NOW
    from tests.tui.helpers import started, wait_until

    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)  # the filter bar is filled right after the first frame
        select = app.screen.query_one("#provider", Select)
        select.value = "toy"

        def providers() -> set[str]:
            calc = app.screen.calc  # type: ignore[attr-defined]
            return {r.offer.provider for r in calc.comparison.offers}

        # the choice reaches the answer through a message chain: wait for it, not for one pause
        await wait_until(app, lambda: providers() == {"toy"})
        assert providers() == {"toy"}
