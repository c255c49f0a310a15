"""The desktop builds view in the app shows the comparison `costcalc desktops` prints."""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable, Input, Static

from costcalc.cli import main
from costcalc.store.settings import Settings
from costcalc.tui.screens.desktops import DesktopsScreen
from tests.tui.conftest import FIXED_NOW, MakeApp


async def test_the_app_shows_the_cli_comparison(
    app_factory: MakeApp, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSTCALC_NOW", FIXED_NOW.isoformat())
    code = main(
        [
            "desktops",
            "--gpu", "rtx4090",
            "--gpu", "rtx6000_ada",
            "--count", "1,2,4",
            "--util", "30%",
            "--kind", "transformer",
            "--no-config",
            "--json",
        ]
    )  # fmt: skip
    assert code == 0
    cli = json.loads(capsys.readouterr().out)
    app = app_factory(Settings(gpu="rtx4090", utilisation=0.30, kind="transformer"))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        await pilot.press("D")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DesktopsScreen)
        assert screen.query_one("#cards", Input).value == "rtx4090, rtx6000_ada"
        table = screen.query_one("#builds", DataTable)
        assert table.row_count == 6
        builds = [str(table.get_row_at(i)[0]).strip("★✗ ") for i in range(table.row_count)]
        assert builds == [b["label"] for b in cli["builds"]]
        prices = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert prices == [f"${b['price_usd']:,.0f}" for b in cli["builds"]]
        assert str(table.get_row_at(builds.index("4x GeForce RTX 4090"))[-1]) == "no"
        notes = str(screen.query_one("#desktops-notes", Static).render())
        assert "Does not fit:" in notes and "4x GeForce RTX 4090: needs" in notes
        # a card more, Enter: the comparison follows
        await pilot.press("c", "end", *", rtx3090", "enter")
        await pilot.pause()
        assert table.row_count == 9
        await pilot.press("escape")
        assert not isinstance(app.screen, DesktopsScreen)
