"""Where records meet pydantic: each record class gets a pydantic twin with the same fields,
bounds and validators, and pydantic validates into the record.

Rule kept here: this is the only module that imports pydantic for the records, and only
`costcalc.core.record` imports it, lazily, when a value needs pydantic's word (an untrusted file
the pure check could not vouch for, an error to word, a feed row built with `checked=True`).
The twin is a frozen model with extra="forbid", so messages read as they always did
("Extra inputs are not permitted", "Input should be greater than or equal to 1").
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model
from pydantic import Field as PydanticField
from pydantic_core import core_schema

if TYPE_CHECKING:
    from costcalc.core.record import FieldInfo, Frozen

R = TypeVar("R", bound="Frozen")

_ADAPTERS: dict[type, TypeAdapter[Any]] = {}
_TWINS: dict[type, type[BaseModel]] = {}
_CONFIG = ConfigDict(frozen=True, extra="forbid")


def adapter(cls: type[R]) -> TypeAdapter[R]:
    found = _ADAPTERS.get(cls)
    if found is None:
        found = _ADAPTERS[cls] = TypeAdapter(cls)
    return found


def validate(cls: type[R], data: Any) -> R:
    """`cls` from `data` through pydantic: ValidationError when it does not fit."""
    return adapter(cls).validate_python(data)


def validate_json(cls: type[R], text: str | bytes) -> R:
    return adapter(cls).validate_json(text)


def twin(cls: type[Frozen]) -> type[BaseModel]:
    """A pydantic model with the record's fields: its type, default, description, bounds."""
    found = _TWINS.get(cls)
    if found is None:
        fields: dict[str, Any] = {
            name: (info.resolved(), PydanticField(**info.pydantic_kwargs()))
            for name, info in cls.model_fields.items()
        }
        found = create_model(cls.__name__, __config__=_CONFIG, __module__=cls.__module__, **fields)
        _TWINS[cls] = found
    return found


def record_schema(cls: type[Frozen], handler: Any) -> Any:
    """The schema pydantic uses for `cls` wherever it appears: the twin's, then the record
    made from the twin's values and its after-validators run on it (a ValueError is reported
    at the record's place, as pydantic reports a model_validator's). A record given where one
    is expected passes as it is (pydantic's revalidate_instances='never')."""
    inner = handler.generate_schema(twin(cls))

    def to_record(model: BaseModel) -> Frozen:
        state = {name: _stdlib_zone(value) for name, value in model.__dict__.items()}
        record = cls._from_state(state, frozenset(model.model_fields_set))
        for name in cls.__record_after__:
            getattr(record, name)()
        return record

    def given(value: Any, validate: Any) -> Any:
        if isinstance(value, cls):
            return value
        for name in cls.__record_before__:
            value = getattr(cls, name)(value)
        return validate(value)

    checked = core_schema.no_info_after_validator_function(to_record, inner)
    return core_schema.no_info_wrap_validator_function(given, checked)


def annotated_field_schema(info: FieldInfo, source: Any, handler: Any) -> Any:
    """`Annotated[T, Field(...)]` (a reusable bounded type): T with the same bounds."""
    return handler.generate_schema(Annotated[source, PydanticField(**info.pydantic_kwargs())])


def _stdlib_zone(value: Any) -> Any:
    """A datetime read from text carries pydantic's own time zone class: records keep the
    standard library's, so they pickle and compare without pydantic."""
    if (
        isinstance(value, datetime)
        and value.tzinfo is not None
        and type(value.tzinfo) is not timezone
    ):
        offset = value.utcoffset() or timedelta(0)
        zone = timezone.utc if not offset else timezone(offset)
        return value.replace(tzinfo=zone)
    return value
