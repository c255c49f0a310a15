"""`costcalc refresh`: download fresh prices; made to run from cron and to be read in a log."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from costcalc.cli import output

if TYPE_CHECKING:
    from costcalc.feeds.refresh import HeldBack, ProviderResult


def register(sub: Any) -> None:
    from costcalc.providers.registry import PROVIDERS

    # dict.fromkeys: the catalogs' settings are every catalog-read provider's, named once
    urls = ", ".join(dict.fromkeys(e.name for p in PROVIDERS for e in p.env if not e.secret))
    p = sub.add_parser(
        "refresh",
        help="download fresh prices from the providers (run it from cron)",
        description=(
            "Download each provider's current prices, check them and store them as your "
            "snapshot (the bundled prices stay the fallback), and add every observation to the "
            "price history. A provider that fails keeps its last good snapshot. Exit codes: "
            "0 all refreshed, 1 some provider failed, 2 usage error, 3 another refresh is "
            f"running. Feed settings: {urls}."
        ),
        **output.examples(
            "costcalc refresh",
            "costcalc refresh --provider aws-spot --provider runpod --json",
            "costcalc refresh --print-cron",
        ),
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME",
        help="only this provider (repeatable; default: all): "
        + ", ".join(p.name for p in PROVIDERS),
    )
    p.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    p.add_argument("--quiet", action="store_true", help="print only failures (for cron and logs)")
    p.add_argument(
        "--force",
        action="store_true",
        help="accept a payload even if it drops most rows of the last snapshot or its prices "
        "moved to under half or over twice the last snapshot's",
    )
    p.add_argument(
        "--print-cron",
        action="store_true",
        help="print a crontab line that refreshes every 6 hours, then exit",
    )
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    import json
    import signal
    import sys
    from datetime import datetime, timezone

    from costcalc.feeds.refresh import ProviderFinished, ProviderSaid, RefreshEvent, run_refresh
    from costcalc.present.display import safe

    if ns.print_cron:
        print(cron_line())
        return 0
    log_style = not sys.stderr.isatty()
    # cron and systemd stop a job with SIGTERM: exit through the normal path, so the refresh
    # lock is released and no write is left half done (each one is atomic anyway).
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))

    def line(text: str) -> str:
        text = safe(text)
        if not log_style:
            return text
        return f"{datetime.now(timezone.utc):%Y-%m-%dT%H:%M:%SZ} {text}"

    chatty = not ns.quiet and not ns.json and not log_style

    def progress(event: RefreshEvent) -> None:
        # each provider's line goes out as it finishes, flushed, to a terminal or a pipe alike;
        # a terminal also sees what each provider says on the way
        if chatty and isinstance(event, ProviderSaid):
            print(f"costcalc: {safe(str(event))}", file=sys.stderr, flush=True)
        elif isinstance(event, ProviderFinished):
            _tell(event.result, ns, line)

    report = run_refresh(ns.provider or None, force=ns.force, progress=progress)
    for note in report.notes:
        print(line(f"costcalc: refresh: note: {note}"), file=sys.stderr)
    if report.history_error:
        print(
            line(f"costcalc: refresh: history not updated: {report.history_error}"), file=sys.stderr
        )
    if ns.json:
        doc = {
            "exit_code": report.exit_code,
            "started_at": report.started_at.isoformat(),
            "history_error": report.history_error,
            "results": [
                {
                    "provider": r.provider,
                    "ok": r.ok,
                    "skipped": r.skipped,
                    "offers": r.offers,
                    "unknown_gpu_count": len(r.unknown_gpus),
                    "unknown_gpus": [safe(name) for name in r.unknown_gpus],
                    "held_back": [safe(str(held)) for held in r.held_back],
                    "held_back_offers": [_held_json(r.provider, held) for held in r.held_back],
                    "held_back_feed": _held_feed_json(r),
                    "message": safe(r.message),
                }
                for r in report.results
            ],
        }
        print(json.dumps(doc, indent=2))
    elif not ns.quiet:
        print(line(f"refresh: {summary(report.results)}"), flush=True)
    return report.exit_code


def _held_json(provider: str, held: HeldBack) -> dict[str, Any]:
    """One offer held back, field by field: whose, which, its GPU, its price and the bound."""
    from costcalc.present.display import safe

    return {
        "provider": provider,
        "offer": safe(held.offer),
        "region": safe(held.region),
        "gpu": safe(held.gpu),
        "gpu_count": held.gpu_count,
        "usd_per_hour": held.usd_per_hour,
        "usd_per_gpu_hour": held.usd_per_gpu_hour,
        "bound": held.bound,
        "reason": safe(held.reason),
    }


def _held_feed_json(result: ProviderResult) -> dict[str, Any] | None:
    """A feed held back whole: the median ratio to the snapshot kept, and over how many offers."""
    from costcalc.core.plausible import FEED_RATIO

    if result.held_feed is None:
        return None
    return {
        "median_ratio": result.held_feed.shift.ratio,
        "offers_compared": result.held_feed.shift.compared,
        "expected_ratio": list(FEED_RATIO),
        "last_good_fetched_at": result.held_feed.last_good_at.isoformat(),
    }


def _tell(result: ProviderResult, ns: argparse.Namespace, line: Callable[[str], str]) -> None:
    """One provider's line, as soon as it finished: a failure on stderr (always, once), a
    success on stdout (unless --quiet or --json)."""
    import sys

    if not result.ok:
        text = f"costcalc: refresh: {result.provider} failed: {result.message}; "
        print(line(text + "kept its last good snapshot"), file=sys.stderr, flush=True)
    elif not ns.quiet and not ns.json:
        state = "skipped" if result.skipped else "ok"
        print(line(f"{result.provider}: {state}: {result.message}"), flush=True)


def summary(results: Sequence[ProviderResult]) -> str:
    """'3 refreshed, 9 skipped, 2 failed': counted from the same results the lines told."""
    refreshed = sum(1 for r in results if r.ok and not r.skipped)
    skipped = sum(1 for r in results if r.skipped)
    failed = sum(1 for r in results if not r.ok)
    return f"{refreshed} refreshed, {skipped} skipped, {failed} failed"


def cron_line() -> str:
    """A crontab line: every 6 hours, absolute paths, PATH set, output appended to a log."""
    import os
    import shlex
    import shutil
    import sys
    from pathlib import Path

    from costcalc.edge import locations

    beside_python = Path(sys.executable).parent / "costcalc"
    found = shutil.which("costcalc")
    if beside_python.exists():
        command = shlex.quote(str(beside_python.absolute()))
    elif found:
        command = shlex.quote(str(Path(found).absolute()))
    else:
        command = f"{shlex.quote(sys.executable)} -m costcalc"
    bin_dir = str(Path(sys.executable).parent.absolute())
    path = ":".join(dict.fromkeys([bin_dir, "/usr/local/bin", "/usr/bin", "/bin"]))
    log_dir = locations.log_dir().absolute()
    log = log_dir / "refresh.log"
    env = f"PATH={shlex.quote(path)}"
    home = os.environ.get("COSTCALC_HOME")
    if home:
        env += f" COSTCALC_HOME={shlex.quote(str(locations.user_path(home).absolute()))}"
    return "17 */6 * * * " + for_crontab(
        f"mkdir -p {shlex.quote(str(log_dir))} && {env} {command} refresh --quiet "
        f">> {shlex.quote(str(log))} 2>&1"
    )


def for_crontab(command: str) -> str:
    """A shell command as a crontab line must carry it. cron ends the command at an unescaped
    `%` (the rest becomes its input) and reads `\\%` as `%` before the shell sees it, so each `%`
    is escaped; a backslash, which would then escape the wrong `%` or none, is written `"\\\\"`
    (in double quotes, which cron passes on untouched). Every backslash here is inside a word
    shlex.quote wrapped in single quotes, where closing and reopening them is safe (a `%` may
    be outside: the shell gives it no meaning)."""
    return command.replace("\\", "'\"\\\\\"'").replace("%", "\\%")
