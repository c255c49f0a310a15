"""`costcalc tui` (and `costcalc` with no command): the interactive app."""

from __future__ import annotations

import argparse
from typing import Any

from costcalc.cli import output
from costcalc.core.tiers import TIERS_TEXT
from costcalc.edge import locations


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tui",
        help="open the interactive app (the default when no command is given)",
        description=(
            "Explore rent versus buy interactively: your setup, every offer, the break-even "
            "curves and the formulas behind each number. Settings are saved in your config "
            f"file. In the app, T leaves tiers out, as --exclude does in quick: {TIERS_TEXT}."
        ),
        **output.examples("costcalc", "costcalc tui"),
    )
    # How `costcalc serve` starts each browser tab's app: a web page must not change what the
    # CLI answers, nor write where the server happens to run.
    p.add_argument(
        "--served",
        action="store_true",
        help="run as `costcalc serve` runs each browser tab: read the settings but never save "
        "them, and write exports to the exports folder of costcalc's data folder "
        "(COSTCALC_HOME/data/exports when set), not the working directory",
    )
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    from costcalc.tui.app import make_app

    served: dict[str, Any] = {}
    if getattr(ns, "served", False):  # (`costcalc` without a command has no such flag)
        served = {"persist": False, "export_dir": locations.exports_dir()}
    make_app(**served).run()
    return 0
