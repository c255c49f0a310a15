"""Settings: loaded from config.yaml, saved when changed, a malformed file never crashes."""

from __future__ import annotations

from pathlib import Path

from costcalc import locations
from costcalc.settings import Settings, load_settings, save_settings
from costcalc.tui.app import make_app
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import FIXED_NOW


def test_every_setting_is_documented() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, f"Settings.{name} has no description"


def test_missing_file_gives_defaults() -> None:
    assert load_settings() == (Settings(), None)


def test_round_trip_writes_only_what_differs(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    settings = Settings(gpu="rtx4090", utilisation=0.6, providers=("aws-spot",))
    save_settings(settings, path)
    assert load_settings(path) == (settings, None)
    assert "horizon_years" not in path.read_text()


def test_malformed_file_gives_defaults_and_one_line(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("utilisation: [unclosed\n")
    settings, warning = load_settings(path)
    assert settings == Settings()
    assert warning is not None and "not valid YAML" in warning and "\n" not in warning
    path.write_text("utilisation: 7\n")
    settings, warning = load_settings(path)
    assert settings == Settings() and warning is not None and "utilisation" in warning


async def test_app_notifies_a_malformed_config_keeps_it_and_saves_changes() -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True)
    path.write_text("gpu: rtx3090\nutilisation: lots\n")
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        assert any("utilisation" in n.message for n in app._notifications)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.settings == Settings()
        await pilot.press("u", "6", "0", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert load_settings(path) == (Settings(utilisation=0.6), None)
    assert path.with_name("config.yaml.bad").read_text() == "gpu: rtx3090\nutilisation: lots\n"


async def test_settings_from_the_file_open_the_app() -> None:
    save_settings(Settings(gpu="a6000", utilisation=0.35, horizon_years=5))
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)):
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.calc is not None
        assert screen.calc.spec.key == "rtx_a6000"
        assert screen.query_one("#utilisation").value == "35%"
        assert screen.query_one("#horizon_years").value == "5"


async def test_select_fields_keep_the_loaded_settings_on_mount() -> None:
    """Selects announce a first value when mounted; it must not overwrite the user's choice."""
    chosen = Settings(gpu="rtx3090", dtype="bf16", run_from_bench=True, providers=("paperspace",))
    app = make_app(settings=chosen, now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.settings == chosen
        assert screen.query_one("#dtype").value == "bf16"
        assert screen.query_one("#provider").value == "paperspace"
