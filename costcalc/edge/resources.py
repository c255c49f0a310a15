"""Reading data files across the edge: bundled resources, user files and downloaded snapshots,
always through one guarded reader and the records' validation (`records.validated`).

Rules kept here:
- nothing is trusted until `records.validated` accepts it; any failure becomes one DataFileError
  line that names the file and what to do, never a traceback or a signal;
- every file is read through `read_user_bytes`: at most the byte limit its reader names (a
  larger file is refused by its size, before a byte is read), UTF-8 (a BOM is fine), and, for
  YAML, no deeper than MAX_NESTING levels, no more values than its reader names and no more
  than MAX_ALIASES aliases, counted on the parser's own events before anything is built from
  them (so whichever characters break its lines, CR, NEL or U+2028 included, a file of millions
  of tiny values is refused in a fraction of a second instead of taking gigabytes);
- writes go to a temp file that is fsynced and renamed over the target, so a crash never leaves
  half a file.

Parsing YAML cost more than everything else `costcalc quick` does, so it happens once per file:
a file once validated, bundled or the user's, is kept in the cache directory as its records in
msgpack, keyed by the model, the costcalc version and a hash of its text (of a shipped file's
path, size, modification time and inode, which say it changed without reading it), and sealed
with a checksum of the entry itself. An entry is data only: it is decoded into the model's
records with every type and bound checked again, and one whose seal does not match or that does
not decode as the model is ignored and the file parsed again. The cache keeps only its newest
entries, and a cache that cannot be read or written is ignored: it only ever saves time.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import os
import sys
import time
import zlib
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from costcalc.core.errors import QUOTED_MOST, DataFileError
from costcalc.core.records import ValidationError, plain, problem, validated
from costcalc.core.version import VERSION as __version__
from costcalc.edge import locations

try:  # the builtin BLAKE2: hashlib itself would load OpenSSL's binding at every start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

PRICES_PACKAGE = "costcalc.data.prices"
"""Where the bundled, dated price snapshot ships: the repository's prices/ inside the package."""

M = TypeVar("M", bound=msgspec.Struct)

MAX_FILE_BYTES = 17 * 1024 * 1024
"""Largest data file read: a stored snapshot (at most 16 MiB, snapshots.MAX_SNAPSHOT_BYTES) and
its seal; a refreshed snapshot of every AWS region is a few MB. A parse costs more than the
file: at this size a file of one long text still parses in under 200 MB of memory (libyaml's
buffer doubles, and a text with one emoji in it takes 4 bytes a character)."""
MAX_NESTING = 64
"""Deepest YAML nesting accepted; costcalc's own files nest 4 levels."""
MAX_ALIASES = 256
"""YAML aliases accepted in one file: a 'billion laughs' file expands each alias many times."""
MAX_NODES = 200_000
"""YAML values (scalars, lists, mappings, each alias as the values it repeats) accepted in one
file unless its reader names fewer: memory and time grow with values, not bytes (a 60 MB file
of `[0, 0, ...]` is 30 million of them). costcalc's largest bundled file has under 10,000; a
refreshed snapshot of every AWS region a few tens of thousands, and the writer refuses one
with more (snapshots.write_refreshed)."""
CACHE_ENTRIES = 128
"""Parsed files kept in the cache; older entries are deleted. Room for every file `quick` reads
(44 bundled files once the catalogs' providers joined, issue 41, plus the user's) and the
previous version of each: a cache smaller than what one run reads evicts its own entries and
every run parses all of its YAML again."""

_UTF8_CHUNK_BYTES = 1024 * 1024
"""UTF-8 is checked a chunk at a time, so a file is never held as bytes and text at once."""


def read_user_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a data file, checked to be UTF-8 text (a BOM is dropped), or DataFileError
    naming the file; a file larger than `max_bytes` is refused by its size, unread
    (FileNotFoundError passes through, so callers can treat a missing file as absent)."""
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = b"" if size > max_bytes else handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise
    except NotADirectoryError as exc:  # a home that is a file holds no files
        raise FileNotFoundError(str(path)) from exc
    except ValueError as exc:  # a NUL byte in the name
        raise DataFileError(f"{path!r}: not a usable file name") from exc
    except IsADirectoryError as exc:
        raise DataFileError(f"{path}: is a directory, not a file") from exc
    except OSError as exc:
        raise DataFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if size > max_bytes or len(data) > max_bytes:  # a pipe or /proc file says size 0
        raise DataFileError(
            f"{path}: larger than {_size(max_bytes)}, the most costcalc reads of such a file; "
            "is it the right file?"
        )
    check_utf8(data, str(path))
    return data[3:] if data.startswith(codecs.BOM_UTF8) else data


def read_user_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """`read_user_bytes` as text."""
    return read_user_bytes(path, max_bytes).decode("utf-8")


def _size(n: int) -> str:
    return f"{n / 2**20:g} MB" if n >= 2**20 else f"{n / 2**10:g} kB"


def check_utf8(data: bytes, where: str) -> None:
    """DataFileError unless `data` is UTF-8, read a chunk at a time (never the whole text)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for start in range(0, len(data) or 1, _UTF8_CHUNK_BYTES):
        pending = len(decoder.getstate()[0])
        end = start + _UTF8_CHUNK_BYTES
        try:
            decoder.decode(view[start:end], final=end >= len(data))
        except UnicodeDecodeError as exc:
            raise DataFileError(
                f"{where}: not UTF-8 text (bad byte at {start - pending + exc.start}); "
                "save it as UTF-8"
            ) from exc


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataFileError(
            f"{where}: not UTF-8 text (bad byte at {exc.start}); save it as UTF-8"
        ) from exc


def check_yaml_shape(text: str | bytes, where: str, max_nodes: int = MAX_NODES) -> None:
    """Refuse more values, deeper nesting or more aliases than any costcalc file has, counted on
    libyaml's events as they stream (each a few bytes of Python), so nothing is built from a
    file that has too many: the parser, not a guess at which characters break lines, says what
    a value is. An alias counts as every value it repeats."""
    yaml = _yaml()
    events = yaml.events
    loader = _loader(yaml)(text)
    nodes = aliases = 0
    opened: list[tuple[str | None, int]] = []
    """The collections open around the current event: their anchor and the count at their start."""
    sizes: dict[str, int] = {}
    """Values under each anchor seen so far."""
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)
            if kind is events.ScalarEvent:
                nodes += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
            elif kind is events.SequenceStartEvent or kind is events.MappingStartEvent:
                nodes += 1
                opened.append((event.anchor, nodes))
                if len(opened) > MAX_NESTING:
                    raise DataFileError(
                        f"{where}: nested deeper than {MAX_NESTING} levels; not a costcalc file"
                    )
            elif kind is events.SequenceEndEvent or kind is events.MappingEndEvent:
                anchor, first = opened.pop()
                if anchor is not None:
                    sizes[anchor] = nodes - first + 1
            elif kind is events.AliasEvent:
                aliases += 1
                nodes += sizes.get(event.anchor, 1)
                if aliases > MAX_ALIASES:
                    raise DataFileError(
                        f"{where}: more than {MAX_ALIASES} YAML aliases; not a costcalc file"
                    )
            if nodes > max_nodes:
                raise DataFileError(
                    f"{where}: more than {max_nodes:,} YAML values; not a costcalc file"
                )
    except yaml.YAMLError as exc:
        raise _not_yaml(exc, where) from exc
    finally:
        loader.dispose()


def _not_yaml(exc: Exception, where: str) -> DataFileError:
    if "maximum nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own limit
        return DataFileError(
            f"{where}: nested deeper than {MAX_NESTING} levels; not a costcalc file"
        )
    mark = getattr(exc, "problem_mark", None)
    at = f" at line {mark.line + 1}" if mark is not None else ""
    return DataFileError(f"{where}: not valid YAML{at}")


def read_user_yaml(
    path: Path, *, max_bytes: int = MAX_FILE_BYTES, max_nodes: int = MAX_NODES
) -> Any:
    """Parsed YAML of a user or downloaded file (FileNotFoundError passes through)."""
    return parse_yaml(read_user_bytes(path, max_bytes), str(path), max_nodes)


def _yaml() -> Any:
    # Imported on first parse or dump: a cached file is read without YAML at all.
    import yaml

    return yaml


def _loader(yaml: Any) -> Any:
    """libyaml's C parser when it is there."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str | bytes, where: str, max_nodes: int = MAX_NODES) -> Any:
    """Safe YAML (no tags), its shape checked first (`check_yaml_shape`). Bytes (UTF-8) are
    read as they are: a text copy of a large file would cost up to four times its size."""
    check_yaml_shape(text, where, max_nodes)
    yaml = _yaml()
    try:
        return yaml.load(text, Loader=_loader(yaml))
    except yaml.YAMLError as exc:
        raise _not_yaml(exc, where) from exc
    except RecursionError as exc:
        raise DataFileError(f"{where}: nested too deeply; not a costcalc file") from exc
    except ValueError as exc:  # a scalar no constructor can read: 5,000 digits, 2026-02-30
        reason = str(exc).split(":")[0]
        raise DataFileError(f"{where}: not valid YAML: a value cannot be read ({reason})") from exc


def validate(data: Any, model: type[M], where: str) -> M:
    try:
        return validated(model, data)
    except ValidationError as exc:
        raise DataFileError(f"{where}: {_clipped(problem(exc))}") from exc


def _clipped(message: str) -> str:
    """A validation message, cut where one that repeats a whole value or key would run on:
    twice what a message may quote (costcalc.core.errors.quoted), so the words around it stay."""
    most = 2 * QUOTED_MOST
    return message if len(message) <= most else message[: most - 1] + "…"


def digest(data: bytes) -> str:
    """A 128-bit BLAKE2b of `data`, in hex: seals cached and stored files."""
    return blake2b(data, digest_size=16).hexdigest()


def package_bytes(package: str, name: str) -> bytes:
    """A file shipped inside `package` (ModuleNotFoundError, OSError when it is not there)."""
    path = _package_path(package, name)
    if path is not None:
        with contextlib.suppress(FileNotFoundError, NotADirectoryError), open(path, "rb") as file:
            return file.read()
    from importlib import resources  # a zipped install

    return resources.files(package).joinpath(name).read_bytes()


def _package_path(package: str, name: str) -> str | None:
    """Where a file shipped inside `package` lies on disk, or None in a zipped install
    (ModuleNotFoundError when the package is not there)."""
    __import__(package)
    init = getattr(sys.modules[package], "__file__", None)
    return None if init is None else os.path.join(os.path.dirname(init), name)


def load_yaml_resource(package: str, name: str, model: type[M]) -> M:
    """A YAML file shipped inside a package, validated as `model`. A file on disk is found in
    the cache by its path, size, modification time and inode, as Python finds a module's
    bytecode: its text is read only when one of them changed (hashing the text of the files
    `quick` reads, about 1 MB, was a twentieth of its start-up)."""
    where = f"{package}/{name}"

    def text() -> str:
        try:
            data = package_bytes(package, name)
        except (OSError, ModuleNotFoundError) as exc:
            missing = f"{where}: missing from the installation; reinstall costcalc"
            raise DataFileError(missing) from exc
        return decode(data, where)

    key = _file_key(package, name)
    if key is None:  # not on disk (a zipped install), or not there: its text names it
        return load_yaml_text(text(), where, model)
    return _parsed(key, model, lambda: _validated_yaml(text(), where, model))


def _file_key(package: str, name: str) -> str | None:
    """What names the current version of a shipped file in the cache, read from its directory
    entry alone; None when it is not on disk (a zipped install: its text is hashed instead)."""
    try:
        path = _package_path(package, name)
        if path is None:
            return None
        info = os.stat(path)
    except (OSError, ModuleNotFoundError, ValueError):
        return None
    return digest(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}".encode())


def load_yaml_file(path: Path, model: type[M]) -> M:
    """A user-side or downloaded YAML file, validated as `model`."""
    try:
        data = read_user_bytes(path)
    except FileNotFoundError as exc:
        raise DataFileError(f"{path}: no such file") from exc
    return load_yaml_text(data, str(path), model)


def load_yaml_text(text: str | bytes, where: str, model: type[M]) -> M:
    """Validate YAML text (or its UTF-8 bytes) as `model`, through the cache when it holds this
    exact text."""
    return _parsed(_text_key(text), model, lambda: _validated_yaml(text, where, model))


def _validated_yaml(text: str | bytes, where: str, model: type[M]) -> M:
    return validate(parse_yaml(text, where), model, where)


def _text_key(text: str | bytes) -> str:
    """What names `text` in the cache: its hash."""
    return digest(text.encode("utf-8") if isinstance(text, str) else text)


def _parsed(key: str, model: type[M], parse: Callable[[], M]) -> M:
    """The records the cache keeps under `key` for `model`, or `parse()`'s, then kept there."""
    cached = _cache_path(key, model)
    if cached is not None:
        found = _read_cache(cached, model)
        if found is not None:
            return found
    result = parse()
    if cached is not None:
        _write_cache(cached, result)
    return result


def _cache_path(key: str, model: type[msgspec.Struct]) -> str | None:
    """Where the records keyed `key` are kept: a path as text, as reading it needs no pathlib (a
    tenth of `costcalc quick`'s start-up)."""
    try:
        directory = os.path.join(locations.cache_dir_text(), "parsed")
    except Exception:  # no usable home directory: run without a cache
        return None
    return os.path.join(directory, f"{model.__name__}-{__version__}-{key}.msgpack")


def entry_seal(payload: bytes) -> bytes:
    """The first line of a cache entry: the CRC-32 of the records under it, which finds a
    damaged entry as zip and PNG find a damaged block. It guards against damage, not a forger
    (no unkeyed hash can: whoever writes the cache can seal what they wrote), and costs a
    quarter of BLAKE2b's time over the 1 MB `quick` reads (see docs/benchmarks.md)."""
    return b"%08x" % zlib.crc32(payload)


@functools.cache
def _decoder(model: type[M]) -> msgspec.msgpack.Decoder[M]:
    return msgspec.msgpack.Decoder(model)


def _read_cache(path: str, model: type[M]) -> M | None:
    """The cached records when the seal matches and they decode as `model`, every type and
    bound checked; None otherwise (the source is parsed again)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_BYTES:  # larger than any entry costcalc writes
                return None
            # read(size + 1), not read(MAX_FILE_BYTES): Python allocates what a read asks for
            # before reading, and 17 MB for each of the 41 entries `quick` reads was 1 ms of it
            seal, _, payload = handle.read(size + 1).partition(b"\n")
    except OSError:
        return None
    if seal.strip() != entry_seal(payload):
        return None
    try:
        found: M = _decoder(model).decode(payload)
    except (msgspec.DecodeError, ValueError, TypeError):  # damaged, forged or from another model
        return None
    return found


def _write_cache(text: str, result: msgspec.Struct) -> None:
    from pathlib import Path  # a first read, which writes: parsing cost far more

    path = Path(text)
    with contextlib.suppress(OSError):
        payload = msgspec.msgpack.encode(result)
        write_atomic_bytes(path, entry_seal(payload) + b"\n" + payload)
        prune_cache(path.parent)


def prune_cache(directory: Path, keep: int = CACHE_ENTRIES) -> None:
    """Keep the newest `keep` parsed files; delete the rest and temp files a crash left."""
    with contextlib.suppress(OSError):
        found = [*directory.glob("*.msgpack"), *directory.glob("*.pickle")]  # .pickle: before
        entries = sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            old.unlink(missing_ok=True)
        clear_temp_files(directory)


def clear_temp_files(directory: Path, older_than_s: float = 60.0) -> None:
    """Temp files a killed write left behind (`.<name>.<random>.tmp`), once old enough that no
    live writer can own them."""
    if not directory.is_dir():
        return
    limit = time.time() - older_than_s
    for stale in directory.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            if stale.stat().st_mtime < limit:
                stale.unlink()


def dump_yaml(data: Any) -> str:
    yaml = _yaml()
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return str(yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True))


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never a mix.
    Temp files an earlier, killed write left in the same directory are cleaned first."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: Path, data: bytes) -> None:
    """`write_atomic` for bytes."""
    import tempfile  # imported by the first write: `quick` writes nothing

    path.parent.mkdir(parents=True, exist_ok=True)
    clear_temp_files(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def write_model_yaml(path: Path, model: msgspec.Struct) -> None:
    write_atomic(path, dump_yaml(plain(model, omit_defaults=True)))


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
