"""A provider's refresh from the field's catalogs: its rows from gpuhunt's and SkyPilot's files,
alone or beside its own direct feed.

Rules kept here:
- each catalog row becomes an offer of the provider that rents it out, in that provider's tier,
  dated by its catalog file and naming it (`source`), so every price says where and when;
- the same offer in two catalogs is one offer: the newer reading is its price and the other
  reading is named beside it as a cross-check (`source` after 'cross-check:');
- beside a direct feed, the direct row is the price and a catalog reading of the same offer
  (same instance type and region, or for a provider priced globally the same GPUs, count,
  tier and kind) is its cross-check, returned as a reading so the refresh can record it; a
  catalog offer the direct feed lacks (another region, another instance type) is added, unless
  the provider's catalog feed only cross-checks;
- a catalog that cannot be had costs only its rows: a provider with a direct feed keeps its
  direct rows, one without fails only when every catalog it reads failed;
- a spot price no lower than the same instance's on-demand price in the same region is no
  discount anyone can buy, and is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec.structs import replace

from costcalc.core.models import OfferRow, PriceSnapshot

from .base import Fetched, Skip
from .catalog_gpus import IGNORED, catalog_key, table
from .catalog_rows import CatalogRow
from .catalog_spec import CatalogFeed, CatalogSource
from .common import FeedError
from .gpu_names import GpuNames

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

    from .base import FeedProvider, Progress
    from .catalogs import CatalogFile

Key = tuple[str, str, str, int, bool]
"""An offer's identity within one provider: name, region, GPU, count, spot."""

LICENCE = (
    "prices cited as facts, each with its catalog and date; gpuhunt's code is MPL-2.0 and its "
    "published data declares no licence, skypilot-catalog has no licence file"
)
MAX_CROSS_CHECKS = 2
"""Readings named in one offer's source: the first two are enough to show agreement or not."""
FAR = 0.2
"""A cross-check further than this from the row's price is counted as disagreeing."""


def _gpus(feed: CatalogFeed, names: GpuNames, row: CatalogRow) -> tuple[str, int] | None:
    if feed.instances is not None:
        table, skipped = feed.instances()
        found = table.get(row.instance)
        if found is None and row.instance not in skipped:
            names.skip(row.instance)
        return (found.gpu, found.gpu_count) if found else None
    key = catalog_key(names, row.gpu_name, row.instance, row.gpu_memory_gb)
    return (key, row.gpu_count) if key else None


def _name(feed: CatalogFeed, row: CatalogRow) -> str:
    return f"{row.instance} (via {feed.via})" if feed.via else row.instance


def offer_rows(
    feed: CatalogFeed, files: Sequence[tuple[CatalogSource, CatalogFile]], names: GpuNames
) -> list[OfferRow]:
    """The rows of `files` that are this provider's, as offers: GPUs mapped, kinds chosen,
    spot prices that discount nothing dropped, one offer per identity (the newest reading,
    the others named as its cross-checks)."""
    found: dict[Key, list[OfferRow]] = {}
    for source, file in files:
        wanted = [r for r in file.rows if source.rows_of in (None, r.provider)]
        on_demand = {(r.instance, r.region): r.usd_per_hour for r in wanted if not r.spot}
        for row in wanted:
            if feed.ways != "both" and row.spot != (feed.ways == "spot"):
                continue
            if row.spot and row.usd_per_hour >= on_demand.get((row.instance, row.region), 1e18):
                continue
            gpus = _gpus(feed, names, row)
            if gpus is None:
                continue
            gpu, count = gpus
            offer = OfferRow(
                name=_name(feed, row),
                region=row.region,
                gpu=gpu,
                gpu_count=count,
                usd_per_hour=row.usd_per_hour,
                spot=row.spot,
                tier=feed.tier,
                price_kind="observed" if row.spot else feed.price_kind,
                vcpus=row.vcpus,
                ram_gb=row.ram_gb,
                summary=f"cheapest of {row.zones} zones" if row.spot and row.zones > 1 else None,
                fetched_at=file.dated,
                source=f"{file.source}, as of {file.dated:%Y-%m-%d}",
            )
            found.setdefault(_key(offer), []).append(offer)
    return [_with_cross_checks(readings) for readings in found.values()]


def _key(row: OfferRow) -> Key:
    return (row.name, row.region, row.gpu, row.gpu_count, bool(row.spot))


def _newest_first(rows: Iterable[OfferRow]) -> list[OfferRow]:
    return sorted(rows, key=lambda r: r.fetched_at or datetime.min, reverse=True)


def _cross_check_text(others: Sequence[OfferRow]) -> str:
    said = [f"{o.source} ${o.usd_per_hour:,.4g}" for o in others[:MAX_CROSS_CHECKS] if o.source]
    return f"; cross-check: {'; '.join(said)}" if said else ""


def _with_cross_checks(readings: Sequence[OfferRow]) -> OfferRow:
    first, *others = _newest_first(readings)
    if not others:
        return first
    return replace(first, source=f"{first.source}{_cross_check_text(others)}")


def _load_all(
    provider: FeedProvider, feed: CatalogFeed, client: HttpClient, progress: Progress
) -> tuple[list[tuple[CatalogSource, CatalogFile]], list[str]]:
    from .catalogs import load

    files, problems = [], []
    for source in feed.sources:
        try:
            files.append((source, load(client, source, progress)))
        except FeedError as exc:
            problems.append(str(exc))
            progress(f"{exc}; its rows are left out")
    return files, problems


def _snapshot(
    provider: FeedProvider,
    feed: CatalogFeed,
    rows: list[OfferRow],
    now: datetime,
    files: Sequence[tuple[CatalogSource, CatalogFile]],
) -> PriceSnapshot:
    used = ", ".join(dict.fromkeys(f"{f.source} ({f.dated:%Y-%m-%d})" for _, f in files))
    return PriceSnapshot(
        provider=provider.name,
        source=f"the field's catalogs: {used}",
        source_url=files[0][1].url if files else None,
        licence=LICENCE,
        fetched_at=now,
        price_kind=feed.price_kind,
        notes=(
            f"{provider.label} as the catalogs list it (gpuhunt, SkyPilot); each row is dated by "
            "its catalog file" + (f"; bought through {feed.via}, at its prices" if feed.via else "")
        ),
        offers=tuple(rows),
    )


def _direct_rows(outcome: PriceSnapshot | Fetched) -> tuple[PriceSnapshot, tuple[str, ...]]:
    if isinstance(outcome, Fetched):
        return outcome.snapshot, outcome.unknown_gpus
    return outcome, ()


def _global_twin(row: OfferRow, direct: Sequence[OfferRow]) -> OfferRow | None:
    """The direct row priced for every region that is the same offer as a catalog row."""
    for d in direct:
        if (
            d.region == "global"
            and (d.gpu, d.gpu_count, bool(d.spot), d.tier or "secure")
            == (row.gpu, row.gpu_count, bool(row.spot), row.tier or "secure")
            and d.term_years is None
        ):
            return d
    return None


def merge(
    direct: PriceSnapshot, catalog: Sequence[OfferRow], cross_check_only: bool
) -> tuple[PriceSnapshot, tuple[OfferRow, ...], str]:
    """`direct` with the catalog offers it lacks added and the ones it has as cross-checks:
    the merged snapshot, the readings (named as the direct row, priced and dated as the
    catalog's), and a note for the refresh's line."""
    by_key = {_key(r): r for r in direct.offers}
    checks: dict[Key, list[OfferRow]] = {}
    added: list[OfferRow] = []
    for row in catalog:
        twin = by_key.get(_key(row)) or _global_twin(row, direct.offers)
        if twin is not None:
            checks.setdefault(_key(twin), []).append(row)
        elif not cross_check_only:
            added.append(row)
    rows, readings, ratios = [], [], []
    for d in direct.offers:
        found = checks.get(_key(d), [])
        if found:
            d = replace(d, source=f"{d.source or direct.source}{_cross_check_text(found)}")
            for c in found:
                ratios.append(c.usd_per_hour / d.usd_per_hour if d.usd_per_hour else 1.0)
                readings.append(
                    replace(
                        d, usd_per_hour=c.usd_per_hour, fetched_at=c.fetched_at, source=c.source
                    )
                )
        rows.append(d)
    note = _note(len(checks), ratios, len(added))
    return replace(direct, offers=(*rows, *added)), tuple(readings), note


def _note(offers: int, ratios: Sequence[float], added: int) -> str:
    parts = []
    if offers:
        from costcalc.core.ranges import median

        far = sum(1 for r in ratios if abs(r - 1) > FAR)
        parts.append(
            f"cross-checked {offers} offers against the catalogs (median {median(ratios):.2f}x"
            + (f"; {far} readings differ by more than {FAR:.0%})" if far else ")")
        )
    if added:
        parts.append(f"{added} offers only the catalogs list")
    return "; ".join(parts)


def with_catalogs(
    provider: FeedProvider,
    direct: PriceSnapshot | Fetched | Skip,
    client: HttpClient,
    now: datetime,
    progress: Progress,
) -> PriceSnapshot | Fetched | Skip:
    """What `provider` refreshes to once the catalogs it reads are added to its direct feed's
    outcome (or stand in for it, when the direct feed has nothing: no key, or no feed)."""
    feed = provider.catalogs
    assert feed is not None
    files, problems = _load_all(provider, feed, client, progress)
    names = GpuNames(table(feed.gpu_overrides), IGNORED)
    rows = offer_rows(feed, files, names)
    if isinstance(direct, Skip):
        if rows:
            note = f"{len(rows)} offers from the catalogs"
            if direct.hint:
                note += f" ({direct.hint} for its own feed)"
            snapshot = _snapshot(provider, feed, rows, now, files)
            return Fetched(snapshot, names.unknown, note=note, from_catalogs=tuple(rows))
        if problems:
            raise FeedError("; ".join(problems))
        return direct
    snapshot, unknown = _direct_rows(direct)
    merged, readings, note = merge(snapshot, rows, feed.cross_check_only)
    added = merged.offers[len(snapshot.offers) :]
    if problems:
        failed = f"{len(problems)} {'catalog' if len(problems) == 1 else 'catalogs'} failed"
        note = "; ".join(filter(None, [note, f"{failed}: {problems[0]}"]))
    return Fetched(
        merged, unknown + names.unknown, readings=readings, note=note, from_catalogs=added
    )
