"""Everything a comparison needs from disk, loaded once: catalog, grid, desktop defaults, prices.

Rule kept here: this is the IO layer between the pure core and the front ends. It reads bundled
and user files (through `snapshots` and `resources`) and hands back validated, immutable data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from costcalc.catalog import GpuCatalog, load_catalog
from costcalc.grid import GridIndex
from costcalc.models import CloudOffer, DesktopDefaults
from costcalc.snapshots import PriceBook, load_carbon, load_desktop_defaults, load_price_book


@dataclass
class AppData:
    catalog: GpuCatalog
    grid: GridIndex
    desktop_defaults: DesktopDefaults
    book: PriceBook

    @property
    def default_usd_per_kwh(self) -> float:
        return self.desktop_defaults.electricity_usd_per_kwh


def load_app_data(providers: Sequence[str] | None = None) -> AppData:
    return AppData(
        catalog=load_catalog(),
        grid=GridIndex(load_carbon()),
        desktop_defaults=load_desktop_defaults(),
        book=load_price_book(providers),
    )


def custom_offer(gpu: str, gpu_count: int, usd_per_hour: float, now: datetime) -> CloudOffer:
    """An offer the user priced themselves, on the same GPUs as their desktop."""
    return CloudOffer(
        provider="custom",
        name=f"${usd_per_hour:g}/h",
        region="-",
        gpu=gpu,
        gpu_count=gpu_count,
        usd_per_hour=usd_per_hour,
        fetched_at=now,
        source="given on the command line (--cloud-price)",
    )


def utc_now() -> datetime:
    return datetime.now(timezone.utc)
