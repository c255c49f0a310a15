"""The bundled data's prebuilt form (costcalc/data/prebuilt.pickle): it matches a full pydantic
validation of every bundled YAML file, none is left out, and a stale entry is never used."""

from __future__ import annotations

import runpy
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from costcalc.core import validation
from costcalc.core.models import PriceSnapshot
from costcalc.edge import prebuilt
from costcalc.edge.resources import decode, load_yaml_resource, parse_yaml
from costcalc.store.loaders import bundled_files

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
