"""'Why this number' agrees with the engine, and the canonical worked example reads right."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from costcalc import explain
from costcalc.compare import compare
from costcalc.loaders import AppData
from costcalc.models import CloudOffer, Workload
from costcalc.scenario import build_assumptions, build_desktop
from costcalc.settings import Settings
from costcalc.tui.calc import calculate
from tests.tui.conftest import FIXED_NOW


def test_dettmers_example_is_derived_with_its_own_numbers(data: AppData) -> None:
    """RTX 3090 desktop, $2,200, 450 W, $0.12/kWh, 15 %, against a $2.14/h V100 spot."""
    spec = data.catalog.get("rtx3090")
    desktop = build_desktop(spec, data.desktop_defaults, price_usd=2200, rest_of_system_w=100)
    a = build_assumptions(data.grid, utilisation=0.15, usd_per_kwh=0.12)
    v100 = CloudOffer(
        provider="aws-spot",
        name="p3.2xlarge",
        region="us-east-1",
        gpu="rtx3090",  # "similar speed": relative speed 1, as in the source
        usd_per_hour=2.14,
        fetched_at=datetime(2020, 9, 7, tzinfo=timezone.utc),
        source="Dettmers 2020",
    )
    c = compare(desktop, a, Workload(), [v100], data.catalog, data.grid, FIXED_NOW)
    parts = explain.explain_offer(c.offers[0], c, desktop, a, Workload(), data.catalog, data.grid)
    text = explain.to_text(parts)
    assert "450 W x 0.15 x 8,760 h / 1000 = 591.3 kWh" in text
    assert "591.3 kWh x $0.12/kWh = $70.96" in text
    assert "= 292.96 days" in text
    assert "within your 3-year horizon" in text


def test_every_offer_explains_to_the_figure_in_the_table(data: AppData) -> None:
    calc = calculate(Settings(gpu="rtx3090", run_hours=10), data, FIXED_NOW)
    for result in calc.comparison.offers:
        text = explain.to_text(
            explain.explain_offer(
                result,
                calc.comparison,
                calc.desktop,
                calc.assumptions,
                calc.workload,
                data.catalog,
                data.grid,
            )
        )
        if result.break_even_days is not None:
            assert f"= {result.break_even_days:,.2f} days" in text
        else:
            assert "never pays back" in text
        assert re.search(r"cloud: .* = .*/year", text)
