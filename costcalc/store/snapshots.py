"""Reading price snapshots: the bundled, dated ones in prices/ and the user's refreshed copies.

Rules kept here: one snapshot per provider, so one bad file never hides the others. A refreshed
snapshot in the user data directory wins over the bundled one; if it is unreadable the bundled
one is used and the problem is reported. A provider whose bundled file is missing or broken is
reported once and skipped: every other provider still works. The user's own prices
(costcalc.store.overrides) are applied last.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.errors import DataFileError
from costcalc.core.models import (
    CarbonData,
    CloudOffer,
    DesktopDefaults,
    ElectricityData,
    FxRates,
    PriceSnapshot,
    RegionNames,
)
from costcalc.core.offers import LoadedSnapshot, PriceBook, Snapshot
from costcalc.core.ranges import ReadingsFile
from costcalc.core.records import plain
from costcalc.edge import locations
from costcalc.edge.resources import (
    MAX_NODES,
    PRICES_PACKAGE,
    check_yaml_shape,
    digest,
    dump_yaml,
    load_yaml_resource,
    load_yaml_text,
    read_user_bytes,
    write_atomic,
)
from costcalc.providers import registry
from costcalc.store.bundled import load_catalog
from costcalc.store.overrides import apply_user_overrides

if TYPE_CHECKING:
    from pathlib import Path

    from costcalc.core.plausible import ShippedPrices
    from costcalc.core.rent_extras import StorageFile
    from providers.base import Provider  # mypy reads the checkout's providers/ as `providers`

M = TypeVar("M", bound=Struct)


def load_bundled_file(name: str, model: type[M]) -> M:
    return load_yaml_resource(PRICES_PACKAGE, name, model)


ProviderRef: TypeAlias = "Provider | str"
"""A provider, or its name in the registry."""


def _provider(ref: ProviderRef) -> Provider:
    return registry.get(ref) if isinstance(ref, str) else ref


def load_bundled(ref: ProviderRef) -> Snapshot:
    provider = _provider(ref)
    return load_yaml_resource(
        provider.snapshot_package, provider.snapshot_file, provider.snapshot_model
    )


def refreshed_path(ref: ProviderRef) -> Path:
    return locations.snapshots_dir() / _provider(ref).snapshot_file


def refreshed_file(file: str) -> Path | None:
    """The refreshed copy of a snapshot file when there is one: asked without pathlib, which
    `costcalc quick` imports only when a refreshed file is there to read."""
    text = os.path.join(locations.snapshots_dir_text(), file)
    if not locations.exists(text):
        return None
    from pathlib import Path

    return Path(text)


# --------------------------------------------------------------------------- whole files only

MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024
"""Largest snapshot stored: with its seal, within what any reader accepts (MAX_FILE_BYTES), and
with no more YAML values than a reader counts (MAX_NODES), so a stored snapshot is always
readable; a refreshed snapshot of every AWS region is a few MB."""
MAX_SNAPSHOT_NODES = MAX_NODES
"""Most YAML values a stored snapshot may have: what a reader counts before it parses."""
_SEAL = re.compile(rb"\A# costcalc snapshot: (\d+) rows, blake2b ([0-9a-f]{32})\n")


def rows_of(model: Struct) -> int:
    """What a stored snapshot counts: its offers, or its rates."""
    if isinstance(model, PriceSnapshot):
        return len(model.offers)
    if isinstance(model, FxRates):
        return len(model.per_eur)
    raise TypeError(f"{type(model).__name__} is not a refreshed snapshot")


def sealed(body: str, rows: int) -> str:
    """`body` with a first line that gives its row count and checksum (a YAML comment, so the
    file stays plain YAML to read and diff)."""
    return f"# costcalc snapshot: {rows} rows, blake2b {digest(body.encode('utf-8'))}\n{body}"


def write_refreshed(path: Path, model: Struct) -> None:
    """Store a refreshed snapshot sealed with its row count and checksum, atomically; refuse
    one that would be too big for a reader (DataFileError)."""
    text = sealed_snapshot(model, path.name)
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise DataFileError(f"{path}: {cannot_store(exc)}") from exc


def sealed_snapshot(model: Struct, name: str) -> str:
    """`model` as a stored snapshot's text (YAML under its seal), or DataFileError naming
    `name` when it would be too big for a reader."""
    body = dump_yaml(plain(model, omit_defaults=True))
    size = len(body.encode("utf-8"))
    if size > MAX_SNAPSHOT_BYTES:
        raise DataFileError(
            f"{name}: the snapshot would be {size:,} bytes, more than "
            f"{MAX_SNAPSHOT_BYTES:,}; not stored"
        )
    try:
        check_yaml_shape(body, name, MAX_SNAPSHOT_NODES)  # as a reader counts
    except DataFileError as exc:
        raise DataFileError(
            f"{name}: the snapshot would have more than {MAX_SNAPSHOT_NODES:,} values, "
            "more than a reader takes; not stored"
        ) from exc
    return sealed(body, rows_of(model))


def cannot_store(exc: OSError) -> str:
    """Why a file could not be written, in words that say what to do."""
    if exc.errno == errno.ENOSPC:
        return "not stored: the disk is full; free some space and run again"
    if isinstance(exc, IsADirectoryError):
        return "not stored: a directory stands where the file goes; move it aside"
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return "not stored: a file stands where a directory of costcalc's goes; move it aside"
    return f"not stored ({exc.strerror or exc})"


def load_refreshed(path: Path, model: type[M]) -> M:
    """A refreshed snapshot, whole or not at all: its seal must match its text and its row
    count the rows read (a file cut at a line boundary is still valid YAML)."""
    try:
        data = read_user_bytes(path)
    except FileNotFoundError as exc:
        raise DataFileError(f"{path}: no such file") from exc
    return read_sealed(data, str(path), model)


def read_sealed(data: bytes, where: str, model: type[M]) -> M:
    """A stored snapshot's bytes (`write_refreshed`'s form) as `model`, whole or not at all:
    what `load_refreshed` reads from a file and `refresh --from` from a lab's copy."""
    seal = _SEAL.match(data)
    if seal is None:
        raise DataFileError(
            f"{where}: no row count and checksum (written by an older costcalc, or by hand)"
        )
    body = data[seal.end() :]
    if digest(body) != seal[2].decode("ascii"):
        raise DataFileError(f"{where}: checksum does not match; the file was cut short or changed")
    found = load_yaml_text(body, where, model)
    rows = int(seal[1])
    if rows_of(found) != rows:
        raise DataFileError(f"{where}: {rows_of(found)} rows where its seal says {rows}")
    return found


def load_snapshot(ref: ProviderRef) -> LoadedSnapshot:
    """The refreshed snapshot when there is a good one, else the bundled one (DataFileError when
    neither can be read)."""
    provider = _provider(ref)
    path = refreshed_file(provider.snapshot_file)
    warning = None
    if path is not None:
        try:
            snapshot = load_refreshed(path, provider.snapshot_model)
            return LoadedSnapshot(provider.name, snapshot, str(path))
        except DataFileError as exc:
            warning = f"{exc}; using the bundled {provider.name} prices instead"
    return LoadedSnapshot(provider.name, load_bundled(provider), "bundled", warning)


def load_price_book(
    names: Sequence[str] | None = None,
    *,
    overrides: bool = True,
    catalog: GpuCatalog | None = None,
) -> PriceBook:
    """Offers of the named providers (all by default) whose GPUs `catalog` (the bundled one by
    default) knows, with the user's prices applied (unless `overrides` is False: the history
    shows the providers' prices, not yours)."""
    catalog = catalog or load_catalog()
    book = PriceBook()
    shipped: ShippedPrices | None = None  # read once, only when something is judged by it
    chosen = registry.PROVIDERS if names is None else [registry.get(n) for n in names]
    for provider in chosen:
        try:
            loaded = load_snapshot(provider)
        except DataFileError as exc:
            book.problems.append(f"{exc}; {provider.label} offers are left out")
            continue
        book.snapshots[provider.name] = loaded
        book.labels[provider.name] = provider.label
        book.short_labels[provider.name] = provider.short or provider.label
        offers = _known_gpus(provider, provider.offers(loaded.snapshot), book, catalog)
        if loaded.origin != "bundled":  # the bundled prices are checked by the tests
            shipped = shipped or shipped_prices(catalog)
            offers = _believable(provider, offers, book, catalog, shipped)
        book.offers.extend(offers)
    if overrides:
        book.offers, warnings = apply_user_overrides(
            book.offers, list(book.snapshots), catalog, lambda: shipped or shipped_prices(catalog)
        )
        book.problems += warnings
    return book


def shipped_prices(catalog: GpuCatalog | None = None) -> ShippedPrices:
    """What the bundled snapshots of every provider and prices/readings.yaml say each GPU costs
    (its GPUs as `catalog`, the bundled one by default, knows them): never a refreshed snapshot
    or the user's own prices, so no feed moves the bounds it is judged by (a provider whose
    bundled file is broken is left out; its loader says so)."""
    # Judging prices is for a refreshed snapshot or your own prices: the bundled ones are
    # checked by the tests, so a plain `quick` never loads the rules.
    from costcalc.core.plausible import ShippedPrices

    offers: list[CloudOffer] = []
    for provider in registry.PROVIDERS:
        try:
            offers += provider.offers(load_bundled(provider))
        except DataFileError:
            continue
    readings = load_bundled_file("readings.yaml", ReadingsFile).readings
    return ShippedPrices.of(offers, readings, catalog or load_catalog())


def _known_gpus(
    provider: Provider, offers: list[CloudOffer], book: PriceBook, catalog: GpuCatalog
) -> list[CloudOffer]:
    """Offers whose GPU this version's catalog knows; the others (a snapshot refreshed by a
    newer or older costcalc) are left out with one line, never a crash."""
    unknown = sorted({o.gpu for o in offers if o.gpu not in catalog})
    if not unknown:
        return offers
    book.problems.append(
        f"{provider.label}: offers with GPUs this version of costcalc does not know "
        f"({', '.join(unknown)}) are left out; `costcalc refresh` fetches current ones"
    )
    return [o for o in offers if o.gpu in catalog]


def _believable(
    provider: Provider,
    offers: list[CloudOffer],
    book: PriceBook,
    catalog: GpuCatalog,
    shipped: ShippedPrices,
) -> list[CloudOffer]:
    """A refreshed snapshot's offers whose price is believable for their GPU's class and within
    what ships: one stored before these checks, or edited by hand, never brings a wrong price
    to a verdict."""
    from costcalc.core.plausible import believable  # imported with ShippedPrices

    kept, notes = believable(offers, catalog, shipped)
    if notes:
        more = f" (+{len(notes) - 1} more)" if len(notes) > 1 else ""
        book.problems.append(
            f"{provider.label}: implausible prices in your refreshed snapshot left out: "
            f"{notes[0]}{more}; `costcalc refresh` fetches current ones"
        )
    return kept


def refreshed_observations() -> list[CloudOffer]:
    """The prices the refreshed snapshots observed (rows dated as their snapshot): what the
    history must hold."""
    found: list[CloudOffer] = []
    for provider in registry.PROVIDERS:
        path = refreshed_path(provider)
        if not path.exists():
            continue
        try:
            snapshot = load_refreshed(path, provider.snapshot_model)
        except DataFileError:
            continue
        found += [o for o in provider.offers(snapshot) if o.fetched_at == snapshot.fetched_at]
    return found


def load_desktop_defaults() -> DesktopDefaults:
    return load_bundled_file("desktop.yaml", DesktopDefaults)


def load_carbon() -> CarbonData:
    return load_bundled_file("carbon.yaml", CarbonData)


def load_electricity() -> ElectricityData:
    return load_bundled_file("electricity.yaml", ElectricityData)


def load_region_names() -> RegionNames:
    return load_bundled_file("regions.yaml", RegionNames)


def load_storage() -> StorageFile:
    """Renting's storage and transfer rates (prices/storage.yaml): read only when a scenario
    gives the data its runs move, so `quick` without them never loads it (or its model)."""
    from costcalc.core.rent_extras import StorageFile

    return load_bundled_file("storage.yaml", StorageFile)


# --------------------------------------------------------------------------- exchange rates

FX_FILE = "fx.yaml"

BUNDLED_FILES: tuple[tuple[str, type[Struct]], ...] = (
    ("desktop.yaml", DesktopDefaults),
    ("carbon.yaml", CarbonData),
    ("electricity.yaml", ElectricityData),
    ("regions.yaml", RegionNames),
    (FX_FILE, FxRates),
    ("readings.yaml", ReadingsFile),
)
"""The files of prices/ besides the providers' snapshots, with their models (and storage.yaml:
costcalc.store.loaders.bundled_files)."""


def fx_path() -> Path:
    """Where `costcalc refresh` keeps the ECB rates it downloaded."""
    return locations.snapshots_dir() / FX_FILE


class LoadedRates(Struct, frozen=True):
    rates: FxRates
    origin: str
    """'bundled' or the refreshed file's path."""
    warning: str | None = None


def load_fx() -> LoadedRates:
    """The refreshed ECB rates when there is a readable copy no older than the bundled one, else
    the bundled rates (a broken refreshed copy is reported, never fatal)."""
    bundled = load_bundled_file(FX_FILE, FxRates)
    path = refreshed_file(FX_FILE)
    if path is None:
        return LoadedRates(bundled, "bundled")
    try:
        refreshed = load_refreshed(path, FxRates)
    except DataFileError as exc:
        return LoadedRates(bundled, "bundled", f"{exc}; using the bundled exchange rates instead")
    if refreshed.as_of < bundled.as_of:
        return LoadedRates(bundled, "bundled")
    from costcalc.providers.ecb import drifted  # only with refreshed rates

    why = drifted(refreshed, bundled)  # a file stored before the rates were checked one by one
    if why is not None:
        return LoadedRates(bundled, "bundled", f"{path}: {why}; using the bundled exchange rates")
    return LoadedRates(refreshed, str(path))
