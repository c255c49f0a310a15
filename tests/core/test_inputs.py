"""The input table: every input read one way, in the CLI, the app, the environment and the file."""

from __future__ import annotations

import pytest

from costcalc.core import inputs
from costcalc.core.errors import CostcalcError
from costcalc.core.models import Scenario


def parse(field: str, text: str) -> object:
    return inputs.BY_FIELD[field].parse(text)


def test_every_scenario_input_has_one_row_with_help() -> None:
    assert {i.field for i in inputs.INPUTS} == set(Scenario.__struct_fields__)
    flags = [i.flag for i in inputs.INPUTS]
    assert len(flags) == len(set(flags))
    for spec in inputs.INPUTS:
        assert spec.help and spec.label and spec.what
        assert spec.env == "COSTCALC_" + spec.flag[2:].upper().replace("-", "_")


def test_numbers_read_the_way_people_write_them() -> None:
    assert inputs.number("$2,200", "price") == 2200
    assert inputs.number("1,234,567.5", "price") == 1234567.5
    assert inputs.number("  ", "price") is None
    assert inputs.number("1e6", "items") == 1e6
    assert parse("run_hours", "") is None
    assert parse("psu_efficiency", "90%") == pytest.approx(0.9)
    assert parse("utilisation", "15 %") == pytest.approx(0.15)


@pytest.mark.parametrize("text", ["0.15", "15%", "15", "15 %"])
def test_one_rule_for_a_share(text: str) -> None:
    assert parse("utilisation", text) == pytest.approx(0.15)


@pytest.mark.parametrize(
    ("field", "text", "needle"),
    [
        ("desktop_price_usd", "-1", "desktop price cannot be negative"),
        ("run_hours", "0", "run hours must be at least 0.001"),
        ("cloud_prices", "0,5", "decimal point"),
        ("usd_per_kwh", "inf", "finite"),
        ("usd_per_kwh", "cheap", "electricity price must be a number"),
        ("usd_per_kwh", "0,12", "write 0.12 with a decimal point"),
        ("desktop_price_usd", "2,5", "write 2.5 with a decimal point"),
        ("usd_per_kwh", "2000", "must be at most 1,000"),
        ("horizon_years", "50", "must be at most 20"),
        ("gpu_count", "17", "must be at most 16"),
        ("gpu_count", "two", "whole number"),
        ("run_hours", "1e308", "must be at most"),
        ("psu_efficiency", "150%", "[50%, 100%]"),
        ("utilisation", "1.7", "did you mean 1.7%?"),
        ("utilisation", "0", "[0.1%, 100%]"),
        ("utilisation", "150", "a share like 0.15 or 15%"),
        ("utilisation", "lots", "a share like 0.15 or 15%"),
        ("resale_share", "100%", "[0%, 100%)"),
        ("kind", "lstm", "one of cnn, transformer, rnn, generic"),
        ("dtype", "fp61", "did you mean fp16?"),
        ("always_on", "maybe", "yes or no"),
        ("cloud_prices", "2, -1", "cloud price cannot be negative"),
    ],
)
def test_bad_values_say_what_a_good_one_looks_like(field: str, text: str, needle: str) -> None:
    with pytest.raises(CostcalcError) as caught:
        parse(field, text)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_bounds_come_from_the_scenario_model() -> None:
    assert inputs.bounds("utilisation") == (0.001, True, 1.0, True)
    assert inputs.bounds("gpu_count") == (1.0, True, 16.0, True)


def test_lists_switches_and_choices() -> None:
    assert parse("cloud_prices", "2.14, 3") == (2.14, 3.0)
    assert parse("cloud_prices", "1,500") == (1500.0,)
    assert parse("always_on", "yes") is True and parse("always_on", "off") is False
    assert parse("dtype", "BF16") == "bf16"
    assert parse("providers", "aws-spot, paperspace") == ("aws-spot", "paperspace")


def test_values_show_as_typed_never_in_e_notation() -> None:
    assert inputs.BY_FIELD["items_per_run"].show(1e6) == "1,000,000"
    assert inputs.BY_FIELD["utilisation"].show(0.6) == "60%"
    assert inputs.BY_FIELD["usd_per_kwh"].show(0.12) == "0.12"
    assert inputs.BY_FIELD["cloud_prices"].show((2.14, 3.0)) == "2.14, 3"
    for spec in inputs.INPUTS:  # what is shown reads back as the same value
        value = getattr(Scenario(utilisation=0.35, items_per_run=1e6, run_hours=2.5), spec.field)
        if value not in (None, ()):
            assert spec.parse(spec.show(value)) == value


def test_layers_later_wins_and_a_new_gpu_drops_the_old_price() -> None:
    saved = {"gpu": "rtx3090", "desktop_price_usd": 2200.0, "utilisation": 0.6}
    assert inputs.merge(saved, {"utilisation": 0.3})["utilisation"] == 0.3
    assert inputs.merge(saved, {"gpu": "rtx3090"})["desktop_price_usd"] == 2200.0
    assert "desktop_price_usd" not in inputs.merge(saved, {"gpu": "rtx4090"})
    both = inputs.merge(saved, {"gpu": "rtx4090", "desktop_price_usd": 3000.0})
    assert both["desktop_price_usd"] == 3000.0


def test_the_environment_is_a_layer() -> None:
    env = {"COSTCALC_UTIL": "35%", "COSTCALC_REGION": "DE", "COSTCALC_ALWAYS_ON": "1"}
    assert inputs.env_layer(env) == {"utilisation": 0.35, "home_region": "DE", "always_on": True}
    with pytest.raises(CostcalcError, match="in the environment: utilisation"):
        inputs.env_layer({"COSTCALC_UTIL": "lots"})


REACHES = {
    "gpu_count": ("desktop", 2),
    "gpu_watts": ("desktop", 321.0),
    "system_watts": ("desktop", 123.0),
    "idle_watts": ("desktop", 45.0),
    "utilisation": ("assumptions", 0.4),
    "usd_per_kwh": ("assumptions", 0.3),
    "psu_efficiency": ("assumptions", 0.9),
    "always_on": ("assumptions", True),
    "horizon_years": ("assumptions", 4.0),
    "resale_share": ("assumptions", 0.25),
    "embodied": ("assumptions", True),
    "run_hours": ("workload", 12.0),
    "items_per_run": ("workload", 1000.0),
    "memory_gb": ("workload", 20.0),
    "kind": ("workload", "transformer"),
}
"""Inputs that the engine reads from its own records, and the record each lands in."""


def test_an_input_keeps_its_name_from_the_flag_to_the_engine() -> None:
    """One name per input (issue 38): the Scenario's field (the settings key, `--json`'s
    inputs.scenario) is the field of the record the engine reads (`--json`'s inputs.desktop,
    inputs.assumptions, inputs.workload), with the value given."""
    from datetime import datetime, timezone

    from costcalc.core.scenario import evaluate
    from costcalc.store.loaders import load_app_data

    values = {name: value for name, (_, value) in REACHES.items()}
    scenario = Scenario(gpu="rtx3090", **values)  # type: ignore[arg-type]
    calc = evaluate(scenario, load_app_data(), datetime(2026, 11, 28, tzinfo=timezone.utc))
    for name, (record, value) in REACHES.items():
        assert getattr(getattr(calc, record), name) == value, (record, name)
