"""`measured` utilisation in the app: typed in the field (or remembered), read from the history
in a worker, and shown in the desktop line and in 'why this number', as `quick` shows it.

The samples are written to the real history database of the test's home, as `costcalc monitor`
writes them; nothing is faked but the fixed clock the app tests run on."""

from __future__ import annotations

from datetime import timedelta

from textual.widgets import Input, Static

from costcalc.store import usage
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import notified, started, wait_until


def a_day_of_samples() -> None:
    """One RTX 3090 every minute of the day before FIXED_NOW: busy one minute in four at 290 W."""
    start = FIXED_NOW - timedelta(days=1)
    usage.record(
        [
            usage.Sample(
                "desk",
                "GPU-a",
                "NVIDIA GeForce RTX 3090",
                "nvml",
                start + timedelta(minutes=i),
                60.0,
                97.0 if i % 4 == 0 else 0.0,
                power_w=290.0 if i % 4 == 0 else 21.0,
            )
            for i in range(24 * 60)
        ]
    )


async def test_typing_measured_answers_with_the_monitors_busy_share(app_factory: MakeApp) -> None:
    a_day_of_samples()
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("u", "ctrl+a", "ctrl+k", *"measured", "enter")
        await wait_until(app, lambda: screen.calc is not None and screen.calc.measured is not None)
        calc = screen.calc
        assert calc is not None and calc.measured is not None
        assert calc.assumptions.utilisation == 0.25
        assert calc.desktop.gpu_watts == 290
        assert screen.settings.utilisation == "measured"
        line = " ".join(str(screen.query_one("#desktop-line", Static).render()).split())
        assert "a year at 25% measured (30 days)." in line
        assert screen.query_one("#utilisation", Input).value == "measured"
        assert screen.query_one("#gpu_watts", Input).placeholder == "measured 290"
        await pilot.press("escape", "w")
        why = app.screen.query_one("#why-text", Static)
        await wait_until(app, lambda: "Utilisation (measured)" in str(why.render()))


async def test_measured_without_samples_says_how_to_get_them(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx3090", utilisation="measured:7d"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(app, lambda: notified(app, "no GPU samples in the last 7 days"))
        assert isinstance(app.screen, MainScreen) and app.screen.calc is None  # no guess shown
        assert notified(app, "costcalc monitor")
        await pilot.press("u", "ctrl+a", "ctrl+k", "2", "0", "enter")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(app, lambda: screen.calc is not None)
        assert screen.calc is not None and screen.calc.assumptions.utilisation == 0.2


async def test_at_80_columns_the_verdict_says_the_utilisation_was_measured(
    app_factory: MakeApp,
) -> None:
    a_day_of_samples()
    app = app_factory(Settings(gpu="rtx3090", utilisation="measured"))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        basis = " ".join(str(app.screen.query_one("#basis-line", Static).render()).split())
        assert "Utilisation 25% measured (30 days)." in basis
