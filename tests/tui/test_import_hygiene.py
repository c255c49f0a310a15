"""The app's pure parts load without textual; `costcalc quick` never loads the app."""

from __future__ import annotations

from tests.imports import loaded_after

PURE = (
    "costcalc.store.settings",
    "costcalc.present.explain",
    "costcalc.tui",
    "costcalc.core.scenario",
    "costcalc.core.inputs",
    "costcalc.tui.curves",
    "costcalc.tui.ticks",
    "costcalc.tui.detect",
    "costcalc.cli.tui",
)


def test_pure_modules_do_not_import_textual_or_torch() -> None:
    modules = loaded_after("; ".join(f"import {m}" for m in PURE))
    assert "textual" not in modules
    assert "torch" not in modules


def test_the_app_does_not_import_torch() -> None:
    statement = "from costcalc.tui.app import make_app; import costcalc.tui.screens.bench"
    modules = loaded_after(statement)
    assert "textual" in modules
    assert "torch" not in modules
