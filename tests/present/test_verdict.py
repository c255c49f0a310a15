"""A verdict a practitioner can trust: like with like, prices by kind and risk, plain names,
the run question answered, filters that narrow the answer, one default precision."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from costcalc.store.bundled import load_catalog
from tests.cli_run import run
from tests.cli_tables import header_of, marked_tables

KEYS = sorted((s.key for s in load_catalog()), key=len, reverse=True)
KEY_PATTERN = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, KEYS)) + r")(?![\w-])")


def quick_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = run(["quick", *argv, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("gpu", ["rtx3090", "rtx4090", "rtx5090", "rtx_a6000"])
@pytest.mark.parametrize("util", ["15%", "40%"])
def test_the_default_verdict_names_a_single_gpu_with_enough_memory(
    gpu: str, util: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = quick_json(["--gpu", gpu, "--util", util], capsys)
    desktop_memory = load_catalog().get(gpu).memory_gb
    best = doc["best"]
    assert best is not None
    assert best["gpu_count"] == 1 and best["role"] == "comparable"
    assert best["gpu_memory_gb"] >= desktop_memory
    assert doc["comparable_with"] == {
        **doc["comparable_with"],
        "gpu_count": 1,
        "memory_gb_per_gpu": desktop_memory,
        "memory_from": "desktop GPU",
    }
    assert best["name"] in doc["verdict"]


@pytest.mark.usefixtures("wide_terminal")
def test_scale_out_offers_are_labelled_and_win_only_when_allowed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    default = quick_json(["--gpu", "rtx3090"], capsys)
    allowed = quick_json(["--gpu", "rtx3090", "--scale-out"], capsys)
    assert any(o["role"] == "scale-out" for o in default["offers"])
    assert default["best"]["gpu_count"] == 1
    assert allowed["best"]["usd_per_year"] <= default["best"]["usd_per_year"]
    assert "(T. Dettmers)" in default["comparable_with"]["scale_out_assumption"]
    transformer = quick_json(["--gpu", "rtx3090", "--kind", "transformer"], capsys)
    assumption = transformer["comparable_with"]["scale_out_assumption"]
    assert "8 GPUs run 7.5x one over NVLink" in assumption
    assert "NVIDIA/DeepLearningExamples" in assumption
    _, out, _ = run(["quick", "--gpu", "rtx3090"], capsys)
    assert "Scale-out: more GPUs than your desktop (8 GPUs run" in out
    assert "--scale-out lets them be the verdict" in out


def test_memory_gb_16_admits_16_gb_cards(capsys: pytest.CaptureFixture[str]) -> None:
    doc = quick_json(["--gpu", "rtx3090", "--memory-gb", "16"], capsys)
    assert doc["comparable_with"]["memory_from"] == "job"
    sixteen = [o for o in doc["offers"] if o["gpu_memory_gb"] == 16 and o["gpu_count"] == 1]
    assert sixteen and all(o["role"] == "comparable" for o in sixteen)


def test_a_desktop_that_cannot_run_the_job_never_gets_buy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = quick_json(["--gpu", "rtx3090", "--memory-gb", "30"], capsys)
    assert doc["desktop_fits"] is False
    assert not doc["verdict"].startswith("Buy")
    assert doc["verdict"].startswith("Rent: your RTX 3090 (24 GB) cannot hold this job (30 GB")
    assert doc["best"]["gpu_memory_gb"] >= 30
    for util in ("5%", "60%", "100%"):
        _, out, _ = run(["quick", "--gpu", "rtx3090", "--memory-gb", "30", "--util", util], capsys)
        assert "Buy:" not in out and "cannot hold this job" in out


async def test_the_app_says_the_same_when_the_desktop_cannot_run_the_job() -> None:
    from costcalc.store.settings import Settings
    from costcalc.tui.app import make_app
    from tests.tui.conftest import FIXED_NOW

    app = make_app(settings=Settings(gpu="rtx3090", memory_gb=30), now=FIXED_NOW, detect_gpu=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        verdict = str(app.screen.query_one("#verdict-line").render())
        assert verdict.startswith("Rent: your RTX 3090 (24 GB) cannot hold this job")


def test_a_stale_estimate_is_never_the_verdict_while_a_real_price_exists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    everything = quick_json(["--gpu", "rtx3090"], capsys)
    assert everything["best"]["price_kind"] != "estimate"
    spot_only = quick_json(["--gpu", "rtx3090", "--provider", "aws-spot"], capsys)
    assert spot_only["best"]["price_kind"] == "estimate"  # no real price: the estimate, marked
    assert (
        "an estimate (derived, never observed)"
        in run(["quick", "--gpu", "rtx3090", "--provider", "aws-spot"], capsys)[1]
    )
    for offer in everything["offers"]:
        assert offer["price_kind"] in ("observed", "list", "estimate")
        assert offer["price_age_days"] >= 0
        if offer["spot"]:
            assert offer["spot_overhead"] > 1
        else:
            assert offer["spot_overhead"] is None


def test_spot_interruptions_cost_hours_and_no_spot_excludes_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cheap = quick_json(["--gpu", "rtx3090", "--provider", "aws-spot"], capsys)
    slow = quick_json(
        ["--gpu", "rtx3090", "--provider", "aws-spot", "--spot-restart-minutes", "600"], capsys
    )
    a = {(o["name"], o["region"]): o for o in cheap["offers"]}
    for offer in slow["offers"]:
        same = a[(offer["name"], offer["region"])]
        assert offer["spot_overhead"] > same["spot_overhead"] > 1
        assert offer["usd_per_year"] > same["usd_per_year"]
    none = quick_json(["--gpu", "rtx3090", "--no-spot"], capsys)
    assert not any(o["spot"] for o in none["offers"])


def scan_for_keys(text: str) -> list[str]:
    return KEY_PATTERN.findall(text)


def test_no_catalog_key_reaches_a_person(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["quick", "--gpu", "rtx3090", "--top", "50"],
        ["quick", "--gpu", "rtx4090", "--run-hours", "10", "--items", "1000000", "--all"],
        ["quick", "--gpu", "rtx4090", "--memory-gb", "40"],
        ["prices"],
        ["history"],
        ["predict", "--from", "rtx3090", "--to", "all", "--seconds", "60"],
    ):
        code, out, err = run(argv, capsys)
        assert code == 0, (argv, err)
        assert scan_for_keys(out) == [], (argv, scan_for_keys(out)[:5])
    code, out, _ = run(["quick", "--gpu", "rtx3090", "--json"], capsys)
    offer = json.loads(out)["offers"][0]
    assert offer["gpu"] in KEYS and offer["gpu_name"]  # machines keep the key, and get the name


async def test_no_catalog_key_on_the_app_screens() -> None:
    from costcalc.store.settings import Settings
    from costcalc.tui.app import make_app
    from tests.tui.conftest import FIXED_NOW
    from tests.tui.helpers import started

    settings = Settings(gpu="rtx3090", run_hours=10, items_per_run=1e6)
    app = make_app(settings=settings, now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await started(pilot)  # every field on screen: the setup is filled after the first frame
        await pilot.pause()
        for keys in ((), ("w",), ("e",)):
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            screen_text = app.export_screenshot()
            texts = re.sub(r"<[^>]+>", " ", screen_text).replace("&#160;", " ")
            assert scan_for_keys(texts) == [], (keys, scan_for_keys(texts)[:5])
            if keys == ("e",):
                await pilot.press("escape")


@pytest.mark.usefixtures("wide_terminal")
def test_run_mode_answers_the_run_question(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["quick", "--gpu", "rtx3090", "--run-hours", "10", "--items", "1000000"], capsys
    )
    assert code == 0
    header = header_of(out)
    # a run of 1M items: $ a run is $ per 1M items, shown once (the header names the items)
    assert "time/run" in header and "$/run" in header and "items" not in header
    assert "CO2/run" in header and "$/year" not in header
    assert "by cost per run of 1,000,000 items" in " ".join(out.split())
    (verdict_mark, verdict), (_, desktop), *rows = marked_tables(out)[0]
    assert verdict_mark == "★" and desktop.startswith("your desktop  electricity + hardware")
    assert len(rows) >= 5 and len(out.splitlines()) <= 50  # what fits 50 lines, not hundreds
    doc = quick_json(["--gpu", "rtx3090", "--run-hours", "10", "--items", "1000000"], capsys)
    assert doc["best"]["name"][:20] in verdict
    assert doc["desktop_run"]["usd_per_item"] == pytest.approx(doc["desktop_run"]["usd"] / 1e6)


async def test_the_app_shows_the_run_columns_and_the_desktop_row() -> None:
    from costcalc.store.settings import Settings
    from costcalc.tui import rows
    from costcalc.tui.app import make_app
    from costcalc.tui.rows import DESKTOP_KEY as DESKTOP_ROW
    from costcalc.tui.screens.main import MainScreen
    from costcalc.tui.widgets.offers import OffersTable
    from tests.tui.conftest import FIXED_NOW
    from tests.tui.helpers import wait_until

    settings = Settings(gpu="rtx3090", run_hours=10, items_per_run=3e6)
    app = make_app(settings=settings, now=FIXED_NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(OffersTable)
        assert table.calc is not None and table.calc.comparison.best is not None
        verdict = rows.head_key(rows.fold_key(table.calc.comparison.best))
        # the verdict's offer first in every view (issue 37), the desktop's own row under it
        assert table.shown_keys[:2] == [verdict, DESKTOP_ROW]
        assert table.cell_text(DESKTOP_ROW, "provider") == "your desktop"
        titles = [c.title_in(table.ctx) for c in table.fitted.columns]
        assert any(t.startswith("$/1M items") for t in titles)
        assert "$/run" in titles
        assert table.cell_text(DESKTOP_ROW, "run_usd_per_items").startswith("$")
        # a run of 1M items: $/run is $ per 1M items, and the table shows it once
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.apply(items_per_run=1e6)
        await wait_until(
            app, lambda: table.ctx.items_unit == 10**6 and screen.settings.items_per_run == 1e6
        )
        titles = [c.title_in(table.ctx) for c in table.candidates]
        assert "$/run" in titles and not any("items" in t for t in titles)


def test_filters_narrow_the_answer(capsys: pytest.CaptureFixture[str]) -> None:
    doc = quick_json(
        ["--gpu", "rtx3090", "--cloud-region", "eu-west-1", "--cloud-gpu", "a100"], capsys
    )
    assert doc["offers"]
    assert {o["region"] for o in doc["offers"]} == {"eu-west-1"}
    assert all(o["gpu"].startswith("a100") for o in doc["offers"])
    if doc["best"] is not None:
        assert doc["best"]["region"] == "eu-west-1"
    family = quick_json(["--gpu", "rtx3090", "--cloud-gpu", "a100", "--scale-out"], capsys)
    assert {o["gpu"] for o in family["offers"]} >= {"a100_sxm4_40gb", "a100_sxm4_80gb"}
    roomy = quick_json(["--gpu", "rtx3090", "--min-memory", "48"], capsys)
    assert all(o["gpu_memory_gb"] >= 48 for o in roomy["offers"])
    words = quick_json(["--gpu", "rtx3090", "--match", "a100|h100"], capsys)
    assert words["offers"] and all(o["gpu"][:4] in ("a100", "h100") for o in words["offers"])
    # words narrow, | widens: 'runpod 4090' is RunPod's RTX 4090 offers only
    both = quick_json(["--gpu", "rtx3090", "--match", "runpod 4090|lambda a10"], capsys)
    found = {(o["provider"], o["gpu"]) for o in both["offers"]}
    assert ("runpod", "rtx4090") in found
    assert {p for p, _ in found} == {"runpod", "lambda"}
    assert all(g.startswith("a10") for p, g in found if p == "lambda")
    assert all(g == "rtx4090" for p, g in found if p == "runpod")


def test_prices_filters_by_region_and_gpu_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["prices", "--gpu", "a100", "--region", "us-east-1", "--json"], capsys)
    offers = json.loads(out)
    assert code == 0 and offers
    assert {o["region"] for o in offers} == {"us-east-1"}
    assert {o["gpu"] for o in offers} <= {
        "a100_pcie_40gb",
        "a100_sxm4_40gb",
        "a100_pcie_80gb",
        "a100_sxm4_80gb",
    }
    code, out, _ = run(["prices", "--gpu", "A100 80GB", "--json"], capsys)
    assert {o["gpu"] for o in json.loads(out)} == {"a100_sxm4_80gb", "a100_pcie_80gb"}


def test_one_default_precision(capsys: pytest.CaptureFixture[str]) -> None:
    """auto: mixed precision on a desktop GPU with tensor cores, fp32 otherwise."""
    assert quick_json(["--gpu", "rtx3090"], capsys)["inputs"]["workload"]["dtype"] == "fp16"
    assert quick_json(["--gpu", "gtx1080ti"], capsys)["inputs"]["workload"]["dtype"] == "fp32"
    code, out, _ = run(
        ["predict", "--from", "rtx3090", "--to", "rtx4090", "--seconds", "1", "--json"], capsys
    )
    assert code == 0
    assert json.loads(out)["dtype"] == "fp16"
    from costcalc.cli import build_parser

    for command in ("quick", "predict", "bench"):
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command")
        action = next(a for a in sub.choices[command]._actions if a.dest == "dtype")  # type: ignore[index]
        assert "auto" in (action.help or "") and "fp16 mixed precision" in (action.help or "")
