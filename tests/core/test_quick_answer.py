"""`quick` answers first (issue 28 item 1, issue 24 items 2, 6, 8): the verdict, what would flip
it and its price's readings lead the output; --brief prints only them; saved settings that
change the answer are said on the first line and named in the verdict; --json is small unless
--all. Run through the real `main`, the bundled prices, a real config.yaml and a real SQLite
history."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime, timezone

import pytest
from msgspec.structs import replace

from costcalc.cli import main
from costcalc.core.models import CloudOffer
from costcalc.core.ranges import Point
from costcalc.edge import locations
from costcalc.providers import registry
from costcalc.store import history

BASE = ["quick", "--gpu", "rtx3090", "--util", "0.15"]
READ = ["quick", "--gpu", "rtx_a6000", "--util", "0.15"]
"""A verdict whose offer has other dated readings (RunPod's A6000 Community Cloud price,
prices/readings.yaml)."""


def quick(argv: list[str], monkeypatch: pytest.MonkeyPatch, columns: int = 100) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("columns", [80, 100])
def test_the_decision_is_on_the_first_three_lines(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    lines = quick([*READ, "--no-config"], monkeypatch, columns).splitlines()
    assert any(line.startswith(("Rent:", "Buy:")) for line in lines[:3])
    answer = "\n".join(lines[: lines.index("")])  # the answer, before the desktop's cost
    assert "Rent stays cheaper unless" in answer and "utilisation rises above" in answer
    assert (
        "Readings of its price: low $0.330/h, median $0.330/h, high $0.330/h: 3 readings"
        in " ".join(x.strip() for x in answer.splitlines())
    )  # RunPod's list price, and the two other dated sources prices/readings.yaml gives
    assert "2025-06-21 to 2026-10-04 (list price, 2 from other dated sources)" in " ".join(
        x.strip() for x in answer.splitlines()
    )
    assert answer.splitlines()[-1].startswith("  That is a list price of 2026-10-04 (")
    assert lines.index("") < next(i for i, x in enumerate(lines) if x.startswith("Desktop:"))


def test_brief_prints_only_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    full = quick([*BASE, "--no-config"], monkeypatch)
    brief = quick([*BASE, "--no-config", "--brief"], monkeypatch)
    assert full.startswith(brief.rstrip("\n") + "\n\n")
    assert "Desktop:" not in brief and "Comparable cloud offers" not in brief


def test_saved_filters_are_said_in_the_answer_and_named_in_the_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("offer_match: h100\n")
    out = quick(["quick", "--gpu", "rtx3090"], monkeypatch, 200)
    lines = out.splitlines()
    assert lines[0].startswith(("Buy: ", "Rent: "))  # line 1 is the verdict (issue 37)
    end = next(i for i, line in enumerate(lines) if line.startswith("  "))
    verdict = " ".join(lines[:end])  # the verdict's paragraph, wrapped at 200 columns
    answer = lines[: lines.index("")]
    last = answer[-1]  # the answer's last line says which saved settings were used
    assert last.startswith("  Using your saved settings") and "--no-config ignores them" in last
    assert "H100" in verdict
    assert verdict.endswith(
        "Chosen among offers filtered to matching 'h100' (from your saved settings; "
        "--no-config ignores them)."
    )
    doc = json.loads(quick(["quick", "--gpu", "rtx3090", "--json"], monkeypatch))
    assert doc["saved_settings"].startswith("Using your saved settings")
    assert "from your saved settings" in doc["filters"]
    plain = quick(["quick", "--gpu", "rtx3090", "--no-config"], monkeypatch, 200)
    assert "saved settings" not in plain and "filtered to" not in plain
    typed = quick(["quick", "--gpu", "rtx3090", "--no-config", "--match", "h100"], monkeypatch, 200)
    assert "filtered to matching 'h100'." in typed and "saved settings" not in typed


def test_json_leads_with_the_decision_and_lists_the_top_offers_unless_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small = quick([*BASE, "--no-config", "--json"], monkeypatch)
    every = quick([*BASE, "--no-config", "--json", "--all"], monkeypatch)
    doc, all_doc = json.loads(small), json.loads(every)
    assert list(doc)[:3] == ["decision", "decision_reason", "verdict"]
    assert doc["decision"] == "rent" and doc["price_range"]["count"] >= 1
    # the best of each provider in each of the two tables (comparable, scale-out), not all
    assert len(doc["offers"]) <= 2 * len(registry.names()) < len(all_doc["offers"])
    assert len(small) * 10 < len(every)  # 43 KB against 760 KB with the bundled prices


def test_the_history_adds_readings_to_the_range(monkeypatch: pytest.MonkeyPatch) -> None:
    """A price recorded by an earlier refresh is a reading of the verdict's offer: the range
    shows both and says whether the verdict holds across them."""
    first = json.loads(quick([*READ, "--no-config", "--json"], monkeypatch))
    best = first["best"]
    threshold = first["thresholds"]["offer"]["usd_per_hour"]
    earlier = CloudOffer(
        provider=best["provider"],
        name=best["name"],
        region=best["region"],
        gpu=best["gpu"],
        gpu_count=best["gpu_count"],
        usd_per_hour=0.29,
        fetched_at=datetime(2026, 7, 1, tzinfo=timezone.utc),
        source="an earlier refresh",
    )
    history.record([earlier], earlier.fetched_at)
    doc = json.loads(quick([*READ, "--no-config", "--json"], monkeypatch))
    spread = doc["price_range"]
    assert (spread["count"], spread["low_usd_per_hour"], spread["high_usd_per_hour"]) == (
        4,
        0.29,
        0.33,
    )
    origins = [r["origin"] for r in spread["readings"]]  # oldest first
    assert origins == ["cross-check", "history", "cross-check", "prices"]
    assert spread["verdict_holds"] is (
        threshold > 0.33 or not first["thresholds"]["offer_flips_verdict"]
    )
    text = quick([*READ, "--no-config", "--brief"], monkeypatch, 200)
    text = " ".join(x.strip() for x in text.splitlines())
    assert (
        "low $0.290/h, median $0.330/h, high $0.330/h: 4 readings, 2025-06-21 to 2026-10-04" in text
    )
    assert "1 from your refresh history, 2 from other dated sources" in text
    assert "the verdict holds across them" in text


def test_explain_derives_the_thresholds_json_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads(quick([*BASE, "--no-config", "--json", "--explain"], monkeypatch))
    lines = doc["explain_thresholds"]
    desktop = next(x for x in lines if x.startswith("desktop price = "))
    assert desktop.endswith(f"= ${doc['thresholds']['desktop_price_usd']:,.0f}")
    cloud = next(x for x in lines if x.startswith("cloud a year at which it pays back"))
    assert cloud.endswith(f"= ${doc['thresholds']['cloud_usd_per_year']:,.2f}")


def test_evaluate_returns_the_whole_answer_and_reads_the_verdicts_offer_once() -> None:
    """The decision, what would flip it and its price's readings are one value from
    `evaluate`, the readings beyond the prices in use asked of the caller's reader once, for
    the verdict's offer alone: the front ends render them and compute none."""
    from costcalc.core.models import Scenario
    from costcalc.core.scenario import evaluate
    from costcalc.store.loaders import load_app_data

    now = datetime(2026, 11, 28, 12, tzinfo=timezone.utc)
    asked = []

    def recorded(offer: CloudOffer) -> list[Point]:
        asked.append(offer)
        return [(offer.name, datetime(2026, 7, 1, tzinfo=timezone.utc), 0.29, "history")]

    scenario = Scenario(gpu="rtx_a6000", utilisation=0.15)
    calc = evaluate(scenario, load_app_data(), now, recorded=recorded)
    best = calc.comparison.best
    assert best is not None and asked == [best.offer]
    assert calc.decision == "rent" and calc.thresholds.decision == "rent"
    assert calc.thresholds.offer is not None and calc.thresholds.offer.result is best
    spread = calc.price_range
    assert spread is not None and (spread.low, spread.count) == (0.29, 2)
    assert [r.origin for r in spread.readings] == ["history", "prices"]
    alone = evaluate(scenario, load_app_data(), now)  # the prices in use alone
    assert alone.price_range is not None and alone.price_range.count == 1
    own = evaluate(replace(scenario, cloud_prices=(0.01,)), load_app_data(), now)
    assert own.comparison.best is not None and own.comparison.best.offer.provider == "custom"
    assert own.price_range is None  # the user's own price has no readings but itself


FRONT_ENDS = ("present", "tui", "cli")
ANSWER_FUNCTIONS = {
    "costcalc.core.thresholds": {"thresholds"},
    "costcalc.core.ranges": {"price_range", "readings_of", "verdict_range"},
    "costcalc.core.decision": {"decision", "reason"},
}


def test_no_front_end_computes_a_part_of_the_answer() -> None:
    """present/, the app and the CLI import none of the functions that make the answer (the
    decision, its thresholds, its price's range): `evaluate` made them once."""
    import ast
    from pathlib import Path

    package = Path(__file__).parents[2] / "costcalc"
    found = []
    for layer in FRONT_ENDS:
        for path in sorted((package / layer).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module in ANSWER_FUNCTIONS:
                    names = {alias.name for alias in node.names}
                    if names & ANSWER_FUNCTIONS[node.module]:
                        found.append(f"{path.relative_to(package)}: {node.module}")
    assert found == []
