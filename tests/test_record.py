"""Frozen records (costcalc.core.record): they behave as the pydantic models they replace, and the
pure check never accepts what pydantic refuses nor reads a value differently."""

from __future__ import annotations

import math
import pickle
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from costcalc.core import validation
from costcalc.core.models import CloudOffer, DesktopDefaults, GpuSpec, OfferRow, PriceSnapshot
from costcalc.core.predict import Split
from costcalc.core.record import _SLOW, FrozenRecordError, _fast
from costcalc.core.scenario import Scenario
from costcalc.store.settings import Settings

NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)


def offer(**changes: Any) -> CloudOffer:
    values: dict[str, Any] = {
        "provider": "runpod",
        "name": "1x A100",
        "region": "global",
        "gpu": "a100_sxm4_80gb",
        "usd_per_hour": 1.5,
        "fetched_at": NOW,
        "source": "test",
    }
    return CloudOffer(**{**values, **changes})


def pydantic_says(cls: type[Any], data: Any) -> Any:
    """What pydantic alone makes of `data` (the twin), or the ValidationError."""
    try:
        return validation.validate(cls, data)
    except ValidationError as exc:
        return exc


# --------------------------------------------------------------------------- as pydantic did


def test_building_a_record_validates_it_with_pydantics_words() -> None:
    with pytest.raises(ValidationError) as caught:
        OfferRow(name="x", region="y", gpu="t4", gpu_count=0, usd_per_hour=1.0)
    first = caught.value.errors()[0]
    assert (first["loc"], first["msg"]) == (
        ("gpu_count",),
        "Input should be greater than or equal to 1",
    )
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        offer(colour="red")
    with pytest.raises(ValidationError, match="Field required"):
        CloudOffer(provider="x", name="y", region="z", gpu="t4", usd_per_hour=1, source="s")


def test_values_are_converted_as_pydantic_converts_them() -> None:
    built = offer(usd_per_hour=2, fetched_at="2026-11-20T00:00:00Z", name="A\x1b[2J100")
    assert built.usd_per_hour == 2.0 and type(built.usd_per_hour) is float
    assert built.fetched_at == NOW and built.fetched_at.tzinfo is timezone.utc
    assert built.name == "A[2J100"  # control characters never reach a terminal
    naive = offer(fetched_at=datetime(2026, 11, 20))
    assert naive.fetched_at == NOW  # naive times in data are UTC


def test_a_whole_record_check_runs_when_built_and_when_validated() -> None:
    with pytest.raises(ValueError, match="must leave a memory share"):
        Split(math=0.5, elementwise=0.3, overhead=0.3)
    with pytest.raises(ValidationError, match="must leave a memory share"):
        Split.model_validate({"math": 0.5, "elementwise": 0.3, "overhead": 0.3})
    assert Split(math=0.5, elementwise=0.3, overhead=0.1).memory == pytest.approx(0.1)


def test_records_are_frozen_values() -> None:
    one, two = offer(), offer()
    assert one == two and hash(one) == hash(two) and one is not two
    assert one != offer(usd_per_hour=1.6)
    with pytest.raises(FrozenRecordError):
        one.usd_per_hour = 3.0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(one)) == one
    assert repr(one).startswith("CloudOffer(provider='runpod', name='1x A100'")


def test_model_copy_changes_fields_without_validating_them() -> None:
    base = offer()
    changed = base.model_copy(update={"usd_per_hour": 9.0})
    assert changed.usd_per_hour == 9.0 and base.usd_per_hour == 1.5
    assert changed.model_fields_set == base.model_fields_set | {"usd_per_hour"}
    with pytest.raises(TypeError, match="no field colour"):
        base.model_copy(update={"colour": "red"})


def test_fields_set_are_the_fields_given() -> None:
    assert Scenario(utilisation=0.3).model_fields_set == {"utilisation"}
    assert Scenario.model_validate({"gpu": "rtx3090"}).model_fields_set == {"gpu"}
    assert Settings(theme="nord").scenario().model_fields_set == set(Scenario.model_fields)


def test_dumps_read_as_pydantics() -> None:
    """mode="json" as pydantic writes it: 'Z' for UTC, lists for tuples, text keys."""
    defaults = DesktopDefaults.model_validate(
        {
            "source": "s",
            "as_of": date(2026, 1, 2),
            "base_system_as_of": date(2026, 1, 2),
            "base_default": {1: "lean"},
            "base_systems": {
                "lean": {
                    1: {
                        "summary": "6 cores, 32 GB",
                        "usd": 900,
                        "parts": [
                            {
                                "category": "cpu",
                                "item": "Ryzen 5",
                                "usd": 900,
                                "observed": date(2026, 1, 2),
                                "source": "s",
                            }
                        ],
                    }
                }
            },
            "rest_of_system_w": {1: 100},
            "idle_system_w": {1: 50},
            "psu_efficiency_typical": 0.9,
            "electricity_usd_per_kwh": 0.15,
            "embodied_kgco2e_system": 300,
            "embodied_kgco2e_per_gpu": 100,
            "life_years": 4,
        }
    )
    for record in (offer(), offer(fetched_at=NOW + timedelta(microseconds=5)), defaults):
        twin = validation.twin(type(record)).model_validate(record.model_dump())
        for mode in ("python", "json"):
            assert record.model_dump(mode=mode) == twin.model_dump(mode=mode)  # type: ignore[arg-type]
        assert record.model_dump(exclude_defaults=True) == twin.model_dump(exclude_defaults=True)
        assert record.model_dump_json() == twin.model_dump_json()
        assert record.model_dump_json(indent=2) == twin.model_dump_json(indent=2)
    assert offer().model_dump(mode="json")["fetched_at"] == "2026-11-20T00:00:00Z"


def test_every_field_keeps_its_description_and_bounds() -> None:
    field = GpuSpec.model_fields["memory_gb"]
    assert field.is_required() and field.bound("gt") == 0
    assert Scenario.model_fields["utilisation"].description
    assert validation.twin(GpuSpec).model_fields["memory_gb"].metadata  # pydantic knows it too


# --------------------------------------------------------------------------- the pure check


def test_the_pure_check_takes_what_data_files_hold_and_leaves_the_rest_to_pydantic() -> None:
    row = {"name": "A6000", "region": "NY2", "gpu": "rtx_a6000", "usd_per_hour": 1}
    data = {"provider": "p", "source": "s", "fetched_at": NOW, "offers": [row]}
    found = _fast(PriceSnapshot, data)
    assert found is not _SLOW and found == pydantic_says(PriceSnapshot, data)
    assert found.offers[0].usd_per_hour == 1.0 and isinstance(found.offers, tuple)
    for wrong in ({**row, "gpu_count": 0}, {**row, "gpu_count": True}, {**row, "extra": 1}):
        assert _fast(PriceSnapshot, {**data, "offers": [wrong]}) is _SLOW
    assert _fast(PriceSnapshot, {**data, "fetched_at": "2026-11-20"}) is _SLOW  # pydantic's call


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "rtx3090", "USD", "usd", "EUR\n", "fp16", "auto", "1e3", "2026-01-01"]),
    st.text(max_size=8),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.tuples(SCALARS, SCALARS))


ACCEPTED = (
    {"utilisation": 1, "providers": ["aws-spot"], "currency": "EUR", "dtype": "auto"},
    {"gpu_count": 2, "usd_per_kwh": 0.3, "cloud_prices": (1, 2.5), "always_on": True},
    {"run_from_bench": True, "memory_gb": 24},  # an older settings file, upgraded
)


def test_the_pure_check_vouches_for_what_the_front_ends_hand_in() -> None:
    for data in ACCEPTED:
        assert _fast(Scenario, data) is not _SLOW, data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(sorted(Scenario.model_fields)), VALUES, max_size=4))
@example(ACCEPTED[0])
@example(ACCEPTED[1])
@example(ACCEPTED[2])
def test_the_pure_check_never_disagrees_with_pydantic(data: dict[str, Any]) -> None:
    """Whatever a settings file or a front end hands in: the pure check either defers to
    pydantic or gives exactly what pydantic gives, types included."""
    fast = _fast(Scenario, data)
    if fast is _SLOW:
        return
    slow = pydantic_says(Scenario, data)
    assert not isinstance(slow, ValidationError), (data, slow)
    assert fast == slow
    for name in Scenario.model_fields:
        mine, theirs = getattr(fast, name), getattr(slow, name)
        assert type(mine) is type(theirs), name
        if isinstance(mine, float) and math.isnan(mine):
            assert math.isnan(theirs)


def test_a_record_pickles_as_its_values_and_unpickles_as_built() -> None:
    """Pickled as a tuple of values (the prebuilt form and the parse cache hold many), read back
    into a dict keyed by the class's own field names, as building one makes it: reading its
    fields is then as fast as reading a built record's (CPython 3.11 compares names by
    identity first)."""
    record = offer(spot=True)
    data = pickle.dumps(record, protocol=5)
    assert b"usd_per_hour" not in data  # no field names in the pickle
    back = pickle.loads(data)
    assert back == record and type(back) is CloudOffer
    assert list(vars(back)) == list(CloudOffer.__record_fields__)
    assert all(a is b for a, b in zip(vars(back), CloudOffer.__record_fields__, strict=True))


def test_a_record_pickled_as_a_state_dict_still_reads() -> None:
    """Parse-cache entries written before records pickled as their values hold state dicts."""
    import copyreg
    import io

    class AsBefore(pickle.Pickler):
        def reducer_override(self, obj: object) -> Any:
            if isinstance(obj, CloudOffer):
                newobj = copyreg.__newobj__  # type: ignore[attr-defined]
                return (newobj, (CloudOffer,), obj.__getstate__())
            return NotImplemented

    record = offer()
    buffer = io.BytesIO()
    AsBefore(buffer, protocol=5).dump(record)
    assert b"usd_per_hour" in buffer.getvalue()  # the old form: a dict of named fields
    back = pickle.loads(buffer.getvalue())
    assert back == record
    assert all(a is b for a, b in zip(vars(back), CloudOffer.__record_fields__, strict=True))
