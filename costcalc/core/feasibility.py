"""Does an n-GPU desktop physically work? Slots, cooling, power supply and the wall circuit.

Rule kept here: pure, and every verdict comes with its reason in words ("4x GeForce RTX 4090:
needs 12 slots ..."). A check says yes, no, or "not on file" (None) when a figure is missing:
it never guesses a slot width or a cooler. A build fits when no check says no and none is
unknown; one that does not fit is still described, so the user sees why.

The four checks (the assumed board, the margins and the limits come from desktop_builds.yaml):
- slots: n cards of width w start on the board's slots and end within the case's positions;
- cooling: passive cards need a server; open-air cards need a free slot above the next card;
- PSU: the DC load plus the headroom within the largest PSU sold for the circuit's voltage;
- circuit: the wall draw (the DC load through the PSU's efficiency) within the circuit's
  continuous limit.
"""

from __future__ import annotations

import math
from typing import Literal

from msgspec import Struct

from costcalc.core.hardware import CardFacts, Circuit, DesktopHardware
from costcalc.core.models import GpuSpec

CheckName = Literal["slots", "cooling", "psu", "circuit"]


class Check(Struct, frozen=True):
    name: CheckName
    ok: bool | None
    """None: a figure the check needs is not on file."""
    detail: str
    need: str = ""
    """A failing check's need in a few words ('12 slots', 'a 2,500 W PSU'): the one line that
    says why there is no Buy joins them (costcalc.core.decision); '' when the check passes or is
    left open."""


class Feasibility(Struct, frozen=True):
    checks: tuple[Check, ...]
    slots_needed: int | None
    dc_load_w: float
    psu_needed_w: float
    psu_max_w: float | None
    wall_w: float
    circuit: Circuit | None

    @property
    def fits(self) -> bool | None:
        if any(c.ok is False for c in self.checks):
            return False
        return None if any(c.ok is None for c in self.checks) else True

    @property
    def failed(self) -> str | None:
        """The checks that say no, in one sentence: 'Does not work as a desktop: ...'; None
        when none does (a check left open is not a failure)."""
        no = [c.detail for c in self.checks if c.ok is False]
        return f"Does not work as a desktop: {'; '.join(no)}." if no else None

    @property
    def needs(self) -> tuple[str, ...]:
        """What the failing checks say the build needs, in the order of the checks."""
        return tuple(c.need for c in self.checks if c.ok is False and c.need)

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why it does not fit (or cannot be said to), in the order of the checks."""
        return tuple(c.detail for c in self.checks if c.ok is False) + tuple(
            c.detail for c in self.checks if c.ok is None
        )


def check_build(
    spec: GpuSpec,
    card: CardFacts | None,
    gpu_count: int,
    hw: DesktopHardware,
    *,
    gpu_watts: float,
    system_watts: float,
    psu_efficiency: float,
    circuit: Circuit | None,
) -> Feasibility:
    """All four checks of `gpu_count` x `spec` in the assumed workstation on `circuit`."""
    dc_load_w = gpu_watts * gpu_count + system_watts
    psu_needed_w = dc_load_w * (1 + hw.psus.headroom)
    wall_w = dc_load_w / psu_efficiency
    psu = hw.largest_psu(circuit.voltage_v) if circuit is not None else None
    slots, needed = _slots(spec, card, gpu_count, hw)
    cooling = (
        Check(
            "cooling", False, "cooled by its server's heat sinks and fans", "a server's heat sinks"
        )
        if spec.form_factor == "SXM"
        else _cooling(card, gpu_count, hw)
    )
    return Feasibility(
        checks=(
            slots,
            cooling,
            _psu(dc_load_w, psu_needed_w, psu.rated_w if psu else None, circuit, hw),
            _circuit(wall_w, circuit),
        ),
        slots_needed=needed,
        dc_load_w=dc_load_w,
        psu_needed_w=psu_needed_w,
        psu_max_w=psu.rated_w if psu else None,
        wall_w=wall_w,
        circuit=circuit,
    )


def card_width(card: CardFacts | None) -> int | None:
    """Whole slots a card blocks: a 2.5-slot card blocks three."""
    return math.ceil(card.slots) if card is not None and card.slots is not None else None


def span(width: int, gpu_count: int, gap: int) -> tuple[int, int]:
    """(first slot of the last card, last position it covers), cards packed from slot 1."""
    last_start = 1 + (gpu_count - 1) * (width + gap)
    return last_start, last_start + width - 1


def fits_in(hw: DesktopHardware, width: int, gpu_count: int, gap: int) -> bool:
    last_start, last_end = span(width, gpu_count, gap)
    return last_start <= hw.board.board_slots and last_end <= hw.board.case_positions


def _room(hw: DesktopHardware) -> str:
    b = hw.board
    return f"the board has {b.board_slots} ({b.case_positions} with the last card overhanging)"


def _slots(
    spec: GpuSpec, card: CardFacts | None, n: int, hw: DesktopHardware
) -> tuple[Check, int | None]:
    if spec.form_factor == "SXM":
        why = "an SXM module: it needs an HGX server board"
        return Check("slots", False, why, "an HGX server board"), None
    width = card_width(card)
    if width is None:
        why = f" ({card.design})" if card is not None else ""
        return Check("slots", None, f"slot width not on file{why}"), None
    needed = width * n
    if not fits_in(hw, width, n, 0):
        why = f"needs {needed} slots ({n} x {width}-slot), {_room(hw)}"
        return Check(
            "slots", False, why, f"{needed} slots (the board has {hw.board.board_slots})"
        ), needed
    return Check("slots", True, f"{n} x {width}-slot in {hw.board.name}"), needed


def _cooling(card: CardFacts | None, n: int, hw: DesktopHardware) -> Check:
    if card is None or card.cooler is None:
        return Check("cooling", None, "cooler type not on file")
    if card.cooler == "passive":
        return Check(
            "cooling",
            False,
            "passive data-centre card: needs a server's airflow, not a desktop",
            "a server's ducted airflow (passive cooler)",
        )
    width = card_width(card)
    if card.cooler == "blower" or n == 1 or width is None or not fits_in(hw, width, n, 0):
        # (cards that do not fit side by side are the slot check's "no" already)
        return Check("cooling", True, f"{card.cooler} cooler")
    gap = hw.cooling.open_air_gap_slots
    if fits_in(hw, width, n, gap):
        return Check("cooling", True, f"open-air coolers, {gap} free slot between cards")
    needed = width * n + gap * (n - 1)
    return Check(
        "cooling",
        False,
        f"open-air coolers need {gap} free slot between cards: {needed} slots, {_room(hw)}",
        f"{needed} slots to space its open-air coolers",
    )


def _psu(
    dc_w: float,
    needed_w: float,
    largest_w: float | None,
    circuit: Circuit | None,
    hw: DesktopHardware,
) -> Check:
    if circuit is None:
        return Check("psu", None, "no wall circuit known for the region (give --circuit)")
    volts = f"{circuit.voltage_v:g} V"
    if largest_w is None:
        return Check("psu", None, f"no PSU on file rated for {volts} input")
    load = f"{dc_w:,.0f} W load + {hw.psus.headroom:.0%} headroom"
    if needed_w <= largest_w:
        return Check("psu", True, f"needs a {needed_w:,.0f} W PSU ({load})")
    return Check(
        "psu",
        False,
        f"needs a {needed_w:,.0f} W PSU ({load}): the largest sold for {volts} "
        f"is {largest_w:,.0f} W",
        f"a {needed_w:,.0f} W PSU (the largest for {volts} is {largest_w:,.0f} W)",
    )


def _circuit(wall_w: float, circuit: Circuit | None) -> Check:
    if circuit is None:
        return Check("circuit", None, "no wall circuit known for the region (give --circuit)")
    limit = f"{circuit.continuous_w:,.0f} W continuous"
    if wall_w <= circuit.continuous_w:
        return Check(
            "circuit", True, f"draws {wall_w:,.0f} W: within one {circuit.label} ({limit})"
        )
    return Check(
        "circuit",
        False,
        f"draws {wall_w:,.0f} W: over one {circuit.label} ({limit})",
        f"more than one {circuit.label}",
    )
