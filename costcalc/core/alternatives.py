"""The nearest builds that work, for a desktop with no Buy: what it would take to have one.

Rules kept here:
- pure, and no rule of its own: a build works when costcalc.core.feasibility says it fits (every
  check yes, none left open) and each GPU holds the job's memory; prices and speeds come from the
  functions the caller hands in (the default desktop price, the predictor and the multi-GPU
  scaling `scenario.evaluate` uses);
- near means keeping what the user asked for: first the same number of GPUs (the same build on a
  bigger circuit of the same kind, else the cheapest other card with enough memory per GPU, on
  the user's circuit before a bigger one), then fewer of the same card on the user's circuit,
  then, for a passive card, the same cards in a server. Each names what it takes, in words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from msgspec import Struct

from costcalc.core.catalog import GpuCatalog
from costcalc.core.feasibility import Feasibility, check_build
from costcalc.core.hardware import CardFacts, Circuit, DesktopHardware
from costcalc.core.models import GpuSpec

PriceFn = Callable[[GpuSpec, int], float | None]
"""The default price of n of this GPU with their base system; None: the card has no price."""
ThroughputFn = Callable[[GpuSpec, int], float]
"""The throughput of n of this GPU relative to the build asked about."""


class Alternative(Struct, frozen=True):
    """A build that works, near the one asked about."""

    gpu: str
    """Catalog key of its GPU."""
    gpu_count: int
    circuit: str | None
    """The wall circuit it was checked on (its key); None: a server, not a desktop."""
    price_usd: float | None
    """Up front: the cards and their base system (None: no dated price on file)."""
    relative_speed: float
    """Its throughput relative to the build asked about."""
    takes: str
    """What it would take, in words: '2x RTX 4090 on your 120 V/15 A circuit'."""


class Asked(Struct, frozen=True):
    """The build asked about, as the alternatives need it."""

    spec: GpuSpec
    gpu_count: int
    gpu_watts: float
    price_usd: float | None
    need_gb: float
    """Memory each GPU must hold: the job's, else the desktop GPU's."""
    fit: Feasibility


def nearest_builds(
    asked: Asked,
    hw: DesktopHardware,
    catalog: GpuCatalog,
    *,
    psu_efficiency: float,
    rest_w: Callable[[int], float],
    price_of: PriceFn,
    throughput: ThroughputFn,
) -> tuple[Alternative, ...]:
    """At most three builds that work, nearest first: one with as many GPUs, one with fewer of
    the same card, and the same cards in a server (a passive card); none without a circuit."""
    here = asked.fit.circuit
    if here is None:
        return ()
    card = hw.card(asked.spec.key)

    def works(
        spec: GpuSpec, facts: CardFacts | None, n: int, gpu_watts: float, on: Circuit
    ) -> bool:
        found = check_build(
            spec,
            facts,
            n,
            hw,
            gpu_watts=gpu_watts,
            system_watts=rest_w(n),
            psu_efficiency=psu_efficiency,
            circuit=on,
        )
        return found.fits is True

    n = asked.gpu_count
    holds = asked.spec.memory_gb >= asked.need_gb
    bigger = bigger_circuits(hw, here)
    found: list[Alternative] = []
    same = next(
        (c for c in bigger if holds and works(asked.spec, card, n, asked.gpu_watts, c)), None
    )
    if same is not None:
        takes = (
            f"the same {n}x {asked.spec.short_name} on a {same.label}{psu_words(asked, hw, same)}"
        )
        found.append(Alternative(asked.spec.key, n, same.key, asked.price_usd, 1.0, takes))
    else:
        other = other_card(asked, hw, catalog, here, bigger, price_of, works)
        if other is not None:
            spec, facts, on = other
            mem = f"{spec.memory_gb:g} GB, {facts.cooler} cooler"
            where = f"your {on.label}" if on is here else f"a {on.label}"
            takes = f"{n}x {spec.short_name} ({mem}) on {where}"
            found.append(
                Alternative(spec.key, n, on.key, price_of(spec, n), throughput(spec, n), takes)
            )
    fewer = next(
        (
            m
            for m in range(n - 1, 0, -1)
            if holds and works(asked.spec, card, m, asked.gpu_watts, here)
        ),
        None,
    )
    if fewer is not None:
        takes = f"{fewer}x {asked.spec.short_name} on your {here.label}"
        found.append(
            Alternative(
                asked.spec.key,
                fewer,
                here.key,
                price_of(asked.spec, fewer),
                throughput(asked.spec, fewer),
                takes,
            )
        )
    if card is not None and card.cooler == "passive" and holds:
        cards = f"{n}x {asked.spec.short_name}" if n > 1 else asked.spec.short_name
        takes = f"the {cards} in a GPU server with ducted airflow"
        found.append(Alternative(asked.spec.key, n, None, None, 1.0, takes))
    return tuple(found)


def bigger_circuits(hw: DesktopHardware, here: Circuit) -> list[Circuit]:
    """Circuits of the same kind as `here` (the same key prefix: 'na-') that carry more,
    smallest first: what an electrician can add where the user lives."""
    kind = here.key.split("-", 1)[0] + "-"
    return sorted(
        (c for c in hw.circuits if c.key.startswith(kind) and c.continuous_w > here.continuous_w),
        key=lambda c: c.continuous_w,
    )


def psu_words(asked: Asked, hw: DesktopHardware, on: Circuit) -> str:
    """' and a 1,750 W PSU' when the build needs a PSU larger than any sold for the user's
    voltage (one rated for the new circuit's); '' otherwise."""
    need = asked.fit.psu_needed_w
    largest = asked.fit.psu_max_w
    if largest is not None and need <= largest:
        return ""
    return f" and a {need:,.0f} W PSU rated for {on.voltage_v:g} V"


def other_card(
    asked: Asked,
    hw: DesktopHardware,
    catalog: GpuCatalog,
    here: Circuit,
    bigger: list[Circuit],
    price_of: PriceFn,
    works: Callable[[GpuSpec, CardFacts | None, int, float, Circuit], bool],
) -> tuple[GpuSpec, CardFacts, Circuit] | None:
    """The cheapest other card with enough memory per GPU, a fan of its own and a price, that
    works at the same count: on the user's circuit if one does, else on a bigger one."""
    n = asked.gpu_count
    cards = sorted(priced_cards(asked, hw, catalog, price_of), key=lambda c: c[0])
    for circuit in (here, *bigger):
        for _, spec, facts in cards:
            if works(spec, facts, n, spec.board_power_w, circuit):
                return spec, facts, circuit
    return None


def priced_cards(
    asked: Asked, hw: DesktopHardware, catalog: GpuCatalog, price_of: PriceFn
) -> Iterator[tuple[float, GpuSpec, CardFacts]]:
    for facts in hw.cards:
        if facts.gpu == asked.spec.key or facts.cooler in (None, "passive"):
            continue
        if facts.gpu not in catalog:
            continue
        spec = catalog.get(facts.gpu)
        price = price_of(spec, asked.gpu_count)
        if spec.memory_gb >= asked.need_gb and price is not None:
            yield price, spec, facts
