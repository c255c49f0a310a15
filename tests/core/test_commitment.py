"""Commitments (reserved instances, savings plans, committed use): paid for every hour of the
term whatever the utilisation, compared with buying only when the horizon covers the term.
Every expected figure is worked by hand in the comment beside it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from costcalc.core import commitment
from costcalc.core.compare import compare
from costcalc.core.models import CloudOffer, Workload
from costcalc.core.records import validated
from costcalc.core.scenario import AppData, build_assumptions, build_desktop
from costcalc.store.loaders import load_app_data

NOW = datetime(2026, 11, 22, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def data() -> AppData:
    return load_app_data()


def offer(usd: float, term: int | None = None, gpu: str = "rtx3090") -> CloudOffer:
    return CloudOffer(
        provider="azure",
        name=f"test {term or 0}",
        region="eastus",
        gpu=gpu,
        usd_per_hour=usd,
        term_years=term,
        fetched_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
        source="test",
    )


def run(data: AppData, offers: list[CloudOffer], u: float, horizon: float = 3.0, **w: object):  # type: ignore[no-untyped-def]
    desktop = build_desktop(data.catalog.get("rtx3090"), data.desktop_defaults, price_usd=2200)
    a = build_assumptions(data.grid, utilisation=u, usd_per_kwh=0.12, horizon_years=horizon)
    workload = validated(Workload, w)
    speed = data.predictor.speed_fn(workload.kind, workload.dtype)
    return compare(desktop, a, workload, offers, data.catalog, data.grid, NOW, speed=speed)


# --------------------------------------------------------------------------- the rule


def test_a_commitment_costs_every_hour_of_the_year_whatever_the_use() -> None:
    # 1.00 $/h x 8,760 h = 8,760 $ a year at 10 % and at 80 %
    assert commitment.committed_usd_per_year(1.0, 876, 1, 1) == pytest.approx(8760)
    assert commitment.committed_usd_per_year(1.0, 7008, 1, 1) == pytest.approx(8760)


def test_more_hours_than_a_year_has_need_a_second_instance() -> None:
    assert commitment.instances_needed(8760) == 1
    assert commitment.instances_needed(8761) == 2
    # 0.5 $/h x 8,760 h x 2 instances
    assert commitment.committed_usd_per_year(0.5, 9000, 1, 3) == pytest.approx(8760)


def test_renewals_cover_a_longer_horizon_and_a_part_term_is_paid_in_full() -> None:
    assert commitment.terms_paid(1, 3) == 3
    assert commitment.terms_paid(3, 3) == 1
    assert commitment.terms_paid(1, 2.5) == 3
    # a 1-year term over 2.5 years pays 3 years: 8,760 $ x 3 / 2.5 = 10,512 $ a year
    assert commitment.committed_usd_per_year(1.0, 100, 1, 2.5) == pytest.approx(10512)
    # a 3-year term over a 1-year horizon: the 3 years paid, spread over the 1 used
    assert commitment.committed_usd_per_year(1.0, 100, 3, 1) == pytest.approx(26280)


def test_a_term_decides_only_when_the_horizon_covers_it() -> None:
    assert commitment.fits_horizon(1, 1) and commitment.fits_horizon(1, 3)
    assert commitment.fits_horizon(3, 3) and not commitment.fits_horizon(3, 2)


# --------------------------------------------------------------------------- in the comparison


def test_the_yearly_cost_ignores_utilisation_where_on_demand_follows_it(data: AppData) -> None:
    for u in (0.1, 0.8):
        on_demand, reserved = run(data, [offer(1.0), offer(0.6, term=1)], u).offers
        assert on_demand.usd_per_year == pytest.approx(u * 8760 * 1.0)
        assert reserved.usd_per_year == pytest.approx(0.6 * 8760)
        assert reserved.hours_per_year == pytest.approx(u * 8760)  # the work, not the bill


def test_at_80_percent_the_cheaper_commitment_is_the_verdict_at_10_percent_it_is_not(
    data: AppData,
) -> None:
    pair = [offer(1.0), offer(0.6, term=1)]
    # 80 %: on-demand 7,008 $ a year, the commitment 5,256 $: the commitment decides
    high = run(data, pair, 0.8)
    assert high.best is not None and high.best.offer.term_years == 1
    # 10 %: on-demand 876 $ a year, the commitment still 5,256 $: on-demand decides
    low = run(data, pair, 0.1)
    assert low.best is not None and low.best.offer.term_years is None


def test_a_three_year_term_never_decides_a_two_year_horizon(data: AppData) -> None:
    pair = [offer(1.0), offer(0.3, term=3)]
    assert run(data, pair, 0.8, horizon=3).best.offer.term_years == 3  # type: ignore[union-attr]
    two = run(data, pair, 0.8, horizon=2)
    assert two.best is not None and two.best.offer.term_years is None
    # still shown, priced for the three years it binds: 0.3 x 8,760 x 3 / 2 = 3,942 $ a year
    assert two.offers[1].usd_per_year == pytest.approx(3942)


def test_a_run_on_a_commitment_carries_its_share_of_the_year(data: AppData) -> None:
    # 10 h runs at 10 %: 87.6 runs a year; the year costs 0.6 x 8,760 = 5,256 $: 60 $ a run
    result = run(data, [offer(0.6, term=1)], 0.1, run_hours=10).offers[0]
    assert result.run is not None
    assert result.run.usd == pytest.approx(5256 / 87.6)


def test_break_even_utilisation_against_a_commitment_weighs_paying_as_you_go(
    data: AppData,
) -> None:
    """Against the commitment alone the desktop wins at any utilisation (the commitment costs
    the same at 0.01 %); the flip is where on demand, cheaper below 60 %, stops winning:
    2,200 $ / (24 h x u x (1.00 $/h - electricity/h)) = 1,095 days at u near 9 %."""
    pair = run(data, [offer(1.0), offer(0.6, term=1)], 0.8)
    alone = run(data, [offer(1.0)], 0.8)
    assert pair.best is not None and pair.best.offer.term_years == 1
    assert alone.break_even_utilisation is not None and pair.break_even_utilisation is not None
    assert 0.05 < alone.break_even_utilisation < 0.12
    assert pair.break_even_utilisation == pytest.approx(alone.break_even_utilisation)


def test_a_term_longer_than_the_horizon_holds_no_rent_verdict(data: AppData) -> None:
    """What would flip a Rent verdict counts the other offers the verdict could have named: a
    three-year term over a two-year horizon is not one of them (compare leaves it out too)."""
    from costcalc.core.decision import decision
    from costcalc.core.thresholds import thresholds

    # 10 %: on-demand 0.05 x 876 h = 43.8 $ a year, the term 0.01 x 8,760 x 3 / 2 = 131.4 $:
    # the $2,200 desktop pays back against neither within two years (Rent)
    pair = [offer(0.05), offer(0.01, term=3)]
    a = build_assumptions(data.grid, utilisation=0.1, usd_per_kwh=0.12, horizon_years=2)
    two = run(data, pair, 0.1, horizon=2)
    found = thresholds(two, a, decision(two, a))
    assert found.decision == "rent" and two.best is not None
    assert two.best.offer.term_years is None
    assert found.holders == ()
    # over three years the term may decide, and it holds the verdict beside the on-demand one
    a3 = build_assumptions(data.grid, utilisation=0.1, usd_per_kwh=0.12, horizon_years=3)
    three = run(data, pair, 0.1, horizon=3)
    assert [r.offer.term_years for r in thresholds(three, a3, decision(three, a3)).holders] == [3]
