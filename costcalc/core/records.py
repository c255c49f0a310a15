"""Records: every value costcalc declares is a msgspec Struct, and this is how untrusted data
becomes one.

The domain's facts and inputs (a GPU, an offer, a price file, a scenario) derive from `Record`:
frozen, built from keywords, strict about unknown keys, their bounds written on the field
(`Annotated[float, Meta(ge=0)]`) and checked with whatever a record's `__post_init__` checks.
Computed values (a comparison's results, indexes) are plain frozen Structs.

Rules kept here:
- building a record from keywords checks its `__post_init__` only: the code that builds it is
  trusted. Data from a file, a feed or a user crosses the edge through `validated`, which checks
  every type and bound, and `problem` words the first thing wrong as one line;
- at that edge, every text loses its control characters (it may reach a terminal) and a time
  written without a zone is UTC (data files write naive timestamps for UTC), so no record needs
  a validator of its own for either.
"""

from __future__ import annotations

import re
import sys
import typing
from datetime import datetime, timezone
from typing import Any, TypeVar

import msgspec
from msgspec import Meta as Meta  # re-exported: record modules import both from here
from msgspec import Struct, ValidationError

from costcalc.core.terminal import printable

__all__ = [
    "Meta",
    "Record",
    "ValidationError",
    "plain",
    "problem",
    "revalidated",
    "to_json",
    "validated",
]

T = TypeVar("T")


class Record(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Base of the domain's records: immutable, keyword-built, strict about unknown keys. Not
    tracked by Python's cycle collector (msgspec's `gc=False`): a record holds texts, numbers,
    times, tuples and other records, and never a reference back to itself, so reference
    counting frees it; the collector then has tens of thousands fewer objects to walk on each
    pass while `quick` loads its data (about 1 ms of its run, docs/benchmarks.md)."""


def validated(cls: type[T], data: Any) -> T:
    """`data` (plain values: what YAML, JSON or a form gives) as a `cls`, checked: its types,
    its bounds and its records' `__post_init__`; ValidationError otherwise. Numbers written
    as text ('1e9', which YAML 1.1 reads as text) and whole floats for counts are taken as
    what they say; anything else of the wrong type is refused."""
    return msgspec.convert(_at_the_edge(data), cls, strict=False)


def revalidated(record: T) -> T:
    """A record built in code from untrusted values (a feed's parsed rows), checked as if it had
    been read from a file."""
    data = msgspec.to_builtins(record, builtin_types=(datetime,))
    return validated(type(record), data)


def _at_the_edge(value: Any) -> Any:
    """`value` with its texts made printable and its naive times made UTC, at any depth."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {_at_the_edge(k): _at_the_edge(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_at_the_edge(v) for v in value]
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)


def problem(exc: ValidationError) -> str:
    """The first problem msgspec found, as one line: 'offers[3].usd_per_hour: expected a number
    >= 0', or the problem alone at the top level."""
    found = _AT.match(str(exc))
    what, path = (found["what"], found["path"] or "") if found else (str(exc), "")
    what = what.replace("`float`", "a number").replace("`int`", "a whole number")
    what = re.sub(r"(\d)\.0\b", r"\1", what.replace("`", ""))  # <= 10000, not 10000.0
    what = what[:1].lower() + what[1:]
    where = path.lstrip(".")
    return f"{where}: {what}" if where else what


def field_bounds(cls: type[Struct], name: str) -> dict[str, float]:
    """The bounds (ge, gt, le, lt) written on a record's field, of its number when it may also
    be None: what every front end's message about the field's range reads. Only that field's
    annotation is read (a class's whole type information costs a few milliseconds to build)."""
    annotation = next(
        c.__annotations__[name] for c in cls.__mro__ if name in vars(c).get("__annotations__", {})
    )
    if isinstance(annotation, str):  # written under `from __future__ import annotations`
        annotation = eval(annotation, vars(sys.modules[cls.__module__]))
    found: dict[str, float] = {}
    arms = (annotation,) if hasattr(annotation, "__metadata__") else typing.get_args(annotation)
    for arm in arms:
        for meta in getattr(arm, "__metadata__", ()):
            for bound in ("ge", "gt", "le", "lt"):
                value = getattr(meta, bound, None)
                if value is not None:
                    found[bound] = value
    return found


def plain(record: Struct, *, omit_defaults: bool = False) -> dict[str, Any]:
    """A record as plain values for JSON or YAML: nested records as dicts, tuples as lists,
    dates as ISO 8601 text ('Z' for UTC); with `omit_defaults`, the fields (at any depth)
    whose value is their default are left out, as a file a person writes leaves them out."""
    data: dict[str, Any] = msgspec.to_builtins(
        _without_defaults(record) if omit_defaults else record
    )
    return data


def to_json(record: Struct, indent: int = 2) -> str:
    """A record as indented JSON text (NaN and infinities as null, which JSON has no word for)."""
    return msgspec.json.format(msgspec.json.encode(record), indent=indent).decode("utf-8")


def _without_defaults(value: Any) -> Any:
    if isinstance(value, Struct):
        out = {}
        for info in msgspec.structs.fields(value):
            item = getattr(value, info.name)
            default = (
                info.default_factory()
                if info.default_factory is not msgspec.NODEFAULT
                else info.default
            )
            if default is not msgspec.NODEFAULT and item == default:
                continue
            out[info.encode_name] = _without_defaults(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_without_defaults(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_defaults(v) for k, v in value.items()}
    return value
