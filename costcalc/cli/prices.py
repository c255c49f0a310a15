"""`costcalc prices`: where is a GPU cheapest? One sorted table, the answer on its first row.

Rows come from costcalc.present.price_table (one per provider x offer x GPU x count, regions
folded, on-demand and spot side by side); where each provider's prices come from is a line at the
end, and all of it with `--sources`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from costcalc.cli import output
from costcalc.core import tiers
from costcalc.core.errors import quoted
from costcalc.core.inputs import BY_FIELD, parse_texts
from costcalc.core.offers import age_days
from costcalc.core.staleness import CLOUD_LEGEND, is_stale
from costcalc.core.terminal import fill, fill_all
from costcalc.present import display
from costcalc.present.price_table import SORT_KEYS, cells, family, fold, sort_rows
from costcalc.present.report import Plain, cloud_offer_json, render_table
from costcalc.providers import registry
from costcalc.providers.registry import names
from costcalc.store.bundled import load_catalog
from costcalc.store.loaders import load_app_data, utc_now
from costcalc.store.snapshots import (
    load_desktop_defaults,
    load_electricity,
    load_fx,
    load_price_book,
)

PRIORITY = (
    "gpu_hour",
    "spot",
    "gpu",
    "provider",
    "name",
    "term1",
    "age",
    "region",
    "term3",
    "hour",
    "mem",
    "kind",
)
"""What a narrow terminal keeps: the price per GPU-hour both ways, what and who, how old, where."""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "prices",
        help="where is a GPU cheapest: cloud offers sorted by $ per GPU-hour",
        description=(
            "Compare the offers in the current price snapshots (refreshed ones override the "
            "bundled ones): one row per provider, offer, GPU and count, its regions folded into "
            "the cheapest, sorted by $ per GPU-hour, on-demand, spot and committed (1- and 3-year "
            "reserved: owed for every hour of the term, used or not) side by side. A price "
            f"older than its kind allows is marked {CLOUD_LEGEND}."
        ),
        **output.examples(
            "costcalc prices --gpu h100",
            "costcalc prices --min-memory 48 --exclude community,marketplace,spot",
            "costcalc prices --provider runpod --gpu rtx4090 --json",
        ),
    )
    p.add_argument(
        "--gpu",
        action="append",
        default=[],
        help="only offers with this GPU (repeatable); a family matches every variant: a100",
    )
    p.add_argument(
        "--min-memory",
        type=_gigabytes,
        default=None,
        metavar="GB",
        help="only GPUs with at least this much memory each: 48",
    )
    p.add_argument(
        "--offers",
        choices=("all", "on-demand", "spot", "committed"),
        default="all",
        help="which prices to compare (default all: on-demand, spot and committed side by side)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="TIERS",
        help=BY_FIELD["exclude_tiers"].help,
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME",
        help=f"only these providers (repeatable): {', '.join(names())}",
    )
    p.add_argument(
        "--region",
        action="append",
        default=[],
        metavar="REGION",
        help="only offers in this cloud region (repeatable): us-east-1, NY2, ...",
    )
    p.add_argument(
        "--sort",
        choices=SORT_KEYS,
        default="gpu-hour",
        help="order of the rows (default gpu-hour: cheapest per GPU-hour first)",
    )
    p.add_argument(
        "--sources",
        action="store_true",
        help="after the table, where each provider's prices come from and how old they are",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of offers")
    p.add_argument(
        "--ages",
        action="store_true",
        help="instead of offers: how old each price file's rows are, and which rows decide a "
        "desktop verdict on one source",
    )
    output.add_wide(p)
    p.set_defaults(run=run)


def _gigabytes(text: str) -> float:
    try:
        value = float(text) if len(text) < 20 else -1.0
    except ValueError:
        value = -1.0
    if not 0 < value < 10_000:
        raise argparse.ArgumentTypeError(f"memory must be a number of GB above 0: {quoted(text)}")
    return value


def _excluded(texts: list[str]) -> tuple[Any, ...]:
    """The tiers --exclude names, read as `quick` reads them (an unknown one: one line, exit 2)."""
    return tuple(parse_texts({"exclude_tiers": texts}).get("exclude_tiers", ()))


def run(ns: argparse.Namespace) -> int:
    now = utc_now()
    if ns.ages:
        return _print_ages(ns, now)
    excluded = tiers.left_out(_excluded(ns.exclude), ns.offers)
    catalog = load_catalog()
    gpus = {spec.key for name in ns.gpu for spec in catalog.family(name)}
    regions = {r.casefold() for r in ns.region}
    book = load_price_book([registry.get(p).name for p in ns.provider] or None, catalog=catalog)
    offers = [
        o
        for o in book.offers
        if (not gpus or o.gpu in gpus)
        and (not regions or o.region.casefold() in regions)
        and (ns.min_memory is None or catalog.get(o.gpu).memory_gb >= ns.min_memory)
        and tiers.keeps(o, excluded)
    ]
    for warning in book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    if ns.json:
        doc = [
            {
                **cloud_offer_json(o),
                "gpu_name": catalog.get(o.gpu).name,
                "usd_per_gpu_hour": o.usd_per_hour / o.gpu_count,
                "stale": is_stale(o, now),
            }
            for o in sorted(offers, key=lambda o: o.usd_per_hour / o.gpu_count)
        ]
        print(json.dumps(doc, indent=2))
        return 0
    if offers:
        _print_table(ns, offers, catalog, now)
    else:
        print("costcalc: no offers match", file=sys.stderr)
    _print_sources(ns, book, now)
    return 0


def _print_table(ns: argparse.Namespace, offers: list[Any], catalog: Any, now: Any) -> None:
    # a family is named as its on-demand feed is ('AWS' for aws-spot and aws-ondemand)
    labels = {
        family(k): v
        for k, v in registry.short_labels().items()
        if k == family(k) or k.endswith("-ondemand")
    }
    rows = fold(offers)
    sort_rows(rows, ns.sort, catalog, now)
    columns: tuple[Plain, ...] = (
        Plain("gpu_hour", "$/GPU-h"),
        Plain("spot", "spot $/GPU-h"),
        Plain("term1", "1-yr $/GPU-h"),
        Plain("term3", "3-yr $/GPU-h"),
        Plain("gpu", "GPU", numeric=False, clip=True),
        Plain("mem", "GB"),
        Plain("provider", "provider", numeric=False),
        Plain("name", "offer", numeric=False, clip=True),
        Plain("region", "region", numeric=False, clip=True),
        Plain("hour", "$/h"),
        Plain("fee", "plan $/mo"),
        Plain("kind", "price", numeric=False),
        Plain("age", "age"),
    )
    table = [
        cells(
            row,
            catalog,
            labels,
            now,
            display.gpus(catalog.get(row.gpu).short_name, row.gpu_count),
            display.age(age_days(row.best.fetched_at, now)),
        )
        for row in rows
    ]
    # a price column with nothing in it (--offers spot, a spot-only provider) only takes room
    empty = {
        k for k in ("gpu_hour", "spot", "term1", "term3") if all(row[k] == "-" for row in table)
    }
    columns = tuple(c for c in columns if c.key not in empty)
    width = None if ns.wide else output.width()
    print("\n".join(fill(_answer(rows[0], catalog, labels), width)))
    print(render_table(columns, table, width=width, priority=PRIORITY))
    if any(row["age"].endswith(" stale") for row in table):
        print("\n".join(fill(f"{CLOUD_LEGEND}.", width, hang="  ")))


def _answer(row: Any, catalog: Any, labels: dict[str, str]) -> str:
    """The first line: the cheapest offer in words (rows are sorted by the lower of on-demand and
    spot per GPU-hour, so it is the first row)."""
    best = row.best
    if best.term_years is None:
        way, order = best.way, "the lower of on-demand and spot"
    else:
        way = f"on a {best.term_years}-year reservation, owed for every hour of the term"
        order = "the lower of on-demand and spot, else the shortest commitment"
    gpu = catalog.get(row.gpu).short_name
    count = f"{row.gpu_count}x " if row.gpu_count > 1 else ""
    return (
        f"Cheapest: {labels.get(row.provider, row.provider)} {row.name} ({count}{gpu}), "
        f"${best.usd_per_hour / row.gpu_count:,.3f} per GPU-hour {way}. Rows are sorted by "
        f"{order}."
    )


def _print_sources(ns: argparse.Namespace, book: Any, now: Any) -> None:
    """One line on where the prices come from, or (`--sources`) a paragraph per provider."""
    snapshots = book.snapshots.items()
    if not ns.sources:
        oldest = max((age_days(s.fetched_at, now) for _, s in snapshots), default=0.0)
        line = (
            f"Prices of {len(book.snapshots)} providers, the oldest {display.age(oldest)} old; "
            "--sources says where each comes from."
        )
        print("\n".join(fill_all([line], output.width())))
        return
    rows = Counter(o.provider for o in book.offers)
    stale = Counter(o.provider for o in book.offers if is_stale(o, now))
    lines = []
    for provider, loaded in snapshots:
        count = stale[provider]
        flag = f", {count:,} of {rows[provider]:,} rows stale" if count else ""
        lines.append(
            f"{provider}: {loaded.origin}, prices of {loaded.fetched_at:%Y-%m-%d} "
            f"(age {display.age(age_days(loaded.fetched_at, now))}{flag})"
        )
        lines.append(f"  source: {loaded.snapshot.source}")
    if stale:
        lines.append(f"{CLOUD_LEGEND}.")
    print()
    print("\n".join(fill_all(lines, output.width())))


def _print_ages(ns: argparse.Namespace, now: Any) -> int:
    """`prices --ages`: the same freshness table scripts/bundle_prices.py prints for a release,
    for the snapshots this user's costcalc reads (refreshed ones, else the bundled ones)."""
    from costcalc.store import freshness  # only for --ages

    data = load_app_data([registry.get(p).name for p in ns.provider] or None)
    for warning in data.book.warnings:
        print(f"costcalc: warning: {warning}", file=sys.stderr)
    rates = load_fx()
    others = freshness.other_ages(
        load_desktop_defaults(), load_electricity(), rates.rates, rates.origin != "bundled"
    )
    print(freshness.report(data, now, None if ns.wide else output.width(), others))
    return 0
