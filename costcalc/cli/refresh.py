"""`costcalc refresh`: download fresh prices; made to run from cron and to be read in a log."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from costcalc.cli import output
from costcalc.core.plausible import FEED_RATIO
from costcalc.edge import locations
from costcalc.feeds.refresh import ProviderFinished, ProviderSaid, RefreshEvent, run_refresh
from costcalc.present.display import safe
from costcalc.providers import registry

if TYPE_CHECKING:
    from costcalc.feeds.refresh import HeldBack, ProviderResult


def register(sub: Any) -> None:
    # dict.fromkeys: the catalogs' settings are every catalog-read provider's, named once
    urls = ", ".join(dict.fromkeys(e.name for p in registry.every() for e in p.env if not e.secret))
    p = sub.add_parser(
        "refresh",
        help="download fresh prices from the providers (run it from cron)",
        description=(
            "Download each provider's current prices, check them and store them as your "
            "snapshot (the bundled prices stay the fallback), and add every observation to the "
            "price history. A provider that fails keeps its last good snapshot. Exit codes: "
            "0 all refreshed, 1 some provider failed, 2 usage error, 3 another refresh is "
            "running, 4 the answer to your saved scenario (config.yaml) flipped or its offer "
            "crossed its flip price (one line says which). --publish writes the snapshots for a "
            "lab to serve; --from takes a lab's in, checked file by file. "
            f"Feed settings: {urls}."
        ),
        **output.examples(
            "costcalc refresh --provider aws-spot --provider runpod --json",
            "costcalc refresh --publish /srv/www/costcalc",
            "costcalc refresh --from https://lab.example/costcalc/ --notify ntfy://gpus",
        ),
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME",
        help="only this provider (repeatable; default: all): "
        + ", ".join(p.name for p in registry.every()),
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
    lab = p.add_argument_group("one refresh for a lab (docs/refresh.md)")
    lab.add_argument(
        "--publish",
        metavar="DIR",
        help="after refreshing, write your snapshots and a manifest of their sizes and digests "
        "into DIR, for any web server or object store to serve",
    )
    lab.add_argument(
        "--with-bundled",
        action="store_true",
        help="with --publish: also publish the bundled prices of providers you have not refreshed",
    )
    lab.add_argument(
        "--from",
        dest="from_url",
        metavar="URL",
        help="instead of asking the providers, take the snapshots published at URL (http(s), "
        "file:// or a path): each file checked for size, digest and plausibility; one that "
        "fails keeps yours",
    )
    lab.add_argument(
        "--pin",
        metavar="SHA256",
        help="with --from: take the snapshots only if the manifest's SHA-256 is this (what "
        "--publish printed), so a server cannot hand you other prices",
    )
    alert = p.add_argument_group("an alert when the answer flips (docs/refresh.md)")
    alert.add_argument(
        "--notify",
        action="append",
        default=[],
        metavar="URL",
        help="send the alert line through apprise to URL too (repeatable: mailto://, "
        "slack://, ntfy://, json://...; needs the notify extra)",
    )
    alert.add_argument(
        "--as-in-app",
        action="store_true",
        help="watch the answer as the app shows it (app-state.yaml over config.yaml)",
    )
    alert.add_argument(
        "--no-alert",
        action="store_true",
        help="do not re-evaluate your saved scenario after the refresh",
    )
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
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

    from costcalc.store.loaders import utc_now

    _check_lab_flags(ns)
    sender = None
    if ns.notify:
        from costcalc.feeds.alert import notifier

        sender = notifier(ns.notify)
    now = utc_now()
    watched = None if ns.no_alert else _watch(ns, now)
    if ns.from_url:
        from costcalc.feeds.publish import take

        report = take(ns.from_url, now, pin=ns.pin, providers=ns.provider or None, force=ns.force)
        for result in report.results:
            progress(ProviderFinished(result))
    else:
        report = run_refresh(ns.provider or None, force=ns.force, progress=progress)
    for note in report.notes:
        print(line(f"costcalc: refresh: note: {note}"), file=sys.stderr)
    if report.history_error:
        print(
            line(f"costcalc: refresh: history not updated: {report.history_error}"), file=sys.stderr
        )
    published = _publish(ns, now) if ns.publish else None
    fired = _alert(ns, watched, now, sender)
    exit_code = EXIT_ALERT if fired is not None else report.exit_code
    if ns.json:
        doc = {
            "exit_code": exit_code,
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
            "published": published,
            "alert": None if fired is None else {"kind": fired.kind, "line": fired.line},
        }
        print(json.dumps(doc, indent=2))
    else:
        if not ns.quiet:
            print(line(f"refresh: {summary(report.results)}"), flush=True)
            if published is not None:
                print(line(published["line"]), flush=True)
        if fired is not None:  # even with --quiet: it is what the job is for
            print(line(fired.line), flush=True)
    return exit_code


EXIT_ALERT = 4
"""The saved scenario's answer flipped (costcalc.feeds.alert)."""


def _check_lab_flags(ns: argparse.Namespace) -> None:
    """Options that only mean something beside another: a usage error (exit 2) alone."""
    import re

    from costcalc.core.errors import CostcalcError

    if ns.with_bundled and not ns.publish:
        raise CostcalcError("--with-bundled goes with --publish DIR")
    if ns.pin is not None:
        if not ns.from_url:
            raise CostcalcError("--pin goes with --from URL")
        if not re.fullmatch(r"[0-9a-fA-F]{64}", ns.pin):
            raise CostcalcError("--pin must be a SHA-256: 64 hexadecimal digits")
    if ns.no_alert and (ns.notify or ns.as_in_app):
        raise CostcalcError("--no-alert turns off what --notify and --as-in-app are for")


def _watch(ns: argparse.Namespace, now: Any) -> Any:
    """The saved scenario's answer on the prices before the refresh, or None when there is no
    saved scenario (no GPU named in config.yaml, or in the app with --as-in-app)."""
    import sys

    from costcalc.cli import args as cli_args
    from costcalc.cli.quick import _load_bench, _wanted
    from costcalc.core.errors import CostcalcError
    from costcalc.feeds.alert import answer

    asked = argparse.Namespace(environ=getattr(ns, "environ", None), as_in_app=ns.as_in_app)
    try:
        scenario, _ = cli_args.scenario_and_sources(asked)
    except CostcalcError as exc:
        print(f"costcalc: refresh: no alert: your saved scenario: {exc}", file=sys.stderr)
        return None
    if scenario.gpu is None and scenario.bench is None:
        if ns.notify:
            print(
                "costcalc: refresh: no alert: your config.yaml names no gpu, so there is no "
                "answer to watch",
                file=sys.stderr,
            )
        return None
    try:
        bench = _load_bench(scenario.bench)
        return (
            scenario,
            _wanted(scenario.providers),
            bench,
            answer(scenario, _wanted(scenario.providers), now, bench),
        )
    except CostcalcError as exc:
        print(f"costcalc: refresh: no alert: your saved scenario: {exc}", file=sys.stderr)
        return None


def _alert(ns: argparse.Namespace, watched: Any, now: Any, sender: Any) -> Any:
    """The alert the refresh calls for (sent through `sender` when there is one), or None."""
    import sys

    from costcalc.core.errors import CostcalcError
    from costcalc.feeds.alert import answer, check, send

    if watched is None:
        return None
    scenario, providers, bench, before = watched
    try:
        after = answer(scenario, providers, now, bench)
    except CostcalcError as exc:
        print(f"costcalc: refresh: no alert: your saved scenario: {exc}", file=sys.stderr)
        return None
    fired = check(before, after)
    if fired is not None and sender is not None:
        problem = send(sender, fired)
        if problem is not None:
            print(f"costcalc: refresh: {problem}", file=sys.stderr)
    return fired


def _publish(ns: argparse.Namespace, now: Any) -> dict[str, Any]:
    """Write the snapshots in use into --publish DIR; its line says where, how many and the
    manifest's digest (for --pin)."""
    from pathlib import Path

    from costcalc.feeds.publish import MANIFEST, publish

    done = publish(Path(ns.publish).expanduser(), now, bundled=ns.with_bundled)
    bundled = sum(1 for f in done.files if f.origin == "bundled")
    also = f", {bundled} of them bundled" if bundled else ""
    return {
        "line": f"refresh: published {len(done.files)} snapshots{also} to {done.directory} "
        f"({MANIFEST} sha256 {done.manifest_sha256})",
        "directory": done.directory,
        "manifest_sha256": done.manifest_sha256,
        "files": [f.snapshot for f in done.files],
    }


def _held_json(provider: str, held: HeldBack) -> dict[str, Any]:
    """One offer held back, field by field: whose, which, its GPU, its price and the bound."""
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


def cron_line(
    schedule: str = "17 */6 * * *", words: str = "refresh --quiet", log_name: str = "refresh.log"
) -> str:
    """A crontab line: every 6 hours (or `schedule`), absolute paths, PATH set, output
    appended to a log; `words` the command's arguments (`costcalc monitor` has its own)."""
    bin_dir, command = costcalc_command()
    path = ":".join(dict.fromkeys([bin_dir, "/usr/local/bin", "/usr/bin", "/bin"]))
    log_dir = locations.log_dir().absolute()
    log = log_dir / log_name
    env = f"PATH={shlex.quote(path)}"
    home = costcalc_home()
    if home:
        env += f" COSTCALC_HOME={shlex.quote(home)}"
    return f"{schedule} " + for_crontab(
        f"mkdir -p {shlex.quote(str(log_dir))} && {env} {command} {words} "
        f">> {shlex.quote(str(log))} 2>&1"
    )


def costcalc_command() -> tuple[str, str]:
    """(the directory of this Python, the costcalc command as a shell word or two): the one
    installed beside this Python, else the one on PATH, else `python -m costcalc`."""
    beside_python = Path(sys.executable).parent / "costcalc"
    found = shutil.which("costcalc")
    if beside_python.exists():
        command = shlex.quote(str(beside_python.absolute()))
    elif found:
        command = shlex.quote(str(Path(found).absolute()))
    else:
        command = f"{shlex.quote(sys.executable)} -m costcalc"
    return str(Path(sys.executable).parent.absolute()), command


def costcalc_home() -> str | None:
    """COSTCALC_HOME as an absolute path, when it is set: a scheduled job must use it too."""
    home = os.environ.get("COSTCALC_HOME")
    return str(locations.user_path(home).absolute()) if home else None


def for_crontab(command: str) -> str:
    """A shell command as a crontab line must carry it. cron ends the command at an unescaped
    `%` (the rest becomes its input) and reads `\\%` as `%` before the shell sees it, so each `%`
    is escaped; a backslash, which would then escape the wrong `%` or none, is written `"\\\\"`
    (in double quotes, which cron passes on untouched). Every backslash here is inside a word
    shlex.quote wrapped in single quotes, where closing and reopening them is safe (a `%` may
    be outside: the shell gives it no meaning)."""
    return command.replace("\\", "'\"\\\\\"'").replace("%", "\\%")
