"""costcalc.core.struct: its `dataclass` makes the class the standard library's would (same
methods, same errors, same view for `dataclasses.fields`, `asdict` and `replace`), only later.

No `from __future__ import annotations` here: `_: kw_only` must be evaluated, as the
declarations under test take their KW_ONLY marker as an argument."""

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

import costcalc
from costcalc.core import struct
from tests.imports import loaded_after

OPTIONS = [
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"slots": True},
    {"eq": False},
    {"kw_only": True},
    {"repr": False},
]


def declare(kw_only: Any, field: Callable[..., Any]) -> type:
    class Point:
        """A record with every kind of field."""

        x: int
        label: str = "p"
        tags: tuple[str, ...] = field(default_factory=tuple)
        hidden: int = field(default=0, repr=False, compare=False)
        scale: ClassVar[int] = 3
        _: kw_only
        weight: float = 1.0
        seen: dict[str, int] = field(default_factory=dict, compare=False)

        def doubled(self) -> int:
            return self.x * 2

    return Point


def twins(**options: Any) -> tuple[type, type]:
    """The same declaration made by costcalc.core.struct and by dataclasses; both are module
    globals under their own names, so they pickle."""
    mine = struct.dataclass(**options)(declare(struct.KW_ONLY, struct.field))
    theirs = dataclasses.dataclass(**options)(declare(dataclasses.KW_ONLY, dataclasses.field))
    for name, cls in (("Mine", mine), ("Theirs", theirs)):
        cls.__qualname__ = cls.__name__ = name
        globals()[name] = cls
    return mine, theirs


def build(cls: type, options: dict[str, Any], **more: Any) -> Any:
    if options.get("kw_only"):
        return cls(x=1, label="q", **more)
    return cls(1, "q", **more)


@pytest.mark.parametrize("options", OPTIONS, ids=[repr(o) for o in OPTIONS])
def test_a_class_behaves_as_the_standard_librarys(options: dict[str, Any]) -> None:
    mine, theirs = twins(**options)
    a, b = build(mine, options, weight=2.0), build(theirs, options, weight=2.0)
    if options.get("repr", True):
        assert repr(a).replace("Mine", "Theirs") == repr(b)
    assert str(inspect.signature(mine.__init__)) == str(inspect.signature(theirs.__init__))
    assert mine.__match_args__ == theirs.__match_args__
    assert (mine.__hash__ is None) == (theirs.__hash__ is None)
    assert hasattr(mine, "__slots__") == hasattr(theirs, "__slots__")
    same = build(mine, options, weight=2.0, seen={"other": 1}, hidden=5)
    assert (a == same) == (b == build(theirs, options, weight=2.0, seen={"other": 1}, hidden=5))
    assert a != build(mine, options, weight=3.0)
    if options.get("frozen"):
        assert hash(a) == hash(same) == hash(build(theirs, options, weight=2.0))
    assert a.doubled() == 2
    assert mine.scale == 3
    if not options.get("slots"):
        assert mine.label == theirs.label == "p"
    assert [(f.name, f.init, f.repr, f.compare, f.kw_only) for f in dataclasses.fields(a)] == [
        (f.name, f.init, f.repr, f.compare, f.kw_only) for f in dataclasses.fields(b)
    ]
    assert dataclasses.is_dataclass(a)
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    changed = dataclasses.replace(a, weight=4.0)
    assert (type(changed), changed.weight, changed.x) == (mine, 4.0, 1)
    for copied in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert dataclasses.astuple(copied) == dataclasses.astuple(a)


@pytest.mark.parametrize("options", OPTIONS[:3], ids=[repr(o) for o in OPTIONS[:3]])
def test_wrong_calls_fail_as_the_standard_librarys(options: dict[str, Any]) -> None:
    mine, theirs = twins(**options)
    for args, kwargs in (((), {}), ((1, "q", (), 0, 5.0), {}), ((1,), {"colour": "red"})):
        with pytest.raises(TypeError) as got:
            mine(*args, **kwargs)
        with pytest.raises(TypeError) as expected:
            theirs(*args, **kwargs)
        assert str(got.value).split("__init__")[1] == str(expected.value).split("__init__")[1]
    if options.get("frozen"):
        a = build(mine, options)
        with pytest.raises(AttributeError, match="cannot assign to field 'x'"):
            a.x = 2
        with pytest.raises(AttributeError, match="cannot delete field 'x'"):
            del a.x


def test_declarations_are_refused_as_the_standard_library_refuses_them() -> None:
    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @struct.dataclass
        class Late:
            x: int = 0
            y: int

    with pytest.raises(ValueError, match=r"mutable default .* for field x is not allowed"):

        @struct.dataclass
        class Mutable:
            x: list[int] = []  # noqa: RUF012 - the mistake under test

    with pytest.raises(TypeError, match="not supported"):
        struct.dataclass(order=True)


def test_a_record_is_declared_without_compiling_anything() -> None:
    """What makes it cheap: no method is compiled until one runs, then all at once."""

    @struct.dataclass(frozen=True)
    class Lazy:
        x: int

    spec = Lazy.__struct_spec__  # type: ignore[attr-defined]
    assert spec.generated == ["__init__", "__repr__", "__eq__", "__hash__"]
    assert not spec.compiled and Lazy.__init__.__code__.co_name == "stub"
    assert Lazy(1) == Lazy(1)
    assert spec.compiled and Lazy.__init__.__code__.co_name == "__init__"
    assert Lazy.__init__.__qualname__.endswith("Lazy.__init__")


def test_a_subclass_inherits_the_fields() -> None:
    @struct.dataclass(frozen=True)
    class Base:
        x: int

    @struct.dataclass(frozen=True)
    class Child(Base):
        y: int = 2

    assert repr(Child(1)) == f"{Child.__qualname__}(x=1, y=2)"
    with pytest.raises(TypeError, match="cannot inherit"):

        @struct.dataclass
        class Thawed(Base):
            z: int = 0


def costcalc_records() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(costcalc.__path__, "costcalc."):
        if info.name.startswith(("costcalc.tui", "costcalc.bench", "costcalc.__main__")):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            mine = isinstance(value, type) and value.__module__ == info.name
            if mine and "__struct_spec__" in value.__dict__:
                found.append(value)
    return found


def test_every_costcalc_record_has_the_standard_librarys_init() -> None:
    """Each record class of costcalc, compiled, takes the arguments the standard decorator's
    class would (its twin is made by `dataclasses.fields`' first use)."""
    records = costcalc_records()
    assert len(records) > 30
    for cls in records:
        spec = cls.__struct_spec__  # type: ignore[attr-defined]
        struct._compile(spec)
        twin = dataclasses.fields(cls) and spec.shadow
        assert str(inspect.signature(cls.__init__)) == str(inspect.signature(twin.__init__)), cls


def test_declaring_and_using_a_record_imports_neither_dataclasses_nor_inspect() -> None:
    code = (
        "import pickle\n"
        "from costcalc.core.struct import dataclass\n"
        "@dataclass(frozen=True, slots=True)\n"
        "class A:\n"
        "    x: int\n"
        "    y: str = 'y'\n"
        "assert A(1) == pickle.loads(pickle.dumps(A(1))) and hash(A(1)) and repr(A(1))\n"
    )
    assert not {"dataclasses", "inspect"} & loaded_after(code)


ROOT = Path(__file__).resolve().parents[1]


def test_the_methods_compiled_with_the_package_are_current() -> None:
    """After declaring or changing a record class, run scripts/compile_records.py."""
    script = runpy.run_path(str(ROOT / "scripts" / "compile_records.py"))
    assert script["TARGET"].read_text() == script["build"](), "run scripts/compile_records.py"


def test_a_class_takes_the_methods_compiled_ahead_only_for_its_very_source() -> None:
    from costcalc.core import struct_compiled
    from costcalc.core.compare import Comparison

    key = "costcalc.core.compare:Comparison"
    spec = Comparison.__struct_spec__  # type: ignore[attr-defined]
    source, _ = struct.method_source(spec)
    assert struct._compiled_ahead(key, source) is struct_compiled.MAKERS[key]
    changed = source.replace("def __eq__", "def __eq__ ", 1)
    assert struct._compiled_ahead(key, changed) is None
    assert struct._compiled_ahead("costcalc.core.compare:Elsewhere", source) is None
    made = struct_compiled.MAKERS[key](**struct.method_source(spec)[1])
    assert set(made) == set(spec.generated)
