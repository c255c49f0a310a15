"""Write the bundled data's prebuilt form: every YAML file the package ships, validated in full by
pydantic, stored as its records (costcalc/data/prebuilt.pickle), so a run reads no YAML and
validates nothing for them, the first run in a fresh home included; and the AppData built from
them all (catalog, price book, grid, region and electricity indexes, predictor), which a run
without refreshed snapshots or prices of the user's own unpickles whole.

.venv/bin/python scripts/prebuild_data.py [--check]

Run it after changing a bundled YAML file or a record class it is read as; tests/test_prebuilt.py
fails until it is run (a stale entry is never wrong at run time, only slow: costcalc parses and
validates that file as it would a user's). --check exits 1 when the file is out of date.
"""

from __future__ import annotations

import os
import sys
import tempfile
from importlib import resources
from pathlib import Path

from scripts.generated import write_or_check

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "costcalc" / "data" / "prebuilt.pickle"


def build() -> bytes:
    """The prebuilt form of every bundled file, from a full pydantic validation of its text."""
    from _pickle import dumps

    from costcalc.core import validation
    from costcalc.edge import prebuilt
    from costcalc.edge.resources import decode, parse_yaml
    from costcalc.store.loaders import APP_DATA, app_data_meta, bundled_files

    entries: dict[str, tuple[object, ...]] = {}
    files: dict[str, str] = {}
    for package, name, model in sorted(bundled_files(), key=lambda f: (f[0], f[1])):
        where = f"{package}/{name}"
        data = resources.files(package).joinpath(name).read_bytes()
        record = validation.validate(model, parse_yaml(decode(data, where), where))
        entries[where] = (prebuilt.digest(data), prebuilt.pack(record))
        files[where] = prebuilt.file_check(data)
    entries[APP_DATA] = prebuilt.store_value(files, app_data_meta(), bundled_only(entries))
    return dumps(entries, protocol=prebuilt.PROTOCOL)


def bundled_only(entries: dict[str, tuple[object, ...]]) -> object:
    """The AppData of the bundled files alone: read in a home with no files of a user's, from
    the per-file entries just made, with nothing this process read before (a catalog whose name
    index was built, say), so the bytes written depend on the files alone."""
    from costcalc.edge import prebuilt
    from costcalc.store.loaders import clear_caches, prebuilt_form, read_app_data

    saved = os.environ.get("COSTCALC_HOME")
    with tempfile.TemporaryDirectory() as home, prebuilt.reading(entries):
        os.environ["COSTCALC_HOME"] = home
        clear_caches()
        try:
            return prebuilt_form(read_app_data(None))
        finally:
            clear_caches()
            if saved is None:
                del os.environ["COSTCALC_HOME"]
            else:
                os.environ["COSTCALC_HOME"] = saved


def main(argv: list[str] | None = None) -> int:
    return write_or_check(
        argv, __doc__, TARGET, build, lambda data: f"{len(data):,} bytes", Path(__file__).name
    )


if __name__ == "__main__":
    sys.exit(main())
