"""One path from inputs to the answer: flags, saved settings and the environment build the same
scenario, and the CLI's text, its JSON and the app show the same figures for it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from costcalc.cli import main
from costcalc.edge import locations
from costcalc.present import display
from costcalc.store.settings import Settings, save_settings

FLAGS = [
    "--gpu",
    "rtx4090",
    "--util",
    "35%",
    "--region",
    "DE",
    "--kwh-price",
    "0.38",
    "--horizon",
    "4",
    "--run-hours",
    "12",
    "--items",
    "2000000",
    "--memory-gb",
    "20",
    "--kind",
    "transformer",
    "--resale",
    "30%",
    "--always-on",
    "--cloud-price",
    "1.25",
]
SAVED = Settings(
    gpu="rtx4090",
    utilisation=0.35,
    home_region="DE",
    usd_per_kwh=0.38,
    horizon_years=4,
    run_hours=12,
    items_per_run=2_000_000,
    memory_gb=20,
    kind="transformer",
    resale_share=0.3,
    always_on=True,
    cloud_prices=(1.25,),
)
PINNED = "2026-11-22T12:00:00+00:00"
KEY_FIELDS = ("provider", "name", "region", "gpu", "gpu_count")


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSTCALC_NOW", PINNED)


def quick(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["quick", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_flags_and_saved_settings_give_the_same_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, from_flags, err = quick([*FLAGS, "--json"], capsys)
    assert code == 0, err
    save_settings(SAVED)
    code, from_saved, err = quick(["--json"], capsys)
    assert code == 0, err
    saved, flags = json.loads(from_saved), json.loads(from_flags)
    # the same answer; only the saved one says where its inputs came from (issue 24 item 6)
    assert saved.pop("saved_settings").startswith("Using your saved settings (")
    assert flags.pop("saved_settings") is None
    assert json.dumps(saved) == json.dumps(flags)
    doc = json.loads(from_flags)
    assert doc["inputs"]["scenario"]["utilisation"] == 0.35
    assert doc["inputs"]["assumptions"]["home_region"] == "DE"


@pytest.mark.usefixtures("wide_terminal")
def saved_line(out: str) -> str:
    """The line that says which saved settings were used: the answer's last, unwrapped."""
    answer = out.split("\n\n")[0]
    at = answer.find("  Using your saved settings")
    return "" if at < 0 else " ".join(answer[at:].split())


def test_saved_settings_are_said_in_the_answer_and_no_config_ignores_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_settings(Settings(gpu="rtx4090", utilisation=0.6))
    _, out, _ = quick([], capsys)
    assert out.startswith("Buy: at 60% utilisation")  # the verdict first (issue 37)
    said = saved_line(out)
    assert said.startswith("Using your saved settings (")
    assert str(locations.config_file()) in said
    assert "utilisation 60%" in said and "desktop GPU rtx4090" in said
    _, out, _ = quick(["--util", "20%"], capsys)  # a flag wins over the saved value
    assert "utilisation 60%" not in saved_line(out) and "at 20% utilisation" in out
    code, out, err = quick(["--no-config"], capsys)
    assert code == 2 and "--gpu" in err  # no desktop GPU without the saved settings
    _, out, _ = quick(["--no-config", "--gpu", "rtx4090"], capsys)
    assert not out.startswith("Using your saved") and "at 15% utilisation" in out


def test_the_environment_sits_between_saved_settings_and_flags(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    save_settings(Settings(gpu="rtx3090", utilisation=0.6))
    monkeypatch.setenv("COSTCALC_UTIL", "25%")
    monkeypatch.setenv("COSTCALC_REGION", "FR")
    doc = json.loads(quick(["--json"], capsys)[1])
    assert doc["inputs"]["scenario"]["utilisation"] == 0.25
    assert doc["inputs"]["assumptions"]["home_region"] == "FR"
    doc = json.loads(quick(["--json", "--util", "0.4"], capsys)[1])
    assert doc["inputs"]["scenario"]["utilisation"] == 0.4
    monkeypatch.setenv("COSTCALC_UTIL", "lots")
    code, _, err = quick([], capsys)
    assert code == 2 and "in the environment: utilisation" in err


def test_a_new_gpu_on_the_command_line_drops_the_saved_price(
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_settings(Settings(gpu="rtx3090", desktop_price_usd=1500))
    doc = json.loads(quick(["--json"], capsys)[1])
    assert doc["desktop"]["price_usd"] == 1500
    doc = json.loads(quick(["--json", "--gpu", "rtx5090"], capsys)[1])
    assert doc["desktop"]["price_usd"] != 1500


async def test_the_app_and_the_cli_give_the_same_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from costcalc.tui.app import make_app
    from costcalc.tui.screens.main import MainScreen
    from costcalc.tui.widgets.offers import OffersTable, offer_key

    code, out, err = quick([*FLAGS, "--json"], capsys)
    assert code == 0, err
    cli: dict[str, Any] = json.loads(out)
    save_settings(SAVED)
    app = make_app(detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.calc is not None
        calc = screen.calc
        assert calc.comparison.desktop.price_usd == cli["desktop"]["price_usd"]
        assert calc.comparison.desktop.kwh_per_year == cli["desktop"]["kwh_per_year"]
        assert calc.comparison.desktop_run is not None
        assert calc.comparison.desktop_run.usd == cli["desktop_run"]["usd"]
        assert calc.comparison.best is not None
        assert offer_key(calc.comparison.best) == "|".join(str(cli["best"][k]) for k in KEY_FIELDS)
        by_key = {offer_key(r): r for r in calc.comparison.offers}
        table = screen.query_one(OffersTable)
        table.action_toggle_all()  # every offer on a row of its own
        for offer in cli["offers"]:
            key = "|".join(
                str(offer[k]) for k in ("provider", "name", "region", "gpu", "gpu_count")
            )
            assert by_key[key].usd_per_year == offer["usd_per_year"]
            assert by_key[key].break_even_days == offer["break_even_days"]
            row = table.row_for_offer(key)
            assert row is not None
            shown = table.cell_text(row.key, "break_even_days")
            if offer["fits"] is not False:
                assert shown == display.days_short(offer["break_even_days"])
        verdict = str(screen.query_one("#verdict-line").render())
        assert verdict == cli["verdict"]


def test_evaluate_gathers_each_steps_note_in_the_order_the_steps_run() -> None:
    """Each step of `evaluate` returns what it found and its note; the calculation lists them
    in the order the steps run (the CLI prints them in that order): the desktop's name, the
    electricity price, the card's price, the base system, the build's fit."""
    from datetime import datetime, timezone

    from costcalc.core.models import Scenario
    from costcalc.core.scenario import evaluate
    from costcalc.store.loaders import load_app_data

    scenario = Scenario(gpu="a100", gpu_count=4, base="lean", used=True, batch=8, home_region="BR")
    calc = evaluate(scenario, load_app_data(), datetime(2026, 11, 28, tzinfo=timezone.utc))
    starts = (
        "'a100' read as the A100 PCIe 40GB",
        "no household price for Brazil",
        "no dated second-hand price for the A100 PCIe 40GB",
        "the lean base system holds at most 2 GPUs",
        "4x A100 PCIe 40GB: Does not work as a desktop",
    )
    assert len(calc.notes) == len(starts)
    for note, start in zip(calc.notes, starts, strict=True):
        assert note.startswith(start), note
