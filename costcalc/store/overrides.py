"""The user's own prices: a YAML file in the config directory that overrides or adds offers.

File: `costcalc.edge.locations.price_overrides_file()` (<config dir>/prices.yaml), for example

    overrides:                  # change the price of offers costcalc already knows
      - provider: paperspace
        name: A100              # the offer name `costcalc prices` shows
        region: NY2             # optional: every region when left out
        usd_per_hour: 2.95
        as_of: 2026-11-20       # optional: when the price was true (default: the file's date)
        note: quoted by sales   # optional
    offers:                     # add offers costcalc does not know
      - provider: paperspace
        name: A6000x2
        region: NY2
        gpu: A6000              # any GPU name `costcalc gpus` accepts
        gpu_count: 2
        usd_per_hour: 3.60

Rules kept here: the file crosses the edge through `records.validated` like every other; a
malformed file is one DataFileError line naming the file (exit 2), and an override that matches
no offer is a warning, never silently ignored. A price of the user's own is used as written, even
one a feed's would be held back for (costcalc.core.plausible): it is deliberate, so it is kept,
with a warning naming the bound it breaks (a typed 0.03 for 0.30 is seen, not silently dropped
or obeyed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime, time, timedelta, timezone
from typing import TYPE_CHECKING, Annotated, Literal

from msgspec.structs import replace

from costcalc.core.catalog import GpuCatalog
from costcalc.core.constants import MAX_GPUS_PER_OFFER
from costcalc.core.errors import CostcalcError, DataFileError, quoted
from costcalc.core.models import CloudOffer
from costcalc.core.records import Meta, Record
from costcalc.edge import locations
from costcalc.edge.resources import read_user_yaml, validate
from costcalc.providers.registry import names

if TYPE_CHECKING:
    from pathlib import Path

    from costcalc.core.plausible import ShippedPrices

MAX_USD_PER_HOUR = 10_000.0
"""Dearest price a user's file may give for one offer: 64 GPUs at over $150 an hour each."""
MIN_USD_PER_HOUR = 0.0001
"""Cheapest non-zero price: below a hundredth of a cent an hour is a typo (1e-300), not a
price; 0 says free."""
MAX_ENTRIES = 1_000
"""Overrides (and added offers) one file may hold: each is matched against every offer."""
MAX_FILE_BYTES = 4 * 1024 * 1024
"""Largest prices.yaml read: MAX_ENTRIES of each kind at 2 kB each (an entry with a note is
about 200 bytes), with room for comments."""
MAX_NODES = 100_000
"""YAML values a prices.yaml may hold: MAX_ENTRIES of each kind with every one of their ten
fields is about 42,000."""

UsdPerHour = Annotated[float, Meta(ge=0, le=MAX_USD_PER_HOUR)]
GpuCount = Annotated[int, Meta(ge=1, le=MAX_GPUS_PER_OFFER)]


def _check_entry(provider: str, usd_per_hour: float, as_of: date | None) -> None:
    """What the types cannot say of an entry: a provider costcalc knows, a price that is not a
    typo, a date that is not ahead (tomorrow is fine: a time zone ahead of UTC)."""
    if provider not in names():
        raise ValueError(f"unknown provider {quoted(provider)}; choose from {', '.join(names())}")
    if 0 < usd_per_hour < MIN_USD_PER_HOUR:
        raise ValueError(f"{usd_per_hour:g} is too small to be a price per hour; write 0 for free")
    if as_of is not None and as_of > date.today() + timedelta(days=1):
        raise ValueError(f"{as_of} is in the future; give the date the price was true")


class PriceOverride(Record, frozen=True, kw_only=True):
    """A new price for offers costcalc already has."""

    provider: str
    name: str
    """Offer name as `costcalc prices` shows it."""
    region: str | None = None
    """Only this region; all when omitted."""
    usd_per_hour: UsdPerHour
    as_of: date | None = None
    """When the price was true."""
    note: str | None = None

    def __post_init__(self) -> None:
        _check_entry(self.provider, self.usd_per_hour, self.as_of)


class AddedOffer(Record, frozen=True, kw_only=True):
    """An offer costcalc does not have, priced by the user."""

    provider: str
    name: str
    region: str
    gpu: str
    """Any GPU name the catalog accepts."""
    gpu_count: GpuCount = 1
    usd_per_hour: UsdPerHour
    spot: bool = False
    monthly_fee_usd: Annotated[float, Meta(ge=0, le=1_000_000)] = 0.0
    as_of: date | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        _check_entry(self.provider, self.usd_per_hour, self.as_of)


class PriceOverridesFile(Record, frozen=True, kw_only=True):
    """<config dir>/prices.yaml."""

    schema_version: Literal[1] = 1
    overrides: Annotated[tuple[PriceOverride, ...], Meta(max_length=MAX_ENTRIES)] = ()
    offers: Annotated[tuple[AddedOffer, ...], Meta(max_length=MAX_ENTRIES)] = ()


def load_overrides(path: Path | None = None) -> PriceOverridesFile | None:
    """The user's file, validated; None when there is none."""
    path = path or locations.price_overrides_file()
    try:
        data = read_user_yaml(path, max_bytes=MAX_FILE_BYTES, max_nodes=MAX_NODES)
    except FileNotFoundError:
        return None
    return validate({} if data is None else data, PriceOverridesFile, str(path))


def _when(as_of: date | None, default: datetime) -> datetime:
    return default if as_of is None else datetime.combine(as_of, time(), tzinfo=timezone.utc)


def _source(path: Path, note: str | None) -> str:
    return f"your price in {path}" + (f" ({note})" if note else "")


def apply_overrides(
    offers: Sequence[CloudOffer],
    providers: Sequence[str],
    data: PriceOverridesFile,
    path: Path,
    file_time: datetime,
    catalog: GpuCatalog,
    shipped: Callable[[], ShippedPrices] | None = None,
) -> tuple[list[CloudOffer], list[str]]:
    """Offers with the user's prices applied and added, plus a warning per unmatched override
    and, given what ships, per price outside its GPU's bounds (kept all the same)."""
    result = list(offers)
    warnings = []
    yours: list[tuple[str, CloudOffer]] = []
    for index, override in enumerate(data.overrides):
        hits = 0
        for i, offer in enumerate(result):
            if (
                offer.provider == override.provider
                and offer.name.casefold() == override.name.casefold()
                and override.region in (None, offer.region)
            ):
                hits += 1
                yours.append((f"overrides[{index}]", offer))
                result[i] = replace(
                    offer,
                    **{
                        "usd_per_hour": override.usd_per_hour,
                        "fetched_at": _when(override.as_of, file_time),
                        "source": _source(path, override.note),
                    },
                )
        if not hits and override.provider in providers:
            where = f" in {quoted(override.region)}" if override.region else ""
            warnings.append(
                f"{path}: overrides[{index}] ({override.provider} {quoted(override.name)}{where}) "
                "matches no offer"
            )
    added = [
        (f"offers[{i}]", _added(offer, i, path, file_time, catalog))
        for i, offer in enumerate(data.offers)
        if offer.provider in providers
    ]
    result += [offer for _, offer in added]
    if shipped is not None:
        warnings += _doubted(yours, added, data, path, catalog, shipped)
    return result, warnings


def _doubted(
    overridden: list[tuple[str, CloudOffer]],
    added: list[tuple[str, CloudOffer]],
    data: PriceOverridesFile,
    path: Path,
    catalog: GpuCatalog,
    shipped: Callable[[], ShippedPrices],
) -> list[str]:
    """One warning per entry of the user's whose price a feed's would be held back for (an
    override of every region is judged once, on the first offer it matched)."""
    prices = {f"overrides[{i}]": o.usd_per_hour for i, o in enumerate(data.overrides)}
    first: dict[str, CloudOffer] = {}
    for where, offer in overridden:
        first.setdefault(where, offer)
    judged = [(where, offer, prices[where]) for where, offer in first.items()]
    judged += [(where, offer, offer.usd_per_hour) for where, offer in added]
    if not judged:
        return []
    from costcalc.core.plausible import doubt  # judging prices: only your own need it

    bounds = shipped()
    warnings = []
    for where, offer, usd in judged:
        why = doubt(offer.gpu, offer.gpu_count, usd, catalog, shipped=bounds)
        if why is not None:
            warnings.append(
                f"{path}: {where} ({offer.provider} {offer.name!r} in {offer.region}): {why}; "
                "used as you wrote it"
            )
    return warnings


def _added(
    offer: AddedOffer, index: int, path: Path, file_time: datetime, catalog: GpuCatalog
) -> CloudOffer:
    try:
        gpu = catalog.resolve(offer.gpu).key
    except CostcalcError as exc:
        raise DataFileError(f"{path}: offers[{index}].gpu: {exc}") from exc
    return CloudOffer(
        provider=offer.provider,
        name=offer.name,
        region=offer.region,
        gpu=gpu,
        gpu_count=offer.gpu_count,
        usd_per_hour=offer.usd_per_hour,
        spot=offer.spot,
        monthly_fee_usd=offer.monthly_fee_usd,
        fetched_at=_when(offer.as_of, file_time),
        source=_source(path, offer.note),
    )


def apply_user_overrides(
    offers: Sequence[CloudOffer],
    providers: Sequence[str],
    catalog: GpuCatalog,
    shipped: Callable[[], ShippedPrices] | None = None,
) -> tuple[list[CloudOffer], list[str]]:
    """Apply the user's prices.yaml, if there is one, to offers of the loaded providers (with a
    warning per price outside what `shipped` gives, read only when there is a price to judge)."""
    if not locations.exists(locations.price_overrides_file_text()):  # asked without pathlib
        return list(offers), []
    path = locations.price_overrides_file()
    data = load_overrides(path)
    if data is None:
        return list(offers), []
    file_time = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    return apply_overrides(offers, providers, data, path, file_time, catalog, shipped)
