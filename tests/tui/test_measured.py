"""`measured` utilisation in the app: typed in the field (or remembered), read from the history
in a worker, and shown in the desktop line and in 'why this number', as `quick` shows it.

The samples are written to the real history database of the test's home, as `costcalc monitor`
writes them; nothing is faked but the fixed clock the app tests run on."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from textual.widgets import Input, Static

from costcalc.store import usage
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import notified, started, wait_until


def record_busy(start: datetime, step: timedelta, count: int, every: int) -> None:
    """One RTX 3090 sampled `count` times, every `step` from `start`: busy (97 %, 290 W) one
    sample in `every` (the first among them), idle (21 W) otherwise."""
    usage.record(
        [
            usage.Sample(
                "desk",
                "GPU-a",
                "NVIDIA GeForce RTX 3090",
                "nvml",
                start + i * step,
                step.total_seconds(),
                97.0 if i % every == 0 else 0.0,
                power_w=290.0 if i % every == 0 else 21.0,
            )
            for i in range(count)
        ]
    )


def a_day_of_samples() -> None:
    """Every minute of the day before FIXED_NOW: busy one minute in four at 290 W."""
    record_busy(FIXED_NOW - timedelta(days=1), timedelta(minutes=1), 24 * 60, 4)


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


def months_of_samples() -> None:
    """Hourly through the two months before FIXED_NOW: busy one hour in two in September 2026
    (its 720 hours), one in ten in October (75 of its 744 hours)."""
    hour = timedelta(hours=1)
    record_busy(datetime(2026, 9, 1, tzinfo=timezone.utc), hour, 720, 2)
    record_busy(datetime(2026, 10, 1, tzinfo=timezone.utc), hour, 744, 10)


async def test_a_measured_profile_plans_on_the_monitors_months(app_factory: MakeApp) -> None:
    """Typed in the profile field, `measured` is taken (not refused as months would be), read
    in a worker, and the hybrid plan works on it as `quick --hybrid --profile measured` does:
    September 50 %, October 75 of its 744 hours, the ten months without samples at their mean."""
    months_of_samples()
    app = app_factory(Settings(gpu="rtx3090", hybrid=True))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("~", "ctrl+a", "ctrl+k", *"measured", "enter")
        await wait_until(
            app,
            lambda: (
                screen.calc is not None
                and screen.calc.hybrid is not None
                and screen.calc.hybrid.profile.source.startswith("measured")
            ),
        )
        assert screen.settings.profile == "measured"
        assert not screen.query_one("#profile", Input).has_class("-invalid")
        hybrid = screen.calc.hybrid if screen.calc is not None else None
        assert hybrid is not None
        october = 75 / 744
        assert hybrid.profile.hours[8] == pytest.approx(0.5 * 730)
        assert hybrid.profile.hours[9] == pytest.approx(october * 730)
        assert hybrid.profile.hours[0] == pytest.approx((0.5 + october) / 2 * 730)


async def test_a_measured_profile_without_samples_says_how_to_get_them(
    app_factory: MakeApp,
) -> None:
    app = app_factory(Settings(gpu="rtx3090", hybrid=True, profile="measured"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(app, lambda: notified(app, "profile 'measured': no GPU samples"))
        assert notified(app, "costcalc monitor")
        assert isinstance(pilot.app.screen, MainScreen) and pilot.app.screen.calc is None
