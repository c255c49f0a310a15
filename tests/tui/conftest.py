"""Fixed data and a fixed clock for every app test: the bundled snapshot, 2026-11-01 UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import pytest

from costcalc.loaders import AppData, load_app_data
from costcalc.settings import Settings
from costcalc.tui.app import CostcalcApp, make_app

FIXED_NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
"""Price ages in the table are computed against this, never the wall clock."""

MakeApp = Callable[..., CostcalcApp]


@pytest.fixture
def data() -> AppData:
    """The bundled snapshot (COSTCALC_HOME is a fresh directory, so no refreshed copies)."""
    return load_app_data()


@pytest.fixture
def app_factory(data: AppData) -> MakeApp:
    """make_app with fixed data and clock, no GPU detection and no saved bench."""

    def factory(settings: Settings | None = None, **options: Any) -> CostcalcApp:
        options.setdefault("detect_gpu", False)
        options.setdefault("load_bench", False)
        return make_app(data, settings or Settings(gpu="rtx3090"), FIXED_NOW, **options)

    return factory
