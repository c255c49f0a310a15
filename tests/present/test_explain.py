"""'Why this number': every substituted number is the engine's, and every line's arithmetic,
redone from the numbers it shows, lands on the figure it states and on the table's figure."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from costcalc.core.compare import compare
from costcalc.core.models import CloudOffer, Scenario, Workload
from costcalc.core.scenario import AppData, build_assumptions, build_desktop, evaluate
from costcalc.present import explain
from costcalc.store.loaders import load_app_data

NOW = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def data() -> AppData:
    return load_app_data()


def dettmers(data: AppData) -> tuple[str, list[explain.Explanation]]:
    """RTX 3090 desktop, $2,200, 450 W, $0.12/kWh, 15 %, against a $2.14/h V100 spot."""
    spec = data.catalog.get("rtx3090")
    desktop = build_desktop(spec, data.desktop_defaults, price_usd=2200, system_watts=100)
    a = build_assumptions(data.grid, utilisation=0.15, usd_per_kwh=0.12)
    v100 = CloudOffer(
        provider="aws-spot",
        name="p3.2xlarge",
        region="us-east-1",
        gpu="rtx3090",  # "similar speed": relative speed 1, as in the source
        usd_per_hour=2.14,
        fetched_at=datetime(2020, 9, 7, tzinfo=timezone.utc),
        source="Dettmers 2020",
    )
    w = Workload(run_hours=10)
    speed = data.predictor.speed_fn("generic", "fp32")
    c = compare(desktop, a, w, [v100], data.catalog, data.grid, NOW, speed=speed)
    parts = explain.explain_offer(c.offers[0], c, desktop, a, w, data.catalog, data.grid)
    return explain.to_text(parts), parts


def test_the_dettmers_example_is_derived_with_its_own_numbers(data: AppData) -> None:
    text, _ = dettmers(data)
    lines = [line.strip() for line in text.splitlines()]
    for expected in (
        "load = (350 W x 1 GPU + 100 W rest) / PSU 1 = 450 W",
        "kWh/year = 450 W x 0.15 x 8,760 h / 1000 = 591.3 kWh",
        "$/year = 591.3 kWh x $0.12/kWh = $70.96",
        "$/year = 1,314 h x $2.14/h = $2,812",
        "d = $2,200 / ($2,812/365 - $70.96/365) = 2,200 / (7.704 - 0.1944) = 292.96 days",
        "~293 days (about 10 months): within your 3-year horizon (1,095 days)",
        "cost = 10 h x $2.14/h = $21.40",
    ):
        assert expected in lines, expected
    assert any(line.startswith("hours/year = 0.15 x 8,760 h / speed 1 = 1,314 h") for line in lines)


# --------------------------------------------------------------------------- redoing the sums

_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d+)?"
_UNIT_SLASH = re.compile(r"/(?:kWh|h|month|year)\b")


def redo(expression: str) -> float:
    """Evaluate a formula as the panel writes it: '450 W x 0.15 x 8,760 h / 1000'."""
    text = _UNIT_SLASH.sub("", expression.replace("$", ""))
    tokens = re.findall(rf"max\(|{_NUMBER}|[x*/+()\-]|,", text)
    python = []
    for token in tokens:
        if token == "x":
            python.append("*")
        elif re.fullmatch(_NUMBER, token):
            python.append(token.replace(",", ""))
        else:
            python.append(token)
    return float(eval(" ".join(python).replace(" , ", ", "), {"max": max}))


def stated(result: str) -> float:
    """The figure after the last '=': '$2,775', '1,038.1 kWh', '304.9 kg/year', '906 g'."""
    number = re.search(_NUMBER, result.replace("$", ""))
    assert number is not None, result
    value = float(number.group().replace(",", ""))
    unit = result[number.end() :].split()
    if unit and unit[0] in ("g", "g/year"):
        value /= 1000
    if unit and unit[0] in ("t", "t/year"):
        value *= 1000
    return value


FORMULAS = ("load =", "kWh/year =", "$/year =", "hours/year =", "d =", "cloud kWh =", "cloud:")


def check_arithmetic(line: str) -> None:
    parts = [p.strip() for p in line.split(" = ")]
    result = parts[-1].split(" (")[0].split(" + embodied")[0]
    for expression in parts[1:-1]:
        expression = expression.split(": ", 1)[-1]  # "cloud: 982.2 kWh x ..."
        if not re.search(r"\d", expression):
            continue
        assert redo(expression) == pytest.approx(stated(result), rel=2e-3, abs=0.006), line


def test_every_line_of_every_offer_adds_up(data: AppData) -> None:
    scenario = Scenario(
        gpu="rtx3090",
        run_hours=10,
        items_per_run=1000,
        always_on=True,
        embodied=True,
        psu_efficiency=0.9,
    )
    calc = evaluate(scenario, data, NOW)
    checked = 0
    for result in calc.comparison.offers:
        parts = explain.explain_offer(
            result,
            calc.comparison,
            calc.desktop,
            calc.assumptions,
            calc.workload,
            data.catalog,
            data.grid,
        )
        text = explain.to_text(parts)
        for line in text.splitlines():
            line = line.strip()
            if line.startswith(FORMULAS) or line.startswith("desktop:"):
                check_arithmetic(line)
                checked += 1
        # ... and the last figure of each part is the one the table shows
        if result.break_even_days is not None:
            assert f"= {result.break_even_days:,.2f} days" in text
        else:
            assert "never pays back" in text
        assert f"= {explain.num(result.hours_per_year)} h" in text
    assert checked > 6 * len(calc.comparison.offers)


def test_a_wrong_formula_would_be_caught() -> None:
    """The checker itself: a line whose sum is off fails it."""
    check_arithmetic("kWh/year = 450 W x 0.15 x 8,760 h / 1000 = 591.3 kWh")
    with pytest.raises(AssertionError):
        check_arithmetic("kWh/year = 350 W x 0.15 x 8,760 h / 1000 = 591.3 kWh")
    with pytest.raises(AssertionError):
        check_arithmetic("d = 2,200 / (7.704 - 0.1944) = 290.00 days")


# ---------------------------------------------------------------- costcalc quick --explain

REFERENCE = [
    "quick", "--gpu", "rtx3090", "--util", "0.15", "--desktop-price", "2200", "--gpu-watts", "350",
    "--system-watts", "100", "--kwh-price", "0.12", "--cloud-price", "2.14", "--provider", "custom",
    "--run-hours", "10", "--no-config",
]  # fmt: skip


def quick(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    from costcalc.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def formula(lines: list[str], start: str, nth: int = 0) -> str:
    found = [line.strip() for line in lines if line.strip().startswith(start)]
    return found[nth]


def result_of(line: str) -> float:
    return stated(line.split(" = ")[-1].split(" (")[0])


def test_quick_explain_derives_the_json_figures(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    doc = json.loads(quick([*REFERENCE, "--json", "--explain"], capsys))
    lines, desk, best = doc["explain"], doc["desktop"], doc["best"]
    for line in lines:
        if line.strip().startswith((*FORMULAS, "desktop:")):
            check_arithmetic(line.strip())  # each sum, redone from its own numbers ...
    # ... lands on the figure --json gives
    assert result_of(formula(lines, "load =")) == pytest.approx(desk["load_w"])
    assert result_of(formula(lines, "kWh/year =")) == pytest.approx(desk["kwh_per_year"], abs=0.05)
    electricity = result_of(formula(lines, "$/year =", 0))
    assert electricity == pytest.approx(desk["electricity_usd_per_year"], abs=0.005)
    assert result_of(formula(lines, "hours/year =")) == pytest.approx(best["hours_per_year"])
    assert result_of(formula(lines, "$/year =", 1)) == pytest.approx(best["usd_per_year"], abs=0.5)
    assert formula(lines, "d =").endswith(f"= {best['break_even_days']:,.2f} days")
    assert result_of(formula(lines, "cloud:")) == pytest.approx(best["co2_kg_per_year"], abs=0.05)
    assert result_of(formula(lines, "cost =")) == pytest.approx(best["run"]["usd"], abs=0.005)
    assert {k for k in doc if k not in ("explain", "explain_thresholds")} == set(
        json.loads(quick([*REFERENCE, "--json"], capsys))
    )  # --explain adds a field and changes none


def test_quick_explain_text_is_the_json_lines_and_the_apps_panel(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, data: AppData
) -> None:
    import json

    from costcalc.present import report
    from costcalc.tui.widgets.why import why_text

    monkeypatch.setenv("COLUMNS", "200")
    text = quick([*REFERENCE, "--explain"], capsys)
    head, derivation = text.split("\nWhy these figures, for custom $2.14/h (RTX 3090):\n")
    answer, flipping = head.split("\nWhat would flip the verdict:\n")  # after the answer
    assert answer.startswith("Buy:") and "\n  That is your own price (--cloud-price).\n" in answer
    doc = json.loads(quick([*REFERENCE, "--json", "--explain"], capsys))
    assert flipping.rstrip("\n").split("\n") == doc["explain_thresholds"]
    assert derivation.rstrip("\n").split("\n") == doc["explain"]
    scenario = Scenario(gpu="rtx3090", run_hours=10, items_per_run=1000, utilisation=0.4)
    calc = evaluate(scenario, data, NOW)
    assert calc.comparison.best is not None
    panel = why_text(calc, calc.comparison.best, data).plain
    assert panel.rstrip("\n").split("\n") == report.explain_lines(calc, data)


def test_quick_explain_in_another_currency(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    argv = ["quick", "--gpu", "rtx4090", "--region", "DE", "--currency", "EUR", "--no-config"]
    doc = json.loads(quick([*argv, "--json", "--explain"], capsys))
    per_usd = doc["currency"]["per_usd"]
    cloud_year = formula(doc["explain"], "€/year =", 1)
    euros = float(cloud_year.rsplit("€", 1)[1].replace(",", ""))
    assert euros == pytest.approx(doc["best"]["usd_per_year"] * per_usd, rel=0.002, abs=0.5)
    text = quick([*argv, "--explain"], capsys)
    assert "€/year =" in text and all(len(line) <= 80 for line in text.splitlines())


def test_the_speed_section_multiplies_to_the_tables_speed(data: AppData) -> None:
    # The predictor's breakdown (math, element-wise, memory, overhead) explains the speed the
    # table used: the factors multiply to the per-GPU speed, the GPU count scaling to the rest.
    from costcalc.core.offers import custom_offer

    spec = data.catalog.get("rtx3090")
    desktop = build_desktop(spec, data.desktop_defaults, price_usd=1500)
    a = build_assumptions(data.grid, utilisation=0.15, usd_per_kwh=0.12)
    w = Workload(run_hours=10, kind="transformer", dtype="fp16")
    offers = [custom_offer("a100_sxm4_80gb", 8, 10.0, NOW), custom_offer("t4", 1, 0.5, NOW)]
    speed = data.predictor.speed_fn("transformer", "fp16")
    c = compare(desktop, a, w, offers, data.catalog, data.grid, NOW, speed=speed)
    for result in c.offers:
        why = data.predictor.explain(
            spec, data.catalog.get(result.offer.gpu), "transformer", "fp16"
        )
        parts = explain.explain_offer(
            result, c, desktop, a, w, data.catalog, data.grid, why_speed=why
        )
        lines = parts[-1].lines
        assert parts[-1].title == "Speed" and lines[0].endswith("transformer work in fp16:")
        per_gpu = next(line for line in lines if line.startswith("speed per GPU"))
        factors, shown = per_gpu.split(" = ")[1], float(per_gpu.split(" = ")[2].split()[0])
        product = 1.0
        for factor in factors.split(" x "):
            product *= float(factor)
        assert product == pytest.approx(shown, rel=2e-3)
        assert shown == pytest.approx(why.speedup, rel=1e-3)
        final = [line for line in lines if line.startswith("speed = ")]
        table = float(final[0].rsplit(" = ", 1)[1]) if final else shown
        assert table == pytest.approx(result.relative_speed, rel=1e-3)
    assert any("holds about" in line for line in lines)  # the T4's power note


def test_resale_is_in_the_derived_break_even(data: AppData) -> None:
    """With half the price back after the horizon, the derivation shows the net price and lands
    on the table's figure: half the Dettmers example's days."""
    spec = data.catalog.get("rtx3090")
    desktop = build_desktop(spec, data.desktop_defaults, price_usd=2200, system_watts=100)
    a = build_assumptions(data.grid, utilisation=0.15, usd_per_kwh=0.12, resale_share=0.5)
    offer = CloudOffer(
        provider="aws-spot",
        name="p3.2xlarge",
        region="us-east-1",
        gpu="rtx3090",
        usd_per_hour=2.14,
        fetched_at=datetime(2020, 9, 7, tzinfo=timezone.utc),
        source="Dettmers 2020",
    )
    w = Workload()
    speed = data.predictor.speed_fn("generic", "fp32")
    c = compare(desktop, a, w, [offer], data.catalog, data.grid, NOW, speed=speed)
    result = c.offers[0]
    assert result.break_even_days == pytest.approx(292.96 / 2, abs=0.05)
    part = explain.break_even(result, c, desktop, a)
    assert part.lines[0].startswith("price x (1 - resale) + electricity/day x d")
    assert part.lines[1] == (
        "d = $2,200 x (1 - 0.5) / ($2,812/365 - $70.96/365) = 1,100 / (7.704 - 0.1944) = "
        f"{result.break_even_days:,.2f} days"
    )


def test_a_desktop_without_a_price_explains_what_is_missing(data: AppData) -> None:
    calc = evaluate(Scenario(gpu="l40s"), data, NOW)
    best = calc.comparison.best
    assert best is not None and calc.desktop.price_usd is None
    part = explain.break_even(best, calc.comparison, calc.desktop, calc.assumptions)
    assert "give --desktop-price" in part.lines[-1]
