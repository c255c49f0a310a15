"""Where user files live. The one module that knows; COSTCALC_HOME moves everything.

With COSTCALC_HOME set, config, data (snapshots, history, bench results), the app's remembered
state and logs all live below it, which is what tests and portable installs want. Otherwise the
platform's conventions apply (XDG on Linux) through platformdirs, imported only when needed.
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

APP_NAME = "costcalc"


def user_path(text: str) -> Path:
    """A path as a user typed it, `~` expanded where it names a home; '~nobody/x' (no such
    user) stays as typed, so it is reported as a missing file rather than a traceback."""
    from pathlib import Path  # see below: `costcalc quick` makes no Path

    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)


# Each place is known as text first (`*_text`), the form `costcalc quick` asks about (does the
# file exist?) with one os.stat and no Path made: pathlib, and the urllib and ipaddress it
# imports, were a tenth of its start-up. The Path is the same place: Path(text).


def _directory_text(kind: str) -> str:
    home = os.environ.get("COSTCALC_HOME")
    if home:
        return os.path.join(os.path.expanduser(home), kind)
    import platformdirs

    if kind == "config":
        return platformdirs.user_config_dir(APP_NAME)
    if kind == "data":
        return platformdirs.user_data_dir(APP_NAME)
    if kind == "logs":
        return platformdirs.user_log_dir(APP_NAME)
    if kind == "state":
        return platformdirs.user_state_dir(APP_NAME)
    return platformdirs.user_cache_dir(APP_NAME)


def exists(text: str) -> bool:
    """`Path(text).exists()`, answered as pathlib answers it (a missing file or folder, a
    loop of links or a bad name are False; any other error is raised), without pathlib."""
    try:
        os.stat(text)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise
    except ValueError:
        return False
    return True


def _path(text: str) -> Path:
    from pathlib import Path

    return Path(text)


def config_dir() -> Path:
    """The user's own files: settings (config.yaml) and price overrides (prices.yaml)."""
    return _path(_directory_text("config"))


def data_dir() -> Path:
    """Refreshed snapshots, price history and saved bench results."""
    return _path(_directory_text("data"))


def exports_dir() -> Path:
    """Where a served app (`costcalc serve`) writes its exports: the app in a terminal writes
    them in its working directory."""
    return data_dir() / "exports"


def log_dir() -> Path:
    return _path(_directory_text("logs"))


def cache_dir_text() -> str:
    """Parsed copies of data files; safe to delete at any time."""
    return _directory_text("cache")


def cache_dir() -> Path:
    return _path(cache_dir_text())


def config_file_text() -> str:
    return os.path.join(_directory_text("config"), "config.yaml")


def config_file() -> Path:
    return _path(config_file_text())


def app_state_file_text() -> str:
    """What the app remembers between sessions (written by the app only; the user's own
    settings are config.yaml, which the app never writes)."""
    return os.path.join(_directory_text("state"), "app-state.yaml")


def app_state_file() -> Path:
    return _path(app_state_file_text())


def price_overrides_file_text() -> str:
    return os.path.join(_directory_text("config"), "prices.yaml")


def price_overrides_file() -> Path:
    return _path(price_overrides_file_text())


def snapshots_dir_text() -> str:
    return os.path.join(_directory_text("data"), "snapshots")


def snapshots_dir() -> Path:
    return _path(snapshots_dir_text())


def history_db_text() -> str:
    return os.path.join(_directory_text("data"), "history.sqlite3")


def history_db() -> Path:
    return _path(history_db_text())


def bench_dir() -> Path:
    return data_dir() / "bench"
