"""The readings of the verdict's price in the app's verdict panel (issue 24 item 2): the same
range `quick` gives, the user's refresh history included (read by the screen, not the widget)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from msgspec.structs import replace
from textual.widgets import Static

from costcalc.cli import main
from costcalc.core.scenario import AppData
from costcalc.store import history
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import MakeApp
from tests.tui.helpers import started


def day(iso: str) -> str:
    return iso[:10]


@pytest.mark.parametrize("size", [(140, 45), (80, 24)])
async def test_the_verdict_panel_shows_the_readings_quick_gives(
    app_factory: MakeApp,
    data: AppData,
    capsys: pytest.CaptureFixture[str],
    size: tuple[int, int],
) -> None:
    argv = ["quick", "--gpu", "rtx3090", "--util", "0.15", "--no-config", "--json"]
    assert main(argv) == 0
    best = json.loads(capsys.readouterr().out)["best"]
    # A refresh recorded the verdict's offer at another price: one more reading, from history.
    offer = next(
        o
        for o in data.book.offers
        if (o.provider, o.name, o.region) == (best["provider"], best["name"], best["region"])
    )
    when = datetime(2026, 10, 20, tzinfo=timezone.utc)
    history.record([replace(offer, **{"usd_per_hour": 0.39, "fetched_at": when})], when)
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["price_range"]
    assert r is not None and r["count"] >= 2
    assert sum(x["origin"] == "history" for x in r["readings"]) == 1
    assert r["verdict_holds"] is True

    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await started(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.calc is not None
        assert screen.calc.comparison.best is not None
        assert screen.calc.comparison.best.offer.name == doc["best"]["name"]
        basis = " ".join(str(screen.query_one("#basis-line", Static).render()).split())
        panel = screen.query_one("#verdict")
        # the whole sentence shows: the panel keeps every row its lines take
        assert panel.size.height == sum(s.size.height for s in panel.query(Static) if s.display)

    low, high, median = (f"${r[k + '_usd_per_hour']:.3f}" for k in ("low", "high", "median"))
    assert (
        f"{r['count']} readings of its price, {day(r['first'])} to {day(r['last'])} "
        f"(1 from your refreshes): {low} to {high}/h, median {median}; the verdict holds." in basis
    ), basis
