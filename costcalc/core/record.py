"""Frozen records: the domain's immutable values, plain Python objects that pydantic validates only
where data crosses an edge.

A record class declares typed fields as a dataclass does, with `Field(...)` taking pydantic's
keywords (default, default_factory, description, ge/gt/le/lt, pattern, min_length, ...), and keeps
the part of pydantic's model API the code uses: `model_validate`, `model_copy(update=...)`,
`model_dump(mode=..., exclude_defaults=...)`, `model_dump_json`, `model_fields`,
`model_fields_set`, `model_construct`. Building one with keywords validates it as a pydantic
model would (ValidationError, with the same messages); `model_construct` builds one from values
already validated (a loaded snapshot's rows), and stored records are read back without either.

Rules kept here:
- standard library only: pydantic is imported by `model_validate` (costcalc.core.validation) the
  first time a value needs its word, never by building or reading a record;
- `model_validate` first tries a strict pure-Python check (exact types, the fields' bounds): a
  value it accepts is one pydantic accepts unchanged (ints for floats and lists for tuples are
  converted the same way); anything else, every error included, goes to pydantic, so error
  messages are pydantic's own one-liners;
- a record's fields, bounds and validators live on its class, once: the pure check, pydantic's
  twin of the class and `model_fields` all read them from there.

Creating a class costs what a `class` statement costs: no code is generated per class (a
dataclass's exec'd methods take about a millisecond per class, pydantic's schema more).
"""

from __future__ import annotations

import copyreg
import math
import re
import sys
import types
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta, timezone
from operator import itemgetter
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Literal,
    SupportsIndex,
    TypeVar,
    Union,
    get_args,
)
from typing import get_origin as _origin

if TYPE_CHECKING:
    from typing import TypeGuard

    from pydantic import ValidationError
    from typing_extensions import Self, dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda cls: cls


__all__ = [
    "After",
    "Field",
    "FieldInfo",
    "Frozen",
    "FrozenRecordError",
    "is_validation_error",
    "model_validator",
]

T = TypeVar("T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default: the field is required."""

_NEWOBJ: Any = copyreg.__newobj__  # type: ignore[attr-defined]  # pickle's cls.__new__(cls)

CONSTRAINTS = frozenset(
    ("ge", "gt", "le", "lt", "min_length", "max_length", "pattern", "allow_inf_nan")
)
"""The keywords of `Field` the pure check applies itself; a field with any other keyword
(multiple_of, strict, alias, ...) is left to pydantic whenever a value is given for it."""


class FieldInfo:
    """One field: its default, description and constraints, as `Field(...)` gave them."""

    __slots__ = (
        "annotation",
        "constraints",
        "default",
        "default_factory",
        "description",
        "module",
        "name",
    )

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | None = None,
        description: str | None = None,
        constraints: dict[str, Any] | None = None,
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.default = default
        self.default_factory = default_factory
        self.description = description
        self.constraints: dict[str, Any] = constraints or {}
        self.name = ""
        self.annotation: Any = None
        """As written: a string under `from __future__ import annotations`."""
        self.module = ""
        """The module whose names the annotation is read in."""

    def is_required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    def get_default(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default

    def bound(self, name: str) -> Any:
        """A constraint's value ('ge', 'lt', ...), None when the field has none."""
        return self.constraints.get(name)

    def pydantic_kwargs(self) -> dict[str, Any]:
        """The keywords to give pydantic's `Field` for the same field."""
        kwargs = dict(self.constraints)
        if self.default is not MISSING:
            kwargs["default"] = self.default
        if self.default_factory is not None:
            kwargs["default_factory"] = self.default_factory
        if self.description is not None:
            kwargs["description"] = self.description
        return kwargs

    def resolved(self) -> Any:
        """The annotation as a type, read in its module's names."""
        if not isinstance(self.annotation, str):
            return self.annotation
        return eval(self.annotation, vars(sys.modules[self.module]))

    def signature(self) -> str:
        """What a stored copy of a record must agree on: name, type as written, bounds."""
        constraints = ",".join(f"{k}={v!r}" for k, v in sorted(self.constraints.items()))
        return f"{self.name}:{self.annotation}:{self.is_required()}:{constraints}"

    def _copy(self) -> FieldInfo:
        new = FieldInfo(self.default, self.default_factory, self.description, self.constraints)
        new.name, new.annotation, new.module = self.name, self.annotation, self.module
        return new

    def __repr__(self) -> str:
        return f"FieldInfo({self.name!r}, required={self.is_required()})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        """Inside `Annotated[...]` (a type alias with bounds): the same bounds in pydantic."""
        from costcalc.core import validation

        return validation.annotated_field_schema(self, source, handler)


def Field(  # pydantic's name, so model modules read the same
    default: Any = MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    description: str | None = None,
    **constraints: Any,
) -> Any:
    """A field's default, description and constraints, with pydantic's keywords."""
    return FieldInfo(default, default_factory, description, constraints)


class After:
    """A function a field's value goes through once its type is checked (pydantic's
    AfterValidator): it returns the value, possibly changed, or raises ValueError."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.func, handler(source))


F = TypeVar("F")


def model_validator(*, mode: Literal["before", "after"]) -> Callable[[F], F]:
    """Marks a check of the whole record, as pydantic's `model_validator` does: mode="after"
    on a method that raises ValueError (it runs whenever a record is built or validated);
    mode="before" on a classmethod that rewrites the raw data before validation."""

    def mark(func: F) -> F:
        setattr(getattr(func, "__func__", func), "__record_validator__", mode)  # noqa: B010
        return func

    return mark


class FrozenRecordError(AttributeError):
    """A record's fields cannot be set: make a changed copy with `model_copy(update=...)`."""


def is_validation_error(exc: BaseException) -> TypeGuard[ValidationError]:
    """Whether `exc` is pydantic's ValidationError, without importing pydantic to ask."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(exc, core.ValidationError)


# --------------------------------------------------------------------------- the base


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field,))
class Frozen:
    """Base for every domain record: immutable, keyword-built, strict about unknown keys."""

    if TYPE_CHECKING:
        model_fields: ClassVar[dict[str, FieldInfo]]
        __record_fields__: ClassVar[tuple[str, ...]]
        __record_defaults__: ClassVar[dict[str, Any]]
        __record_factories__: ClassVar[tuple[tuple[str, Callable[[], Any]], ...]]
        __record_after__: ClassVar[tuple[str, ...]]
        __record_before__: ClassVar[tuple[str, ...]]
        __record_key__: ClassVar[Any]
        """The field values of a state dict, as one comparable, hashable value."""
        __record_plan__: ClassVar[dict[str, Any] | None]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: dict[str, FieldInfo] = {}
        after: list[str] = []
        before: list[str] = []
        for base in reversed(cls.__mro__[1:]):
            if issubclass(base, Frozen) and base is not Frozen:
                fields.update(base.model_fields)
                after += [n for n in base.__record_after__ if n not in after]
                before += [n for n in base.__record_before__ if n not in before]
        own = cls.__annotations__  # this class's own (not inherited) since Python 3.10
        for name, annotation in own.items():
            if _is_class_var(annotation):
                continue
            value = cls.__dict__.get(name, MISSING)
            info = value._copy() if isinstance(value, FieldInfo) else FieldInfo(default=value)
            if isinstance(info.default, (list, dict, set)):
                raise TypeError(f"{cls.__name__}.{name}: a mutable default needs default_factory")
            info.name, info.annotation, info.module = name, annotation, cls.__module__
            fields[name] = info
            if name in cls.__dict__:
                delattr(cls, name)
        for name, value in cls.__dict__.items():
            mode = getattr(getattr(value, "__func__", value), "__record_validator__", None)
            if mode is not None:
                (after if mode == "after" else before).append(name)
        names = tuple(fields)
        cls.model_fields = fields
        cls.__record_fields__ = names
        cls.__record_defaults__ = {
            n: f.default for n, f in fields.items() if f.default is not MISSING
        }
        cls.__record_factories__ = tuple(
            (n, f.default_factory) for n, f in fields.items() if f.default_factory is not None
        )
        cls.__record_after__ = tuple(after)
        cls.__record_before__ = tuple(before)
        cls.__record_key__ = staticmethod(itemgetter(*names) if len(names) > 1 else _key_of(names))
        cls.__record_plan__ = None

    def __init__(self, **values: Any) -> None:
        """Validated as pydantic validates a model's keywords: the pure check, else pydantic
        (ValidationError). Data already validated is built with `model_construct`."""
        cls = type(self)
        state = _fast_state(cls, values)
        if state is not _SLOW:
            self.__dict__.update(state)
            try:
                for name in cls.__record_after__:
                    getattr(self, name)()
                return
            except ValueError:
                pass  # pydantic words it
        from costcalc.core import validation

        self.__dict__.update(validation.validate(cls, values).__dict__)

    # ------------------------------------------------------------------ plain-object protocol

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenRecordError(f"{type(self).__name__} is frozen: use model_copy(update=...)")

    def __delattr__(self, name: str) -> None:
        raise FrozenRecordError(f"{type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = self.__record_key__
        return bool(key(self.__dict__) == key(other.__dict__))

    def __hash__(self) -> int:
        return hash(self.__record_key__(self.__dict__))

    def __repr__(self) -> str:
        state = self.__dict__
        body = ", ".join(f"{n}={state[n]!r}" for n in self.__record_fields__)
        return f"{type(self).__name__}({body})"

    def __iter__(self) -> Any:
        state = self.__dict__
        return ((n, state[n]) for n in self.__record_fields__)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__
        return {n: state[n] for n in self.__record_fields__}

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickled as its values in field order (the names are the class's): a third of the
        bytes of a state dict, and unpickled by `__setstate__` into what building a record
        gives (see there)."""
        state = self.__dict__
        values = tuple([state[n] for n in self.__record_fields__])
        return (_NEWOBJ, (type(self),), values)

    def __setstate__(self, state: tuple[Any, ...] | dict[str, Any]) -> None:
        # The record's dict made at once, keyed by the class's own field names, as `__init__`
        # and `model_construct` make it. Unpickled item by item instead, its keys are copies
        # of the names and it shares its keys with the class's other instances: reading a
        # field of such a record took 15% longer in the engine's loop (CPython 3.11).
        if isinstance(state, tuple):
            self.__dict__.update(dict(zip(self.__record_fields__, state, strict=True)))
        else:  # a state dict: pickled before records were pickled as their values
            self.__dict__.update({sys.intern(k): v for k, v in state.items()})

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from costcalc.core import validation

        return validation.record_schema(cls, handler)

    # ------------------------------------------------------------------ pydantic's model API

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """A record from untrusted data: the pure check, else pydantic (which also words the
        error: pydantic's ValidationError, a ValueError)."""
        found = _fast(cls, data)
        if found is not _SLOW:
            return found  # type: ignore[no-any-return]
        from costcalc.core import validation

        return validation.validate(cls, data)

    @classmethod
    def model_validate_json(cls, text: str | bytes) -> Self:
        import json

        try:
            found = _fast(cls, json.loads(text))
        except ValueError:
            found = _SLOW
        if found is not _SLOW:
            return found  # type: ignore[no-any-return]
        from costcalc.core import validation

        return validation.validate_json(cls, text)

    @classmethod
    def model_construct(cls, **values: Any) -> Self:
        """A record from trusted values, defaults filled in, nothing checked."""
        record = object.__new__(cls)
        state = record.__dict__
        state.update(cls.__record_defaults__)
        for name, factory in cls.__record_factories__:
            if name not in values:
                state[name] = factory()
        state.update(values)
        state["__fields_set__"] = frozenset(values)
        return record

    @classmethod
    def _from_state(cls, state: Mapping[str, Any], fields_set: frozenset[str]) -> Self:
        record = object.__new__(cls)
        record.__dict__.update(state)
        record.__dict__["__fields_set__"] = fields_set
        return record

    @property
    def model_fields_set(self) -> frozenset[str]:
        """The fields given when the record was made (all of them for a stored record)."""
        found = self.__dict__.get("__fields_set__")
        return frozenset(self.__record_fields__) if found is None else found

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with some fields changed; like pydantic's, the changes are not validated."""
        cls = type(self)
        record = object.__new__(cls)
        state = record.__dict__
        if deep:
            import copy

            state.update(copy.deepcopy(self.__getstate__()))
        else:
            state.update(self.__dict__)
        if update:
            unknown = set(update) - set(cls.model_fields)
            if unknown:
                raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
            state.update(update)
            state["__fields_set__"] = self.model_fields_set | frozenset(update)
        return record

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] = "python",
        include: set[str] | None = None,
        exclude: set[str] | None = None,
        exclude_defaults: bool = False,
        exclude_none: bool = False,
    ) -> dict[str, Any]:
        """Plain values, as pydantic's `model_dump`: nested records as dicts; with mode="json",
        lists for tuples, ISO 8601 text for dates ('Z' for UTC) and text keys."""
        return _dump_record(self, mode == "json", include, exclude, exclude_defaults, exclude_none)

    def model_dump_json(
        self,
        *,
        indent: int | None = None,
        exclude_defaults: bool = False,
        exclude_none: bool = False,
    ) -> str:
        import json

        data = _finite(
            self.model_dump(
                mode="json", exclude_defaults=exclude_defaults, exclude_none=exclude_none
            )
        )
        separators = (",", ":") if indent is None else None
        return json.dumps(data, indent=indent, ensure_ascii=False, separators=separators)


# --------------------------------------------------------------------------- helpers


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return _origin(annotation) is ClassVar


def _key_of(names: tuple[str, ...]) -> Callable[[dict[str, Any]], Any]:
    if not names:
        return lambda state: ()
    only = names[0]
    return lambda state: (state[only],)


def _dump_record(
    record: Frozen,
    json: bool,
    include: set[str] | None,
    exclude: set[str] | None,
    exclude_defaults: bool,
    exclude_none: bool,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    state = record.__dict__
    for name, info in type(record).model_fields.items():
        if (include is not None and name not in include) or (exclude and name in exclude):
            continue
        value = state[name]
        if exclude_none and value is None:
            continue
        if exclude_defaults and not info.is_required() and value == info.get_default():
            continue
        out[name] = _dump_value(value, json, exclude_defaults, exclude_none)
    return out


def _dump_value(value: Any, json: bool, exclude_defaults: bool, exclude_none: bool) -> Any:
    if isinstance(value, Frozen):
        return _dump_record(value, json, None, None, exclude_defaults, exclude_none)
    if isinstance(value, (tuple, list)):
        items = [_dump_value(v, json, exclude_defaults, exclude_none) for v in value]
        return items if json else type(value)(items)
    if isinstance(value, dict):
        return {
            (_json_key(k) if json else k): _dump_value(v, json, exclude_defaults, exclude_none)
            for k, v in value.items()
        }
    if json and isinstance(value, date):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


def _json_key(key: Any) -> Any:
    return key if isinstance(key, str) else str(key)


def _finite(value: Any) -> Any:
    """JSON has no infinity or NaN: pydantic writes null for them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- the pure check


class _Slow(Exception):
    """The pure check cannot vouch for a value: pydantic decides."""


_SLOW: Any = object()
_UNSUPPORTED: Any = None
Check = Callable[[Any], Any]

# Compiled when a plan first needs them (`re` keeps them): a run that checks no date text
# compiles neither.
_DATE = r"\d{4}-\d{2}-\d{2}"
_DATETIME = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?(Z|[+-]\d{2}:\d{2})?"


def _fast(cls: type[Frozen], data: Any) -> Any:
    """`cls` validated from `data` in pure Python, or _SLOW when pydantic must decide."""
    if isinstance(data, cls):
        return data
    state = _fast_state(cls, data)
    if state is _SLOW:
        return _SLOW
    record = object.__new__(cls)
    record.__dict__.update(state)
    try:
        for name in cls.__record_after__:
            getattr(record, name)()
    except ValueError:
        return _SLOW  # pydantic words it, with where
    return record


def _fast_state(cls: type[Frozen], data: Any) -> Any:
    """The fields of `cls` from `data`, checked in pure Python (after-validators not run), or
    _SLOW when pydantic must decide."""
    for name in cls.__record_before__:
        data = getattr(cls, name)(data)
    if type(data) is not dict:
        return _SLOW
    plan = cls.__record_plan__
    if plan is None:
        plan = _plan(cls)
    state = dict(cls.__record_defaults__)
    for name, factory in cls.__record_factories__:
        if name not in data:
            state[name] = factory()
    try:
        for name, value in data.items():
            check = plan.get(name, _UNSUPPORTED)
            if check is _UNSUPPORTED:
                return _SLOW
            state[name] = check(value)
    except (_Slow, TypeError, ValueError, OverflowError):
        return _SLOW
    if len(state) != len(cls.__record_fields__):
        return _SLOW  # a required field is missing
    state["__fields_set__"] = frozenset(data)
    return state


def _plan(cls: type[Frozen]) -> dict[str, Any]:
    plan: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        try:
            plan[name] = _check(info.resolved(), info.constraints)
        except Exception:  # a name only a type checker sees: pydantic resolves it or says so
            plan[name] = _UNSUPPORTED
    cls.__record_plan__ = plan
    return plan


def _check(tp: Any, constraints: Mapping[str, Any]) -> Check | None:
    """A function that returns the value pydantic would (raising _Slow when unsure), or None
    when the type or a constraint is beyond the pure check."""
    if set(constraints) - CONSTRAINTS:
        return None
    origin = _origin(tp)
    if origin is Annotated:
        return _annotated(tp, constraints)
    if origin is Union or isinstance(tp, types.UnionType):
        return _union(get_args(tp), constraints)
    if tp is type(None):
        return _none
    if origin is Literal:
        return _literal(get_args(tp))
    if origin is tuple:
        return _tuple(get_args(tp), constraints)
    if origin is dict:
        return _dict(get_args(tp), constraints)
    if isinstance(tp, type) and issubclass(tp, Frozen):
        return None if constraints else _nested(tp)
    scalar = _SCALARS.get(tp)
    return None if scalar is None else scalar(constraints)


def _annotated(tp: Any, constraints: Mapping[str, Any]) -> Check | None:
    base, *metadata = get_args(tp)
    merged = dict(constraints)
    afters = []
    for item in metadata:
        if isinstance(item, FieldInfo):
            merged.update(item.constraints)
        elif isinstance(item, After):
            afters.append(item.func)
        else:
            return None
    inner = _check(base, merged)
    if inner is None or not afters:
        return inner

    def check(value: Any) -> Any:
        value = inner(value)
        for func in afters:
            value = func(value)
        return value

    return check


def _union(arms: tuple[Any, ...], constraints: Mapping[str, Any]) -> Check | None:
    nullable = type(None) in arms
    others = [a for a in arms if a is not type(None)]
    if len(others) > 1 and any(_origin(a) is not Literal for a in others):
        return None  # pydantic's smart union prefers an exact type; Literals are exact anyway
    checks = [_check(a, constraints) for a in others]
    if any(c is None for c in checks):
        return None
    if nullable and len(checks) == 1:
        only = checks[0]
        assert only is not None
        return lambda value: None if value is None else only(value)

    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        for arm in checks:
            try:
                return arm(value)  # type: ignore[misc]
            except _Slow:
                continue
        raise _Slow

    return check


def _none(value: Any) -> None:
    if value is not None:
        raise _Slow


def _literal(allowed: tuple[Any, ...]) -> Check:
    def check(value: Any) -> Any:
        for option in allowed:
            if type(value) is type(option) and value == option:
                return value
        raise _Slow

    return check


def _tuple(args: tuple[Any, ...], constraints: Mapping[str, Any]) -> Check | None:
    lengths = _lengths(constraints)
    if set(constraints) - {"min_length", "max_length"}:
        return None
    if len(args) == 2 and args[1] is Ellipsis:
        item = _check(args[0], {})
        if item is None:
            return None

        def variadic(value: Any) -> Any:
            if type(value) not in (tuple, list):
                raise _Slow
            lengths(value)
            return tuple([item(v) for v in value])

        return variadic
    items = [_check(a, {}) for a in args]
    if not args or any(i is None for i in items):
        return None

    def fixed(value: Any) -> Any:
        if type(value) not in (tuple, list) or len(value) != len(items):
            raise _Slow
        lengths(value)
        return tuple([c(v) for c, v in zip(items, value, strict=True)])  # type: ignore[misc]

    return fixed


def _dict(args: tuple[Any, ...], constraints: Mapping[str, Any]) -> Check | None:
    if set(constraints) - {"min_length", "max_length"} or len(args) != 2:
        return None
    lengths = _lengths(constraints)
    key, item = _check(args[0], {}), _check(args[1], {})
    if key is None or item is None:
        return None

    def check(value: Any) -> Any:
        if type(value) is not dict:
            raise _Slow
        lengths(value)
        return {key(k): item(v) for k, v in value.items()}

    return check


def _nested(cls: type[Frozen]) -> Check:
    def check(value: Any) -> Any:
        found = _fast(cls, value)
        if found is _SLOW:
            raise _Slow
        return found

    return check


def _lengths(constraints: Mapping[str, Any]) -> Callable[[Any], None]:
    low = constraints.get("min_length")
    high = constraints.get("max_length")

    def check(value: Any) -> None:
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            raise _Slow

    return check


def _bounds(constraints: Mapping[str, Any]) -> Callable[[Any], None] | None:
    if set(constraints) - {"ge", "gt", "le", "lt", "allow_inf_nan"}:
        return None
    ge, gt = constraints.get("ge"), constraints.get("gt")
    le, lt = constraints.get("le"), constraints.get("lt")
    finite = constraints.get("allow_inf_nan") is False

    def check(value: Any) -> None:
        if (
            (ge is not None and not value >= ge)
            or (gt is not None and not value > gt)
            or (le is not None and not value <= le)
            or (lt is not None and not value < lt)
            or (finite and not math.isfinite(value))
        ):
            raise _Slow

    return check


def _float(constraints: Mapping[str, Any]) -> Check | None:
    bounds = _bounds(constraints)
    if bounds is None:
        return None

    def check(value: Any) -> Any:
        kind = type(value)
        if kind is int:
            value = float(value)
        elif kind is not float:
            raise _Slow
        bounds(value)
        return value

    return check


def _int(constraints: Mapping[str, Any]) -> Check | None:
    bounds = _bounds(constraints)
    if bounds is None:
        return None

    def check(value: Any) -> Any:
        if type(value) is not int:
            raise _Slow
        bounds(value)
        return value

    return check


def _str(constraints: Mapping[str, Any]) -> Check | None:
    if set(constraints) - {"min_length", "max_length", "pattern"}:
        return None
    lengths = _lengths(constraints)
    pattern = constraints.get("pattern")
    search = re.compile(pattern).search if pattern is not None else None

    def check(value: Any) -> Any:
        if type(value) is not str:
            raise _Slow
        lengths(value)
        # Python's `$` also matches before a final newline, pydantic's (Rust) does not.
        if search is not None and (search(value) is None or "\n" in value):
            raise _Slow
        return value

    return check


def _plain(kind: type) -> Callable[[Mapping[str, Any]], Check | None]:
    def make(constraints: Mapping[str, Any]) -> Check | None:
        if constraints:
            return None

        def check(value: Any) -> Any:
            if type(value) is not kind:
                raise _Slow
            return value

        return check

    return make


def _date(constraints: Mapping[str, Any]) -> Check | None:
    if constraints:
        return None

    def check(value: Any) -> Any:
        if type(value) is date:
            return value
        if type(value) is str and re.fullmatch(_DATE, value):
            return date.fromisoformat(value)
        raise _Slow

    return check


def _datetime(constraints: Mapping[str, Any]) -> Check | None:
    if constraints:
        return None

    def check(value: Any) -> Any:
        if type(value) is datetime:
            return value
        if type(value) is str and re.fullmatch(_DATETIME, value):
            moment = datetime.fromisoformat(value.removesuffix("Z"))
            if value.endswith("Z"):
                moment = moment.replace(tzinfo=timezone.utc)
            elif moment.tzinfo is not None:  # the same zone pydantic gives: a fixed offset
                offset = moment.utcoffset() or timedelta(0)
                moment = moment.replace(tzinfo=timezone.utc if not offset else timezone(offset))
            return moment
        raise _Slow

    return check


def _any(constraints: Mapping[str, Any]) -> Check | None:
    return None if constraints else (lambda value: value)


_SCALARS: dict[Any, Callable[[Mapping[str, Any]], Check | None]] = {
    float: _float,
    int: _int,
    str: _str,
    bool: _plain(bool),
    date: _date,
    datetime: _datetime,
    Any: _any,
}
