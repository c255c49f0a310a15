"""benchmarks/tui_terminal.py times the app with 5,000 offers: check the app really loads them.

The benchmark's figures are only about 5,000 offers if its refreshed snapshot is accepted whole
(sealed, every GPU known, every price believable); a rejected one would silently fall back to the
bundled 868. No timing here: the benchmark itself does that.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from costcalc.store.loaders import load_app_data
from costcalc.store.snapshots import refreshed_path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "tui_terminal.py"


@pytest.mark.slow  # seconds (5,000 offers written and loaded): the whole suite, not the fast subset
def test_the_benchmark_home_loads_five_thousand_offers() -> None:
    spec = importlib.util.spec_from_file_location("tui_terminal", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    assert bench.write_many_offers() == 5000

    data = load_app_data()
    assert len(data.book.offers) == 5000
    assert data.book.problems == []
    assert data.book.snapshots["runpod"].origin == str(refreshed_path("runpod"))
    assert sum(o.provider == "runpod" for o in data.book.offers) > 4000
