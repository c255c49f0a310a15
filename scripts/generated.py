"""What the scripts that write a generated file share (compile_records, prebuild_data): write it
only when it changed, or with --check only say whether it is current (exit 1 when not)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(
    argv: list[str] | None,
    doc: str,
    target: Path,
    build: Callable[[], bytes],
    size: Callable[[bytes], str],
    script: str,
) -> int:
    """The script's command line: `doc`'s first line as its description; `build` makes the
    file's bytes (after the arguments are read, so --help builds nothing), `size` says how
    large they are, `script` is the name to run when the file is out of date."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    ns = parser.parse_args(argv)
    data = build()
    current = target.read_bytes() if target.exists() else b""
    if ns.check:
        print("current" if data == current else f"out of date: run {script}")
        return 0 if data == current else 1
    if data != current:
        target.write_bytes(data)
    print(f"{target.relative_to(ROOT)}: {size(data)}")
    return 0
