"""The comparison: speed, hours, plans, carbon and the verdict on pinned inputs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from costcalc.core import engine
from costcalc.core.compare import Comparison, compare
from costcalc.core.decision import decision
from costcalc.core.models import Assumptions, CloudOffer, Workload
from costcalc.core.offers import custom_offer
from costcalc.core.records import validated
from costcalc.core.scenario import AppData, build_assumptions, build_desktop
from costcalc.present import display as fmt
from costcalc.store.bundled import load_catalog
from costcalc.store.loaders import load_app_data

NOW = datetime(2026, 11, 22, tzinfo=timezone.utc)
RTX3090 = load_catalog().get("rtx3090")


@pytest.fixture(scope="module")
def data() -> AppData:
    return load_app_data()


def offer(gpu: str, usd: float, count: int = 1, **extra: object) -> CloudOffer:
    fields: dict[str, object] = {
        "provider": "aws-ondemand",
        "name": f"test-{gpu}",
        "region": "us-east-1",
        "gpu": gpu,
        "gpu_count": count,
        "usd_per_hour": usd,
        "fetched_at": datetime(2026, 11, 1, tzinfo=timezone.utc),
        "source": "test",
    }
    fields.update(extra)
    return validated(CloudOffer, fields)


def run(data: AppData, offers: list[CloudOffer], u: float = 0.15, **workload: object):  # type: ignore[no-untyped-def]
    desktop = build_desktop(data.catalog.get("rtx3090"), data.desktop_defaults, price_usd=2200)
    a = build_assumptions(data.grid, utilisation=u, usd_per_kwh=0.12)
    w = validated(Workload, workload)
    speed = data.predictor.speed_fn(w.kind, w.dtype)
    return compare(desktop, a, w, offers, data.catalog, data.grid, NOW, speed=speed)


def test_same_gpu_same_speed_and_hours(data: AppData) -> None:
    result = run(data, [custom_offer("rtx3090", 1, 2.14, NOW)]).offers[0]
    assert result.relative_speed == 1.0
    assert result.hours_per_year == pytest.approx(0.15 * 8760)


def test_faster_gpu_needs_fewer_hours_and_costs_accordingly(data: AppData) -> None:
    slow, fast = run(data, [offer("t4", 1.0), offer("h100_sxm5_80gb", 1.0)]).offers
    assert fast.relative_speed > 1 > slow.relative_speed
    assert fast.hours_per_year < slow.hours_per_year
    assert fast.usd_per_year == pytest.approx(fast.hours_per_year * 1.0)


def test_more_gpus_are_faster_but_not_linearly(data: AppData) -> None:
    one, eight = run(data, [offer("a100_sxm4_40gb", 4.0), offer("a100_sxm4_40gb", 32.0, 8)]).offers
    ratio = eight.relative_speed / one.relative_speed
    assert 6.67 <= ratio < 8


def test_offer_carbon_uses_its_region(data: AppData) -> None:
    dirty, clean = run(
        data,
        [offer("a10g", 1.0, region="us-east-2"), offer("a10g", 1.0, region="us-west-2")],
    ).offers
    g_dirty = data.grid.for_offer("aws-ondemand", "us-east-2")
    g_clean = data.grid.for_offer("aws-ondemand", "us-west-2")
    assert g_dirty.gco2_per_kwh > g_clean.gco2_per_kwh
    assert dirty.co2_kg_per_year / clean.co2_kg_per_year == pytest.approx(
        g_dirty.gco2_per_kwh / g_clean.gco2_per_kwh
    )


def test_plan_fee_counts_in_year_and_run(data: AppData) -> None:
    plain, planned = run(
        data,
        [offer("rtx_a6000", 1.89), offer("rtx_a6000", 1.89, monthly_fee_usd=39.0, plan="Growth")],
        run_hours=10,
    ).offers
    assert planned.usd_per_year == pytest.approx(plain.usd_per_year + 12 * 39)
    assert planned.run is not None and plain.run is not None
    runs_per_month = 0.15 * 8760 / 12 / 10
    assert planned.run.usd - plain.run.usd == pytest.approx(39 / runs_per_month)


def test_hourly_billing_rounds_a_short_run_up(data: AppData) -> None:
    (r,) = run(data, [offer("rtx3090", 1.0, billing_increment_s=3600)], run_hours=0.25).offers
    assert r.run is not None
    assert r.run.billed_hours == 1
    assert r.run.usd == pytest.approx(1.0)


def test_max_batch_gives_usd_per_batch_item_and_fit(data: AppData) -> None:
    fits, no_fit = run(
        data,
        [offer("rtx_a6000", 1.89), offer("t4", 0.5)],
        max_batch={"rtx_a6000": 256, "t4": 0},
        run_hours=1,
    ).offers
    assert fits.usd_per_batch_item == pytest.approx(0.00738, abs=5e-6)
    assert no_fit.fits is False and no_fit.usd_per_batch_item is None and no_fit.run is None


def test_verdict_says_buy_rent_or_never(data: AppData) -> None:
    def verdict(c: Comparison, a: Assumptions) -> str:  # the words of the decision made once
        return fmt.verdict(c, a, RTX3090, decided=decision(c, a))

    a = build_assumptions(data.grid, utilisation=0.15, usd_per_kwh=0.12)
    buy = run(data, [custom_offer("rtx3090", 1, 2.14, NOW)])
    assert verdict(buy, a).startswith("Buy:") and "~293 days" in verdict(buy, a)
    never = run(data, [custom_offer("rtx3090", 1, 0.01, NOW)])
    assert "never pays back" in verdict(never, a)
    a_low = build_assumptions(data.grid, utilisation=0.02, usd_per_kwh=0.12)
    late = run(data, [custom_offer("rtx3090", 1, 0.9, NOW)], u=0.02)
    assert verdict(late, a_low).startswith("Rent:") and "horizon" in verdict(late, a_low)


def test_break_even_utilisation_matches_the_horizon_costs(data: AppData) -> None:
    result = run(data, [custom_offer("rtx3090", 1, 2.14, NOW)])
    u = result.break_even_utilisation
    assert u is not None
    desktop = 2200 + 450 * u * 8760 / 1000 * 0.12 * 3
    cloud = 2.14 * u * 8760 * 3
    assert desktop == pytest.approx(cloud, rel=1e-6)


def test_price_age_comes_from_fetched_at(data: AppData) -> None:
    (r,) = run(data, [offer("t4", 0.5)]).offers
    assert r.price_age_days == pytest.approx(21)


def test_desktop_run_includes_hardware_share(data: AppData) -> None:
    result = run(data, [custom_offer("rtx3090", 1, 2.14, NOW)], run_hours=10)
    assert result.desktop_run is not None
    electricity = 0.45 * 10 * 0.12
    runs_over_horizon = 0.15 * 8760 * 3 / 10
    assert result.desktop_run.usd == pytest.approx(electricity + 2200 / runs_over_horizon)
    assert engine.HOURS_PER_YEAR == 8760


def test_offer_result_by_keyword_names_every_field_in_order() -> None:
    """compare builds results through models.offer_result (keywords at a positional call's
    cost): its parameters must be OfferResult's fields, in their order, or a figure would land
    in another's field."""
    import inspect

    from costcalc.core.models import OfferResult, offer_result

    assert tuple(inspect.signature(offer_result).parameters) == OfferResult._fields
    values = {name: object() for name in OfferResult._fields}
    built = offer_result(**values)  # type: ignore[arg-type]
    assert type(built) is OfferResult
    assert all(getattr(built, name) is value for name, value in values.items())


def market(usd: float, days_old: float, **extra: object) -> CloudOffer:
    """A marketplace listing observed `days_old` days before NOW (stale after 7 d)."""
    fetched = NOW - timedelta(days=days_old)
    return offer(
        "rtx3090", usd, provider="vast", tier="marketplace", price_kind="observed",
        fetched_at=fetched, name=f"listing-{usd}", **extra,
    )  # fmt: skip


def test_a_stale_market_price_never_decides_while_another_can(data: AppData) -> None:
    """Issue 25: a weeks-old marketplace listing is likely gone; a fresher or list price decides
    and the stale one is named (Comparison.set_aside), cheapest first."""
    listed = offer("rtx3090", 0.40)  # a list price of 2026-11-01: 21 d, fresh
    c = run(data, [market(0.10, 30), market(0.20, 8), listed])
    assert c.best is not None and c.best.offer.name == listed.name
    assert [r.offer.usd_per_hour for r in c.set_aside] == [0.10, 0.20]
    line = fmt.set_aside_text(c.set_aside)
    assert line is not None
    assert line.startswith("Left out of the verdict as stale: vast listing-0.1")
    assert "30 d old; observed spot/marketplace prices over 7 d) and 1 more cheaper offer" in line


def test_a_fresh_market_price_decides_and_a_stale_one_when_nothing_else_is_left(
    data: AppData,
) -> None:
    fresh = run(data, [market(0.10, 3), offer("rtx3090", 0.40)])
    assert fresh.best is not None and fresh.best.offer.usd_per_hour == 0.10
    assert fresh.set_aside == ()
    alone = run(data, [market(0.10, 30), market(0.20, 40)])
    assert alone.best is not None and alone.best.offer.usd_per_hour == 0.10  # marked stale
    assert alone.set_aside == ()


def test_a_stale_list_price_still_decides(data: AppData) -> None:
    """Only prices that move within days or weeks are set aside: a list price of 100 days
    (stale, shown so) still decides against a dearer fresh one."""
    old = offer("rtx3090", 0.30, name="old-list", fetched_at=NOW - timedelta(days=100))
    c = run(data, [old, offer("rtx3090", 0.40)])
    assert c.best is not None and c.best.offer.name == "old-list"
