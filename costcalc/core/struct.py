"""Plain records for computed values, declared as dataclasses are, without their cost at import.

`dataclass` and `field` here take the standard library's arguments (the subset costcalc uses)
and give the same class: the same __init__, __repr__, __eq__, __hash__, frozen __setattr__,
slots, __match_args__, pickling, and `dataclasses.fields`, `asdict` and `replace` work on it.
What differs is when the work is done. The standard decorator imports `inspect` and compiles each
class's methods as it is declared (about a millisecond a class, 40 of them on `costcalc quick`'s
path); here a class is declared by reading its annotations, and its methods are compiled the
first time one of them runs, in one piece, so a class a run never builds costs nothing.

Rules kept here:
- standard library only, and not `dataclasses` itself: the stdlib's field records
  (`__dataclass_fields__`) are made on first use, by the standard decorator run on a copy of
  the class, so `dataclasses.fields`, `asdict` and `replace` read exactly what they would;
- a class and its generated methods are the standard library's, option for option; an option
  this module does not implement (order, unsafe_hash, InitVar, ...) is refused at declaration,
  never ignored;
- type checkers see `dataclasses.dataclass` itself (the names are re-exported for them), so
  they check these classes as they check any dataclass.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

__all__ = ["KW_ONLY", "FrozenInstanceError", "asdict", "dataclass", "field", "replace"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
_HAS_FACTORY: Any = type("_HasFactory", (), {"__repr__": lambda self: "<factory>"})()
_SPEC = "__struct_spec__"
"""The class attribute holding a record class's Spec."""


class FrozenInstanceError(AttributeError):
    """A field of a frozen record was set (as dataclasses.FrozenInstanceError)."""


class _KwOnly:
    """`_: KW_ONLY` in a class body: the fields after it are keyword-only."""

    __slots__ = ()


class Field:
    """One field: what `field(...)` gave, with its name and annotation once declared."""

    __slots__ = ("compare", "default", "default_factory", "init", "kw_only", "name", "repr", "type")

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,
        compare: bool,
        kw_only: Any,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.kw_only = kw_only
        self.name = ""
        self.type: Any = None

    def named(self, name: str, annotation: Any, kw_only: bool) -> Field:
        made = Field(
            self.default,
            self.default_factory,
            self.init,
            self.repr,
            self.compare,
            kw_only if self.kw_only is MISSING else self.kw_only,
        )
        made.name, made.type = name, annotation
        return made

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is MISSING

    def __repr__(self) -> str:
        return f"Field({self.name!r})"


def _field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    metadata: Any = None,
    kw_only: Any = MISSING,
) -> Any:
    """A field's default and options, as `dataclasses.field` takes them."""
    if hash is not None or metadata is not None:
        raise TypeError("field(hash=..., metadata=...) is not supported by costcalc.core.struct")
    return Field(default, default_factory, init, repr, compare, kw_only)


class Spec:
    """What the decorator read from a class: its fields and options, and which of the methods
    it generates are to be compiled on first use."""

    __slots__ = ("cls", "compiled", "eq", "fields", "frozen", "generated", "init", "repr", "shadow")

    def __init__(
        self, fields: tuple[Field, ...], init: bool, repr: bool, eq: bool, frozen: bool
    ) -> None:
        self.fields = fields
        self.init, self.repr, self.eq, self.frozen = init, repr, eq, frozen
        self.generated: list[str] = []
        """The methods to compile: those the class body does not define itself."""
        self.compiled = False
        self.cls: type = object
        self.shadow: type | None = None
        """The standard library's dataclass of the same fields, made when first asked for."""


def _dataclass(
    cls: type | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    unsafe_hash: bool = False,
    frozen: bool = False,
    match_args: bool = True,
    kw_only: bool = False,
    slots: bool = False,
    weakref_slot: bool = False,
) -> Any:
    """`dataclasses.dataclass`, with its methods compiled on first use."""
    if order or unsafe_hash or weakref_slot or not match_args:
        raise TypeError(
            "dataclass(order=, unsafe_hash=, weakref_slot=, match_args=False) is not supported "
            "by costcalc.core.struct: use dataclasses for such a class"
        )

    def wrap(cls: type) -> type:
        return _process(cls, init, repr, eq, frozen, kw_only, slots)

    return wrap if cls is None else wrap(cls)


# --------------------------------------------------------------------------- declaring


def _process(
    cls: type, init: bool, repr: bool, eq: bool, frozen: bool, kw_only: bool, slots: bool
) -> type:
    fields: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        spec = base.__dict__.get(_SPEC)
        if spec is not None:
            if spec.frozen != frozen:
                raise TypeError(
                    f"{cls.__qualname__}: cannot inherit a {'non-' * frozen}frozen dataclass "
                    f"from a {'non-' * (not frozen)}frozen one"
                )
            fields.update((f.name, f) for f in spec.fields)
    namespace = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
    keyword = kw_only
    declared: dict[str, Any] = vars(cls).get("__annotations__", {})  # its own, not its bases
    for name, annotation in declared.items():
        kind = _kind(annotation, namespace)
        if kind == "kw_only":
            keyword = True
            continue
        if kind == "classvar":
            continue
        if kind == "initvar":
            raise TypeError(f"{cls.__qualname__}.{name}: InitVar is not supported here")
        value = cls.__dict__.get(name, MISSING)
        given = value if isinstance(value, Field) else _field(default=value)
        made = given.named(name, annotation, keyword)
        if made.default is not MISSING and type(made.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(made.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        if isinstance(value, Field):  # the class keeps a plain default, as dataclasses leaves it
            if made.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, made.default)
        fields[name] = made
    ordered = tuple(fields.values())
    _check_order(ordered)
    spec = Spec(ordered, init, repr, eq, frozen)
    if slots:
        cls = _with_slots(cls, ordered, frozen)
    spec.cls = cls
    own = dict(cls.__dict__)  # as declared, before anything is added
    setattr(cls, _SPEC, spec)
    for method, wanted in (("__init__", init), ("__repr__", repr), ("__eq__", eq)):
        if wanted and method not in own:
            spec.generated.append(method)
            setattr(cls, method, _stub(spec, method))
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if eq and not explicit_hash:
        if frozen:
            spec.generated.append("__hash__")
            cls.__hash__ = _stub(spec, "__hash__")  # type: ignore[method-assign]
        else:
            cls.__hash__ = None  # type: ignore[assignment]
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
        names = frozenset(f.name for f in ordered)
        setattr(cls, "__setattr__", _frozen_setattr(cls, names))  # noqa: B010
        setattr(cls, "__delattr__", _frozen_delattr(cls, names))  # noqa: B010
    if "__match_args__" not in own:
        positional = tuple(f.name for f in ordered if f.init and not f.kw_only)
        setattr(cls, "__match_args__", positional)  # noqa: B010
    setattr(cls, "__dataclass_fields__", _Standard(spec, "__dataclass_fields__"))  # noqa: B010
    setattr(cls, "__dataclass_params__", _Standard(spec, "__dataclass_params__"))  # noqa: B010
    return cls


def _kind(annotation: Any, namespace: dict[str, Any]) -> str:
    """'field', or what a non-field annotation is: 'classvar', 'initvar', 'kw_only'."""
    if annotation is KW_ONLY:
        return "kw_only"
    if not isinstance(annotation, str):
        origin = getattr(annotation, "__origin__", annotation)
        text = getattr(origin, "_name", None) or type(annotation).__name__
        return {"ClassVar": "classvar", "InitVar": "initvar"}.get(text, "field")
    head = annotation.split("[", 1)[0].strip()
    last = head.rsplit(".", 1)[-1]
    if last == "KW_ONLY" and (head != last or namespace.get(head) is KW_ONLY):
        return "kw_only"
    return {"ClassVar": "classvar", "InitVar": "initvar"}.get(last, "field")


def _check_order(fields: tuple[Field, ...]) -> None:
    seen_default = False
    for f in fields:
        if not f.init or f.kw_only:
            continue
        if not f.required:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _with_slots(cls: type, fields: tuple[Field, ...], frozen: bool) -> type:
    """The class again, with __slots__ for its fields (as dataclass(slots=True) makes it)."""
    namespace = dict(cls.__dict__)
    inherited = {
        name
        for base in cls.__mro__[1:-1]
        for name in (
            (base.__dict__.get("__slots__", ()),)
            if isinstance(base.__dict__.get("__slots__", ()), str)
            else base.__dict__.get("__slots__", ())
        )
    }
    namespace["__slots__"] = tuple(f.name for f in fields if f.name not in inherited)
    for f in fields:
        namespace.pop(f.name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    if frozen:
        if "__getstate__" not in namespace:
            made.__getstate__ = _slots_getstate  # type: ignore[attr-defined]
        if "__setstate__" not in namespace:
            made.__setstate__ = _slots_setstate  # type: ignore[attr-defined]
    return made


def _slots_getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in getattr(type(self), _SPEC).fields]


def _slots_setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(getattr(type(self), _SPEC).fields, state, strict=False):
        object.__setattr__(self, f.name, value)


def _frozen_setattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


# --------------------------------------------------------------------------- compiled on first use


def _stub(spec: Spec, method: str) -> Callable[..., Any]:
    """A stand-in that compiles the class's methods, then does what the real one does."""

    def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
        _compile(spec)
        return getattr(spec.cls, method)(self, *args, **kwargs)

    stub.__name__ = stub.__qualname__ = method
    return stub


def _compile(spec: Spec) -> None:
    """Put the methods `spec`'s class lacks on it, made in one piece: by the function compiled
    ahead for this very source (costcalc/core/struct_compiled.py), else compiled now."""
    if spec.compiled:
        return
    cls = spec.cls
    source, names = method_source(spec)
    make = _compiled_ahead(f"{cls.__module__}:{cls.__qualname__}", source)
    if make is None:
        scope: dict[str, Any] = {}
        exec(compile(source, f"<record {cls.__qualname__}>", "exec"), {}, scope)
        make = scope["_make"]
    methods = make(**names)
    for method, func in methods.items():
        func.__qualname__ = f"{cls.__qualname__}.{method}"
        setattr(cls, method, func)
    if "__init__" in methods:  # annotated as dataclasses annotates it (for inspect.signature)
        annotations = {f.name: f.type for f in spec.fields if f.init}
        methods["__init__"].__annotations__ = {**annotations, "return": None}
    spec.compiled = True


def method_source(spec: Spec) -> tuple[str, dict[str, Any]]:
    """The source of `_make(...)`, which returns the methods `spec`'s class lacks, and the
    values (defaults, factories) it is called with."""
    names: dict[str, Any] = {"_object": object, "_HAS_FACTORY": _HAS_FACTORY}
    lines: list[str] = []
    if "__init__" in spec.generated:
        lines += _init_source(spec, names)
    if "__repr__" in spec.generated:
        shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in spec.fields if f.repr)
        lines += [
            " def __repr__(self):",
            f'  return f"{{self.__class__.__qualname__}}({shown})"',
        ]
    compared = [f.name for f in spec.fields if f.compare]
    if "__eq__" in spec.generated:
        mine, theirs = _tuple_of("self", compared), _tuple_of("other", compared)
        lines += [
            " def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"   return {mine} == {theirs}",
            "  return NotImplemented",
        ]
    if "__hash__" in spec.generated:
        lines += [" def __hash__(self):", f"  return hash({_tuple_of('self', compared)})"]
    made = ", ".join(f"{m!r}: {m}" for m in spec.generated)
    source = "\n".join([f"def _make({', '.join(names)}):", *lines, f" return {{{made}}}"])
    return source, names


def _compiled_ahead(key: str, source: str) -> Callable[..., dict[str, Any]] | None:
    """The `_make` compiled with the package for class `key`, if it was made from `source`
    exactly; None for a class declared or changed since (compiling it costs a quarter of a
    millisecond, about what the standard library's decorator takes per method)."""
    try:
        from costcalc.core import struct_compiled
    except ImportError:  # pragma: no cover - a checkout before the script first ran
        return None
    if struct_compiled.SOURCES.get(key) != source:
        return None
    made: Any = struct_compiled.MAKERS[key]
    return made  # type: ignore[no-any-return]


def _tuple_of(owner: str, names: list[str]) -> str:
    return "(" + "".join(f"{owner}.{n}," for n in names) + ")"


def _init_source(spec: Spec, names: dict[str, Any]) -> list[str]:
    """dataclasses' __init__: parameters in field order (keyword-only ones after `*`), a
    factory called when its parameter is left out, __post_init__ last."""
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in spec.fields:
        default = ""
        value: str | None = f.name if f.init else None
        if f.default_factory is not MISSING:
            names[f"_factory_{f.name}"] = f.default_factory
            default = "=_HAS_FACTORY"
            call = f"_factory_{f.name}()"
            value = f"{call} if {f.name} is _HAS_FACTORY else {f.name}" if f.init else call
        elif f.default is not MISSING:
            names[f"_default_{f.name}"] = f.default
            default = f"=_default_{f.name}"
            value = f.name if f.init else f"_default_{f.name}"
        if f.init:
            (keyword if f.kw_only else positional).append(f"{f.name}{default}")
        if value is not None:
            if spec.frozen:
                body.append(f"  _object.__setattr__(self, {f.name!r}, {value})")
            else:
                body.append(f"  self.{f.name} = {value}")
    if hasattr(spec.cls, "__post_init__"):
        body.append("  self.__post_init__()")
    params = ["self", *positional, *(["*", *keyword] if keyword else [])]
    return [f" def __init__({', '.join(params)}):", *(body or ["  pass"])]


# --------------------------------------------------------------------------- the standard view


class _Standard:
    """`__dataclass_fields__` / `__dataclass_params__` for the dataclasses module: made the
    first time it is read, by the standard decorator on a copy of the class's declaration."""

    def __init__(self, spec: Spec, attribute: str) -> None:
        self.spec = spec
        self.attribute = attribute

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        spec = self.spec
        if spec.shadow is None:
            import dataclasses

            namespace: dict[str, Any] = {"__annotations__": {}}
            for f in spec.fields:
                namespace["__annotations__"][f.name] = f.type
                options: dict[str, Any] = {
                    "init": f.init,
                    "repr": f.repr,
                    "compare": f.compare,
                    "kw_only": f.kw_only,
                }
                if f.default is not MISSING:
                    options["default"] = f.default
                if f.default_factory is not MISSING:
                    options["default_factory"] = f.default_factory
                namespace[f.name] = dataclasses.field(**options)
            shadow = type(spec.cls.__name__, (), namespace)
            shadow.__module__ = spec.cls.__module__
            spec.shadow = dataclasses.dataclass(eq=spec.eq, frozen=spec.frozen)(shadow)
        return getattr(spec.shadow, self.attribute)


def _asdict(obj: Any) -> dict[str, Any]:
    """`dataclasses.asdict` (imported on first use)."""
    import dataclasses

    return dataclasses.asdict(obj)


def _replace(obj: Any, /, **changes: Any) -> Any:
    """`dataclasses.replace` (imported on first use)."""
    import dataclasses

    return dataclasses.replace(obj, **changes)


if TYPE_CHECKING:  # type checkers know dataclasses' own; the classes are the same to them
    from dataclasses import KW_ONLY, asdict, dataclass, field, replace
else:
    KW_ONLY = _KwOnly()
    dataclass = _dataclass
    field = _field
    asdict = _asdict
    replace = _replace
