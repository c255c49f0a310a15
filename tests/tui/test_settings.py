"""Settings: the user's config.yaml, read and never written by the app; what the app remembers,
app-state.yaml, saved when changed; a malformed file never crashes."""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace

from costcalc.core.records import plain, validated
from costcalc.edge import locations
from costcalc.store.settings import (
    Settings,
    load_app_state,
    load_settings,
    remembered_values,
    save_app_state,
    save_settings,
)
from costcalc.tui.app import make_app
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import FIXED_NOW
from tests.tui.helpers import notifications, notified, started


def test_every_setting_is_documented() -> None:
    """Each field of the settings (Scenario's and the app's own) is followed by its docstring."""
    import ast
    import inspect

    from costcalc.core.models import Scenario

    documented: set[str] = set()
    for cls in (Scenario, Settings):
        body = ast.parse(inspect.getsource(cls)).body[0]
        assert isinstance(body, ast.ClassDef)
        for field, after in zip(body.body, body.body[1:], strict=False):
            said = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and said:
                documented.add(field.target.id)
    for name in Settings.__struct_fields__:
        assert name in documented, f"Settings.{name} has no description"


def test_missing_file_gives_defaults() -> None:
    assert load_settings() == (Settings(), None)


def test_round_trip_writes_only_what_differs(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    settings = Settings(gpu="rtx4090", utilisation=0.6, providers=("aws-spot",))
    save_settings(settings, path)
    assert load_settings(path) == (settings, None)
    assert "horizon_years" not in path.read_text()


def test_the_app_state_holds_what_differs_from_the_config(tmp_path: Path) -> None:
    """Only the inputs changed in the app, so a later edit of config.yaml still reaches the
    others; a value the app cleared (the desktop price, dropped with its GPU) is kept as null."""
    config = Settings(gpu="rtx3090", desktop_price_usd=1500, utilisation=0.3)
    changed = replace(config, **{"gpu": "rtx4090", "desktop_price_usd": None})
    assert remembered_values(changed, config) == {"gpu": "rtx4090", "desktop_price_usd": None}
    path = save_app_state(changed, config, tmp_path / "app-state.yaml")
    assert path.read_text().startswith("# Written by the costcalc app")
    state = load_app_state(path)
    assert state.values == {"gpu": "rtx4090", "desktop_price_usd": None}
    assert validated(Settings, {**plain(config), **state.values}) == changed
    save_app_state(config, config, path)
    assert load_app_state(path).values == {}


def test_malformed_file_gives_defaults_and_one_line(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("utilisation: [unclosed\n")
    settings, warning = load_settings(path)
    assert settings == Settings()
    assert warning is not None and "not valid YAML" in warning and "\n" not in warning


def test_one_bad_key_costs_that_key_only(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("gpu: rtx4090\nutilisation: 7\nhorizon_years: 5\ncolour: blue\n")
    settings, warning = load_settings(path)
    assert settings == Settings(gpu="rtx4090", horizon_years=5)
    assert warning is not None and "utilisation" in warning and "'colour'" in warning


def test_an_unknown_provider_costs_only_that_provider(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("gpu: a6000\nproviders: [aws-spot, nosuchcloud]\n")
    settings, warning = load_settings(path)
    assert settings == Settings(gpu="a6000", providers=("aws-spot",))
    assert warning is not None and "nosuchcloud" in warning


def test_settings_written_before_bench_existed_still_load(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("gpu: rtx3090\nrun_from_bench: true\n")
    assert load_settings(path) == (Settings(gpu="rtx3090", bench="latest"), None)


async def test_app_keeps_the_good_keys_of_a_config_with_a_bad_one() -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True)
    path.write_text("gpu: rtx4090\nutilisation: lots\n")
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        assert notified(app, "utilisation")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.settings == Settings(gpu="rtx4090")
        await pilot.press("u", "6", "0", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert path.read_text() == "gpu: rtx4090\nutilisation: lots\n"  # the user's: never written
    assert load_app_state().values == {"utilisation": 0.6}  # what differs from it
    assert not path.with_name("config.yaml.bad").exists()


async def test_an_unreadable_app_state_is_moved_aside_when_a_setting_changes() -> None:
    path = locations.app_state_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"gpu: rtx3090\nutilisation: [\n")
    earlier_bad = path.with_name("app-state.yaml.bad")
    earlier_bad.write_text("an older bad file\n")
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        notice = next(n.message for n in notifications(app) if "not valid YAML" in n.message)
        assert "moved aside to app-state.yaml.bad when you change a setting" in notice
        assert path.read_bytes() == b"gpu: rtx3090\nutilisation: [\n"  # nothing moved yet
        await pilot.press("u", "6", "0", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert load_app_state().settings == Settings(utilisation=0.6)
    assert earlier_bad.read_text() == "an older bad file\n"  # never overwritten
    assert path.with_name("app-state.yaml.bad.1").read_bytes() == b"gpu: rtx3090\nutilisation: [\n"
    assert not locations.config_file().exists()


async def test_an_unreadable_config_is_left_as_it_is() -> None:
    """The user's file, however broken: the app says so, starts from defaults and never moves
    or rewrites it (it remembers its own changes in app-state.yaml)."""
    path = locations.config_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"gpu: rtx3090\nutilisation: [\n")
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        notice = next(n.message for n in notifications(app) if "not valid YAML" in n.message)
        assert "moved aside" not in notice
        await pilot.press("u", "6", "0", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert path.read_bytes() == b"gpu: rtx3090\nutilisation: [\n"
    assert [p.name for p in path.parent.iterdir()] == ["config.yaml"]
    assert load_app_state().settings == Settings(utilisation=0.6)


async def test_a_config_written_by_an_older_app_stays_the_users() -> None:
    """Before the split the app saved every change to config.yaml: that file is left as it is
    and stays the config (the CLI and the app start from it as before); the app's changes from
    then on go to app-state.yaml, over it."""
    save_settings(Settings(gpu="a6000", utilisation=0.35, providers=("vast",), theme="nord"))
    path = locations.config_file()
    before = path.read_bytes()
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.settings.providers == ("vast",) and screen.settings.utilisation == 0.35
        await pilot.press("u", "6", "0", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert path.read_bytes() == before
    assert load_app_state().values == {"utilisation": 0.6}
    again = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    assert again.settings == Settings(
        gpu="a6000", utilisation=0.6, providers=("vast",), theme="nord"
    )


async def test_settings_from_the_file_open_the_app() -> None:
    save_settings(Settings(gpu="a6000", utilisation=0.35, horizon_years=5))
    app = make_app(now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.calc is not None
        assert screen.calc.spec.key == "rtx_a6000"
        assert screen.query_one("#utilisation").value == "35%"
        assert screen.query_one("#horizon_years").value == "5"


async def test_select_fields_keep_the_loaded_settings_on_mount() -> None:
    """Selects announce a first value when mounted; it must not overwrite the user's choice."""
    chosen = Settings(gpu="rtx3090", dtype="bf16", bench="latest", providers=("paperspace",))
    app = make_app(settings=chosen, now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.settings == chosen
        assert screen.query_one("#dtype").value == "bf16"
        assert screen.query_one("#provider").value == "paperspace"
