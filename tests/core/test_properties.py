"""Properties of the engine and the comparison that must hold for any sane input (hypothesis)."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costcalc.core import engine
from costcalc.core.compare import compare
from costcalc.core.models import Workload
from costcalc.core.offers import custom_offer
from costcalc.core.scenario import AppData, build_assumptions, build_desktop
from costcalc.store.loaders import load_app_data

NOW = datetime(2026, 11, 22, tzinfo=timezone.utc)
utilisation = st.floats(min_value=0.001, max_value=1.0)
money = st.floats(min_value=0.0, max_value=1e5, allow_nan=False)
watts = st.floats(min_value=0.0, max_value=5000)


@pytest.fixture(scope="module")
def data() -> AppData:
    return load_app_data()


@given(price=st.floats(100, 50_000), u1=utilisation, u2=utilisation, cloud=st.floats(0.05, 50))
def test_break_even_falls_as_utilisation_rises(
    price: float, u1: float, u2: float, cloud: float
) -> None:
    lo, hi = sorted((u1, u2))

    def days(u: float) -> float:
        kwh = engine.desktop_kwh_per_year(450, u)
        found = engine.break_even_days(price, cloud * u * 24, kwh * 0.12 / 365, 0.0)
        return math.inf if found is None else found

    assert days(hi) <= days(lo) * (1 + 1e-9)


@given(seconds=st.floats(0, 1e6), k=st.floats(0, 100), price=st.floats(0, 100))
def test_cost_of_a_run_is_linear_in_its_time(seconds: float, k: float, price: float) -> None:
    assert engine.run_cost_usd(seconds * k, price) == pytest.approx(
        k * engine.run_cost_usd(seconds, price), rel=1e-9, abs=1e-9
    )


@given(kwh=st.floats(0, 1e6), grid=st.floats(0, 1500), k=st.floats(0, 10), pue=st.floats(1, 2))
def test_carbon_is_proportional_to_intensity(kwh: float, grid: float, k: float, pue: float) -> None:
    assert engine.co2_kg(kwh, grid * k, pue) == pytest.approx(
        k * engine.co2_kg(kwh, grid, pue), rel=1e-9, abs=1e-9
    )


@settings(max_examples=60, deadline=None)
@given(
    u=utilisation,
    kwh_price=st.floats(0, 2),
    desktop_price=st.one_of(st.none(), money),
    gpu_watts=st.one_of(st.none(), watts),
    run_hours=st.one_of(st.none(), st.floats(0.001, 1e4)),
    cloud=st.floats(0, 100),
    gpu_count=st.integers(1, 8),
    always_on=st.booleans(),
    gpu=st.sampled_from(
        ["rtx3090", "gtx1080ti", "rtx_a6000", "h100_sxm5_80gb", "t4", "quadro_m4000"]
    ),
)
def test_no_nan_or_negative_money_anywhere(
    data: AppData,
    u: float,
    kwh_price: float,
    desktop_price: float | None,
    gpu_watts: float | None,
    run_hours: float | None,
    cloud: float,
    gpu_count: int,
    always_on: bool,
    gpu: str,
) -> None:
    spec = data.catalog.get(gpu)
    desktop = build_desktop(
        spec,
        data.desktop_defaults,
        gpu_count,
        price_usd=desktop_price if desktop_price is not None else 5000.0,
        gpu_watts=gpu_watts,
    )
    a = build_assumptions(data.grid, utilisation=u, usd_per_kwh=kwh_price, always_on=always_on)
    offers = [*data.book.offers, custom_offer(gpu, gpu_count, cloud, NOW)]
    w = Workload(run_hours=run_hours, items_per_run=100)
    speed = data.predictor.speed_fn(w.kind, w.dtype)
    result = compare(desktop, a, w, offers, data.catalog, data.grid, NOW, speed=speed)
    d = result.desktop
    for value in (d.kwh_per_year, d.electricity_usd_per_year, d.co2_kg_per_year, d.load_w):
        assert math.isfinite(value) and value >= 0
    for r in result.offers:
        for value in (
            r.usd_per_year,
            r.hours_per_year,
            r.co2_kg_per_year,
            r.relative_speed,
            r.price_age_days,
        ):
            assert math.isfinite(value) and value >= 0
        assert r.relative_speed > 0
        if r.break_even_days is not None:
            assert math.isfinite(r.break_even_days) and r.break_even_days >= 0
        if r.run is not None:
            for value in (r.run.usd, r.run.hours, r.run.kwh, r.run.co2_kg, r.run.billed_hours):
                assert math.isfinite(value) and value >= 0
            assert r.run.billed_hours >= r.run.hours - 1e-9
    if result.break_even_utilisation is not None:
        assert 0 < result.break_even_utilisation <= 1
