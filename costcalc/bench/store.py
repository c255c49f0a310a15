"""Saved bench results: written atomically under the user data directory, read back by
`costcalc quick --bench` and the app.

Rule kept here: no torch; a result that cannot be read is one DataFileError line naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path

from costcalc.core.bench_results import BenchResult
from costcalc.core.errors import CostcalcError, DataFileError
from costcalc.core.records import to_json
from costcalc.edge.locations import bench_dir, user_path
from costcalc.edge.resources import read_user_text, validate, write_atomic

LATEST = "latest"
MAX_RESULT_BYTES = 1024 * 1024
"""A bench result is a few kB."""


def result_file_name(result: BenchResult) -> str:
    stamp = result.created_at.strftime("%Y%m%dT%H%M%SZ")
    return f"bench-{stamp}-{result.device}.json"


def save_result(result: BenchResult, directory: Path | None = None) -> Path:
    """Write `result` atomically under the bench directory; returns its path."""
    path = (directory or bench_dir()) / result_file_name(result)
    write_atomic(path, to_json(result) + "\n")
    return path


def load_result(path: Path) -> BenchResult:
    """A saved result through the guarded reader (size, UTF-8), then JSON, then the schema."""
    try:
        text = read_user_text(path, max_bytes=MAX_RESULT_BYTES)
    except FileNotFoundError as exc:
        raise DataFileError(f"{path}: no such bench result") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{path}: not valid JSON (line {exc.lineno})") from exc
    except RecursionError as exc:
        raise DataFileError(f"{path}: nested too deeply; not a bench result") from exc
    return validate(data, BenchResult, str(path))


def saved_results(directory: Path | None = None) -> list[Path]:
    """Saved result files, oldest first (names carry a sortable UTC timestamp)."""
    folder = directory or bench_dir()
    return sorted(folder.glob("bench-*.json")) if folder.is_dir() else []


def load_latest(directory: Path | None = None) -> BenchResult | None:
    """The newest saved result, or None when there is none."""
    found = saved_results(directory)
    return load_result(found[-1]) if found else None


def resolve(spec: str) -> BenchResult:
    """'latest' or a path -> a result; a one-line error when there is none."""
    if spec == LATEST:
        result = load_latest()
        if result is None:
            raise CostcalcError("no saved bench result: run `costcalc bench --save` first")
        return result

    return load_result(user_path(spec))
