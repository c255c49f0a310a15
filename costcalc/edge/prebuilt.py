"""Validated records kept as pickles, read back without validating anything: the bundled data's
prebuilt form, which ships in the package (costcalc/data/prebuilt.pickle), and the cache of the
user's parsed files.

Rules kept here:
- a stored record is used only for the exact text it was validated from (a BLAKE2 digest) and
  only while every record class in it has the fields it had then (a signature per class: names,
  types as written, bounds); otherwise the caller parses and validates the text again;
- the unpickler builds nothing but costcalc's records and the standard library's dates: any other
  global in a file makes it unusable (the file is ignored), so a cache file can hold data, never
  code;
- `scripts/prebuild_data.py` writes the prebuilt form from a full pydantic validation of every
  bundled YAML file, and tests/test_prebuilt.py checks that it matches them;
- beside the files, the prebuilt form may hold whole values built from all of them (the data
  `costcalc quick` loads, `store.loaders.bundled_app_data`): such a value is used only while
  every file it was built from has the digest it had then, and holds costcalc's classes only,
  each with the fields it had then.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
import types
from _pickle import Unpickler, dumps, loads
from collections.abc import Callable, Iterator
from typing import Any, Union, get_args, get_origin

from costcalc.core.record import Frozen

try:  # the builtin BLAKE2: hashlib itself would load OpenSSL's binding at every start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

PROTOCOL = 5
PREBUILT = ("costcalc.data", "prebuilt.pickle")
"""Where the bundled data's prebuilt form ships."""
_DATES = frozenset(("date", "datetime", "timezone", "timedelta"))


def digest(data: bytes) -> str:
    """A 128-bit BLAKE2b of `data`, in hex: seals cached and stored files."""
    return blake2b(data, digest_size=16).hexdigest()


def package_bytes(package: str, name: str) -> bytes:
    """A file shipped inside `package` (ModuleNotFoundError, OSError when it is not there): read
    from the package's folder, or through importlib.resources for a zipped install (whose zip
    support costs more to import than costcalc quick spends reading all of its data)."""
    __import__(package)
    init = getattr(sys.modules[package], "__file__", None)
    if init is not None:
        path = os.path.join(os.path.dirname(init), name)
        with contextlib.suppress(FileNotFoundError, NotADirectoryError), open(path, "rb") as file:
            return file.read()
    from importlib import resources

    return resources.files(package).joinpath(name).read_bytes()


class Stale(Exception):
    """A stored record that no longer fits the code (or was never costcalc's)."""


def signature(cls: type[Frozen]) -> str:
    """What a stored record of `cls` must agree on with the class that reads it."""
    found = cls.__dict__.get("__record_signature__")
    if found is None:
        text = "|".join(info.signature() for info in cls.model_fields.values())
        found = digest(text.encode("utf-8"))[:16]
        type.__setattr__(cls, "__record_signature__", found)
    return found


def record_classes(model: type[Frozen]) -> dict[str, str]:
    """`model` and every record class its fields can hold, as 'module:name' -> signature."""
    found: dict[str, str] = {}

    def visit(tp: Any) -> None:
        if isinstance(tp, type) and issubclass(tp, Frozen):
            key = f"{tp.__module__}:{tp.__qualname__}"
            if key in found:
                return
            found[key] = signature(tp)
            for info in tp.model_fields.values():
                visit(info.resolved())
            return
        if get_origin(tp) is Union or isinstance(tp, types.UnionType) or get_args(tp):
            for arg in get_args(tp):
                visit(arg)

    visit(model)
    return found


def class_signature(cls: type) -> str:
    """`signature` for any of costcalc's classes: a record's fields, a dataclass's field names
    and types as written, and an empty text for a plain class (its name alone)."""
    if issubclass(cls, Frozen):
        return signature(cls)
    spec = cls.__dict__.get("__struct_spec__")  # costcalc.core.struct
    if spec is not None:
        fields = [(f.name, f.type) for f in spec.fields]
    else:
        found = cls.__dict__.get("__dataclass_fields__")
        if found is None:
            return ""
        fields = [(f.name, f.type) for f in found.values()]
    text = "|".join(f"{name}:{annotation}" for name, annotation in fields)
    return digest(text.encode("utf-8"))[:16]


class _Records(Unpickler):
    """Builds costcalc's classes named in `classes` (records only, unless `any_class`), each
    while it has the signature written there, and the standard library's dates; nothing else."""

    def __init__(self, payload: bytes, classes: dict[str, str], any_class: bool = False) -> None:
        super().__init__(io.BytesIO(payload))
        self.classes = classes
        self.any_class = any_class

    def find_class(self, module: str, name: str) -> Any:
        if module == "datetime" and name in _DATES:
            return super().find_class(module, name)
        key = f"{module}:{name}"
        if key not in self.classes or not module.startswith("costcalc."):
            raise Stale(f"{key} is not a record this file may hold")
        found = getattr(sys.modules.get(module), name, None)
        if found is None:
            found = super().find_class(module, name)
        if not isinstance(found, type):
            raise Stale(f"{key} is not a class")
        if not (self.any_class or issubclass(found, Frozen)):
            raise Stale(f"{key} is not a record")
        if class_signature(found) != self.classes[key]:
            raise Stale(f"{key} has changed since the file was written")
        return found


class _Recorder(Unpickler):
    """Reads a pickle back only to list the classes it names."""

    def __init__(self, payload: bytes) -> None:
        super().__init__(io.BytesIO(payload))
        self.classes: dict[str, str] = {}

    def find_class(self, module: str, name: str) -> Any:
        found = super().find_class(module, name)
        if module != "datetime":
            if not (module.startswith("costcalc.") and isinstance(found, type)):
                raise TypeError(f"{module}:{name} is not one of costcalc's classes")
            self.classes[f"{module}:{name}"] = class_signature(found)
        return found


def pack(record: Frozen) -> bytes:
    """`record` with the signatures of its classes, as one pickle. Equal texts are stored once
    (a citation repeated on every row of a file): fewer bytes, and fewer objects to build when
    they are read back."""
    payload = dumps(_shared(record, {}), protocol=PROTOCOL)
    return dumps((record_classes(type(record)), payload), protocol=PROTOCOL)


def _shared(value: Any, texts: dict[str, str]) -> Any:
    """`value` rebuilt with one object for each distinct text in it."""
    if isinstance(value, str):
        return texts.setdefault(value, value)
    if isinstance(value, Frozen):
        state = {n: _shared(v, texts) for n, v in value.__getstate__().items()}
        return type(value)._from_state(state, value.model_fields_set)
    if isinstance(value, tuple):
        return tuple(_shared(v, texts) for v in value)
    if isinstance(value, dict):
        return {_shared(k, texts): _shared(v, texts) for k, v in value.items()}
    return value


def unpack(data: bytes, model: type[Frozen]) -> Any:
    """The record `pack` stored, or None when it cannot be used (another model, a changed
    class, a foreign global, a damaged file)."""
    try:
        classes, payload = loads(data)
        found = _Records(payload, classes).load()
    except Exception:  # damaged or foreign: the caller reads the text instead
        return None
    return found if type(found) is model else None


def pack_value(value: object) -> bytes:
    """Any value made of costcalc's classes, plain data and dates (not only records), with the
    signatures of its classes: for the prebuilt form, which ships with the code that reads it."""
    payload = dumps(value, protocol=PROTOCOL)
    recorder = _Recorder(payload)
    recorder.load()
    return dumps((recorder.classes, payload), protocol=PROTOCOL)


def unpack_value(data: bytes, model: type) -> Any:
    """The value `pack_value` stored, or None when it cannot be used (another type, a changed
    class, a damaged file)."""
    try:
        classes, payload = loads(data)
        found = _Records(payload, classes, any_class=True).load()
    except Exception:  # damaged or stale: the caller builds the value again
        return None
    return found if type(found) is model else None


@functools.cache
def _shipped() -> dict[str, Any]:
    package, name = PREBUILT
    try:
        entries = loads(package_bytes(package, name))
    except Exception:  # not built (a checkout before the script ran) or damaged
        return {}
    return entries if isinstance(entries, dict) else {}


_building: list[dict[str, Any]] = []


def _prebuilt() -> dict[str, Any]:
    return _building[-1] if _building else _shipped()


@contextlib.contextmanager
def reading(entries: dict[str, Any]) -> Iterator[None]:
    """Read the prebuilt form from `entries` rather than the shipped file, with nothing kept
    from before: scripts/prebuild_data.py builds the whole values from the entries it has just
    made, so what it writes depends on nothing but the files."""
    _building.append(entries)
    _unpacked.clear()
    try:
        yield
    finally:
        _building.pop()
        _unpacked.clear()


def prebuilt(package: str, name: str, file_digest: str, model: type[Frozen]) -> Any:
    """The bundled file `package/name` as its prebuilt record, when the prebuilt form holds
    these exact bytes (their digest) for this model; None otherwise."""
    key = f"{package}/{name}"
    entry = _prebuilt().get(key)
    if entry is None or entry[0] != file_digest:
        return None
    found = _unpacked.get(key)
    if found is None or type(found) is not model:
        found = _unpacked[key] = unpack(entry[1], model)
    return found


def prebuilt_value(key: str, model: type, usable: Callable[[Any], bool]) -> Any:
    """The whole value stored under `key` (`store_value`), when `usable` accepts what it was
    stored with and every bundled file it was built from still has the same bytes (their
    `file_check`); None otherwise."""
    entry = _prebuilt().get(key)
    if not isinstance(entry, tuple) or len(entry) != 3 or not usable(entry[1]):
        return None
    files, _, data = entry
    for where, check in files.items():
        package, _, name = where.partition("/")
        try:
            if file_check(package_bytes(package, name)) != check:
                return None
        except (OSError, ModuleNotFoundError):
            return None
    return unpack_value(data, model)


def file_check(data: bytes) -> str:
    """What a whole value's entry keeps of each file it was built from: its length and CRC-32.
    It tells an edited file from the one the value was built from, as a digest would (the
    prebuilt form ships with the code that reads it: nothing here guards against forgery), at
    a quarter of BLAKE2's cost over the megabyte of bundled files `costcalc quick` checks."""
    import zlib

    return f"{len(data)}:{zlib.crc32(data):08x}"


def store_value(files: dict[str, str], meta: object, value: object) -> tuple[Any, ...]:
    """The prebuilt form's entry for a whole value built from `files` (where -> file_check)."""
    return (files, meta, pack_value(value))


_unpacked: dict[str, Any] = {}
"""Records already read from the prebuilt form (they are immutable): a file read twice in a
run is unpickled once."""
