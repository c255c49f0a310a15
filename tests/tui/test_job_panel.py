"""The Job panel (J) as a user drives it: typed fields give `costcalc quick --model`'s verdict
(train) and `costcalc job --serve`'s $ per million tokens (serve), what it sets is remembered in
app-state.yaml and never in config.yaml, and a bad model is one notification."""

from __future__ import annotations

import json

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from costcalc.cli import main
from costcalc.edge import locations
from costcalc.present.serve_report import usd_mtok
from costcalc.store.settings import Settings, load_app_state
from costcalc.tui.screens.job_panel import JobPanel
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import burst, notified, record_notifications, started, wait_until


async def _type(pilot: Pilot[object], field: str, text: str, *, at_once: bool = False) -> None:
    """Click into `field`, clear it and type `text` then Enter: key by key, or in one burst."""
    app = pilot.app
    app.screen.query_one(f"#{field}", Input).focus()
    await pilot.pause()
    keys = ["ctrl+u", *text, "enter"]
    if at_once:
        burst(app, *keys)
    else:
        await pilot.press(*keys)
    await pilot.pause()


def _answer(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#job-answer", Static).render())


def quick_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    code = main(["quick", "--no-config", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc: dict[str, object] = json.loads(out)
    return doc


async def open_job_panel(pilot: Pilot[object]) -> MainScreen:
    """The app started, then `J`: the Job panel over the main screen, which is returned."""
    app = pilot.app
    await started(pilot)
    main_screen = app.screen
    assert isinstance(main_screen, MainScreen)
    await pilot.press("J")
    await wait_until(app, lambda: isinstance(app.screen, JobPanel))
    return main_screen


@pytest.mark.parametrize("at_once", [False, True], ids=["key-by-key", "burst"])
async def test_train_gives_quick_models_verdict_and_is_remembered(
    app_factory: MakeApp,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    at_once: bool,
) -> None:
    app = app_factory(Settings(gpu="rtx4090"), persist=True)
    async with app.run_test(size=(140, 45)) as pilot:
        main_screen = await open_job_panel(pilot)
        await _type(pilot, "train-model", "gpt2-124m", at_once=at_once)
        await _type(pilot, "train-tokens", "1B", at_once=at_once)
        await _type(pilot, "train-runs", "40", at_once=at_once)
        await wait_until(app, lambda: main_screen.settings.runs_per_year == 40)
        calc = main_screen.calc
        assert calc is not None and calc.job is not None
        shown = " ".join(_answer(app).split())
        await pilot.press("escape")
        await wait_until(app, lambda: isinstance(app.screen, MainScreen))
        await app.workers.wait_for_complete()
    monkeypatch.setenv("COSTCALC_NOW", FIXED_NOW.isoformat())
    argv = ["--gpu", "rtx4090", "--model", "gpt2-124m", "--tokens", "1B", "--runs-per-year", "40"]
    doc = quick_json(argv, capsys)
    assert shown.startswith(" ".join(str(doc["verdict"]).split()))
    job = doc["job"]
    assert isinstance(job, dict)
    assert calc.job.hours == pytest.approx(job["desktop_hours"])
    assert calc.assumptions.utilisation == pytest.approx(40 * job["desktop_hours"] / 8760)
    state = load_app_state().values
    assert state["model"] == "gpt2-124m" and state["runs_per_year"] == 40
    assert not locations.config_file().exists(), "the app never writes config.yaml"


async def test_serve_gives_job_serves_dollars_per_million_tokens(
    app_factory: MakeApp, capsys: pytest.CaptureFixture[str]
) -> None:
    app = app_factory(Settings(gpu="rtx3090", job_mode="serve"), persist=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await open_job_panel(pilot)
        assert "Name a model" in _answer(app)
        await _type(pilot, "serve-model", "llama-3.1-8b")
        await _type(pilot, "serve-tokens", "2e6")
        await wait_until(app, lambda: "Your desktop" in _answer(app))
        shown = _answer(app)
        await app.workers.wait_for_complete()
    capsys.readouterr()
    argv = ["job", "--serve", "--model", "llama-3.1-8b", "--quant", "int4"]
    assert main([*argv, "--tokens-per-day", "2e6", "--gpu", "rtx3090", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fits"] is True and doc["decode_tokens_per_s"] > 0
    desktop = usd_mtok(doc["usd_per_million_tokens"])
    line = next(x for x in shown.splitlines() if x.startswith("Your desktop"))
    assert desktop in line.split(), (desktop, line)
    assert "Cheapest rented:" in shown and "Cheapest hosted:" in shown
    state = load_app_state().values
    assert state["serve_model"] == "llama-3.1-8b" and state["serve_tokens_per_day"] == 2e6


async def test_a_model_not_on_the_list_is_one_notification_and_nothing_changes(
    app_factory: MakeApp,
) -> None:
    app = app_factory(Settings(gpu="rtx4090", tokens=1e9))
    posted = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        main_screen = await open_job_panel(pilot)
        await _type(pilot, "train-model", "llama-3-8b")
        await wait_until(app, lambda: notified(app, "did you mean llama-3.1-8b"))
        assert app.screen.query_one("#train-model", Input).has_class("-invalid")
        assert main_screen.settings.model is None
        assert [m for m in posted if "unknown model" in m]


@pytest.mark.parametrize("at_once", [False, True], ids=["key-by-key", "burst"])
async def test_tab_moves_through_the_fields_and_each_takes_what_is_typed_after_it(
    app_factory: MakeApp, at_once: bool
) -> None:
    """As a user fills the panel: the model, Tab past the method to the tokens, Tab to the runs,
    Enter. In one burst (tmux, a paste) the keys after a Tab must land in the field it moved to,
    not in the one it left (in a real terminal they were lost in the method's select)."""
    app = app_factory(Settings(gpu="rtx4090"))
    async with app.run_test(size=(80, 24)) as pilot:
        main_screen = await open_job_panel(pilot)
        keys = ["ctrl+u", *"gpt2-124m", "tab", "tab", *"1B", "tab", *"40", "enter"]
        if at_once:
            burst(app, *keys)
        else:
            await pilot.press(*keys)
        await wait_until(app, lambda: main_screen.settings.runs_per_year == 40)
        assert main_screen.settings.model == "gpt2-124m"
        assert main_screen.settings.tokens == pytest.approx(1e9)
