"""The bundled data's prebuilt form (costcalc/data/prebuilt.pickle): it matches a full pydantic
validation of every bundled YAML file, none is left out, and a stale entry is never used; the
whole AppData prebuilt from them is the one read from the files, gives the same answers, and is
used only when no file of the user's changes it."""

from __future__ import annotations

import runpy
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from costcalc.cli import main
from costcalc.core import validation
from costcalc.core.models import CloudOffer, PriceSnapshot
from costcalc.core.offers import LoadedSnapshot, PriceBook
from costcalc.core.record import Frozen
from costcalc.core.scenario import AppData
from costcalc.edge import prebuilt
from costcalc.edge.resources import decode, load_yaml_resource, parse_yaml
from costcalc.providers import registry
from costcalc.store import loaders
from costcalc.store.loaders import (
    BundledSnapshot,
    bundled_app_data,
    bundled_files,
    load_app_data,
    read_app_data,
)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = runpy.run_path(str(ROOT / "scripts" / "prebuild_data.py"))
build: Callable[[], bytes] = SCRIPT["build"]


def test_the_shipped_prebuilt_form_is_current() -> None:
    """After a change to a bundled file or a record class, run scripts/prebuild_data.py."""
    assert SCRIPT["TARGET"].read_bytes() == build(), "run scripts/prebuild_data.py"


def test_every_bundled_yaml_file_is_prebuilt() -> None:
    listed = [f"{package}/{name}" for package, name, _ in bundled_files()]
    assert len(listed) == len(set(listed))
    for package in ("costcalc.data", "costcalc.data.prices"):
        for entry in resources.files(package).iterdir():
            if entry.name.endswith(".yaml"):
                assert f"{package}/{entry.name}" in listed


@pytest.mark.parametrize(
    ("package", "name", "model"), [pytest.param(*f, id=f[1]) for f in bundled_files()]
)
def test_a_bundled_file_loads_from_its_prebuilt_form_as_pydantic_reads_it(
    package: str, name: str, model: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record a run gets equals pydantic's reading of the file, and so does the pure check's
    (which a user's copy of such a file goes through)."""
    where = f"{package}/{name}"
    data = parse_yaml(decode(resources.files(package).joinpath(name).read_bytes(), where), where)
    expected = validation.validate(model, data)

    def no_parsing(*args: object) -> None:
        raise AssertionError(f"{where} was parsed")

    monkeypatch.setattr("costcalc.edge.resources.load_yaml_text", no_parsing)
    assert load_yaml_resource(package, name, model) == expected
    monkeypatch.setattr(validation, "validate", no_parsing)
    assert model.model_validate(data) == expected


def test_an_entry_for_other_text_or_another_model_is_not_used() -> None:
    text = (ROOT / "prices" / "runpod.yaml").read_bytes()
    key = prebuilt.digest(text)
    assert prebuilt.prebuilt("costcalc.data.prices", "runpod.yaml", key, PriceSnapshot)
    edited = prebuilt.digest(text + b"\n# edited\n")
    assert prebuilt.prebuilt("costcalc.data.prices", "runpod.yaml", edited, PriceSnapshot) is None
    from costcalc.core.models import FxRates

    assert prebuilt.prebuilt("costcalc.data.prices", "runpod.yaml", key, FxRates) is None


# --------------------------------------------------------------------------- the whole AppData


def same(a: Any, b: Any, where: str = "data") -> None:
    """`a` and `b` hold the same values all the way down: records field by field, other
    objects attribute by attribute (an index's dicts included)."""
    if isinstance(a, BundledSnapshot):  # a bundled snapshot whose rows are read when asked for
        assert type(b) is LoadedSnapshot and "snapshot" not in vars(a), where
        for name in ("provider", "snapshot", "origin", "warning"):
            same(getattr(a, name), getattr(b, name), f"{where}.{name}")
        return
    assert type(a) is type(b), where
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (set, frozenset)):
        assert a == b, where
    elif isinstance(a, Frozen):  # the fields (which were given is not part of a stored record)
        same(a.__getstate__(), b.__getstate__(), where)
    elif hasattr(a, "__dict__") or hasattr(a, "__slots__"):
        names = [*getattr(a, "__dict__", {}), *getattr(type(a), "__slots__", ())]
        assert names == [*getattr(b, "__dict__", {}), *getattr(type(b), "__slots__", ())], where
        for name in names:
            same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    else:
        assert a == b or (a != a and b != b), where  # NaN is NaN


def test_the_prebuilt_app_data_is_the_app_data_read_from_the_files() -> None:
    fast = bundled_app_data()
    assert fast is not None
    loaders.clear_caches()  # as a fresh process reads them (a catalog builds its name index late)
    slow = read_app_data(None)
    assert slow.book.offers and slow.book.labels  # a comparison of something
    same(fast, slow)


SCENARIOS = [
    ["quick", "--gpu", "rtx3090", "--util", "0.15"],
    ["quick", "--gpu", "rtx4090", "--util", "40%", "--region", "DE", "--currency", "EUR"],
    ["quick", "--gpu", "h100", "--util", "0.6", "--run-hours", "12", "--explain", "--wide"],
    ["quick", "--gpu", "a100", "--util", "0.3", "--json", "--all"],
    ["quick", "--gpu", "rtx3090", "--gpu-count", "2", "--util", "5%", "--brief"],
]


@pytest.mark.parametrize("argv", SCENARIOS, ids=[" ".join(a[1:5]) for a in SCENARIOS])
def test_quick_answers_the_same_from_the_prebuilt_app_data(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COSTCALC_NOW", "2026-11-26T12:00:00+00:00")
    used: list[object] = []
    monkeypatch.setattr(loaders, "bundled_app_data", lambda: used.append(bundled()) or used[-1])
    assert main(argv) == 0
    fast = capsys.readouterr()
    monkeypatch.setattr(loaders, "bundled_app_data", lambda: None)
    assert main(argv) == 0
    slow = capsys.readouterr()
    assert used and used[0] is not None  # the first run did use it
    assert (fast.out, fast.err) == (slow.out, slow.err)
    assert fast.out.strip()


bundled = loaders.bundled_app_data


@pytest.mark.parametrize(
    ("where", "usable"),
    [
        ("data/snapshots/runpod.yaml", False),  # a refreshed snapshot replaces a bundled one
        ("data/snapshots/fx.yaml", False),  # and refreshed exchange rates the bundled ones
        ("config/prices.yaml", False),  # the user's own prices change the offers
        ("data/snapshots/notes.txt", True),  # a file no loader reads changes nothing
        ("config/config.yaml", True),  # saved settings are the scenario's, not the data's
    ],
)
def test_the_prebuilt_app_data_is_used_only_when_no_file_of_the_users_changes_it(
    where: str, usable: bool, isolated_home: Path
) -> None:
    assert bundled() is not None
    path = isolated_home / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# anything\n")
    assert (bundled() is not None) is usable
    if not usable:  # and then the files are read, as before
        assert isinstance(load_app_data(), AppData)


def test_a_stale_prebuilt_app_data_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Built from other bytes of any bundled file, or with a class that has since changed its
    fields, or for another list of providers: the files are read instead."""
    assert bundled() is not None
    real_bytes = prebuilt.package_bytes

    def edited(package: str, name: str) -> bytes:
        data = real_bytes(package, name)
        return data + b"\n# edited\n" if name == "carbon.yaml" else data

    def one_digit(package: str, name: str) -> bytes:  # a price edited, the length the same
        data = real_bytes(package, name)
        if name != "runpod.yaml":
            return data
        at = data.index(b"usd_per_hour: ") + len(b"usd_per_hour: ")
        digit = b"1" if data[at : at + 1] != b"1" else b"2"
        return data[:at] + digit + data[at + 1 :]

    for change in (edited, one_digit):
        with monkeypatch.context() as patch:
            patch.setattr(prebuilt, "package_bytes", change)
            assert bundled() is None
    assert bundled() is not None
    spec = PriceBook.__struct_spec__  # type: ignore[attr-defined]
    with monkeypatch.context() as patch:  # the book has gained a field since
        patch.setattr(spec, "fields", (*spec.fields, spec.fields[0].named("more", "int", False)))
        assert bundled() is None
    with monkeypatch.context() as patch:  # an offer's fields have changed since
        patch.setattr(CloudOffer, "__record_signature__", "changed", raising=False)
        assert bundled() is None
    with monkeypatch.context() as patch:
        patch.setitem(registry.MODULES, "newcloud", ".newcloud")
        assert bundled() is None
    assert bundled() is not None
