"""GPU logs people already keep, read as samples: nvidia-smi CSV logs, DCGM exporter samples and
Slurm accounting exports (`costcalc monitor --import FILE`).

The formats, as their tools write them (tests/fixtures/usage/README.md names each source):
- nvidia-smi: `nvidia-smi --query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,
  power.draw --format=csv -l 10`: a header naming each field with its unit
  (`utilization.gpu [%]`), then one row per GPU and sample (`2026/11/02 09:00:00.000, 0, GPU-…,
  NVIDIA GeForce RTX 3090, 97 %, 21013 MiB, 341.52 W`; `[N/A]` where a GPU has no reading). The
  timestamp is the logging machine's local time, read as this machine's.
- DCGM: dcgm-exporter's metrics in the Prometheus text format (`DCGM_FI_DEV_GPU_UTIL{gpu="0",
  UUID="GPU-…",modelName="…",Hostname="…"} 87 1761984000000`), each sample with the format's own
  timestamp in milliseconds (as Prometheus's /federate writes it, or a logging loop that adds
  it); or the same metrics as Prometheus keeps them, the JSON of its /api/v1/query_range.
- Slurm: `sacct --allusers -X --parsable2 --format=JobID,User,Account,Start,End,Elapsed,
  AllocTRES,State`: `|`-separated with a header; the GPUs of a job are AllocTRES's `gres/gpu=N`
  (its typed `gres/gpu:a100=N` entries repeat them). A cluster's utilisation is its jobs'
  GPU-hours over its GPUs' hours, so the number of GPUs is asked for (`--gpus`).

Rules kept here: every file is read through the guarded reader with LOG_MAX_BYTES; a line that
cannot be read stops the import with one line naming the file and the line; nothing is written
here (costcalc.store.usage writes the samples).
"""

from __future__ import annotations

import csv
import itertools
import math
import re
import statistics
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field

from costcalc.core.errors import DataFileError, quoted
from costcalc.store.usage import Sample

if TYPE_CHECKING:
    from pathlib import Path

LOG_MAX_BYTES = 64 * 1024 * 1024
"""Largest log read: about 600,000 rows of nvidia-smi's CSV, 70 days of one GPU every 10 s
(a longer log is split with `split -l`, each part imported in turn)."""
GAP_FACTOR = 3.0
"""A pause longer than this many typical intervals is a gap (counted idle), not one sample."""

Kind = Literal["nvidia-smi", "dcgm", "prometheus-json", "sacct"]
FORMATS = ("auto", "nvidia-smi", "dcgm", "sacct")
WHAT: dict[Kind, str] = {
    "nvidia-smi": "nvidia-smi CSV log",
    "dcgm": "DCGM exporter samples",
    "prometheus-json": "DCGM samples from Prometheus",
    "sacct": "Slurm sacct export",
}


class Slurm(Struct, frozen=True):
    """How a Slurm export is read: the cluster's GPUs, the jobs counted and the period."""

    gpus: int | None = None
    users: tuple[str, ...] = ()
    accounts: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None


class Imported(Struct):
    """What a log held, as samples to record, and what to say about it."""

    kind: Kind
    samples: list[Sample]
    jobs: int = 0
    """Slurm: the jobs with GPUs counted."""
    gpu_hours_by_user: dict[str, float] = field(default_factory=dict)
    gpu_hours_by_account: dict[str, float] = field(default_factory=dict)
    cluster_gpus: int | None = None
    start: datetime | None = None
    end: datetime | None = None


def read_log(
    path: Path, kind: str = "auto", *, host: str | None = None, slurm: Slurm | None = None
) -> Imported:
    """The samples of the log at `path`, of the `kind` given or found in it; `host` names the
    machine they are of (default: this one; a Slurm export's Cluster column, else 'cluster';
    DCGM's Hostname label wins over both)."""
    import socket

    from costcalc.edge.resources import read_user_text

    where = str(path)
    try:
        text = read_user_text(path, LOG_MAX_BYTES)
    except FileNotFoundError:
        raise DataFileError(f"{where}: no such file") from None
    found: Kind = detect(text, where) if kind == "auto" else _kind(kind, text, where)
    if found == "sacct":
        return sacct(text, where, host, slurm or Slurm())
    machine = host or socket.gethostname()
    if found == "nvidia-smi":
        return Imported(found, nvidia_smi(text, where, machine))
    if found == "dcgm":
        return Imported(found, dcgm_text(text, where, machine))
    return Imported(found, prometheus_json(text, where, machine))


def _kind(kind: str, text: str, where: str) -> Kind:
    if kind == "dcgm" and text.lstrip().startswith("{"):
        return "prometheus-json"
    if kind in ("nvidia-smi", "dcgm", "sacct"):
        return kind  # type: ignore[return-value]
    raise DataFileError(f"unknown log format {quoted(kind)}; one of {', '.join(FORMATS)}")


def detect(text: str, where: str) -> Kind:
    """Which format a log is in, from its first lines."""
    head = text[:4096]
    first = next((line for line in head.splitlines() if line.strip()), "")
    if head.lstrip().startswith("{"):
        return "prometheus-json"
    if "|" in first and "jobid" in first.lower() and "alloctres" in first.lower():
        return "sacct"
    if "utilization.gpu" in first:
        return "nvidia-smi"
    if re.search(r"^DCGM_FI_\w+(\{|\s)", head, re.M):
        return "dcgm"
    raise DataFileError(
        f"{where}: not a log costcalc reads: an nvidia-smi --format=csv log (with its header), "
        "DCGM exporter metrics, Prometheus query_range JSON or a sacct --parsable2 export "
        "(docs/monitor.md)"
    )


# --------------------------------------------------------------------------- spans


class _Point(Struct, frozen=True):
    at: datetime
    util_pct: float | None
    memory_used_mib: float | None = None
    power_w: float | None = None
    energy_mj: float | None = None


def with_spans(
    series: dict[tuple[str, str, str], list[_Point]], source: str, where: str
) -> list[Sample]:
    """Samples of each GPU's points, each standing for the time to the next one (at most
    GAP_FACTOR typical intervals: a longer pause is a gap), the last for a typical interval."""
    samples: list[Sample] = []
    for (host, gpu, name), points in series.items():
        points = sorted({p.at: p for p in points}.values(), key=lambda p: p.at)
        if len(points) < 2:
            raise DataFileError(
                f"{where}: GPU {quoted(gpu)} has one sample: a log needs samples over time "
                "(nvidia-smi's -l SECONDS, a scrape every interval)"
            )
        gaps = [(b.at - a.at).total_seconds() for a, b in itertools.pairwise(points)]
        typical = statistics.median(gaps)
        for point, gap in zip(points, [*gaps, typical], strict=True):
            samples.append(
                Sample(
                    host=host,
                    gpu=gpu,
                    name=name,
                    source=source,
                    taken_at=point.at,
                    span_s=min(gap, GAP_FACTOR * typical),
                    util_pct=point.util_pct,
                    memory_used_mib=point.memory_used_mib,
                    power_w=point.power_w,
                    energy_mj=point.energy_mj,
                )
            )
    return samples


# --------------------------------------------------------------------------- nvidia-smi

_NA = ("[n/a]", "[not supported]", "n/a", "[unknown error]", "[insufficient permissions]")
_POWER_FIELDS = ("power.draw", "power.draw.average", "power.draw.instant")


def nvidia_smi(text: str, where: str, host: str) -> list[Sample]:
    """An nvidia-smi `--query-gpu=... --format=csv` log (`-l` repeats its rows)."""
    rows = csv.reader(text.splitlines(), skipinitialspace=True)
    header: list[str] | None = None
    series: dict[tuple[str, str, str], list[_Point]] = {}
    for number, row in enumerate(rows, start=1):
        if not row or not "".join(row).strip():
            continue
        if any("utilization.gpu" in cell for cell in row):  # the header (again, after -l)
            header = [cell.split(" [")[0].strip().lower() for cell in row]
            if "timestamp" not in header:
                raise DataFileError(
                    f"{where}: the log has no timestamp column; log with "
                    "--query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,power.draw"
                )
            continue
        if header is None:
            raise DataFileError(f"{where}: line {number}: a row before the header line")
        if len(row) != len(header):
            raise DataFileError(
                f"{where}: line {number}: {len(row)} fields where the header has {len(header)}"
            )
        cells = dict(zip(header, row, strict=True))
        at = _smi_time(cells["timestamp"], where, number)
        gpu = cells.get("uuid") or cells.get("pci.bus_id") or cells.get("index") or "0"
        power = next((cells[f] for f in _POWER_FIELDS if f in cells), None)
        series.setdefault((host, gpu.strip(), cells.get("name", "").strip()), []).append(
            _Point(
                at,
                _reading(cells["utilization.gpu"], where, number, 100.0),
                _reading(cells.get("memory.used"), where, number, 1e7),
                _reading(power, where, number, 1e4),
            )
        )
    if not series:
        raise DataFileError(f"{where}: no samples in the log")
    return with_spans(series, "nvidia-smi", where)


def _smi_time(text: str, where: str, number: int) -> datetime:
    raw = text.strip()
    for pattern in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            return datetime.strptime(raw, pattern).astimezone(timezone.utc)
        except ValueError:
            continue
    raise DataFileError(
        f"{where}: line {number}: timestamp {quoted(text)} is not nvidia-smi's "
        "YYYY/MM/DD HH:MM:SS.mmm"
    )


def _reading(text: str | None, where: str, number: int, most: float) -> float | None:
    """'97 %', '21013 MiB', '341.52 W' -> the number; '[N/A]' -> None."""
    if text is None or text.strip().lower() in _NA or not text.strip():
        return None
    raw = re.sub(r"\s*(%|MiB|W|mJ)$", "", text.strip())
    try:
        value = float(raw)
    except ValueError:
        raise DataFileError(f"{where}: line {number}: {quoted(text)} is not a reading") from None
    if not (math.isfinite(value) and 0 <= value <= most):
        raise DataFileError(f"{where}: line {number}: {quoted(text)} is out of range")
    return value


# --------------------------------------------------------------------------- DCGM

METRICS = {
    "DCGM_FI_DEV_GPU_UTIL": "util_pct",
    "DCGM_FI_DEV_FB_USED": "memory_used_mib",
    "DCGM_FI_DEV_POWER_USAGE": "power_w",
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": "energy_mj",
}
"""dcgm-exporter's metric -> the sample's field (etc/default-counters.csv names their units)."""
_LINE = re.compile(
    r"^(?P<name>[A-Za-z_:][\w:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+(?P<ms>-?\d+))?$"
)
_LABEL = re.compile(r'\s*([A-Za-z_]\w*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def dcgm_text(text: str, where: str, host: str) -> list[Sample]:
    """dcgm-exporter's metrics in the Prometheus text format, every sample with its timestamp."""
    readings: list[tuple[dict[str, str], str, float, datetime]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        found = _LINE.match(line)
        if found is None:
            raise DataFileError(f"{where}: line {number}: not a Prometheus sample line")
        if found["name"] not in METRICS:
            continue
        if found["ms"] is None:
            raise DataFileError(
                f"{where}: line {number}: a sample without a timestamp; costcalc needs each "
                "sample's time (the format's milliseconds after the value, as /federate writes)"
            )
        labels = dict(_LABEL.findall(found["labels"] or ""))
        value = _number(found["value"], where, number)
        at = datetime.fromtimestamp(int(found["ms"]) / 1000, tz=timezone.utc)
        readings.append((labels, found["name"], value, at))
    return _dcgm_samples(readings, where, host, "dcgm")


def prometheus_json(text: str, where: str, host: str) -> list[Sample]:
    """DCGM metrics as Prometheus keeps them: the JSON of /api/v1/query_range (a matrix)."""
    import msgspec

    try:
        doc = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise DataFileError(f"{where}: not valid JSON ({exc})") from None
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, dict):
        data = {}
    result = data.get("result")
    if not isinstance(result, list) or data.get("resultType") != "matrix":
        raise DataFileError(
            f"{where}: not a Prometheus query_range answer (a matrix of DCGM_FI_DEV_GPU_UTIL "
            "samples: /api/v1/query_range?query=DCGM_FI_DEV_GPU_UTIL...)"
        )
    readings: list[tuple[dict[str, str], str, float, datetime]] = []
    for index, series in enumerate(result):
        labels = series.get("metric") if isinstance(series, dict) else None
        values = series.get("values") if isinstance(series, dict) else None
        if not isinstance(labels, dict) or not isinstance(values, list):
            raise DataFileError(f"{where}: result {index}: no metric and values")
        name = labels.get("__name__")
        if name not in METRICS:
            continue
        for pair in values:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise DataFileError(f'{where}: result {index}: a value is not [time, "value"]')
            moment, value = pair
            if not isinstance(moment, (int, float)) or not math.isfinite(moment):
                raise DataFileError(f"{where}: result {index}: time {quoted(moment)} is not one")
            at = datetime.fromtimestamp(float(moment), tz=timezone.utc)
            labels_text = {str(k): str(v) for k, v in labels.items()}
            readings.append((labels_text, str(name), _number(str(value), where, index), at))
    return _dcgm_samples(readings, where, host, "dcgm")


def _number(text: str, where: str, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DataFileError(
            f"{where}: line {number}: value {quoted(text)} is not a number"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise DataFileError(f"{where}: line {number}: value {quoted(text)} is out of range")
    return value


def _dcgm_samples(
    readings: Iterable[tuple[dict[str, str], str, float, datetime]],
    where: str,
    host: str,
    source: str,
) -> list[Sample]:
    """One point per GPU and time, from the metrics read at that time."""
    points: dict[tuple[str, str, str], dict[datetime, dict[str, Any]]] = {}
    for labels, name, value, at in readings:
        gpu = labels.get("UUID") or labels.get("uuid") or labels.get("gpu") or "0"
        key = (labels.get("Hostname") or host, gpu, labels.get("modelName", ""))
        points.setdefault(key, {}).setdefault(at, {})[METRICS[name]] = value
    series = {
        key: [_Point(at, **fields) for at, fields in by_time.items() if "util_pct" in fields]
        for key, by_time in points.items()
    }
    series = {key: found for key, found in series.items() if found}
    if not series:
        raise DataFileError(f"{where}: no DCGM_FI_DEV_GPU_UTIL samples in the file")
    for found in series.values():
        for point in found:
            if point.util_pct is not None and point.util_pct > 100:
                raise DataFileError(f"{where}: a GPU utilisation of {point.util_pct:g}%")
    return with_spans(series, source, where)


# --------------------------------------------------------------------------- Slurm


class Job(Struct, frozen=True):
    job_id: str
    user: str
    account: str
    start: datetime
    end: datetime
    gpus: int
    cluster: str = ""


_GPU_TRES = re.compile(r"(?:^|,)gres/gpu(?::(?P<type>[^=,]+))?=(?P<n>\d+)")


def gpus_of(tres: str) -> int:
    """The GPUs in AllocTRES: `gres/gpu=N`, else the sum of its typed entries (`gres/gpumem`,
    `gres/gpuutil` are other resources)."""
    total = typed = 0
    for found in _GPU_TRES.finditer(tres):
        if found["type"] is None:
            total = int(found["n"])
        else:
            typed += int(found["n"])
    return total or typed


def sacct(text: str, where: str, host: str | None, slurm: Slurm) -> Imported:
    """A `sacct --parsable2` export as the cluster's daily busy share and GPU-hours by user and
    account; the daily shares are recorded as one GPU's samples (`slurm` on the cluster's host
    name), so `--util measured` reads the cluster's utilisation like a desktop's."""
    jobs = sacct_jobs(text, where)
    if slurm.users:
        jobs = [j for j in jobs if j.user in slurm.users]
    if slurm.accounts:
        jobs = [j for j in jobs if j.account in slurm.accounts]
    if not jobs:
        raise DataFileError(f"{where}: no job with GPUs (gres/gpu in AllocTRES) to count")
    if slurm.gpus is None:
        raise DataFileError(
            f"{where}: a Slurm export needs the cluster's GPU count: add --gpus N (the GPUs "
            "the exported jobs ran on)"
        )
    start = slurm.since or min(j.start for j in jobs)
    end = slurm.until or max(j.end for j in jobs)
    if end <= start:
        raise DataFileError(f"{where}: the period ends before it starts")
    by_user: dict[str, float] = {}
    by_account: dict[str, float] = {}
    for job in jobs:
        hours = job.gpus * _overlap_s(job.start, job.end, start, end) / 3600
        by_user[job.user] = by_user.get(job.user, 0.0) + hours
        by_account[job.account] = by_account.get(job.account, 0.0) + hours
    cluster = host or next((j.cluster for j in jobs if j.cluster), "cluster")
    label = "+".join((*slurm.accounts, *slurm.users))
    samples = _daily(jobs, start, end, slurm.gpus, cluster, f"slurm:{label}" if label else "slurm")
    return Imported(
        "sacct",
        samples,
        jobs=len(jobs),
        gpu_hours_by_user=dict(sorted(by_user.items(), key=lambda kv: -kv[1])),
        gpu_hours_by_account=dict(sorted(by_account.items(), key=lambda kv: -kv[1])),
        cluster_gpus=slurm.gpus,
        start=start,
        end=end,
    )


def sacct_jobs(text: str, where: str) -> list[Job]:
    """The jobs with GPUs of a `--parsable2` export: steps (`123.batch`) and jobs that never
    started are left out; a running job ends at its start plus Elapsed."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise DataFileError(f"{where}: empty export")
    header = [cell.strip().lower() for cell in lines[0].split("|")]
    missing = [c for c in ("jobid", "start", "alloctres") if c not in header]
    if missing or ("end" not in header and "elapsed" not in header):
        raise DataFileError(
            f"{where}: a sacct export needs JobID, Start, End (or Elapsed) and AllocTRES: "
            "sacct --parsable2 --format=JobID,User,Account,Start,End,Elapsed,AllocTRES,State"
        )
    jobs = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("|")
        if len(cells) == len(header) + 1 and cells[-1] == "":  # --parsable ends with a |
            cells = cells[:-1]
        if len(cells) != len(header):
            raise DataFileError(
                f"{where}: line {number}: {len(cells)} fields where the header has {len(header)}"
            )
        row = dict(zip(header, cells, strict=True))
        if "." in row["jobid"]:
            continue  # a step: its job's allocation already counts its GPUs
        gpus = gpus_of(row["alloctres"])
        start = _slurm_time(row["start"], where, number)
        if gpus == 0 or start is None:
            continue
        end = _slurm_time(row.get("end", ""), where, number)
        if end is None:
            end = start + timedelta(seconds=_elapsed_s(row.get("elapsed", ""), where, number))
        if end < start:
            raise DataFileError(f"{where}: line {number}: the job ends before it starts")
        user, account = row.get("user", ""), row.get("account", "")
        jobs.append(
            Job(row["jobid"], user or "-", account or "-", start, end, gpus, row.get("cluster", ""))
        )
    return jobs


def _slurm_time(text: str, where: str, number: int) -> datetime | None:
    raw = text.strip()
    if raw in ("", "Unknown", "None"):
        return None
    try:
        return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%S").astimezone(timezone.utc)
    except ValueError:
        raise DataFileError(
            f"{where}: line {number}: time {quoted(text)} is not sacct's YYYY-MM-DDTHH:MM:SS"
        ) from None


def _elapsed_s(text: str, where: str, number: int) -> float:
    """'[DD-]HH:MM:SS' (or MM:SS) in seconds."""
    found = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?", text.strip())
    if found is None:
        raise DataFileError(f"{where}: line {number}: Elapsed {quoted(text)} is not [D-]HH:MM:SS")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in found.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def _overlap_s(a_start: datetime, a_end: datetime, b_start: datetime, b_end: datetime) -> float:
    return max((min(a_end, b_end) - max(a_start, b_start)).total_seconds(), 0.0)


def _daily(
    jobs: Sequence[Job], start: datetime, end: datetime, gpus: int, host: str, gpu: str
) -> list[Sample]:
    """Each day of the period as one sample of the cluster's average GPU: the day's seconds,
    and the jobs' GPU-seconds that day over the cluster's GPUs as its busy seconds."""
    samples = []
    day = start
    while day < end:
        stop = min(day + timedelta(days=1), end)
        overlapping = [j for j in jobs if j.start < stop and j.end > day]
        gpu_s = sum(j.gpus * _overlap_s(j.start, j.end, day, stop) for j in overlapping)
        span_s = (stop - day).total_seconds()
        if gpu_s > gpus * span_s * 1.001:
            raise DataFileError(
                f"the jobs held {gpu_s / span_s:.1f} GPUs on average on {day:%Y-%m-%d}, more "
                f"than --gpus {gpus}: give the cluster's whole GPU count"
            )
        samples.append(
            Sample(
                host=host,
                gpu=gpu,
                name="",
                source="sacct",
                taken_at=day,
                span_s=span_s,
                util_pct=None,
                busy_s=min(gpu_s / gpus, span_s),
                rows=max(len(overlapping), 1),
            )
        )
        day = stop
    return samples
