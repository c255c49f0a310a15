"""The physical fit rules on the bundled data: slots, cooling, PSU and the wall circuit."""

from __future__ import annotations

from typing import Any

import pytest

from costcalc.core.feasibility import check_build
from costcalc.core.hardware import DesktopHardware
from costcalc.core.scenario import AppData
from costcalc.store.bundled import load_desktop_hardware
from costcalc.store.loaders import load_app_data


@pytest.fixture(scope="module")
def data() -> AppData:
    return load_app_data()


@pytest.fixture(scope="module")
def hw() -> DesktopHardware:
    return load_desktop_hardware()


def fit(data: AppData, hw: DesktopHardware, gpu: str, n: int, circuit: str = "na-15a") -> Any:
    spec = data.catalog.get(gpu)
    return check_build(
        spec,
        hw.card(gpu),
        n,
        hw,
        gpu_watts=spec.board_power_w,
        system_watts=100 if n <= 2 else 200,
        psu_efficiency=0.9,
        circuit=hw.circuit(circuit),
    )


def test_two_4090s_fit_with_a_gap_three_do_not(data: AppData, hw: DesktopHardware) -> None:
    two = fit(data, hw, "rtx4090", 2)
    assert two.fits is True and two.wall_w == pytest.approx(1000 / 0.9)
    three = fit(data, hw, "rtx4090", 3, "eu-16a")
    assert three.fits is False
    assert three.reasons[0].startswith("needs 9 slots (3 x 3-slot)")


def test_four_blowers_fit_the_board_but_not_one_us_circuit(
    data: AppData, hw: DesktopHardware
) -> None:
    us = fit(data, hw, "rtx6000_ada", 4)
    slots, cooling, psu, wall = (c.ok for c in us.checks)
    assert (slots, cooling, psu, wall) == (True, True, False, False)
    assert "needs a 1,750 W PSU" in us.reasons[0] and "120 V is 1,600 W" in us.reasons[0]
    assert us.reasons[1] == "draws 1,556 W: over one 120 V/15 A circuit (1,440 W continuous)"
    assert fit(data, hw, "rtx6000_ada", 4, "eu-16a").fits is True
    assert fit(data, hw, "rtx6000_ada", 4, "na-20a").fits is False  # the PSU, not the wall


def test_open_air_cards_need_a_free_slot_between_them(data: AppData, hw: DesktopHardware) -> None:
    four = fit(data, hw, "rtx5090", 4, "eu-16a")
    slots, cooling = four.checks[0], four.checks[1]
    assert slots.ok is True  # four 2-slot cards fit side by side ...
    assert cooling.ok is False and "free slot between cards: 11 slots" in cooling.detail
    assert fit(data, hw, "rtx5090", 3, "eu-16a").checks[1].ok is True  # ... three with gaps


def test_server_cards_are_not_desktop_builds(data: AppData, hw: DesktopHardware) -> None:
    passive = fit(data, hw, "l40s", 1)
    assert passive.fits is False and "needs a server's airflow" in passive.reasons[0]
    sxm = fit(data, hw, "a100_sxm4_80gb", 1)
    assert sxm.fits is False and sxm.reasons[0] == "an SXM module: it needs an HGX server board"


def test_a_missing_figure_is_said_never_guessed(data: AppData, hw: DesktopHardware) -> None:
    partner = fit(data, hw, "rtx5070ti", 2)
    assert partner.fits is None
    assert partner.reasons[0] == "slot width not on file (partner cards only, no Founders Edition)"
    japan = fit(data, hw, "rtx4090", 1, "jp-15a")
    assert japan.fits is None and "no PSU on file rated for 100 V input" in japan.reasons
