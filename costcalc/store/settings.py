"""The user's settings (config.yaml) and what the app remembers (app-state.yaml), kept apart.

config.yaml is the user's: written by hand (or by an app older than this split), read by the
CLI under its flags (`--no-config` ignores it) and by the app. The app never writes it, so a
session in the app cannot change what a bare `costcalc quick` answers. app-state.yaml is the
app's: the inputs (and theme) the user changed in the app, those that differ from what the
config file gives, written on every change. The app starts from config < app state; the CLI
reads the app state only when asked (`quick --as-in-app`).

A config.yaml written by an older app, which saved every change there, stays the user's config
as it is: the answers it gives do not change on upgrade, and nothing is moved or rewritten.

Rules kept here: both files cross the edge through `records.validated` like every other file,
with the same messages. A missing file means nothing set. One bad key costs that key, not the
others: it is left out with one line saying why. A file that cannot be read at all (not YAML,
not UTF-8, not a mapping) means nothing set plus one line; the app moves an unreadable
app-state.yaml aside to app-state.yaml.bad before saving over it, and never touches config.yaml.
Writes are
atomic (`resources.write_atomic`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any, Literal

from msgspec import Struct, field

from costcalc.core.constants import CUSTOM_PROVIDER, Quant
from costcalc.core.errors import DataFileError, quoted, quoted_list
from costcalc.core.models import DEFAULT_GPU, Scenario, upgrade_settings
from costcalc.core.records import Meta, ValidationError, plain, problem, validated
from costcalc.edge import locations
from costcalc.edge.resources import dump_yaml, read_user_yaml, write_atomic, write_model_yaml
from costcalc.providers.registry import names

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "DEFAULT_GPU",
    "Saved",
    "Settings",
    "app_settings",
    "load_app_state",
    "load_saved",
    "load_settings",
    "remembered_values",
    "save_app_state",
    "save_settings",
]

MAX_SETTINGS_BYTES = 1024 * 1024
"""Largest config.yaml read: the app writes about 1 kB (every input, one line each)."""
MAX_SETTINGS_NODES = 10_000
"""YAML values a config.yaml may hold: the app writes about 100 (a key and a value per input,
a name per chosen provider)."""


class Settings(Scenario, frozen=True, kw_only=True):
    """A Scenario plus the choices only the app has."""

    theme: str = "textual-dark"
    """Textual theme name."""
    job_mode: Literal["train", "serve"] = "train"
    """The Job panel's mode: a training job (the verdict's `model`), or serving the model."""
    serve_model: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    """The Job panel's serving: the model served (`costcalc job --serve --model`)."""
    serve_quant: Quant = "int4"
    """The Job panel's serving: the weights' format (`costcalc job --serve --quant`)."""
    serve_tokens_per_day: Annotated[float, Meta(gt=0, le=1e13)] | None = None
    """The Job panel's serving: tokens a day (`--tokens-per-day`; the default day without)."""

    def scenario(self) -> Scenario:
        """The inputs alone, as the CLI and the JSON see them."""
        return Scenario(**{name: getattr(self, name) for name in Scenario.__struct_fields__})


class Saved(Struct, frozen=True):
    """What a settings file held: the keys that could be used, and a line per problem."""

    file: str
    """The settings file, as text (`path` is the same place)."""
    values: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    unreadable: bool = False
    """The whole file could not be read: it is moved aside before the app saves over it."""

    @property
    def path(self) -> Path:
        from pathlib import Path  # `costcalc quick` asks about the file by its text alone

        return Path(self.file)

    @property
    def settings(self) -> Settings:
        return validated(Settings, self.values)


def settings_path() -> Path:
    return locations.config_file()


def app_state_path() -> Path:
    return locations.app_state_file()


def load_saved(path: Path | None = None) -> Saved:
    """The settings file (config.yaml unless `path`), key by key: a bad key is dropped with a
    warning, the rest are kept."""
    if path is None:
        text = locations.config_file_text()
        if _absent(text):  # no settings saved: said without pathlib (`costcalc quick`'s case)
            return Saved(text)
        path = settings_path()
    return _load(path)


def load_app_state(path: Path | None = None) -> Saved:
    """What the app remembers (app-state.yaml unless `path`), read as config.yaml is."""
    if path is None:
        text = locations.app_state_file_text()
        if _absent(text):
            return Saved(text)
        path = app_state_path()
    return _load(path)


def app_settings(config: Saved, state: Saved) -> Settings:
    """What the app starts from: the config file's settings, then what the app remembers."""
    return validated(Settings, {**config.values, **state.values})


def _load(path: Path) -> Saved:
    try:
        raw = read_user_yaml(path, max_bytes=MAX_SETTINGS_BYTES, max_nodes=MAX_SETTINGS_NODES)
    except FileNotFoundError:
        return Saved(str(path))
    except DataFileError as exc:
        return Saved(str(path), warnings=(f"{exc}; using defaults",), unreadable=True)
    if raw is None:
        return Saved(str(path))
    if not isinstance(raw, dict):
        warning = f"{path}: not a mapping of settings; using defaults"
        return Saved(str(path), warnings=(warning,), unreadable=True)
    raw = upgrade_settings(raw)
    values: dict[str, Any] = {}
    warnings: list[str] = []
    known = Settings.__struct_fields__
    for key, value in raw.items():
        if key not in known:
            warnings.append(f"{path}: unknown setting {quoted(key)} ignored")
            continue
        if key == "providers" and isinstance(value, (list, tuple)):
            value, unknown = _known_providers(value)
            if unknown:
                warnings.append(f"{path}: unknown provider(s) {quoted_list(unknown)} ignored")
        try:
            validated(Settings, {key: value})
        except ValidationError as exc:
            warnings.append(f"{path}: {problem(exc)}; the default is used")
            continue
        values[key] = value
    return Saved(str(path), values, tuple(warnings))


def _absent(text: str) -> bool:
    """No file there, as the reader finds it (a missing file or folder); anything else, an
    unreadable file included, is for the reader to say."""
    try:
        os.stat(text)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


def _known_providers(given: list[Any] | tuple[Any, ...]) -> tuple[list[Any], list[str]]:
    known = {*names(), CUSTOM_PROVIDER}
    return [n for n in given if n in known], [str(n) for n in given if n not in known]


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The app's settings, and one line when some of the file could not be used."""
    saved = load_saved(path)
    return saved.settings, "; ".join(saved.warnings) or None


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write a settings file (config.yaml unless `path`) atomically, the values that differ
    from the defaults: the file a user would write. (The app writes app-state.yaml instead.)"""
    path = path or settings_path()
    write_model_yaml(path, settings)
    return path


APP_STATE_HEADER = (
    "# Written by the costcalc app: the inputs you changed in it, over your config.yaml.\n"
    "# `costcalc quick` does not read it unless you add --as-in-app.\n"
)


def remembered_values(settings: Settings, config: Settings) -> dict[str, Any]:
    """The app's settings that differ from what the config file gives, in the file's form (a
    value the app cleared, a desktop price dropped with its GPU, is kept as null)."""
    mine, theirs = plain(settings), plain(config)
    return {key: value for key, value in mine.items() if value != theirs[key]}


def save_app_state(
    settings: Settings, config: Settings, path: Path | None = None, *, keep_bad: bool = False
) -> Path:
    """Write what the app remembers (app-state.yaml unless `path`) atomically: the settings
    that differ from `config`, the config file's. With `keep_bad`, first move an unreadable file
    aside (to app-state.yaml.bad, or .bad.1, .bad.2 ... so an earlier bad file is never
    overwritten)."""
    path = path or app_state_path()
    if keep_bad and path.exists():
        path.replace(_free_bad_name(path))
    values = remembered_values(settings, config)
    write_atomic(path, APP_STATE_HEADER + (dump_yaml(values) if values else ""))
    return path


def _free_bad_name(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bad")
    index = 0
    while candidate.exists():
        index += 1
        candidate = path.with_name(f"{path.name}.bad.{index}")
    return candidate
