"""The cost engine against DOMAIN.md's worked examples, to the precision the source states."""

from __future__ import annotations

import pytest

from costcalc.core import engine

# Dettmers 2020: 1x RTX 3090 desktop for $2,200, 350 W + 100 W, $0.12/kWh, AWS spot V100 $2.14/h,
# utilisation 15 %. Tolerances: money to the cent, days to 0.1 day, kWh to 0.1 kWh.
PRICE_USD, GPU_W, REST_W, USD_PER_KWH, CLOUD_USD_PER_HOUR, UTIL = 2200, 350, 100, 0.12, 2.14, 0.15


def test_dettmers_electricity_per_year() -> None:
    load_w = engine.desktop_load_w(GPU_W, 1, REST_W, psu_efficiency=1.0)
    kwh = engine.desktop_kwh_per_year(load_w, UTIL)
    assert kwh == pytest.approx(591.3, abs=0.05)
    assert engine.electricity_usd(kwh, USD_PER_KWH) == pytest.approx(70.96, abs=0.005)


def test_dettmers_break_even_days() -> None:
    kwh = engine.desktop_kwh_per_year(engine.desktop_load_w(GPU_W, 1, REST_W, 1.0), UTIL)
    cloud_per_year = engine.cloud_usd_for_hours(UTIL * engine.HOURS_PER_YEAR, CLOUD_USD_PER_HOUR)
    cloud_per_day = cloud_per_year / engine.DAYS_PER_YEAR
    assert cloud_per_day == pytest.approx(7.704, abs=0.0005)
    days = engine.break_even_days(PRICE_USD, cloud_per_day, kwh * USD_PER_KWH / 365, 0.0)
    assert days == pytest.approx(292.96, abs=0.05)
    assert cloud_per_day * 300 == pytest.approx(2311.2, abs=0.005)


def test_break_even_is_never_when_cloud_is_cheaper_than_electricity() -> None:
    assert engine.break_even_days(2200, 0.10, electricity_usd_per_day=0.19, resale_share=0) is None
    assert engine.break_even_days(2200, 0.19, electricity_usd_per_day=0.19, resale_share=0) is None


@pytest.mark.parametrize(
    ("seconds", "usd_per_hour", "expect_usd"),
    [(1100, 1.10, 0.3361), (867, 0.82, 0.1975), (128.18, 0.45, 0.0160)],
)
def test_cost_of_one_run(seconds: float, usd_per_hour: float, expect_usd: float) -> None:
    assert engine.run_cost_usd(seconds, usd_per_hour) == pytest.approx(expect_usd, abs=0.00005)


@pytest.mark.parametrize(
    ("usd_per_hour", "max_batch", "expect_usd"),
    [(1.89, 256, 0.00738), (0.76, 16, 0.0475), (0.45, 4, 0.1125)],
)
def test_usd_per_batch_item(usd_per_hour: float, max_batch: int, expect_usd: float) -> None:
    assert engine.usd_per_batch_item(usd_per_hour, max_batch) == pytest.approx(expect_usd, abs=5e-6)


def test_no_batch_fits_is_not_zero_dollars() -> None:
    assert engine.usd_per_batch_item(1.89, 0) is None


def test_cost_efficiency_of_the_m4000() -> None:
    ratios = engine.cost_efficiency(
        0.45, bandwidth_gbs=192, cuda_cores=1664, memory_gb=8, fp32_tflops=2.6
    )
    assert ratios["per_gb_per_min_bandwidth"] == pytest.approx(0.14, abs=0.005)
    assert ratios["per_100_cuda_cores"] == pytest.approx(0.027, abs=0.0005)
    assert ratios["per_gb_memory"] == pytest.approx(0.056, abs=0.0005)
    assert ratios["per_fp32_tflops"] == pytest.approx(0.17, abs=0.005)


def test_billing_rounds_up_to_the_increment_and_minimum() -> None:
    assert engine.billed_seconds(61, increment_s=60) == 120
    assert engine.billed_seconds(10, increment_s=1, minimum_s=60) == 60
    assert engine.billed_seconds(3600.0, increment_s=3600) == 3600
    assert engine.billed_seconds(3600.5, increment_s=3600) == 7200
    # A 10-minute run on an hourly-billed machine pays the full hour.
    assert engine.run_cost_usd(600, 2.0, increment_s=3600) == pytest.approx(2.0)


def test_idle_power_counts_only_when_the_machine_stays_on() -> None:
    off = engine.desktop_kwh_per_year(450, 0.15, idle_watts=60, always_on=False)
    on = engine.desktop_kwh_per_year(450, 0.15, idle_watts=60, always_on=True)
    assert on - off == pytest.approx(60 * 0.85 * 8760 / 1000)


def test_psu_losses_raise_wall_power() -> None:
    assert engine.desktop_load_w(350, 2, 100, psu_efficiency=0.9) == pytest.approx(800 / 0.9)


def test_plan_fees_and_included_usage() -> None:
    # Colab Pro-like: $9.99 a month includes $9.99 of units; 100 h at $0.18/h uses $1.50 a month.
    light = engine.cloud_usd_for_hours(100, 0.18, monthly_fee_usd=9.99, included_usd_per_month=9.99)
    assert light == pytest.approx(12 * 9.99)
    heavy = engine.cloud_usd_for_hours(
        1200, 0.18, monthly_fee_usd=9.99, included_usd_per_month=9.99
    )
    assert heavy == pytest.approx(12 * (9.99 + 1200 * 0.18 / 12 - 9.99))


def test_multi_gpu_scaling_matches_dettmers_range() -> None:
    assert engine.multi_gpu_speedup(1) == 1
    eight = engine.multi_gpu_speedup(8)
    assert 6.67 <= eight <= 7.0


def test_faster_cloud_needs_fewer_hours() -> None:
    assert engine.cloud_hours_for(1000, relative_speed=2.0) == 500


def test_carbon_is_energy_times_pue_times_intensity() -> None:
    assert engine.co2_kg(1000, grid_gco2_per_kwh=400, pue=1.2) == pytest.approx(480)


def test_break_even_utilisation_solves_the_horizon_crossing() -> None:
    # Desktop: $2,200 + 591.3 kWh x $0.12 per 15 % of a year; cloud $2.14/h at the same work.
    def desktop(u: float) -> float:
        return 2200 + 450 * u * 8760 / 1000 * 0.12 * 3

    def cloud(u: float) -> float:
        return 2.14 * u * 8760 * 3

    def pays_back(u: float) -> bool:
        return desktop(u) <= cloud(u)

    for at in (0.05, 0.15, 0.9):  # from either side of the crossing, the same figure
        u = engine.break_even_utilisation(pays_back, at)
        assert u is not None
        assert desktop(u) == pytest.approx(cloud(u), rel=1e-6)
    assert engine.break_even_utilisation(lambda u: False, 0.15) is None
    assert engine.break_even_utilisation(lambda u: True, 0.15) == 1e-4


def test_break_even_utilisation_agrees_with_the_verdict_where_costs_step() -> None:
    """Monthly billing makes the cloud's cost a staircase: the desktop can win at 30 % and lose
    at 31 %. The figure is found on the user's side, so it never contradicts their verdict."""

    def pays_back(u: float) -> bool:
        return 0.3 <= u < 0.31 or u >= 0.6

    assert engine.break_even_utilisation(pays_back, 0.305) == pytest.approx(0.3)
    assert engine.break_even_utilisation(pays_back, 0.4) == pytest.approx(0.6)
    assert engine.break_even_utilisation(pays_back, 0.7) == pytest.approx(0.6)


def test_resale_shortens_the_break_even_by_what_the_desktop_sells_for() -> None:
    days = engine.break_even_days(2200, 7.704, 0.1944, resale_share=0.5)
    assert days == pytest.approx(1100 / (7.704 - 0.1944))
    # and the verdict's rule is exactly the horizon costs' comparison
    horizon_years = days / 365
    assert engine.pays_back(days, horizon_years)
    assert not engine.pays_back(days, horizon_years * 0.999)
    assert engine.horizon_cost_usd(2200, 0.1944 * 365, horizon_years, 0.5) == pytest.approx(
        7.704 * 365 * horizon_years
    )
