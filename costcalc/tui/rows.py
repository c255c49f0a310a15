"""The rows the offers table shows: folded, ordered and sectioned, as plain data.

One row per provider x GPU x count x tier x spot/on-demand (its cheapest offer); the other plan
tiers and regions of the same thing fold under it and open with Enter, or all at once. The
verdict's offer is pinned above the rest (with a run, the desktop's own row under it). In the
default order ("best first") the cheapest of each provider comes next, so every provider is on
the first screen; any sort keeps offers that can do the desktop's job above scale-out boxes,
and those above smaller cards.

Rule kept here: no textual and no arithmetic; sort keys come from costcalc.present.columns. Building
the rows for 5,000 offers takes a few milliseconds: no cell is formatted here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Literal

from msgspec import Struct

from costcalc.core.compare import COMPARABLE, SCALE_OUT, Comparison
from costcalc.core.models import OfferResult
from costcalc.present import columns as cols

RowKind = Literal["offer", "section", "desktop"]

DESKTOP_KEY = "desktop"
"""The row key of the desktop's own row (pinned under the verdict's when a run is given)."""

SECTION_TITLES = {
    "providers": "cheapest of each provider",
    "comparable": "can do your desktop's job",
    "scale-out": "scale-out: more GPUs than your desktop",
    "smaller": "less memory per GPU or fewer GPUs",
    "unfit": "cannot hold the job",
}


class Row(Struct, frozen=True):
    """A line of the table: an offer (a group's head or one of its folded members), a section
    title, or the desktop's own row."""

    key: str
    kind: RowKind = "offer"
    result: OfferResult | None = None
    folded: int = 0
    """Offers folded under this head (its other tiers and regions); 0 for members."""
    member: bool = False
    expanded: bool = False
    title: str = ""
    """A section's words."""

    @property
    def selectable(self) -> bool:
        return self.kind != "section"


class View(Struct, frozen=True):
    pinned: tuple[Row, ...]
    rows: tuple[Row, ...]
    offers: int
    """How many offers the rows stand for (all of them, folded or not)."""
    groups: int

    def all_rows(self) -> tuple[Row, ...]:
        return self.pinned + self.rows


def fold_key(result: OfferResult) -> str:
    return _fold_text(_fold(result))


def _fold(result: OfferResult) -> tuple[str, str, int, str | None, str]:
    o = result.offer
    way = o.way if o.term_years is None else f"{o.term_years}-yr reserved"
    return (o.provider, o.gpu, o.gpu_count, o.tier, way)


def _fold_text(fold: tuple[str, str, int, str | None, str]) -> str:
    provider, gpu, count, tier, way = fold
    return f"{provider}|{gpu}|{count}|{tier or '-'}|{way}"


def offer_key(result: OfferResult) -> str:
    """A key that survives recomputation: the same offer keeps its row."""
    o = result.offer
    return f"{o.provider}|{o.name}|{o.region}|{o.gpu}|{o.gpu_count}"


def head_key(group: str) -> str:
    return "g:" + group


def section_of(result: OfferResult, scale_out_allowed: bool) -> str:
    if result.fits is False:
        return "unfit"
    if result.role == COMPARABLE or (scale_out_allowed and result.role == SCALE_OUT):
        return "comparable"
    return "scale-out" if result.role == SCALE_OUT else "smaller"


SECTION_ORDER = ("comparable", "scale-out", "smaller", "unfit")


def ranker(run: bool) -> Callable[[OfferResult], tuple[bool, object]]:
    """What 'cheapest' means: $ per run with a run, $ a year otherwise; an offer without a
    guaranteed GPU (free or not) after the rest. (The column is looked up once: a fold ranks
    every offer.)"""
    by = cols.BY_KEY["run_usd" if run else "usd_per_year"].sort

    def rank(result: OfferResult) -> tuple[bool, object]:
        return (not result.offer.guaranteed, by(result))

    return rank


def rank_key(result: OfferResult, run: bool) -> tuple[bool, object]:
    """`ranker(run)` for one offer."""
    return ranker(run)(result)


def build(
    comparison: Comparison,
    *,
    run: bool,
    sort: str | None = None,
    reverse: bool = False,
    expanded: Collection[str] = (),
    show_all: bool = False,
    desktop_row: bool = False,
) -> View:
    """The table's rows for a comparison, its sort, and which groups are open."""
    best = comparison.best
    pool = comparison.rules.scale_out
    by_fold: dict[tuple[str, str, int, str | None, str], list[OfferResult]] = {}
    for result in comparison.offers:
        by_fold.setdefault(_fold(result), []).append(result)
    groups = {_fold_text(fold): results for fold, results in by_fold.items()}
    best_group = fold_key(best) if best is not None else None

    rank = ranker(run)

    def order(results: Sequence[OfferResult]) -> list[OfferResult]:
        ranked = sorted(results, key=rank)
        if sort is not None:
            ranked.sort(key=lambda r: cols.sort_key(r, sort), reverse=reverse)
        return ranked

    heads: dict[str, OfferResult] = {}
    for group, results in groups.items():
        if group == best_group and best is not None:
            heads[group] = best
        else:
            heads[group] = results[0] if len(results) == 1 else min(results, key=rank)

    def members(group: str) -> list[OfferResult]:
        """The group's other offers, in the table's order (only open groups need them)."""
        head = heads[group]
        return order([r for r in groups[group] if r is not head])

    pinned: list[Row] = []

    def rows_for(group: str) -> list[Row]:
        opened = show_all or group in expanded
        folded = len(groups[group]) - 1
        head = Row(
            head_key(group),
            result=heads[group],
            folded=folded,
            expanded=opened and folded > 0,
        )
        out = [head] if group != best_group else []
        if opened and folded:
            out += [Row(offer_key(r), result=r, member=True) for r in members(group)]
        return out

    if best_group is not None:
        pinned.append(
            Row(
                head_key(best_group),
                result=best,
                folded=len(groups[best_group]) - 1,
                expanded=(show_all or best_group in expanded) and len(groups[best_group]) > 1,
            )
        )
    if desktop_row:  # under the verdict's offer, which is the first row in every view
        pinned.append(Row(DESKTOP_KEY, kind="desktop"))

    rows: list[Row] = []
    if best_group is not None and (show_all or best_group in expanded):
        rows += rows_for(best_group)
    placed = {best_group}
    if sort is None:
        # The cheapest of each provider first, so that every provider is on the first screen.
        firsts: dict[str, str] = {}
        for group in sorted(heads, key=lambda g: _place(heads[g], pool, rank)):
            firsts.setdefault(heads[group].offer.provider, group)
        shown = [g for g in firsts.values() if g not in placed]
        if shown:
            rows.append(_section("providers"))
            for group in shown:
                rows += rows_for(group)
                placed.add(group)
    by_section: dict[str, list[str]] = {name: [] for name in SECTION_ORDER}
    for group in heads:
        if group not in placed:
            by_section[section_of(heads[group], pool)].append(group)
    for name in SECTION_ORDER:
        chosen = by_section[name]
        if not chosen:
            continue
        order_of = {id(r): i for i, r in enumerate(order([heads[g] for g in chosen]))}
        chosen.sort(key=lambda g: order_of[id(heads[g])])
        rows.append(_section(name))
        for group in chosen:
            rows += rows_for(group)
    return View(tuple(pinned), tuple(rows), len(comparison.offers), len(groups))


def _place(
    result: OfferResult, pool: bool, rank: Callable[[OfferResult], tuple[bool, object]]
) -> tuple[int, tuple[bool, object]]:
    return SECTION_ORDER.index(section_of(result, pool)), rank(result)


def _section(name: str) -> Row:
    return Row("section:" + name, kind="section", title=SECTION_TITLES[name])
