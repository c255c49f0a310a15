"""Rebuild the bundled price snapshot for a release, then say how old every file's rows are.

.venv/bin/python scripts/bundle_prices.py [--prices-dir prices] [--ages-only]

1. Runs costcalc's own refresh for every provider with a keyless feed (and the ECB's exchange
   rates), with COSTCALC_HOME in a temporary directory and every credential unset, so the bundle
   is what anyone can fetch and the maintainer's own snapshots, history and keys stay untouched.
2. Copies each snapshot that passed the refresh's checks into prices/ under a provenance header
   (source, date, licence, how it was made); its notes start with freshness.FEED_NOTE. A feed
   that failed keeps the file it had, and the exit status says so (1).
3. Keeps curated files (providers without a public feed) as they are.
4. Prints every file's newest and oldest row, and the rows that decide a desktop verdict for
   the cards in freshness.DESKTOP_CARDS with the readings each rests on.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

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
    from costcalc.feeds.refresh import run_refresh
    from costcalc.providers import ecb

    report = run_refresh()
    lines = []
    for result in report.results:
        if result.ok and not result.skipped:
            if result.provider == ecb.NAME:
                bundle_fx(prices_dir)
            else:
                bundle_provider(result.provider, prices_dir, report.started_at)
            lines.append(f"{result.provider}: bundled, {result.summary or result.message}")
        elif result.ok:
            lines.append(f"{result.provider}: kept the curated file ({result.summary})")
        else:
            lines.append(f"{result.provider}: FAILED, kept the old file: {result.message}")
    return report.exit_code, lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prices-dir", type=Path, default=PRICES_DIR)
    parser.add_argument(
        "--ages-only", action="store_true", help="print the table without refreshing anything"
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
            if not ns.ages_only:
                status, lines = rebuild(prices_dir)
                print("\n".join(lines), end="\n\n")
            print(freshness_report(prices_dir, utc_now(), None))
        finally:  # called from a test or a session, leave its home where it was
            if before is None:
                os.environ.pop("COSTCALC_HOME", None)
            else:
                os.environ["COSTCALC_HOME"] = before
    return status


if __name__ == "__main__":
    sys.exit(main())
