"""Write the bundled data's prebuilt form: every YAML file the package ships, validated in full by
pydantic, stored as its records (costcalc/data/prebuilt.pickle), so a run reads no YAML and
validates nothing for them, the first run in a fresh home included.

.venv/bin/python scripts/prebuild_data.py [--check]

Run it after changing a bundled YAML file or a record class it is read as; tests/test_prebuilt.py
fails until it is run (a stale entry is never wrong at run time, only slow: costcalc parses and
validates that file as it would a user's). --check exits 1 when the file is out of date.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "costcalc" / "data" / "prebuilt.pickle"


def build() -> bytes:
    """The prebuilt form of every bundled file, from a full pydantic validation of its text."""
    from _pickle import dumps

    from costcalc.core import validation
    from costcalc.edge import prebuilt
    from costcalc.edge.resources import decode, parse_yaml
    from costcalc.store.loaders import bundled_files

    entries: dict[str, tuple[str, bytes]] = {}
    for package, name, model in sorted(bundled_files(), key=lambda f: (f[0], f[1])):
        where = f"{package}/{name}"
        data = resources.files(package).joinpath(name).read_bytes()
        record = validation.validate(model, parse_yaml(decode(data, where), where))
        entries[where] = (prebuilt.digest(data), prebuilt.pack(record))
    return dumps(entries, protocol=prebuilt.PROTOCOL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    ns = parser.parse_args(argv)
    data = build()
    current = TARGET.read_bytes() if TARGET.exists() else b""
    if ns.check:
        print("current" if data == current else f"out of date: run {Path(__file__).name}")
        return 0 if data == current else 1
    if data != current:
        TARGET.write_bytes(data)
    print(f"{TARGET.relative_to(ROOT)}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
