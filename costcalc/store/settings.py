"""The saved settings: what the user told costcalc last time, kept in config.yaml.

The file holds the inputs of a Scenario (costcalc.core.scenario) under their field names, plus the
app's theme. The app writes it on every change; `costcalc quick` reads it as the defaults under
its flags (`--no-config` ignores it).

Rules kept here: the file crosses the edge through `records.validated` like every other file. A
missing file means defaults. One bad key costs that key, not the others: it is left out with one
line saying why. A file that cannot be read at all (not YAML, not UTF-8, not a mapping) means
defaults plus one line, and is moved aside to config.yaml.bad before anything is saved over it.
Writes are atomic (`resources.write_model_yaml`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from costcalc.core.constants import CUSTOM_PROVIDER
from costcalc.core.errors import DataFileError, quoted, quoted_list
from costcalc.core.records import ValidationError, problem, validated
from costcalc.core.scenario import DEFAULT_GPU, Scenario, upgrade_settings
from costcalc.edge import locations
from costcalc.edge.resources import read_user_yaml, write_model_yaml
from costcalc.providers.registry import names

__all__ = ["DEFAULT_GPU", "Saved", "Settings", "load_saved", "load_settings", "save_settings"]

MAX_SETTINGS_BYTES = 1024 * 1024
"""Largest config.yaml read: the app writes about 1 kB (every input, one line each)."""
MAX_SETTINGS_NODES = 10_000
"""YAML values a config.yaml may hold: the app writes about 100 (a key and a value per input,
a name per chosen provider)."""


class Settings(Scenario, frozen=True, kw_only=True):
    """A Scenario plus the choices only the app has."""

    theme: str = "textual-dark"
    """Textual theme name."""

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
        return Path(self.file)

    @property
    def settings(self) -> Settings:
        return validated(Settings, self.values)


def settings_path() -> Path:
    return locations.config_file()


def load_saved(path: Path | None = None) -> Saved:
    """The settings file, key by key: a bad key is dropped with a warning, the rest are kept."""
    if path is None:
        text = locations.config_file_text()
        if _absent(text):  # no settings saved: said without pathlib (`costcalc quick`'s case)
            return Saved(text)
        path = settings_path()
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


def save_settings(settings: Settings, path: Path | None = None, *, keep_bad: bool = False) -> Path:
    """Write the settings atomically; with `keep_bad`, first move an unreadable file aside
    (to config.yaml.bad, or .bad.1, .bad.2 ... so an earlier bad file is never overwritten)."""
    path = path or settings_path()
    if keep_bad and path.exists():
        path.replace(_free_bad_name(path))
    write_model_yaml(path, settings)
    return path


def _free_bad_name(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bad")
    index = 0
    while candidate.exists():
        index += 1
        candidate = path.with_name(f"{path.name}.bad.{index}")
    return candidate
