"""Where user files live. The one module that knows; COSTCALC_HOME moves everything.

With COSTCALC_HOME set, config, data (snapshots, history, bench results) and logs all live below
it, which is what tests and portable installs want. Otherwise the platform's conventions apply
(XDG on Linux) through platformdirs, imported only when needed.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "costcalc"


def user_path(text: str) -> Path:
    """A path as a user typed it, `~` expanded where it names a home; '~nobody/x' (no such
    user) stays as typed, so it is reported as a missing file rather than a traceback."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)


def _home_override() -> Path | None:
    value = os.environ.get("COSTCALC_HOME")
    return user_path(value) if value else None


def config_dir() -> Path:
    """Settings (config.yaml) and user price overrides (prices.yaml)."""
    home = _home_override()
    if home is not None:
        return home / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    """Refreshed snapshots, price history and saved bench results."""
    home = _home_override()
    if home is not None:
        return home / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def log_dir() -> Path:
    home = _home_override()
    if home is not None:
        return home / "logs"
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_NAME))


def cache_dir() -> Path:
    """Parsed copies of data files; safe to delete at any time."""
    home = _home_override()
    if home is not None:
        return home / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME))


def config_file() -> Path:
    return config_dir() / "config.yaml"


def price_overrides_file() -> Path:
    return config_dir() / "prices.yaml"


def snapshots_dir() -> Path:
    return data_dir() / "snapshots"


def history_db() -> Path:
    return data_dir() / "history.sqlite3"


def bench_dir() -> Path:
    return data_dir() / "bench"
