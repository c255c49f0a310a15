"""Fixed data and a fixed clock for every app test: the bundled snapshot, 2026-11-01 UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import pytest

from costcalc.core.grid import GridIndex
from costcalc.core.models import CloudOffer
from costcalc.core.offers import PriceBook
from costcalc.core.scenario import AppData
from costcalc.store.bundled import load_catalog, load_predictor, load_scaling
from costcalc.store.loaders import load_app_data, load_converter, load_electricity_index
from costcalc.store.settings import Settings
from costcalc.store.snapshots import load_carbon, load_desktop_defaults
from costcalc.tui.app import CostcalcApp, make_app

FIXED_NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
"""Price ages in the table are computed against this, never the wall clock."""

MakeApp = Callable[..., CostcalcApp]


@pytest.fixture
def data() -> AppData:
    """The bundled snapshot (COSTCALC_HOME is a fresh directory, so no refreshed copies)."""
    return load_app_data()


def _offer(provider: str, name: str, gpu: str, usd_per_hour: float, **more: Any) -> CloudOffer:
    return CloudOffer(
        provider=provider,
        name=name,
        region=more.pop("region", "us-east-1"),
        gpu=gpu,
        usd_per_hour=usd_per_hour,
        fetched_at=more.pop("fetched_at", datetime(2026, 10, 1, tzinfo=timezone.utc)),
        source="test fixture",
        **more,
    )


FIXED_OFFERS: tuple[CloudOffer, ...] = (
    _offer("aws-spot", "g4dn.xlarge", "t4", 0.21, spot=True, interruption_bucket=1),
    _offer("aws-spot", "g5.xlarge", "a10g", 0.45, spot=True, interruption_bucket=2),
    _offer("aws-spot", "p3.2xlarge", "v100_sxm2_16gb", 0.92, spot=True, interruption_bucket=3),
    _offer("aws-spot", "p4d.24xlarge", "a100_sxm4_40gb", 11.2, gpu_count=8, spot=True),
    _offer("aws-ondemand", "g5.xlarge", "a10g", 1.006),
    _offer("aws-ondemand", "g5.xlarge", "a10g", 1.123, region="eu-west-1"),
    _offer("aws-ondemand", "g6e.xlarge", "l40s", 1.861),
    _offer("aws-ondemand", "p3.2xlarge", "v100_sxm2_16gb", 3.06, region="eu-west-1"),
    _offer("paperspace", "A4000", "rtx_a4000", 0.76, region="NY2"),
    _offer("paperspace", "A100-80G", "a100_sxm4_80gb", 3.18, region="NY2"),
    _offer(
        "paperspace", "P4000", "quadro_p4000", 0.51, region="NY2", monthly_fee_usd=8, plan="Pro"
    ),
    _offer("colab", "Pay As You Go T4", "t4", 0.107, region="global", guaranteed=False),
)
"""A dozen offers that never change (one folded under its cheaper region), so snapshots do not
move when the bundled prices do."""


@pytest.fixture
def fixed_data() -> AppData:
    return AppData(
        catalog=load_catalog(),
        grid=GridIndex(load_carbon()),
        desktop_defaults=load_desktop_defaults(),
        book=PriceBook(offers=list(FIXED_OFFERS)),
        predictor=load_predictor(),
        scaling=load_scaling(),
        electricity=load_electricity_index(),
        fx=load_converter(),
    )


@pytest.fixture
def fixed_app_factory(fixed_data: AppData) -> MakeApp:
    """Like app_factory, with FIXED_OFFERS instead of the bundled prices."""

    def factory(settings: Settings | None = None, **options: Any) -> CostcalcApp:
        options.setdefault("detect_gpu", False)
        options.setdefault("load_bench", False)
        return make_app(fixed_data, settings or Settings(gpu="rtx3090"), FIXED_NOW, **options)

    return factory


@pytest.fixture
def app_factory(data: AppData) -> MakeApp:
    """make_app with fixed data and clock, no GPU detection and no saved bench."""

    def factory(settings: Settings | None = None, **options: Any) -> CostcalcApp:
        options.setdefault("detect_gpu", False)
        options.setdefault("load_bench", False)
        return make_app(data, settings or Settings(gpu="rtx3090"), FIXED_NOW, **options)

    return factory
