"""The break-even curves: they pass through the figures in the table, and they are cached on
the values they are made from, not on which objects carry them."""

from __future__ import annotations

import pytest

from costcalc.core import engine
from costcalc.core.records import validated
from costcalc.core.scenario import AppData, Calculation, evaluate
from costcalc.store.settings import Settings
from costcalc.tui import curves
from tests.tui.conftest import FIXED_NOW


def calculate(data: AppData, **settings: object) -> Calculation:
    return evaluate(validated(Settings, {"gpu": "rtx3090", **settings}), data, FIXED_NOW)


def test_the_cumulative_lines_cross_at_the_tables_break_even(fixed_data: AppData) -> None:
    calc = calculate(fixed_data)
    for result in calc.comparison.offers:
        if result.break_even_days is None:
            continue
        line = curves.cumulative(calc, result, end_days=result.break_even_days * 2)
        assert line is not None
        assert line.crossing_day == result.break_even_days
        # both lines are straight: their ends say where they meet
        (_, d1), (desk0, desk1), (cloud0, cloud1) = line.days, line.desktop_usd, line.cloud_usd
        meet = (desk0 - cloud0) / ((cloud1 - cloud0) / d1 - (desk1 - desk0) / d1)
        assert meet == pytest.approx(result.break_even_days)
        assert line.crossing_usd == pytest.approx(cloud0 + (cloud1 - cloud0) * meet / d1)


def test_the_utilisation_curve_passes_through_the_tables_figure(fixed_data: AppData) -> None:
    for utilisation in (0.15, 0.6):
        calc = calculate(fixed_data, utilisation=utilisation)
        best = calc.comparison.best
        assert best is not None and best.break_even_days is not None
        curve = curves.by_utilisation(calc, best)
        at = curve.break_even_days[curve.utilisation.index(utilisation)]
        assert at == pytest.approx(best.break_even_days)


def test_curves_are_cached_on_values_not_objects(fixed_data: AppData) -> None:
    first, again = calculate(fixed_data), calculate(fixed_data)
    assert first is not again
    a, b = first.comparison.best, again.comparison.best
    assert a is not None and b is not None and a is not b
    assert curves.cumulative(first, a) is curves.cumulative(again, b)
    assert curves.by_utilisation(first, a) is curves.by_utilisation(again, b)


def test_moving_utilisation_keeps_the_utilisation_curve(fixed_data: AppData) -> None:
    """The curve spans every utilisation: only the marker for the user's moves."""
    low, high = calculate(fixed_data, utilisation=0.15), calculate(fixed_data, utilisation=0.6)
    a, b = low.comparison.best, high.comparison.best
    assert a is not None and b is not None and a.offer == b.offer
    assert curves.by_utilisation(low, a) is curves.by_utilisation(high, b)
    assert curves.cumulative(low, a) != curves.cumulative(high, b)


def test_the_cumulative_plot_reaches_past_the_crossing_or_to_the_horizon() -> None:
    assert curves.cumulative_end_days(1000.0, 3) == 1500.0
    assert curves.cumulative_end_days(None, 3) == 3 * engine.DAYS_PER_YEAR
    assert curves.cumulative_end_days(5.0, 3) == 30.0
    assert curves.cumulative_end_days(1e9, 3) == 20 * 365
