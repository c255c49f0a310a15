"""The offer columns, defined once: title, width class, cell text, sort key and JSON fields.

The CLI's table, the app's DataTable and `--json` all take their columns from COLUMNS, so a
column added here appears everywhere, sorts the same everywhere, and cannot be missed in one
place (a test checks every column has a cell, a sort key and a JSON field).

Rule kept here: presentation only. Every figure comes from costcalc.core.compare; every format from
costcalc.present.display.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar

from msgspec import Struct, field

from costcalc.core.commitment import term_label
from costcalc.core.constants import CUSTOM_PROVIDER, INTERRUPTION_BUCKETS
from costcalc.core.fx import USD, Money
from costcalc.core.models import OfferResult
from costcalc.core.records import plain
from costcalc.core.staleness import is_stale_result, max_age_days
from costcalc.core.tiers import is_free
from costcalc.present import display

Width = Literal["name", "label", "figure"]
"""Width classes: a name may be cut with an ellipsis, a label is short text, a figure is a number
and is never cut."""

INF = float("inf")


class Context(Struct, frozen=True):
    """What cells need besides the result: the clock (for staleness), the unit of the
    $-per-items column, the currency, the providers' display names and one number format per
    column (`context_for` chooses them from every value in the column)."""

    now: datetime | None = None
    items_unit: int = 1
    money: Money = USD
    labels: Mapping[str, str] = field(default_factory=dict)
    """Provider display names ('AWS spot' for 'aws-spot'); the key itself when missing."""
    decimals: Mapping[str, int] = field(default_factory=dict)
    """Money columns: decimals shared by the whole column ($391 beside $2,073, not $390.95)."""
    co2_units: Mapping[str, str] = field(default_factory=dict)
    """CO2 columns: 'g', 'kg' or 't' for the whole column (0.9 kg beside 1.1 kg)."""
    price_known: bool = True
    """False when the desktop has no price: break-even is unknown, not "never"."""

    def label(self, provider: str) -> str:
        return self.labels.get(provider, provider)

    def usd(self, key: str, value: float | None) -> str:
        if key not in self.decimals:
            return display.usd(value, self.money)
        return display.usd_fixed(value, self.money, self.decimals[key])

    def co2(self, key: str, value_kg: float) -> str:
        unit = self.co2_units.get(key)
        return display.co2(value_kg) if unit is None else display.co2_in(value_kg, unit)


def items_unit(values: Sequence[float | None]) -> int:
    """The smallest unit (1, 1k, 1M, 1B items) in which the cheapest value reads as cents."""
    known = [v for v in values if v]
    if not known:
        return 1
    unit = 1
    while min(known) * unit < 0.01 and unit < 10**12:
        unit *= 1000
    return unit


def items_column_adds(items_per_run: float, unit: int) -> bool:
    """Whether $ per `unit` items says more than $ a run: not when a run is `unit` items
    (--items 1000000 and a unit of 1M), where both columns would hold the same figures."""
    return items_per_run != unit


def unit_text(unit: int) -> str:
    return {1: "item", 1000: "1k items", 10**6: "1M items", 10**9: "1B items"}.get(
        unit, f"{unit:,} items"
    )


class Column(Struct, frozen=True):
    """One offer column: what it shows, and where and how wide each table shows it.

    Places (`priority`, `cli`, `cli_run`, `app`) are numbers that sort: the tables take the
    columns in that order, so a new column slots in between two others (a place of 45 between
    40 and 50) without touching them."""

    key: str
    title: str
    width: Width
    cell: Callable[[OfferResult, Context], str]
    sort: Callable[[OfferResult], Any]
    json: Callable[[OfferResult], dict[str, Any]]
    """The JSON fields this column contributes to every offer in `--json`."""
    priority: int
    """Which columns a narrow table keeps: the lowest first (the app and the CLI drop from the
    highest)."""
    app: int
    """Place in the app's offers table, left to right (the width decides which show)."""
    room: int
    """The least width the app gives it (its widest cell on screen may widen it): figures never
    jump as the cursor moves."""
    cli: int | None = None
    """Place in the CLI's table when no run is given; None: not in it."""
    cli_run: int | None = None
    """Place in the CLI's table of what one run takes and costs; None: not in it."""
    name_limit: int | None = None
    """The widest the app lets this column grow (long names are cut with an ellipsis)."""
    when: Literal["always", "run", "items", "batch", "target"] = "always"
    """'run': only when a run is given; 'items': when items per run are given too; 'batch':
    only when a bench gave the largest batch; 'target': only when each GPU runs its own batch
    (--target-batch)."""
    heading: Callable[[Context], str] | None = None
    """A title that depends on the context (the unit of $ per items)."""
    blank_when_unfit: bool = False
    """A figure that means nothing for a GPU that cannot hold the job ('does not fit' or '-')."""

    @property
    def numeric(self) -> bool:
        return self.width == "figure"

    def title_in(self, ctx: Context) -> str:
        title = self.heading(ctx) if self.heading is not None else self.title
        return title.replace("$", ctx.money.symbol.strip())


def _age(r: OfferResult, ctx: Context) -> str:
    text = display.age(r.price_age_days)
    if is_stale_result(r):
        text += " stale"
    return text


def _extras(r: OfferResult, ctx: Context) -> str:
    """What sets apart offers that look alike: a plan's monthly fee, an instance's vCPUs and
    RAM (g5.xlarge and g5.8xlarge hold the same A10G)."""
    o = r.offer
    if o.monthly_fee_usd:
        return f"plan {display.usd(o.monthly_fee_usd, ctx.money)}/mo"
    if is_free(o):
        return "free"
    if o.provider == "colab":
        return "no plan"  # Pay As You Go: units bought as needed
    parts = []
    if o.vcpus is not None:
        parts.append(f"{o.vcpus} vCPU")
    if o.ram_gb is not None:
        parts.append(f"{o.ram_gb:,.0f} GB")
    return " ".join(parts) or "-"


def _run(
    get: Callable[[Any], Any], fmt: Callable[[Any], str]
) -> Callable[[OfferResult, Context], str]:
    def cell(r: OfferResult, _ctx: Context) -> str:
        return fmt(get(r.run)) if r.run is not None else "-"

    return cell


def _run_sort(get: Callable[[Any], float]) -> Callable[[OfferResult], float]:
    return lambda r: get(r.run) if r.run is not None else INF


COLUMNS: tuple[Column, ...] = (
    Column(
        "provider",
        "provider",
        "label",
        cell=lambda r, c: c.label(r.offer.provider),
        sort=lambda r: r.offer.provider,
        json=lambda r: {"provider": r.offer.provider},
        priority=70,
        cli=10,
        cli_run=10,
        app=10,
        room=8,
        name_limit=10,
    ),
    Column(
        "name",
        "offer",
        "name",
        cell=lambda r, _c: r.offer.name + ("" if r.offer.guaranteed else " *"),
        sort=lambda r: r.offer.name,
        json=lambda r: {"name": r.offer.name},
        priority=10,
        cli=20,
        cli_run=20,
        app=20,
        room=30,
        name_limit=34,
    ),
    Column(
        "gpus",
        "GPU",
        "name",
        cell=lambda r, _c: display.gpus(r.spec.short_name, r.offer.gpu_count),
        sort=lambda r: (r.spec.short_name, r.offer.gpu_count),
        json=lambda r: {
            "gpu": r.offer.gpu,
            "gpu_name": r.spec.name,
            "gpu_count": r.offer.gpu_count,
            "gpu_memory_gb": r.spec.memory_gb,
            "form_factor": r.spec.form_factor,
            "role": r.role,
        },
        priority=20,
        cli=30,
        cli_run=30,
        app=30,
        room=12,
        name_limit=18,
    ),
    Column(
        "region",
        "region",
        "label",
        cell=lambda r, _c: r.offer.region,
        sort=lambda r: r.offer.region,
        json=lambda r: {"region": r.offer.region},
        priority=140,
        cli=40,
        cli_run=40,
        app=40,
        room=12,
        name_limit=16,
    ),
    Column(
        "extras",
        "plan/host",
        "label",
        cell=_extras,
        sort=lambda r: (r.offer.monthly_fee_usd, r.offer.vcpus or 0, r.offer.ram_gb or 0.0),
        json=lambda r: {
            "monthly_fee_usd": r.offer.monthly_fee_usd,
            "vcpus": r.offer.vcpus,
            "ram_gb": r.offer.ram_gb,
        },
        priority=130,
        app=50,
        room=13,
    ),
    Column(
        "usd_per_hour",
        "$/h",
        "figure",
        cell=lambda r, c: f"{c.money.of(r.offer.usd_per_hour):,.3f}",
        sort=lambda r: r.offer.usd_per_hour,
        json=lambda r: {"usd_per_hour": r.offer.usd_per_hour},
        priority=100,
        cli=50,
        cli_run=50,
        app=60,
        room=6,
    ),
    Column(
        "relative_speed",
        "speed",
        "figure",
        cell=lambda r, _c: display.speed(r.relative_speed),
        sort=lambda r: r.relative_speed,
        json=lambda r: {"relative_speed": r.relative_speed},
        priority=80,
        cli=60,
        cli_run=60,
        app=120,
        room=5,
    ),
    Column(
        "offer_batch",
        "batch",
        "figure",
        cell=lambda r, _c: "-" if r.batch is None else str(r.batch) if r.batch else "none",
        sort=lambda r: -1 if r.batch is None else r.batch,
        json=lambda r: {} if r.batch is None else {"batch": r.batch},
        when="target",
        priority=85,
        cli=65,
        cli_run=65,
        app=125,
        room=5,
    ),
    Column(
        "usd_per_year",
        "$/year",
        "figure",
        cell=lambda r, c: c.usd("usd_per_year", r.usd_per_year),
        sort=lambda r: r.usd_per_year,
        json=lambda r: {"usd_per_year": r.usd_per_year, "hours_per_year": r.hours_per_year},
        blank_when_unfit=True,
        priority=30,
        cli=70,
        app=70,
        room=8,
    ),
    Column(
        "break_even_days",
        "break-even",
        "figure",
        cell=lambda r, c: display.days_short(r.break_even_days) if c.price_known else "-",
        sort=lambda r: INF if r.break_even_days is None else r.break_even_days,
        json=lambda r: {"break_even_days": r.break_even_days},
        blank_when_unfit=True,
        priority=40,
        cli=80,
        app=80,
        room=7,
    ),
    Column(
        "co2_kg_per_year",
        "CO2/year",
        "figure",
        cell=lambda r, c: c.co2("co2_kg_per_year", r.co2_kg_per_year),
        sort=lambda r: r.co2_kg_per_year,
        json=lambda r: {"co2_kg_per_year": r.co2_kg_per_year},
        blank_when_unfit=True,
        priority=150,
        cli=90,
        app=140,
        room=8,
    ),
    Column(
        "price_age_days",
        "price age",
        "figure",
        cell=_age,
        sort=lambda r: r.price_age_days,
        json=lambda r: {
            "price_age_days": r.price_age_days,
            "stale": is_stale_result(r),
            "stale_after_days": max_age_days(r.offer),
            "price_kind": r.offer.price_kind,
            "tier": r.offer.tier,
            "summary": r.offer.summary,
            "currency": r.offer.currency,
            "price_in_currency": r.offer.price_in_currency,
        },
        priority=90,
        cli=110,
        cli_run=120,
        app=180,
        room=9,
    ),
    Column(
        "price_kind",
        "kind",
        "label",
        cell=lambda r, _c: (
            "yours"
            if r.offer.provider == CUSTOM_PROVIDER
            else term_label(r.offer.term_years)
            if r.offer.term_years is not None
            else r.offer.price_kind + (" spot" if r.offer.spot else "")
        ),
        sort=lambda r: (r.offer.price_kind, r.offer.spot, r.offer.term_years or 0),
        json=lambda r: {
            "spot": r.offer.spot,
            "spot_overhead": r.overhead if r.offer.spot else None,
        },
        priority=110,
        cli=100,
        cli_run=110,
        app=160,
        room=8,
    ),
    Column(
        "run_hours",
        "time/run",
        "figure",
        cell=_run(lambda run: run.hours, lambda h: f"{h:,.2f} h"),
        sort=_run_sort(lambda run: run.hours),
        json=lambda r: {"run": plain(r.run) if r.run is not None else None},
        when="run",
        blank_when_unfit=True,
        priority=120,
        cli_run=70,
        app=110,
        room=8,
    ),
    Column(
        "run_usd",
        "$/run",
        "figure",
        cell=lambda r, c: c.usd("run_usd", r.run.usd) if r.run is not None else "-",
        sort=_run_sort(lambda run: run.usd),
        json=lambda r: {},  # inside "run", with time/run
        when="run",
        blank_when_unfit=True,
        priority=50,
        cli_run=80,
        app=90,
        room=8,
    ),
    Column(
        "run_usd_per_items",
        "$/item",
        "figure",
        cell=lambda r, c: (
            c.usd("run_usd_per_items", r.run.usd_per_item * c.items_unit)
            if r.run is not None and r.run.usd_per_item is not None
            else "-"
        ),
        sort=_run_sort(lambda run: run.usd_per_item if run.usd_per_item is not None else INF),
        json=lambda r: {},  # inside "run", with time/run
        when="items",
        blank_when_unfit=True,
        heading=lambda c: f"$/{unit_text(c.items_unit)}",
        priority=60,
        cli_run=90,
        app=100,
        room=8,
    ),
    Column(
        "run_co2_kg",
        "CO2/run",
        "figure",
        cell=lambda r, c: c.co2("run_co2_kg", r.run.co2_kg) if r.run is not None else "-",
        sort=_run_sort(lambda run: run.co2_kg),
        json=lambda r: {},  # inside "run", with time/run
        when="run",
        blank_when_unfit=True,
        priority=160,
        cli_run=100,
        app=150,
        room=8,
    ),
    Column(
        "usd_per_batch_item",
        "$/batch item",
        "figure",
        cell=lambda r, c: c.usd("usd_per_batch_item", r.usd_per_batch_item),
        sort=lambda r: INF if r.usd_per_batch_item is None else r.usd_per_batch_item,
        json=lambda r: {"usd_per_batch_item": r.usd_per_batch_item, "fits": r.fits},
        when="batch",
        blank_when_unfit=True,
        priority=170,
        app=130,
        room=8,
    ),
    Column(
        "interruption",
        "interrupt",
        "label",
        cell=lambda r, _c: (
            INTERRUPTION_BUCKETS[r.offer.interruption_bucket]
            if r.offer.interruption_bucket is not None
            else "-"
        ),
        sort=lambda r: -1 if r.offer.interruption_bucket is None else r.offer.interruption_bucket,
        json=lambda r: {"interruption_bucket": r.offer.interruption_bucket},
        priority=180,
        app=170,
        room=7,
    ),
)

BY_KEY: dict[str, Column] = {c.key: c for c in COLUMNS}


def _keys_by(place: Callable[[Column], int | None]) -> tuple[str, ...]:
    """The keys of the columns that have a `place`, in its order."""
    placed = [(p, c.key) for c in COLUMNS if (p := place(c)) is not None]
    return tuple(key for _place, key in sorted(placed))


CLI_COLUMNS: tuple[str, ...] = _keys_by(lambda c: c.cli)
"""The CLI table's columns, in order, when no run is given."""

CLI_RUN_COLUMNS: tuple[str, ...] = _keys_by(lambda c: c.cli_run)
"""With a run: what one run takes and costs on each offer."""

APP_COLUMNS: tuple[str, ...] = _keys_by(lambda c: c.app)
"""The app's offers table, left to right; which of them show depends on the width (PRIORITY)."""

RUN_FIRST = ("run_usd", "run_usd_per_items")
"""With a run, what one run costs leads: before $ a year, in place and in priority (the CLI's
run table has no $/year at all)."""


def run_first(keys: Sequence[str]) -> tuple[str, ...]:
    """`keys` with RUN_FIRST's columns moved just before $ a year."""
    rest = [k for k in keys if k not in RUN_FIRST]
    at = rest.index("usd_per_year") if "usd_per_year" in rest else len(rest)
    return (*rest[:at], *(k for k in RUN_FIRST if k in keys), *rest[at:])


APP_RUN_COLUMNS: tuple[str, ...] = run_first(APP_COLUMNS)
"""The app's offers table when a run is given."""

APP_ROOM: dict[str, int] = {c.key: c.room for c in COLUMNS}
"""The least width the app gives each column."""

NAME_LIMIT: dict[str, int] = {c.key: c.name_limit for c in COLUMNS if c.name_limit is not None}
"""The widest the app lets a column of names grow."""


def shown(
    keys: Sequence[str], *, run: bool, batch: bool, items: bool = False, target: bool = False
) -> tuple[Column, ...]:
    """The columns among `keys` that have something to show for this comparison."""
    wanted = {"always": True, "run": run, "items": run and items, "batch": batch}
    wanted["target"] = target
    return tuple(BY_KEY[k] for k in keys if wanted[BY_KEY[k].when])


def cells(result: OfferResult, columns: Sequence[Column], ctx: Context) -> dict[str, str]:
    """Every cell of a row. A GPU that cannot hold the job gets no price: 'does not fit'."""
    unfit = result.fits is False
    out = {}
    for column in columns:
        if unfit and column.blank_when_unfit:
            money = column.key in ("usd_per_year", "run_usd", "usd_per_batch_item")
            money = money or column.key == "run_usd_per_items"
            out[column.key] = display.DOES_NOT_FIT if money else "-"
        else:
            out[column.key] = column.cell(result, ctx)
    return out


def sort_key(result: OfferResult, column: str) -> Any:
    """Sort value of a column; 'never' and 'does not fit' sort last."""
    return BY_KEY[column].sort(result)


def offer_fields(result: OfferResult) -> dict[str, Any]:
    """The JSON fields every column contributes for one offer."""
    fields: dict[str, Any] = {}
    for column in COLUMNS:
        fields.update(column.json(result))
    return fields


# --------------------------------------------------------------------------- fitting a width

PRIORITY: tuple[str, ...] = _keys_by(lambda c: c.priority)
"""Which columns a narrow table keeps: the offer, its GPU and the figures that decide first
(the app and the CLI drop from the end). A test checks every column has a place here."""

RUN_PRIORITY: tuple[str, ...] = run_first(PRIORITY)
"""PRIORITY when a run is given: $ a run and $ an item before $ a year."""

MIN_NAME = 12
"""A name column narrower than this says too little."""
COMFORT_NAME = 20
"""Names keep this much before a column beyond the first four that decide is let in."""


class Fitted(Struct, frozen=True):
    """The columns that fit a width, in display order, and the width each gets."""

    columns: tuple[Column, ...]
    widths: tuple[int, ...]
    hidden: int
    """How many of the candidate columns did not fit (the app says so and moves to them)."""


def fit(
    columns: Sequence[Column],
    natural: Mapping[str, int],
    available: int,
    *,
    gap: int = 2,
    skip: int = 0,
    priority: Sequence[str] = PRIORITY,
) -> Fitted:
    """The highest-priority columns of `columns` that fit in `available` characters.

    `natural` is each column's width for its widest cell and title. Columns join in PRIORITY
    order until the next would not fit (so a lower-priority column never shows while a more
    important one is hidden); names then shrink towards MIN_NAME to let in more, and any room
    left widens them again. `skip` drops that many of the most important columns after the
    first (the offer's name stays), which is how a table moves right one column at a time.
    """
    shown, widths, hidden = fit_columns(
        columns, natural, available, priority=priority, gap=gap, skip=skip
    )
    return Fitted(shown, widths, hidden)


class Fittable(Protocol):
    """What fitting a width needs of a column: its key, its title and its width class."""

    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def width(self) -> Width: ...


F = TypeVar("F", bound=Fittable)


def fit_columns(
    columns: Sequence[F],
    natural: Mapping[str, int],
    available: int,
    *,
    priority: Sequence[str],
    gap: int = 2,
    skip: int = 0,
) -> tuple[tuple[F, ...], tuple[int, ...], int]:
    """`fit` for any table's columns (the CLI's listings too), ranked by `priority` (keys
    missing from it come last, in table order): the columns shown, their widths, how many
    were left out."""
    rank = {key: i for i, key in enumerate(priority)}
    by_priority = sorted(columns, key=lambda c: rank.get(c.key, len(rank)))
    if by_priority:
        first, rest = by_priority[0], by_priority[1:]
        by_priority = [first, *rest[min(skip, max(len(rest) - 1, 0)) :]]

    def choose(name_floor: int) -> tuple[list[F], dict[str, int], int]:
        chosen: list[F] = []
        widths: dict[str, int] = {}
        used = 0
        for column in by_priority:
            width = natural.get(column.key, len(column.title))
            if column.width == "name":
                width = min(width, name_floor)
            need = width + (gap if chosen else 0)
            if used + need > available and chosen:
                break
            chosen.append(column)
            widths[column.key] = width
            used += need
        return chosen, widths, available - used

    # Names first keep a readable width; only if that leaves out one of the columns that
    # decide (the first four) do they shrink to the minimum.
    chosen, widths, room = choose(COMFORT_NAME)
    if len(chosen) < min(4, len(by_priority)):
        chosen, widths, room = choose(MIN_NAME)
    names = sorted((c for c in chosen if c.width == "name"), key=lambda c: natural.get(c.key, 0))
    for column in names:  # give names back what they lost, the shortest need first
        if room > 0:
            grow = min(room, natural.get(column.key, widths[column.key]) - widths[column.key])
            widths[column.key] += grow
            room -= grow
    in_order = tuple(c for c in columns if c in chosen)
    return in_order, tuple(widths[c.key] for c in in_order), len(columns) - len(chosen)


def natural_widths(
    columns: Sequence[Column], rows: Iterable[Mapping[str, str]], ctx: Context
) -> dict[str, int]:
    """Each column's width for its title and its widest cell among `rows`."""
    widths = {c.key: len(c.title_in(ctx)) for c in columns}
    for row in rows:
        for key, text in row.items():
            if key in widths and len(text) > widths[key]:
                widths[key] = len(text)
    return widths


# --------------------------------------------------------------------------- one format a column

MONEY_COLUMNS: dict[str, Callable[[OfferResult, int], float | None]] = {
    "usd_per_year": lambda r, _u: r.usd_per_year,
    "run_usd": lambda r, _u: r.run.usd if r.run is not None else None,
    "run_usd_per_items": lambda r, u: (
        r.run.usd_per_item * u if r.run is not None and r.run.usd_per_item is not None else None
    ),
    "usd_per_batch_item": lambda r, _u: r.usd_per_batch_item,
}
CO2_COLUMNS: dict[str, Callable[[OfferResult], float | None]] = {
    "co2_kg_per_year": lambda r: r.co2_kg_per_year,
    "run_co2_kg": lambda r: r.run.co2_kg if r.run is not None else None,
}


def context_for(
    results: Sequence[OfferResult],
    *,
    now: datetime | None = None,
    money: Money = USD,
    labels: Mapping[str, str] | None = None,
    extra: Mapping[str, Sequence[float]] | None = None,
    price_known: bool = True,
) -> Context:
    """The context for a table of `results`: the $-per-items unit and one number format per
    column, chosen from every value the column holds (and `extra`'s, e.g. the desktop row's)."""
    extra = extra or {}
    fitting = [r for r in results if r.fits is not False]
    run = any(r.run is not None for r in results)
    batch = any(r.usd_per_batch_item is not None for r in results)
    per_item = [r.run.usd_per_item for r in results if r.run is not None]
    unit = items_unit([*per_item, *extra.get("run_usd_per_items", ())])
    decimals = {}
    for key, get in MONEY_COLUMNS.items():
        empty = (key.startswith("run_") and not run) or (key == "usd_per_batch_item" and not batch)
        values = [] if empty else [get(r, unit) for r in fitting]
        values += [v * unit if key == "run_usd_per_items" else v for v in extra.get(key, ())]
        decimals[key] = display.money_decimals(money.of(v) for v in values if v is not None)
    units = {}
    for key, get_kg in CO2_COLUMNS.items():
        kg = [] if key.startswith("run_") and not run else [get_kg(r) for r in fitting]
        units[key] = display.co2_unit([*(v for v in kg if v is not None), *extra.get(key, ())])
    return Context(
        now=now,
        items_unit=unit,
        money=money,
        labels=dict(labels or {}),
        decimals=decimals,
        co2_units=units,
        price_known=price_known,
    )
