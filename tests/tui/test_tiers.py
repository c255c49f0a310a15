"""Tiers and staleness in the real app (issue 24 items 3 and 4): `T` leaves tiers out as
`--exclude` does, the verdict says what it weighed, the choice is remembered and the CLI gives
the same answer with --as-in-app; the table's "stale" follows the one rule; the help lists the
tiers and the legend."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from textual.widgets import Input, Static

from costcalc.cli import main
from costcalc.core import staleness
from costcalc.core.constants import TIER_NAMES
from costcalc.store.settings import load_app_state
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import notified, started


def main_of(app: object) -> MainScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, MainScreen)
    return screen


async def test_t_leaves_out_tiers_and_the_cli_agrees(
    app_factory: MakeApp, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_factory(persist=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = main_of(app)
        assert screen.calc is not None and screen.calc.comparison.best is not None
        assert screen.calc.comparison.best.offer.tier in ("community", "marketplace")

        await pilot.press("T", *"community,marketplace", "enter")
        await pilot.pause()

        assert screen.settings.exclude_tiers == ("community", "marketplace")
        best = screen.calc.comparison.best
        assert best is not None and best.offer.tier in (None, "secure")
        assert not any(
            r.offer.tier in ("community", "marketplace") for r in screen.calc.comparison.offers
        )
        assert screen.query_one("#exclude_tiers", Input).value == "community, marketplace"
        verdict = str(screen.query_one("#verdict-line", Static).render())
        basis = " ".join(str(screen.query_one("#basis-line", Static).render()).split())
        assert (
            "Weighed: secure on-demand, spot and committed offers; left out: community, "
            "marketplace." in basis
        )
        await app.workers.wait_for_complete()
        await pilot.pause()

    # remembered like every other setting, and the CLI answers the same from it when asked
    assert load_app_state().values["exclude_tiers"] == ["community", "marketplace"]
    monkeypatch.setenv("COSTCALC_NOW", FIXED_NOW.isoformat())
    assert main(["quick", "--json", "--as-in-app"]) == 0
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    assert doc["verdict"] == verdict
    assert doc["tiers"]["left_out"] == ["community", "marketplace"]
    assert "excluded tiers community, marketplace" in doc["app_state"]
    assert main(["quick", "--as-in-app"]) == 0
    out, _ = capsys.readouterr()
    said = " ".join(out.split())
    assert "excluded tiers community, marketplace came from what the app remembers" in said
    # and only then: a bare quick answers from its flags and the user's config alone
    assert main(["quick", "--gpu", "rtx3090", "--json"]) == 0
    bare = json.loads(capsys.readouterr().out)
    assert bare["tiers"]["left_out"] == [] and bare["app_state"] is None


async def test_an_unknown_tier_is_refused_with_the_valid_ones(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        await pilot.press("T", *"comunity", "enter")
        await pilot.pause()
        assert screen.settings.exclude_tiers == ()
        assert notified(app, "did you mean community")
        assert screen.query_one("#exclude_tiers", Input).has_class("-invalid")


async def test_stale_cells_follow_the_one_rule(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        table = screen.query_one(OffersTable)
        await pilot.press("a")  # every offer on its own row
        await pilot.pause()
        seen = set()
        for row in table.rows:
            if row.result is None:
                continue
            cell = table.cell_text_all(row)["price_age_days"]
            stale = staleness.is_stale(row.result.offer, FIXED_NOW)
            assert cell.endswith(" stale") == stale, (row.result.offer.name, cell)
            seen.add(stale)
        assert seen == {True, False}


async def test_the_help_lists_the_key_the_tiers_and_the_legend(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 60)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(app.screen.query_one(Static).content)
        text = " ".join(console.export_text().split())
        assert "T Leave out" in text
        assert all(name in text for name in TIER_NAMES)
        assert staleness.LEGEND in text


async def test_why_this_number_says_the_price_rule(app_factory: MakeApp) -> None:
    from costcalc.tui.widgets.why import why_text

    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        assert screen.calc is not None
        for result in screen.calc.comparison.offers[:40]:
            text = why_text(screen.calc, result, app.data).plain  # type: ignore[attr-defined]
            assert staleness.CLOUD_LEGEND in text
            rule = f"stale ({staleness.WHAT[staleness.stale_kind(result.offer)]}"
            assert (rule in text) == staleness.is_stale(result.offer, FIXED_NOW), text
