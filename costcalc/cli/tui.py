"""`costcalc tui` (and `costcalc` with no command): the interactive app."""

from __future__ import annotations

import argparse
from typing import Any

from costcalc.cli import output


def register(sub: Any) -> None:
    from costcalc.core.tiers import TIERS_TEXT

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
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    from costcalc.tui.app import make_app

    make_app().run()
    return 0
