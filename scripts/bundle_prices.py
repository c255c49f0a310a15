"""Rebuild the bundled price snapshot for a release, then say how old every file's rows are.

.venv/bin/python scripts/bundle_prices.py [--prices-dir prices] [--ages-only]
    [--catalogs tests/fixtures/feeds/catalogs] [--released 2026-11-28]

1. Runs costcalc's own refresh for every provider with a keyless feed (and the ECB's exchange
   rates), with COSTCALC_HOME in a temporary directory and every credential unset, so the bundle
   is what anyone can fetch and the maintainer's own snapshots, history and keys stay untouched.
2. Copies each snapshot that passed the refresh's checks into prices/ under a provenance header
   (source, date, licence, how it was made); its notes start with freshness.FEED_NOTE. A feed
   that failed keeps the file it had, and the exit status says so (1).
3. Keeps curated files (providers without a public feed) as they are.
4. Prints every file's newest and oldest row, and the rows that decide a desktop verdict for
   the cards in freshness.DESKTOP_CARDS with the readings each rests on.
5. With --catalogs DIR, builds the rows the field's catalogs (gpuhunt, SkyPilot) give from
   recorded copies of them in DIR, laid out as their hosts serve them, with no network: a
   copy is used only when STATED gives its date and why (the stored copies carry no date of
   their own); a provider known only through the catalogs gets its file rebuilt, a curated or
   feed-built file keeps its rows and gets the catalog rows it lacks appended after
   CATALOG_MARK, and catalog readings of its own offers go to prices/readings.yaml. Every row
   passes the refresh's plausibility checks.
6. Writes prices/release.yaml: the release day (--released), the rule (every deciding row of
   RELEASE_CARDS at freshness.UTILISATIONS at most RELEASE_MAX_AGE_DAYS old that day) and each
   deciding row older than that, with why (tests/data/test_release_freshness.py checks it).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from msgspec.structs import replace

from costcalc.core.records import plain

ROOT = Path(__file__).resolve().parent.parent
FEED_NOTE_FX = "rebuilt from its live feed by scripts/bundle_prices.py"
"""The rates file has no notes field: its header says it was fetched."""
PRICES_DIR = ROOT / "prices"


def unset_credentials() -> None:
    """A bundle is what anyone can fetch: no key of the maintainer's may shape it."""
    from costcalc.providers.registry import PROVIDERS

    for provider in PROVIDERS:
        for var in provider.env:
            if var.secret:
                os.environ.pop(var.name, None)


def header(
    file: str, label: str, source: str, url: str | None, licence: str | None, day: str
) -> str:
    lines = [
        f"prices/{file} -- {label}: {FEED_NOTE_FX}.",
        "",
        f"Date the figures were true: {day} (each row's fetched_at where it has one).",
        f"Source: {source}" + (f" ({url})" if url else "") + ".",
        f"Licence: {licence or 'prices cited as facts'}.",
        "Made by: costcalc's own refresh, keyless, with its plausibility checks; rerun the script",
        "  to rebuild. Hand edits here are lost on the next rebuild: curate a provider without a",
        "  feed instead.",
    ]
    return "".join(f"# {line}".rstrip() + "\n" for line in lines) + "\n"


def bundle_provider(name: str, prices_dir: Path, now: datetime) -> None:
    """Copy one refreshed snapshot into prices_dir, marked as fetched from a feed."""
    from costcalc.core.models import PriceSnapshot
    from costcalc.edge.resources import dump_yaml, load_yaml_file, write_atomic
    from costcalc.providers import registry
    from costcalc.store.freshness import FEED_NOTE
    from costcalc.store.snapshots import refreshed_path

    provider = registry.get(name)
    snapshot = load_yaml_file(refreshed_path(provider), provider.snapshot_model)
    assert isinstance(snapshot, PriceSnapshot)  # every live feed writes a PriceSnapshot
    note = f"{FEED_NOTE} on {now:%Y-%m-%d} by scripts/bundle_prices.py."
    old = snapshot.notes
    marked = replace(snapshot, **{"notes": f"{note} {old}" if old else note})
    text = dump_yaml(plain(marked, omit_defaults=True))
    head = header(
        provider.snapshot_file,
        provider.label,
        snapshot.source,
        snapshot.source_url,
        snapshot.licence,
        f"{snapshot.fetched_at:%Y-%m-%d}",
    )
    write_atomic(prices_dir / provider.snapshot_file, head + text)


def bundle_fx(prices_dir: Path) -> None:
    from costcalc.core.models import FxRates
    from costcalc.edge.resources import dump_yaml, load_yaml_file, write_atomic
    from costcalc.store.snapshots import FX_FILE, fx_path

    rates = load_yaml_file(fx_path(), FxRates)
    # a bundled file has no fetched_at: the rates are of their as_of day
    data = plain(rates, omit_defaults=True)
    data.pop("fetched_at", None)
    text = dump_yaml(data)
    head = header(
        FX_FILE,
        "Euro reference rates",
        rates.source,
        "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
        rates.licence,
        f"{rates.as_of:%Y-%m-%d}",
    )
    write_atomic(prices_dir / FX_FILE, head + text)


def freshness_report(prices_dir: Path, now: datetime, width: int | None) -> str:
    """The freshness table of the snapshots in prices_dir (not the installed ones)."""
    from costcalc.core.models import DesktopDefaults, ElectricityData, FxRates
    from costcalc.core.offers import LoadedSnapshot, PriceBook
    from costcalc.edge.resources import load_yaml_file
    from costcalc.providers.registry import PROVIDERS
    from costcalc.store import freshness
    from costcalc.store.loaders import load_app_data

    book = PriceBook()
    for p in PROVIDERS:
        snapshot = load_yaml_file(prices_dir / p.snapshot_file, p.snapshot_model)
        book.snapshots[p.name] = LoadedSnapshot(p.name, snapshot, "bundled")
        book.offers += p.offers(snapshot)
    data = freshness.with_book(load_app_data(), book)
    others = freshness.other_ages(
        load_yaml_file(prices_dir / "desktop.yaml", DesktopDefaults),
        load_yaml_file(prices_dir / "electricity.yaml", ElectricityData),
        load_yaml_file(prices_dir / "fx.yaml", FxRates),
        fx_feed=FEED_NOTE_FX in (prices_dir / "fx.yaml").read_text(encoding="utf-8"),
    )
    return freshness.report(data, now, width, others)


def rebuild(prices_dir: Path) -> tuple[int, list[str]]:
    """Refresh every provider and the exchange rates into the (temporary) home, credentials
    unset, so a keyed feed is skipped; copy what passed. The exit status (0, or 1 when a feed
    failed) and one line per provider."""
    from costcalc.core.models import PriceSnapshot
    from costcalc.edge.resources import load_yaml_file
    from costcalc.feeds.refresh import run_refresh
    from costcalc.providers import ecb, registry
    from costcalc.store.snapshots import refreshed_path

    report = run_refresh()
    lines: list[str] = []
    readings: list[Any] = []
    for result in report.results:
        provider = None if result.provider == ecb.NAME else registry.get(result.provider)
        if result.ok and not result.skipped and provider and appends_catalog_rows(provider):
            rows = load_yaml_file(refreshed_path(provider), PriceSnapshot).offers
            why = f"read live from the catalogs on {report.started_at:%Y-%m-%d}"
            added, _ = add_catalog_rows(
                prices_dir / provider.snapshot_file,
                provider,
                rows,
                why,
                False,
                readings,
                report.started_at,
            )
            lines.append(f"{result.provider}: kept its table, {added} catalog rows appended")
        elif result.ok and not result.skipped:
            if result.provider == ecb.NAME:
                bundle_fx(prices_dir)
            else:
                bundle_provider(result.provider, prices_dir, report.started_at)
            lines.append(f"{result.provider}: bundled, {result.summary or result.message}")
        elif result.ok:
            lines.append(f"{result.provider}: kept the curated file ({result.summary})")
        else:
            lines.append(f"{result.provider}: FAILED, kept the old file: {result.message}")
    if readings:
        append_rows(prices_dir / "readings.yaml", readings, "Catalog readings of bundled offers")
    return report.exit_code, lines


# --------------------------------------------------------------------------- the catalogs

CATALOG_MARK = "# --- rows from the field's catalogs (scripts/bundle_prices.py --catalogs)"
"""Where the catalog rows appended to a curated or feed-built file begin; a rebuild replaces
everything after it."""


class Stated(NamedTuple):
    """The date given to a recorded catalog copy, and why that date."""

    day: str
    why: str
    ways: str = "both"
    readings_only: bool = False
    """True when the copy is older than the provider's own table: its rows only cross-check."""


STATED: dict[tuple[str, str], Stated] = {
    ("skypilot", "shadeform"): Stated(
        "2026-09-20",
        "the stored copy (skypilot-catalog catalogs/v8/shadeform/vms.csv @002363da) carries no "
        "date; its 13 Lambda and Crusoe rows equal Lambda's and Crusoe's pages as transcribed "
        "on 2026-09-20 (prices/lambda.yaml, prices/crusoe.yaml), so its prices were true then",
    ),
    ("skypilot", "lambda"): Stated(
        "2026-09-20",
        "the stored copy (catalogs/v8/lambda/vms.csv @0f407038) carries no date; its A6000 and "
        "V100 prices equal Lambda's page as transcribed on 2026-09-20 (prices/lambda.yaml)",
    ),
    ("skypilot", "aws"): Stated(
        "2026-09-24",
        "the stored copy (catalogs/v8/aws/vms.csv @00148f2a) carries no date; its on-demand "
        "prices equal the AWS Price List of 2026-09-24 in us-east-1 and of 2026-08-26 "
        "elsewhere (g6.48xlarge 13.3504, 16.69464, 19.36206; g6.4xlarge 1.91903 in "
        "prices/aws_ondemand.yaml); its spot prices have no date and are not bundled",
        ways="on-demand",
    ),
    ("skypilot", "nebius"): Stated(
        "2026-05-18",
        "the stored copy (catalogs/v8/nebius/vms.csv @0082b043) carries no date; its H100 2.95 "
        "equals opslyft.com's reading of 2026-05-18 (prices/nebius.yaml); Nebius's prices "
        "rose on 2026-10-01, so its rows are readings only",
        readings_only=True,
    ),
}
"""The recorded copies a bundle may use, each dated by the newest dated public reading its
rows agree with (a copy the offline store keeps has no commit date). A copy not named here
(every gpuhunt file: none was reachable; the other SkyPilot files: no dated reading agrees
with them) is left out of the bundle; `costcalc refresh` reads the catalogs live, dated."""

UNDATED = (
    "no dated copy of its catalog could be reached offline: the stored SkyPilot copy carries no "
    "date and no dated public reading agrees with its rows, and no copy of gpuhunt's published "
    "catalog was reachable; `costcalc refresh` reads the catalogs live, each row dated"
)


def recorded_files(directory: Path, sources: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """The (source, CatalogFile) pairs STATED dates among the recorded copies, and why each
    other source was left out."""
    from costcalc.providers.catalog_rows import parse_gpuhunt, parse_skypilot
    from costcalc.providers.catalogs import GPUHUNT_URL, SKYPILOT_URL, CatalogFile

    files, left_out = [], []
    for source in sources:
        stated = STATED.get((source.catalog, source.file))
        if stated is None:
            left_out.append(f"{source.label}: undated copy")
            continue
        day = datetime.fromisoformat(stated.day).replace(tzinfo=timezone.utc)
        if source.catalog == "skypilot":
            path = directory / "skypilot" / "v8" / source.file / "vms.csv"
            rows = parse_skypilot(path.read_bytes(), source.file)
            name = f"SkyPilot v8 {source.file}/vms.csv"
            url = f"{SKYPILOT_URL}/v8/{source.file}/vms.csv"
        else:
            folder = directory / "gpuhunt" / source.file
            version = (folder / "version").read_text().strip()
            path = folder / version / f"{source.file}.csv"
            rows = parse_gpuhunt(path.read_bytes(), source.file)
            name = f"gpuhunt {source.file} catalog {version}"
            url = f"{GPUHUNT_URL}/{source.file}/{version}/catalog.zip"
        if stated.ways != "both":
            rows = [r for r in rows if r.spot == (stated.ways == "spot")]
        files.append((source, CatalogFile(f"{name} (recorded copy)", url, day, rows)))
    return files, left_out


def _flow(data: dict[str, Any]) -> str:
    import yaml

    return (
        "- " + yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=10**6).strip()
    )


def append_rows(path: Path, rows: Sequence[Any], why: str) -> None:
    """Append `rows` to the offers (the file's last list) after CATALOG_MARK, replacing what an
    earlier rebuild appended; the file's own rows and header stay byte for byte."""
    from costcalc.edge.resources import write_atomic

    text = path.read_text(encoding="utf-8").split(f"\n{CATALOG_MARK}", 1)[0].rstrip("\n")
    if rows:
        lines = [CATALOG_MARK, f"# {why}"]
        lines += [_flow(plain(r, omit_defaults=True)) for r in rows]
        text += "\n" + "\n".join(lines)
    write_atomic(path, text + "\n")


def _checked(offers: Sequence[Any], provider: Any, now: datetime) -> tuple[list[Any], list[str]]:
    """The rows that pass the refresh's plausibility checks, and a line for each held back."""
    from costcalc.core.models import PriceSnapshot
    from costcalc.core.plausible import Readings
    from costcalc.feeds.refresh import hold_back
    from costcalc.store.bundled import load_catalog
    from costcalc.store.snapshots import load_price_book, shipped_prices

    catalog = load_catalog()
    snapshot = PriceSnapshot(
        provider=provider.name, source="catalogs", fetched_at=now, offers=tuple(offers)
    )
    known = Readings.of(load_price_book(overrides=False, catalog=catalog).offers)
    kept, held = hold_back(snapshot, catalog, known, shipped_prices())
    return list(kept.offers), [str(h) for h in held]


def bundle_catalogs(
    directory: Path, prices_dir: Path, now: datetime, released: datetime
) -> list[str]:
    """Every provider's catalog rows from the recorded copies in `directory` (module doc, 5)."""
    from costcalc.core.ranges import CrossReading
    from costcalc.edge.resources import dump_yaml, write_atomic
    from costcalc.providers import registry
    from costcalc.providers.catalog_gpus import IGNORED, table
    from costcalc.providers.from_catalogs import offer_rows
    from costcalc.providers.gpu_names import GpuNames

    lines: list[str] = []
    readings: list[CrossReading] = []
    for provider in registry.every():
        feed = getattr(provider, "catalogs", None)
        if feed is None:
            continue
        files, left_out = recorded_files(directory, feed.sources)
        rows = offer_rows(feed, files, GpuNames(table(feed.gpu_overrides), IGNORED))
        rows, held = _checked(rows, provider, now)
        path = prices_dir / provider.snapshot_file
        own = provider.fetch is None and provider.name not in _CURATED_WITH_CATALOGS
        stated = [STATED[(s.catalog, s.file)] for s, _ in files]
        if own:
            snapshot = catalog_snapshot(provider, feed, rows, files, released)
            why = "; ".join(s.why for s in stated) if stated else UNDATED
            write_atomic(
                path,
                catalog_header(provider, feed, snapshot, why)
                + dump_yaml(plain(snapshot, omit_defaults=True)),
            )
            lines.append(f"{provider.name}: {len(rows)} rows from the recorded catalogs")
        else:
            why = "; ".join(s.why for s in stated)
            only = any(s.readings_only for s in stated)
            added, found = add_catalog_rows(path, provider, rows, why, only, readings, now)
            lines.append(f"{provider.name}: {added} catalog rows appended, {found} readings")
        lines += [f"{provider.name}:   held back {h}" for h in held]
        lines += [f"{provider.name}:   left out {x}" for x in left_out]
    append_rows(
        prices_dir / "readings.yaml",
        readings,
        "Catalog readings of bundled offers (the offer's own price stays the row's)",
    )
    return lines


def add_catalog_rows(
    path: Path,
    provider: Any,
    rows: Sequence[Any],
    why: str,
    readings_only: bool,
    readings: list[Any],
    now: datetime,
) -> tuple[int, int]:
    """Append to `path` the catalog rows its own rows lack (none when `readings_only`), and add
    to `readings` the catalog readings of its own offers; how many of each."""
    from costcalc.core.models import PriceSnapshot
    from costcalc.core.ranges import CrossReading
    from costcalc.edge.resources import load_yaml_text
    from costcalc.providers.from_catalogs import merge

    # the file's own rows, not those an earlier build appended
    own = path.read_text(encoding="utf-8").split(f"\n{CATALOG_MARK}", 1)[0]
    current = load_yaml_text(own.encode("utf-8"), str(path), PriceSnapshot)
    merged, found, _ = merge(current, rows, provider.catalogs.cross_check_only or readings_only)
    added = [] if readings_only else list(merged.offers[len(current.offers) :])
    append_rows(path, added, f"Why these dates: {why}" if added else "")
    for r in found:
        reading = CrossReading(
            provider=provider.name,
            name=r.name,
            region=r.region,
            gpu=r.gpu,
            gpu_count=r.gpu_count,
            usd_per_hour=r.usd_per_hour,
            observed=(r.fetched_at or now).date(),
            source=f"{r.source}; {why}",
        )
        if reading not in readings:
            readings.append(reading)
    return len(added), len(found)


def appends_catalog_rows(provider: Any) -> bool:
    """True for a provider with catalogs and no keyless feed of its own: its curated table is
    kept and the catalog rows it lacks appended, never the table replaced by them."""
    return getattr(provider, "catalogs", None) is not None and provider.name in _OWN_TABLES


_OWN_TABLES = frozenset({"gcp", "crusoe", "nebius", "lambda"})
"""Providers with catalogs whose own, hand-curated tables stay: without a keyless feed of their
own (Lambda's needs a key), a refresh fills them from the catalogs alone."""

_CURATED_WITH_CATALOGS = frozenset({"gcp", "crusoe", "nebius"})
"""Providers without a feed of their own whose curated tables the catalogs add to, never
replace: their own rows were transcribed and cross-checked by hand."""


def catalog_snapshot(
    provider: Any, feed: Any, rows: Sequence[Any], files: Sequence[Any], released: datetime
) -> Any:
    from costcalc.core.models import PriceSnapshot
    from costcalc.providers.catalogs import GPUHUNT_URL, SKYPILOT_URL
    from costcalc.providers.from_catalogs import LICENCE

    used = ", ".join(f"{f.source} as of {f.dated:%Y-%m-%d}" for _, f in files)
    dates = [r.fetched_at for r in rows if r.fetched_at]
    first = feed.sources[0]
    if files:
        url = files[0][1].url
    elif first.catalog == "skypilot":
        url = f"{SKYPILOT_URL}/v8/{first.file}/vms.csv"
    else:
        url = f"{GPUHUNT_URL}/{first.file}/version"
    return PriceSnapshot(
        provider=provider.name,
        source=f"the field's catalogs: {used}" if used else "the field's catalogs (none dated)",
        source_url=url,
        licence=LICENCE,
        fetched_at=max(dates) if dates else released,
        price_kind=feed.price_kind,
        notes=(
            f"{provider.label} as the catalogs list it, each row dated by its catalog copy"
            + (f"; bought through {feed.via}, at its prices" if feed.via else "")
            + ("" if rows else f"; no rows bundled: {UNDATED}")
        ),
        offers=tuple(rows),
    )


def catalog_header(provider: Any, feed: Any, snapshot: Any, why: str) -> str:
    tier = feed.tier or "secure"
    lines = [
        f"prices/{provider.snapshot_file} -- {provider.label}: GPU offers as the field's catalogs "
        "list them (issue 41).",
        "",
        f"What: {len(snapshot.offers)} offers, tier {tier} (`--exclude {tier}` leaves them out)"
        + (f", bought through {feed.via}" if feed.via else "")
        + ".",
        "Sources: " + ", ".join(s.label for s in feed.sources) + ".",
        f"Date the figures were true, and why: {why}.",
        "Licence: prices cited as facts; gpuhunt's published data declares no licence and",
        "  skypilot-catalog has no licence file, so single rows are cited, never a whole file.",
        "Made by: scripts/bundle_prices.py --catalogs from the recorded copies in",
        "  tests/fixtures/feeds/catalogs (their README says where each came from); rerun it to",
        "  rebuild.",
    ]
    return commented(lines)


def commented(lines: Sequence[str]) -> str:
    """`lines` as a YAML header of comments, each wrapped at 100 characters."""
    import textwrap

    out = []
    for line in lines:
        wrapped = textwrap.wrap(line, 96, subsequent_indent="  ") or [""]
        out += [f"# {w}".rstrip() for w in wrapped]
    return "\n".join(out) + "\n\n"


# --------------------------------------------------------------------------- the release

RELEASE_CARDS = (
    "rtx3090",
    "rtx4090",
    "rtx5090",
    "rtx_a6000",
    "rtx6000_ada",
    "rtx_pro6000",
    "l4",
    "a100_pcie_80gb",
    "h100_pcie_80gb",
    "h200_sxm_141gb",
)
"""Issue 41's ten GPUs a desktop is weighed as: RTX 3090, 4090, 5090, A6000, RTX 6000 Ada,
RTX PRO 6000, L4, A100 80GB (PCIe, the card a desktop takes), H100 (PCIe) and H200."""
RELEASE_MAX_AGE_DAYS = 30


def book_of(prices_dir: Path) -> Any:
    from costcalc.core.offers import LoadedSnapshot, PriceBook
    from costcalc.edge.resources import load_yaml_file
    from costcalc.providers.registry import PROVIDERS

    book = PriceBook()
    for p in PROVIDERS:
        snapshot = load_yaml_file(prices_dir / p.snapshot_file, p.snapshot_model)
        book.snapshots[p.name] = LoadedSnapshot(p.name, snapshot, "bundled")
        book.offers += p.offers(snapshot)
        book.labels[p.name] = p.label
    return book


def release_data(prices_dir: Path) -> Any:
    from costcalc.store import freshness
    from costcalc.store.loaders import load_app_data

    return freshness.with_book(load_app_data(), book_of(prices_dir))


def set_aside(data: Any, gpu: str, utilisation: float, released: datetime) -> list[str]:
    """The cheaper offers a deciding row won over only because they were stale (a marketplace
    or spot price past its limit): '<provider> <offer>' for each."""
    from costcalc.core.scenario import Scenario, evaluate

    calc = evaluate(Scenario(gpu=gpu, utilisation=utilisation), data, released)
    return [f"{r.offer.provider} {r.offer.name}" for r in calc.comparison.set_aside]


def concentration(data: Any, rows: Sequence[Any], released: datetime) -> list[dict[str, Any]]:
    """Each provider that decides more than half of the release's cases, with the cases where it
    is not truly the cheapest (a cheaper offer set aside as stale) and why."""
    from collections import Counter

    found = []
    counts = Counter(r.offer.provider for r in rows)
    for provider, decides in counts.items():
        if decides * 2 <= len(rows):
            continue
        cases = []
        for r in rows:
            if r.offer.provider != provider:
                continue
            cheaper = set_aside(data, r.gpu, r.utilisation, released)
            if cheaper:
                cases.append(
                    {"gpu": r.gpu, "utilisation": r.utilisation, "set_aside": sorted(cheaper)}
                )
        found.append(
            {
                "provider": provider,
                "decides": decides,
                "of": len(rows),
                "not_cheapest": cases,
                "why": CONCENTRATION_WHY if cases else "the cheapest in every case it decides",
            }
        )
    return found


CONCENTRATION_WHY = (
    "in these cases a cheaper marketplace or spot price (Vast.ai's listings, AWS spot) was set "
    "aside as stale: such prices are stale after 7 days and a bundle built offline from "
    "recorded copies holds none that young; `costcalc refresh` fetches them live"
)


def write_release(prices_dir: Path, released: datetime) -> list[str]:
    """prices/release.yaml (module doc, 6); returns one line per deciding row."""
    from costcalc.core.offers import age_days
    from costcalc.edge.resources import dump_yaml, write_atomic

    data = release_data(prices_dir)
    rows = freshness_rows(data, released)
    older, lines = [], []
    for r in rows:
        age = age_days(r.offer.fetched_at, released)
        where = f"{r.gpu} at {r.utilisation:.0%}: {r.offer.provider} {r.offer.name}"
        lines.append(f"{where} ({r.offer.region}), {r.offer.fetched_at:%Y-%m-%d}, {age:.0f} d")
        if age > RELEASE_MAX_AGE_DAYS:
            older.append(
                {
                    "gpu": r.gpu,
                    "utilisation": r.utilisation,
                    "provider": r.offer.provider,
                    "offer": r.offer.name,
                    "region": r.offer.region,
                    "date": f"{r.offer.fetched_at:%Y-%m-%d}",
                    "age_days": round(age),
                    "why": older_why(r.offer),
                }
            )
    head = [
        "prices/release.yaml -- the day this bundle ships and the deciding rows older than the",
        f"  release rule allows (issue 41: every deciding row at most {RELEASE_MAX_AGE_DAYS} days "
        "old on the release day).",
        "",
        "What: for each of the ten GPUs in `cards` at each utilisation, the cheapest",
        "  comparable offer the engine picks from this bundle on `released` (the rows",
        "  `costcalc prices --ages` calls deciding); each one older than the rule allows is",
        "  listed in `older` with why. A provider deciding more than half of the cases is",
        "  listed in `concentration` with the cases where a cheaper offer was set aside.",
        "Made by: scripts/bundle_prices.py (--released); tests/data/test_release_freshness.py",
        "  recomputes the rows and fails on one older than the rule that is not listed here,",
        "  or one listed that is not.",
    ]
    data = {
        "schema_version": 1,
        "released": f"{released:%Y-%m-%d}",
        "max_deciding_age_days": RELEASE_MAX_AGE_DAYS,
        "cards": list(RELEASE_CARDS),
        "older": older,
        "concentration": concentration(data, rows, released),
    }
    text = "".join(f"# {line}".rstrip() + "\n" for line in head) + "\n" + dump_yaml(data)
    write_atomic(prices_dir / "release.yaml", text)
    return lines


def freshness_rows(data: Any, released: datetime) -> list[Any]:
    from costcalc.store import freshness

    return freshness.deciding_rows(data, released, cards=RELEASE_CARDS)


def older_why(offer: Any) -> str:
    """Why a deciding row is older than the rule: the newest dated reading of that price."""
    source = " ".join(offer.source.split())
    if len(source) > 200:
        source = source[:199] + "…"
    return (
        f"the newest dated reading of this price reachable when the bundle was built: "
        f"{offer.fetched_at:%Y-%m-%d} ({source})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prices-dir", type=Path, default=PRICES_DIR)
    parser.add_argument(
        "--ages-only", action="store_true", help="print the table without refreshing anything"
    )
    parser.add_argument(
        "--catalogs",
        type=Path,
        help="build the catalog rows from recorded copies in this directory, with no network",
    )
    parser.add_argument(
        "--released",
        help="the release day prices/release.yaml states (YYYY-MM-DD; default: today)",
    )
    ns = parser.parse_args(argv)
    prices_dir: Path = ns.prices_dir
    if not (prices_dir / "desktop.yaml").is_file():
        print(f"bundle_prices: {prices_dir} is not a prices directory", file=sys.stderr)
        return 2
    from costcalc.store.loaders import utc_now

    before = os.environ.get("COSTCALC_HOME")
    with tempfile.TemporaryDirectory(prefix="costcalc-bundle-") as home:
        os.environ["COSTCALC_HOME"] = home
        try:
            unset_credentials()
            status = 0
            now = utc_now()
            released = (
                datetime.fromisoformat(ns.released).replace(tzinfo=timezone.utc)
                if ns.released
                else now
            )
            if ns.catalogs is not None:
                lines = bundle_catalogs(ns.catalogs, prices_dir, now, released)
                print("\n".join(lines), end="\n\n")
            elif not ns.ages_only:
                status, lines = rebuild(prices_dir)
                print("\n".join(lines), end="\n\n")
            if not ns.ages_only:
                print("\n".join(write_release(prices_dir, released)), end="\n\n")
            print(freshness_report(prices_dir, now, None))
        finally:  # called from a test or a session, leave its home where it was
            if before is None:
                os.environ.pop("COSTCALC_HOME", None)
            else:
                os.environ["COSTCALC_HOME"] = before
    return status


if __name__ == "__main__":
    sys.exit(main())
