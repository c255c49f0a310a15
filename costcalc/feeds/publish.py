"""One refresh for a whole lab: publish the snapshots in use as a static directory, and take a
published one in (`costcalc refresh --publish DIR`, `costcalc refresh --from URL`).

Rules kept here:
- A published directory is plain files any web server or object store can serve: each snapshot
  as stored (sealed with its row count and checksum), under a name that carries its digest, and
  `manifest.json` naming every file with its size, SHA-256 and BLAKE2b, the costcalc version,
  when it was made and each file's provider and date. The files are written first, the manifest
  last, each atomically; files that neither this manifest nor the one before it names are then
  deleted, so a reader holding the previous manifest still finds its files, and a copy to an
  object store in any order never shows a manifest whose files are missing.
- Taking one in is all or nothing per file: the manifest first (bounded, and checked against
  `--pin` when given), then each file, streamed with a byte cap from the manifest; its size and
  both digests must match, its seal and rows must hold, and it must pass what a refresh checks
  (every price believable, not far fewer offers and not prices far from your last snapshot,
  unless forced) before it replaces yours, atomically. A file that fails keeps yours byte for
  byte; the others are still taken. A published file older than yours is not taken.
- Digests fetched from the same server as the files catch a cut or damaged file, not a server
  that lies on purpose: `--pin SHA256` (the manifest's own digest, handed over another way)
  does, since the manifest then names the only bytes each file may have.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime, time, timezone
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from costcalc.core.errors import CostcalcError, DataFileError
from costcalc.core.models import FxRates, PriceSnapshot
from costcalc.core.version import VERSION as __version__
from costcalc.feeds.refresh import (
    FX_LABEL,
    HeldWhole,
    ProviderResult,
    RefreshReport,
    Refused,
    _previous,
    _readings,
    check_not_shrunk,
    check_shift,
    check_sizes,
    hold_back,
)
from costcalc.providers import registry
from costcalc.providers.base import Provider
from costcalc.store.snapshots import (
    FX_FILE,
    MAX_SNAPSHOT_BYTES,
    fx_path,
    load_bundled,
    load_refreshed,
    read_sealed,
    refreshed_path,
    sealed_snapshot,
    shipped_prices,
)

MANIFEST = "manifest.json"
FORMAT: Literal["costcalc-snapshots/1"] = "costcalc-snapshots/1"
MAX_MANIFEST_BYTES = 1024 * 1024
"""A manifest names a few dozen files in a few kB; anything near this is not one."""
MAX_PUBLISHED_BYTES = MAX_SNAPSHOT_BYTES + 1024
"""The largest file a manifest may name: a stored snapshot and its seal line."""
_HEX64 = r"^[0-9a-f]{64}$"
_NAME = re.compile(r"^([a-z0-9_]+)-([0-9a-f]{16})\.yaml$")


class PublishedFile(Struct, frozen=True, forbid_unknown_fields=True):
    """One file of a published directory, as its manifest names it."""

    name: Annotated[str, Meta(pattern=_NAME.pattern)]
    """Its name in the directory: the snapshot's stem and the first 16 hex digits of its
    SHA-256 ('runpod-3f2a9c0e1b7d4a55.yaml')."""
    snapshot: Annotated[str, Meta(max_length=64)]
    """The snapshot it is, as stored in your home ('runpod.yaml', 'fx.yaml')."""
    provider: Annotated[str, Meta(max_length=64)] | None
    """Its provider ('runpod'); None for the exchange rates."""
    bytes: Annotated[int, Meta(ge=1, le=MAX_PUBLISHED_BYTES)]
    sha256: Annotated[str, Meta(pattern=_HEX64)]
    blake2b: Annotated[str, Meta(pattern=_HEX64)]
    """BLAKE2b-256 of the file, in hex."""
    rows: Annotated[int, Meta(ge=0)]
    """Offers (or exchange rates) under its seal."""
    dated: Annotated[str, Meta(max_length=40)]
    """When its prices were fetched (its rates' day, for the exchange rates)."""
    origin: Literal["refreshed", "bundled"]


class Manifest(Struct, frozen=True, forbid_unknown_fields=True):
    """manifest.json of a published directory."""

    format: Literal["costcalc-snapshots/1"]
    costcalc_version: Annotated[str, Meta(max_length=40)]
    created_at: datetime
    files: Annotated[tuple[PublishedFile, ...], Meta(max_length=256)]


class PublishReport(Struct, frozen=True):
    directory: str
    manifest_sha256: str
    files: tuple[PublishedFile, ...]


class PublishedRefused(CostcalcError):
    """The manifest could not be had or cannot be trusted: nothing was taken (exit 1)."""

    exit_code = 1


# --------------------------------------------------------------------------- what is in use


def _kinds() -> list[tuple[str, Provider | None]]:
    """Every snapshot file a home can hold, with its provider (None: the exchange rates)."""
    found: list[tuple[str, Provider | None]] = [(p.snapshot_file, p) for p in registry.PROVIDERS]
    return [*found, (FX_FILE, None)]


def _digests(data: bytes) -> tuple[str, str]:
    return hashlib.sha256(data).hexdigest(), hashlib.blake2b(data, digest_size=32).hexdigest()


def _dated(model: PriceSnapshot | FxRates) -> str:
    if isinstance(model, FxRates):
        return model.as_of.isoformat()
    return model.fetched_at.isoformat()


def _in_use(snapshot: str, provider: Provider | None, bundled: bool) -> tuple[bytes, str] | None:
    """The bytes to publish for one snapshot file and where they come from: your refreshed
    copy when it reads whole, else (with `bundled`) the bundled one, sealed as a refresh
    stores it; None when there is neither."""
    path = fx_path() if provider is None else refreshed_path(provider)
    model = FxRates if provider is None else provider.snapshot_model
    if path.exists():
        try:
            load_refreshed(path, model)  # a damaged copy is not passed on
            return path.read_bytes(), "refreshed"
        except DataFileError:
            pass
    if not bundled or provider is None:
        return None
    snapshot_model = load_bundled(provider)
    if not isinstance(snapshot_model, PriceSnapshot):
        return None  # Colab's tiers are no price list a refresh stores
    return sealed_snapshot(snapshot_model, snapshot).encode("utf-8"), "bundled"


# --------------------------------------------------------------------------- publishing


def publish(directory: Path, now: datetime, *, bundled: bool = False) -> PublishReport:
    """Write the snapshots in use (and, with `bundled`, the bundled ones of providers you have
    not refreshed) and their manifest into `directory`; CostcalcError when it cannot be used."""
    from costcalc.edge.resources import write_atomic_bytes

    if directory.exists() and not directory.is_dir():
        raise CostcalcError(f"--publish: {directory} is a file, not a directory")
    entries: list[PublishedFile] = []
    for snapshot, provider in _kinds():
        found = _in_use(snapshot, provider, bundled)
        if found is None:
            continue
        data, origin = found
        model_type = FxRates if provider is None else provider.snapshot_model
        model = read_sealed(data, snapshot, model_type)
        sha, blake = _digests(data)
        stem = snapshot.removesuffix(".yaml")
        entry = PublishedFile(
            name=f"{stem}-{sha[:16]}.yaml",
            snapshot=snapshot,
            provider=None if provider is None else provider.name,
            bytes=len(data),
            sha256=sha,
            blake2b=blake,
            rows=len(model.per_eur) if isinstance(model, FxRates) else len(model.offers),
            dated=_dated(model),
            origin=origin,  # type: ignore[arg-type]
        )
        entries.append(entry)
    if not any(e.provider is not None for e in entries):
        raise CostcalcError(
            "--publish: no refreshed snapshot to publish (run `costcalc refresh` first, or add "
            "--with-bundled to publish the bundled prices)"
        )
    manifest = Manifest(FORMAT, __version__, now, tuple(entries))
    text = json.dumps(msgspec.to_builtins(manifest), indent=2).encode("utf-8") + b"\n"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        before = _named(directory / MANIFEST)
        for entry in entries:
            target = directory / entry.name
            if not target.exists():
                data, _ = _in_use(entry.snapshot, _provider(entry), bundled) or (b"", "")
                if _digests(data)[0] != entry.sha256:  # replaced while publishing: stop
                    raise CostcalcError(f"--publish: {entry.snapshot} changed while publishing")
                write_atomic_bytes(target, data)
        write_atomic_bytes(directory / MANIFEST, text)
    except OSError as exc:
        raise CostcalcError(
            f"--publish: cannot write to {directory} ({exc.strerror or exc})"
        ) from exc
    _prune(directory, {e.name for e in entries} | before)
    return PublishReport(str(directory), hashlib.sha256(text).hexdigest(), tuple(entries))


def _provider(entry: PublishedFile) -> Provider | None:
    return None if entry.provider is None else registry.get(entry.provider)


def _named(path: Path) -> set[str]:
    """The files an earlier manifest names (none when there is none, or it cannot be read)."""
    try:
        return {f.name for f in decode_manifest(path.read_bytes(), str(path)).files}
    except (OSError, PublishedRefused):
        return set()


def _prune(directory: Path, keep: set[str]) -> None:
    """Delete published files no manifest of the last two names (and temp files a killed
    publish left); never anything else in the directory."""
    import contextlib

    for found in directory.iterdir():
        if _NAME.match(found.name) and found.name not in keep:
            with contextlib.suppress(OSError):
                found.unlink()
    from costcalc.edge.resources import clear_temp_files

    clear_temp_files(directory)


# --------------------------------------------------------------------------- reading one


def decode_manifest(data: bytes, where: str) -> Manifest:
    """A manifest's bytes as a Manifest, or PublishedRefused with one line."""
    try:
        manifest = msgspec.json.decode(data, type=Manifest)
    except msgspec.ValidationError as exc:
        raise PublishedRefused(f"{where}: not a costcalc snapshot manifest ({exc})") from None
    except msgspec.DecodeError:
        raise PublishedRefused(f"{where}: not a costcalc snapshot manifest (not JSON)") from None
    known = {snapshot: provider for snapshot, provider in _kinds()}
    seen: set[str] = set()
    for entry in manifest.files:
        provider = known.get(entry.snapshot, False)
        stem = _NAME.match(entry.name)
        if (
            provider is False
            or (None if provider is None else provider.name) != entry.provider
            or stem is None
            or f"{stem[1]}.yaml" != entry.snapshot
            or not entry.sha256.startswith(stem[2])
        ):
            raise PublishedRefused(
                f"{where}: names a file this costcalc does not store ({entry.name!r} as "
                f"{entry.snapshot!r}); not taken"
            )
        if entry.snapshot in seen:
            raise PublishedRefused(f"{where}: names {entry.snapshot} twice; not taken")
        seen.add(entry.snapshot)
    return manifest


Reader = Callable[[str, int], bytes]
"""Reads one file of the published directory, refusing it past the byte cap it is given."""


def reader_for(source: str, client: object | None = None) -> tuple[Reader, str]:
    """How to read the files of a published directory at `source` (an http(s) URL, a file://
    URL or a path; a directory, or its manifest.json), and the manifest's name in it."""
    from urllib.parse import unquote, urlsplit

    scheme = source.partition(":")[0].lower() if "://" in source else ""
    if scheme in ("http", "https"):
        base, name = _split(source)
        return _http_reader(base, client), name
    if scheme == "file":
        parts = urlsplit(source)
        if parts.netloc not in ("", "localhost"):
            raise CostcalcError(f"--from: {source!r} names another machine; give a local path")
        source = unquote(parts.path)
    elif scheme:
        raise CostcalcError(
            f"--from: {scheme} URLs are not read; give an http(s) URL, a file:// URL or a path"
        )
    path = Path(source).expanduser()
    if path.is_dir():
        return _file_reader(path), MANIFEST
    return _file_reader(path.parent), path.name


def _split(url: str) -> tuple[str, str]:
    """'https://lab/costcalc/' -> ('https://lab/costcalc/', 'manifest.json');
    'https://lab/costcalc/manifest.json' -> ('https://lab/costcalc/', 'manifest.json')."""
    head, _, _query = url.partition("?")  # a query string would carry no file
    if head.endswith(".json"):
        base, _, name = head.rpartition("/")
        return base + "/", name
    return head.rstrip("/") + "/", MANIFEST


def _http_reader(base: str, client: object | None) -> Reader:
    from urllib.parse import quote

    from costcalc.edge.net import HttpClient

    assert isinstance(client, HttpClient)

    def read(name: str, most: int) -> bytes:
        return client.get(base + quote(name), max_bytes=most)

    return read


def _file_reader(directory: Path) -> Reader:
    def read(name: str, most: int) -> bytes:
        path = directory / name
        try:
            with path.open("rb") as handle:
                data = handle.read(most + 1)
        except OSError as exc:
            raise DataFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        if len(data) > most:
            raise DataFileError(f"{path}: larger than its {most:,} bytes")
        return data

    return read


# --------------------------------------------------------------------------- taking one in


def take(
    source: str,
    now: datetime,
    *,
    pin: str | None = None,
    providers: Sequence[str] | None = None,
    force: bool = False,
) -> RefreshReport:
    """Take a published directory's snapshots in, file by file (see the module's rules);
    PublishedRefused when its manifest cannot be had or trusted (nothing is taken)."""
    import filelock

    from costcalc.edge.net import FetchError, FetchSettings, HttpClient
    from costcalc.feeds.refresh import RefreshLocked, lock_path

    settings = FetchSettings.from_env()
    wanted = None if providers is None else {registry.get(p).name for p in providers}
    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(path, timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise RefreshLocked(f"another refresh is running (lock {path}); try again later") from exc
    try:
        with HttpClient(settings) as client:
            read, manifest_name = reader_for(source, client)
            try:
                raw = read(manifest_name, MAX_MANIFEST_BYTES)
            except (FetchError, DataFileError) as exc:
                raise PublishedRefused(f"--from: {exc}; nothing was taken") from None
            if pin is not None and hashlib.sha256(raw).hexdigest() != pin.lower():
                raise PublishedRefused(
                    f"--from: the manifest's SHA-256 is {hashlib.sha256(raw).hexdigest()}, not "
                    "the pinned one; nothing was taken"
                )
            manifest = decode_manifest(raw, manifest_name)
            report = RefreshReport(started_at=now)
            shipped = shipped_prices()
            for entry in manifest.files:
                if wanted is not None and entry.provider not in wanted:
                    continue
                report.results.append(_take_one(entry, read, force, shipped))
        if any(r.ok and not r.skipped for r in report.results):
            _record(report)
        return report
    finally:
        lock.release()


def _label(entry: PublishedFile) -> tuple[str, str]:
    if entry.provider is None:
        return "ecb", FX_LABEL
    return entry.provider, registry.get(entry.provider).label


def _take_one(entry: PublishedFile, read: Reader, force: bool, shipped: object) -> ProviderResult:
    """One published file checked and, when it passes, stored over yours."""
    from costcalc.edge.net import FetchError
    from costcalc.edge.resources import write_atomic_bytes
    from costcalc.store.snapshots import cannot_store

    name, label = _label(entry)
    provider = _provider(entry)
    target = fx_path() if provider is None else refreshed_path(provider)

    def failed(why: str) -> ProviderResult:
        return ProviderResult(name, False, why, label=label, summary=why)

    try:
        data = read(entry.name, entry.bytes)
    except (FetchError, DataFileError) as exc:
        return failed(str(exc))
    if len(data) != entry.bytes:
        return failed(
            f"{entry.name}: {len(data):,} bytes where the manifest says {entry.bytes:,} "
            "(cut short?); not taken"
        )
    if _digests(data) != (entry.sha256, entry.blake2b):
        return failed(
            f"{entry.name}: its digest does not match the manifest's (changed on the server or "
            "on the way); not taken"
        )
    try:
        model = _checked(entry, data, provider, force, shipped)
    except HeldWhole as exc:
        return failed(f"{entry.name}: {exc}")
    except (Refused, DataFileError, CostcalcError) as exc:
        return failed(f"{entry.name}: {exc}")
    if target.exists() and target.read_bytes() == data:
        why = f"unchanged ({entry.dated[:16]})"
        return ProviderResult(name, True, why, skipped=True, label=label, summary=why)
    mine = _mine(provider)
    if mine is not None and _when(mine) > _when(model):
        why = f"yours is newer ({_dated(mine)[:16]}); kept yours"
        return ProviderResult(name, True, why, skipped=True, label=label, summary=why)
    try:
        write_atomic_bytes(target, data)
    except OSError as exc:
        return failed(f"{target}: {cannot_store(exc)}")
    rows = "rates" if provider is None else "offers"
    told = f"taken, {entry.rows:,} {rows} of {entry.dated[:16]}"
    return ProviderResult(name, True, told, offers=entry.rows, label=label, summary=told)


def _checked(
    entry: PublishedFile, data: bytes, provider: Provider | None, force: bool, shipped: object
) -> PriceSnapshot | FxRates:
    """The file as its model, through the checks a refresh applies to a feed; Refused (or
    DataFileError) naming the first that fails."""
    from costcalc.core.plausible import ShippedPrices
    from costcalc.store.bundled import load_catalog

    if provider is None:
        from costcalc.providers.ecb import drifted
        from costcalc.store.snapshots import load_bundled_file

        rates = read_sealed(data, entry.name, FxRates)
        why = drifted(rates, load_bundled_file(FX_FILE, FxRates))
        if why is not None:
            raise Refused(why)
        return rates
    snapshot = read_sealed(data, entry.name, provider.snapshot_model)
    if not isinstance(snapshot, PriceSnapshot):
        raise Refused("not a price list a refresh stores")
    if len(snapshot.offers) != entry.rows:
        raise Refused(f"{len(snapshot.offers)} offers where the manifest says {entry.rows}")
    check_sizes(snapshot)
    previous = _previous(provider)
    check_shift(snapshot, previous, provider, force)
    catalog = load_catalog()
    assert isinstance(shipped, ShippedPrices)
    _, held = hold_back(snapshot, catalog, _readings(catalog), shipped)
    if held:
        more = f" and {len(held) - 1} more" if len(held) > 1 else ""
        raise Refused(f"an implausible price: {held[0]}{more}")
    check_not_shrunk(snapshot, previous, force)
    return snapshot


def _mine(provider: Provider | None) -> PriceSnapshot | FxRates | None:
    """Your stored copy, when it reads whole."""
    if provider is not None:
        return _previous(provider)
    path = fx_path()
    if not path.exists():
        return None
    try:
        return load_refreshed(path, FxRates)
    except DataFileError:
        return None


def _when(model: PriceSnapshot | FxRates) -> datetime:
    if isinstance(model, FxRates):
        return datetime.combine(model.as_of, time(), tzinfo=timezone.utc)
    return model.fetched_at


def _record(report: RefreshReport) -> None:
    """The prices just taken into the price history, as a refresh records its own."""
    from costcalc.store import history
    from costcalc.store.snapshots import refreshed_observations

    try:
        history.reconcile(refreshed_observations())
    except CostcalcError as exc:
        report.history_error = str(exc)


def manifest_digest(directory: Path) -> str:
    """The SHA-256 of a published directory's manifest, for `--pin`."""
    return hashlib.sha256((directory / MANIFEST).read_bytes()).hexdigest()
