"""`costcalc monitor`: sample this machine's GPUs into the history, import the logs people keep,
and show what `--util measured` will use. Made to run from cron or as a systemd user service."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from costcalc.cli import output

if TYPE_CHECKING:
    from datetime import datetime

    from costcalc.core.usage import MeasuredUse
    from costcalc.store.gpu_logs import Imported

DEFAULT_INTERVAL_S = 10.0
ONCE_INTERVAL_S = 300.0
"""With --once a sample stands for the cron period: every 5 minutes (--print-cron's)."""
SHOWN_USERS = 10


def register(sub: Any) -> None:
    p = sub.add_parser(
        "monitor",
        help="sample the GPU's utilisation and power for --util measured (or import logs)",
        description=(
            "Read this machine's NVIDIA GPUs through NVML (nvidia-ml-py) every --interval "
            "seconds into the history database: utilisation, memory, power and the energy "
            "counter, per GPU. It runs until --samples, --duration or Ctrl-C / SIGTERM (the "
            "last samples are written, exit 0); --once takes one sample, for cron. Then "
            "`costcalc quick --util measured` (and the app) use the busy share of the last "
            "30 days (measured:7d for 7), its spread, and the power when busy as the desktop's "
            "GPU watts. --import reads logs you have: nvidia-smi --format=csv logs, DCGM "
            "exporter samples, Slurm sacct --parsable2 exports. Without a GPU it says so in "
            "one line and exits 2."
        ),
        **output.examples(
            "costcalc monitor --interval 10",
            "costcalc monitor --import gpu-log.csv",
            "costcalc monitor --show",
        ),
    )
    run_group = p.add_argument_group("sampling")
    run_group.add_argument(
        "--interval",
        metavar="S",
        help="seconds between samples (default 10; with --once 300, the time one sample "
        "stands for: the cron period)",
    )
    stop = run_group.add_mutually_exclusive_group()
    stop.add_argument("--samples", metavar="N", help="stop after N samples")
    stop.add_argument("--duration", metavar="TIME", help="stop after TIME: 90s, 30m, 8h, 2d")
    stop.add_argument(
        "--once", action="store_true", help="one sample and exit (for cron: --print-cron)"
    )
    run_group.add_argument(
        "--quiet", action="store_true", help="print only errors (for cron and services)"
    )
    run_group.add_argument(
        "--print-cron",
        action="store_true",
        help="print a crontab line that samples every 5 minutes, then exit",
    )
    run_group.add_argument(
        "--print-service",
        action="store_true",
        help="print a systemd user service that samples every 10 s, then exit",
    )
    logs = p.add_argument_group("importing logs")
    logs.add_argument(
        "--import",
        dest="import_file",
        metavar="FILE",
        help="read a log into the history: an nvidia-smi CSV log, DCGM exporter samples "
        "(Prometheus text with timestamps, or query_range JSON) or a sacct --parsable2 export",
    )
    logs.add_argument(
        "--format",
        default="auto",
        help="the log's format: auto (default: found in the file), nvidia-smi, dcgm, sacct",
    )
    logs.add_argument(
        "--host",
        metavar="NAME",
        help="the machine the samples are of (default: this machine's name; for a Slurm "
        "export its Cluster column, else 'cluster'); a DCGM sample's Hostname label comes first",
    )
    logs.add_argument(
        "--gpus", metavar="N", help="sacct: the GPUs the exported jobs ran on (required)"
    )
    logs.add_argument(
        "--user",
        action="append",
        default=[],
        metavar="NAME",
        help="sacct: only these users (repeatable)",
    )
    logs.add_argument(
        "--account",
        action="append",
        default=[],
        metavar="NAME",
        help="sacct: only these accounts (repeatable)",
    )
    logs.add_argument(
        "--since", metavar="DATE", help="sacct: the period's start (sacct --starttime)"
    )
    logs.add_argument("--until", metavar="DATE", help="sacct: the period's end (--endtime)")
    shown = p.add_argument_group("what the history holds")
    shown.add_argument(
        "--show",
        action="store_true",
        help="the samples held, and the busy share, spread and power --util measured uses",
    )
    shown.add_argument(
        "--window", metavar="DAYS", default="30", help="days --show measures (default 30)"
    )
    shown.add_argument(
        "--forget", metavar="HOST", help="delete every sample of HOST (an import undone)"
    )
    p.add_argument("--json", action="store_true", help="--show and --import: one JSON object")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    if ns.print_cron:
        from costcalc.cli.refresh import cron_line

        print(cron_line("*/5 * * * *", "monitor --once --quiet", "monitor.log"))
        return 0
    if ns.print_service:
        print(service_unit())
        return 0
    if ns.forget:
        from costcalc.store import usage

        gone = usage.forget(ns.forget)
        print(f"monitor: {gone:,} samples of {ns.forget!r} deleted")
        return 0
    if ns.import_file:
        return import_log(ns)
    if ns.show:
        return show(ns)
    return sample(ns)


# --------------------------------------------------------------------------- sampling


def sample(ns: argparse.Namespace) -> int:
    import signal
    import socket
    import sys
    import threading
    from datetime import datetime, timezone

    from costcalc.edge import locations
    from costcalc.edge.nvml import Gpus
    from costcalc.feeds import monitor

    interval_s = _seconds(ns.interval, "--interval") if ns.interval else None
    interval_s = interval_s or (ONCE_INTERVAL_S if ns.once else DEFAULT_INTERVAL_S)
    if not 0.01 <= interval_s <= 86_400:
        _bad(f"--interval must be 0.01 s to 1 day, got {ns.interval!r}")
    count = 1 if ns.once else _count(ns.samples, "--samples") if ns.samples else None
    duration_s = _seconds(ns.duration, "--duration") if ns.duration else None
    stop = threading.Event()

    def stop_now(_signum: int, _frame: object) -> None:
        stop.set()  # the loop writes what it read and returns; no half-written batch

    gpus = Gpus()  # NoGpu: one line, exit 2
    before = {sig: signal.signal(sig, stop_now) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if not ns.quiet and not ns.once:
            names = ", ".join(dict.fromkeys(gpus.names))
            print(
                f"monitor: sampling {len(gpus.uuids)} GPU(s) ({names}) every {interval_s:g} s "
                f"into {locations.history_db_text()}; Ctrl-C stops",
                flush=True,
            )
        done = monitor.run(
            gpus,
            host=ns.host or socket.gethostname(),
            interval_s=interval_s,
            clock=lambda: datetime.now(timezone.utc),
            stop=stop,
            samples=count,
            duration_s=duration_s,
        )
    finally:
        gpus.close()
        for sig, handler in before.items():
            signal.signal(sig, handler)
    if not ns.quiet:
        how = "stopped" if done.stopped else "done"
        print(
            f"monitor: {how}: {done.samples:,} sample(s) of {done.gpus} GPU(s), "
            f"{done.written:,} written",
            file=sys.stdout,
        )
    return 0


def service_unit() -> str:
    """A systemd user service that samples every 10 s; systemd stops it with SIGTERM, which the
    monitor answers by writing its last samples and exiting 0."""
    from costcalc.cli.refresh import costcalc_command, costcalc_home

    _bin, command = costcalc_command()
    home = costcalc_home()
    env = f"Environment={_systemd(f'COSTCALC_HOME={home}')}\n" if home else ""
    return (
        "# ~/.config/systemd/user/costcalc-monitor.service, then:\n"
        "#   systemctl --user daemon-reload\n"
        "#   systemctl --user enable --now costcalc-monitor.service\n"
        "#   loginctl enable-linger $USER   # to sample while you are logged out\n"
        "[Unit]\n"
        "Description=costcalc: sample the GPUs' utilisation and power for --util measured\n"
        "\n"
        "[Service]\n"
        f"ExecStart={_systemd(command)} monitor --interval 10 --quiet\n"
        f"{env}"
        "Restart=on-failure\n"
        "RestartSec=60\n"
        "# exit 2: no GPU or no NVML here; restarting would not help\n"
        "RestartPreventExitStatus=2\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target"
    )


def _systemd(text: str) -> str:
    """A unit file reads `%` as a specifier and `$` as a variable: both doubled."""
    return text.replace("%", "%%").replace("$", "$$")


# --------------------------------------------------------------------------- importing


def import_log(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from costcalc.edge.locations import user_path
    from costcalc.store import gpu_logs, usage
    from costcalc.store.loaders import utc_now

    kind = ns.format.strip().lower()
    if kind not in gpu_logs.FORMATS:
        _bad(f"--format must be one of {', '.join(gpu_logs.FORMATS)}, got {ns.format!r}")
    slurm = gpu_logs.Slurm(
        gpus=_count(ns.gpus, "--gpus") if ns.gpus else None,
        users=tuple(ns.user),
        accounts=tuple(ns.account),
        since=_date(ns.since, "--since") if ns.since else None,
        until=_date(ns.until, "--until") if ns.until else None,
    )
    path: Path = user_path(ns.import_file)
    found = gpu_logs.read_log(path, kind, host=ns.host, slurm=slurm)
    new = usage.record(found.samples)
    usage.thin(utc_now())
    use = usage.summarise(found.samples)
    if ns.json:
        print(_json({**import_doc(found, use, path.name), "new": new}))
        return 0
    _print(import_lines(found, use, path.name, new))
    return 0


def import_lines(found: Imported, use: MeasuredUse | None, name: str, new: int) -> list[str]:
    from costcalc.present import measured
    from costcalc.present.display import percent, safe
    from costcalc.store.gpu_logs import WHAT

    what = WHAT[found.kind]
    if found.kind == "sacct":
        return sacct_lines(found, use, name, new)
    hosts = ", ".join(safe(h) for h in sorted({s.host for s in found.samples}))
    gpus = len({(s.host, s.gpu) for s in found.samples})
    lines = [
        f"Imported {len(found.samples):,} samples of {gpus} GPU(s) from {safe(name)} ({what}, "
        f"recorded as host {hosts}); {new:,} new."
    ]
    if use is not None:
        lines.append(f"  busy {measured.summary_text(use)}.")
        power = measured.power_text(use)
        if power is not None:
            lines.append(f"  {power}.")
        if use.kernel_share is not None:
            lines.append(f"  while busy, kernels ran {percent(use.kernel_share)} of the time.")
    lines.append("  `costcalc quick --util measured` uses the samples of the last 30 days.")
    return lines


def sacct_lines(found: Imported, use: MeasuredUse | None, name: str, new: int) -> list[str]:
    from costcalc.present import measured
    from costcalc.present.display import percent, safe

    assert found.start is not None and found.end is not None and found.cluster_gpus
    days = (found.end - found.start).total_seconds() / 86_400
    held_h = found.cluster_gpus * days * 24
    used_h = sum(found.gpu_hours_by_account.values())
    host = safe(found.samples[0].host) if found.samples else "-"
    lines = [
        f"Imported {found.jobs:,} jobs with GPUs from {safe(name)} (Slurm sacct export, "
        f"recorded as host {host}), {found.start:%Y-%m-%d %H:%M} to {found.end:%Y-%m-%d %H:%M} "
        f"({days:,.1f} days); {new:,} new day(s) recorded.",
        f"  {used_h:,.0f} GPU-hours of {held_h:,.0f} on {found.cluster_gpus} GPUs: "
        f"utilisation {percent(used_h / held_h)}"
        + (
            f" ({measured.spread_text(use)})"
            if use is not None and measured.spread_text(use)
            else ""
        ),
    ]
    for title, table in (
        ("by account", found.gpu_hours_by_account),
        ("by user", found.gpu_hours_by_user),
    ):
        shown = list(table.items())[:SHOWN_USERS]
        more = len(table) - len(shown)
        text = ", ".join(f"{safe(k)} {v:,.0f} h ({percent(v / held_h)})" for k, v in shown)
        lines.append(f"  {title}: {text}" + (f" and {more} more" if more else ""))
    return lines


def import_doc(found: Imported, use: MeasuredUse | None, name: str) -> dict[str, Any]:
    from costcalc.core.records import plain

    doc: dict[str, Any] = {
        "file": name,
        "format": found.kind,
        "samples": len(found.samples),
        "measured": plain(use) if use is not None else None,
    }
    if found.kind == "sacct":
        assert found.start is not None and found.end is not None and found.cluster_gpus
        held_h = found.cluster_gpus * (found.end - found.start).total_seconds() / 3600
        used_h = sum(found.gpu_hours_by_account.values())
        doc.update(
            jobs=found.jobs,
            cluster_gpus=found.cluster_gpus,
            period_start=found.start.isoformat(),
            period_end=found.end.isoformat(),
            gpu_hours=used_h,
            cluster_gpu_hours=held_h,
            utilisation=used_h / held_h,
            gpu_hours_by_account=found.gpu_hours_by_account,
            gpu_hours_by_user=found.gpu_hours_by_user,
        )
    return doc


# --------------------------------------------------------------------------- showing


def show(ns: argparse.Namespace) -> int:
    from costcalc.core.records import plain
    from costcalc.core.usage import KEEP_DAYS
    from costcalc.edge import locations
    from costcalc.present import measured
    from costcalc.present.display import percent, safe
    from costcalc.store import usage
    from costcalc.store.loaders import utc_now

    days = _count(ns.window.strip().lower().removesuffix("d"), "--window")
    if not 1 <= days <= KEEP_DAYS:
        _bad(f"--window must be 1 to {KEEP_DAYS} days, got {ns.window!r}")
    held = usage.held()
    use = usage.read_window(days, utc_now()) if held else None
    if ns.json:
        print(
            _json(
                {
                    "database": locations.history_db_text(),
                    "held": [plain(h) for h in held],
                    "window_days": days,
                    "measured": plain(use) if use is not None else None,
                }
            )
        )
        return 0
    if not held:
        print(
            f"No GPU samples in {locations.history_db_text()}: run `costcalc monitor` "
            "(--print-service, --print-cron) or `costcalc monitor --import FILE`."
        )
        return 0
    lines = [f"GPU samples in {locations.history_db_text()}:"]
    lines += [
        f"  {safe(h.host)}: {h.gpus} GPU(s) from {safe(h.source)}, {h.rows:,} rows, "
        f"{h.first_at:%Y-%m-%d %H:%M} to {h.last_at:%Y-%m-%d %H:%M} UTC"
        for h in held
    ]
    if use is None:
        _print([*lines, f"None in {measured.last_days(days)}: --window DAYS reaches further back."])
        return 0
    lines.append(f"Over {measured.last_days(days)}: busy {measured.summary_text(use)}.")
    power = measured.power_text(use)
    if power is not None:
        lines.append(f"  {power}.")
    if use.kernel_share is not None:
        lines.append(f"  while busy, kernels ran {percent(use.kernel_share)} of the time.")
    if use.peak_memory_mib is not None:
        lines.append(f"  peak memory used {use.peak_memory_mib:,.0f} MiB.")
    lines.append(f"  `costcalc quick --util measured:{days}d` answers with these figures.")
    _print(lines)
    return 0


def _print(lines: list[str]) -> None:
    from costcalc.core.terminal import fill_all

    print("\n".join(fill_all(lines, output.width())))


# --------------------------------------------------------------------------- reading options


def _bad(message: str) -> None:
    from costcalc.core.errors import CostcalcError

    raise CostcalcError(message)


def _count(text: str, what: str) -> int:
    from costcalc.core import inputs

    value = inputs.whole(text, what)
    if value is None or value < 1:
        _bad(f"{what} must be a whole number of at least 1, got {text!r}")
    assert value is not None
    return value


_UNITS_S = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86_400.0}


def _seconds(text: str, what: str) -> float:
    """'90s', '30m', '8h', '2d' or a number of seconds."""
    from costcalc.core import inputs

    raw = text.strip().lower()
    unit = _UNITS_S.get(raw[-1:]) if raw else None
    value = inputs.number(raw[:-1] if unit else raw, what)
    if value is None or value <= 0:
        _bad(f"{what} must be a time like 90s, 30m, 8h or 2d, got {text!r}")
    assert value is not None
    return value * (unit or 1.0)


def _date(text: str, what: str) -> datetime:
    """A day or a time, in this machine's local time (as sacct's --starttime reads it)."""
    from datetime import datetime, timezone

    try:
        return datetime.fromisoformat(text.strip()).astimezone(timezone.utc)
    except ValueError:
        _bad(f"{what} must be a date like 2026-10-01 or 2026-10-01T08:00, got {text!r}")
        raise


def _json(doc: dict[str, Any]) -> str:
    import json

    from costcalc.present.report import finite

    return json.dumps(finite(doc), indent=2, default=str)
