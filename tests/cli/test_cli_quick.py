"""`costcalc quick`, `gpus` and `prices` through main(argv), as a user runs them."""

from __future__ import annotations

import json

import pytest

from costcalc.cli import main
from tests.cli_run import REFERENCE, run, run_json
from tests.cli_tables import header_of, tables


def test_reference_case_reproduces_dettmers(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(REFERENCE, capsys)
    assert doc["desktop"]["kwh_per_year"] == pytest.approx(591.3, abs=0.05)
    assert doc["desktop"]["electricity_usd_per_year"] == pytest.approx(70.96, abs=0.005)
    custom = [o for o in doc["offers"] if o["provider"] == "custom"]
    assert len(custom) == 1
    assert custom[0]["relative_speed"] == 1.0
    assert custom[0]["usd_per_hour"] == 2.14
    assert custom[0]["break_even_days"] == pytest.approx(292.96, abs=0.05)
    for key in (
        "provider",
        "name",
        "gpu",
        "usd_per_hour",
        "relative_speed",
        "usd_per_year",
        "break_even_days",
        "co2_kg_per_year",
    ):
        assert all(key in offer for offer in doc["offers"])
    assert doc["desktop"]["co2_kg_per_year"] > 0


@pytest.mark.usefixtures("wide_terminal")
def test_reference_case_reads_well(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*REFERENCE, "--provider", "custom"], capsys)
    assert code == 0, err
    assert "591.3 kWh" in out
    assert "$70.96" in out
    assert "~293 days (about 10 months)" in out
    lines = out.strip().splitlines()
    verdict = lines[0]  # the answer comes first
    assert verdict.startswith("Buy:") and "custom $2.14/h (RTX 3090)" in verdict
    answer = lines[: lines.index("")]
    assert answer[-1] == "  That is your own price (--cloud-price)."


def test_cheaper_cloud_than_electricity_never_breaks_even(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json([*REFERENCE[:-1], "0.01", "--provider", "custom"], capsys)
    assert doc["offers"][0]["break_even_days"] is None
    assert doc["verdict"].startswith("Rent:")
    assert "never" in doc["verdict"]


def test_utilisation_accepts_percent(capsys: pytest.CaptureFixture[str]) -> None:
    share = run_json(["quick", "--gpu", "rtx3090", "--util", "0.35"], capsys)
    percent = run_json(["quick", "--gpu", "rtx3090", "--util", "35%"], capsys)
    assert share["desktop"] == percent["desktop"]


def test_higher_utilisation_means_sooner_break_even(capsys: pytest.CaptureFixture[str]) -> None:
    low = run_json([*REFERENCE[:4], "0.10", *REFERENCE[5:], "--provider", "custom"], capsys)
    high = run_json([*REFERENCE[:4], "0.60", *REFERENCE[5:], "--provider", "custom"], capsys)
    assert high["offers"][0]["break_even_days"] < low["offers"][0]["break_even_days"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["quick", "--gpu", "rtx9999"], "unknown GPU 'rtx9999'"),
        (["quick", "--gpu", "rtx3009"], "did you mean rtx3090"),
        (["quick", "--gpu", "rtx3090", "--util", "1.7"], "utilisation"),
        (["quick", "--gpu", "rtx3090", "--util", "0"], "utilisation"),
        (["quick", "--gpu", "rtx3090", "--util", "1.5"], "did you mean 1.5%"),
        (["quick", "--gpu", "rtx3090", "--kwh-price", "0,12"], "decimal point"),
        (["quick", "--gpu", "rtx3090", "--util", "lots"], "utilisation"),
        (["quick", "--gpu", "rtx3090", "--desktop-price", "-5"], "cannot be negative"),
        (["quick", "--gpu", "rtx3090", "--cloud-price", "-1"], "cannot be negative"),
        (["quick", "--gpu", "rtx3090", "--kwh-price", "cheap"], "must be a number"),
        (["quick", "--gpu", "rtx3090", "--kwh-price", "nan"], "finite"),
        (["quick", "--gpu", "rtx3090", "--region", "XX-NOWHERE"], "unknown grid region"),
        (["quick", "--gpu", "rtx3090", "--provider", "aws-spto"], "did you mean aws-spot?"),
        (["quick"], "--gpu"),
        (["quick", "--gpu", "rtx3090", "--resale", "1.5"], "resale"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert "Traceback" not in err


def test_unknown_region_suggests_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["quick", "--gpu", "rtx3090", "--region", "US-CAA"], capsys)
    assert code == 2
    assert "US-CA" in err


def test_region_sets_the_electricity_price_and_the_grid(capsys: pytest.CaptureFixture[str]) -> None:
    clean = run_json(["quick", "--gpu", "rtx3090", "--region", "FR"], capsys)
    dirty = run_json(["quick", "--gpu", "rtx3090", "--region", "PL"], capsys)
    assert dirty["desktop"]["co2_kg_per_year"] > 3 * clean["desktop"]["co2_kg_per_year"]
    # the marginal kWh of the regulated tariff (issue 25), not an all-in average
    assert clean["electricity"]["label"].endswith("France, Tarif Bleu option Base, from 2026-02-01")
    assert (
        clean["desktop"]["electricity_usd_per_year"] != dirty["desktop"]["electricity_usd_per_year"]
    )
    same = ["--kwh-price", "0.30", "--currency", "USD"]  # your own price overrides the region's
    a = run_json(["quick", "--gpu", "rtx3090", "--region", "FR", *same], capsys)
    b = run_json(["quick", "--gpu", "rtx3090", "--region", "PL", *same], capsys)
    assert a["desktop"]["electricity_usd_per_year"] == b["desktop"]["electricity_usd_per_year"]
    assert a["electricity"]["label"] == "$0.3/kWh, your price"


def test_provider_filter(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(["quick", "--gpu", "rtx3090", "--provider", "aws-ondemand"], capsys)
    assert doc["offers"]
    assert {o["provider"] for o in doc["offers"]} == {"aws-ondemand"}


def test_run_hours_costs_every_offer(capsys: pytest.CaptureFixture[str]) -> None:
    everything = run_json(["quick", "--gpu", "rtx3090"], capsys)
    doc = run_json(["quick", "--gpu", "rtx3090", "--run-hours", "10", "--items", "1000"], capsys)
    assert len(doc["offers"]) == len(everything["offers"])
    for offer in doc["offers"]:
        run = offer["run"]
        assert run["hours"] == pytest.approx(
            10 / offer["relative_speed"] * (offer["spot_overhead"] or 1)
        )
        assert run["usd"] >= run["billed_hours"] * offer["usd_per_hour"] - 1e-9
        assert run["usd_per_item"] == pytest.approx(run["usd"] / 1000)
    assert doc["desktop_run"]["hours"] == 10


def test_run_hours_table_shows_run_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["quick", "--gpu", "rtx3090", "--run-hours", "10", "--wide"], capsys)
    assert code == 0
    header = header_of(out)
    assert "$/run" in header and "time/run" in header and "CO2/run" in header
    assert "$/year" not in header
    code, out, _ = run(["quick", "--gpu", "rtx3090", "--run-hours", "10"], capsys)
    header = header_of(out)
    assert "$/run" in header and "CO2/run" not in header  # 80 columns keep what decides
    assert "--wide shows" in out


def test_memory_need_marks_small_gpus_as_not_fitting(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(
        ["quick", "--gpu", "rtx3090", "--memory-gb", "40", "--run-hours", "2", "--all"], capsys
    )
    small = [o for o in doc["offers"] if o["gpu"] == "t4"]
    assert small and all(o["fits"] is False and o["run"] is None for o in small)
    assert all(o["role"] == "less memory" for o in small)
    assert doc["best"]["fits"] is True and doc["best"]["gpu_memory_gb"] >= 40
    _, out, _ = run(["quick", "--gpu", "rtx3090", "--memory-gb", "40", "--run-hours", "2"], capsys)
    assert " T4 " not in out  # the text lists what can do the job ...
    assert "offers with less memory per GPU or fewer GPUs are left out" in out  # ... and says so


def test_free_tier_is_shown_but_never_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(["quick", "--gpu", "rtx3090", "--all"], capsys)
    free = [o for o in doc["offers"] if o["usd_per_hour"] == 0]
    assert free and not any(o["guaranteed"] for o in free)
    assert doc["best"]["guaranteed"] is True
    assert doc["best"]["usd_per_hour"] > 0


def test_gpus_lists_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["gpus", "--json"], capsys)
    assert code == 0
    keys = {g["key"] for g in json.loads(out)}
    assert {"rtx3090", "a100_sxm4_80gb", "quadro_m4000"} <= keys
    code, out, _ = run(["gpus", "--segment", "workstation"], capsys)
    assert "rtx_a6000" in out and "rtx3090" not in out


def test_prices_json_lists_offers_with_provenance(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["prices", "--provider", "paperspace", "--json"], capsys)
    assert code == 0
    offers = json.loads(out)
    assert offers and {o["provider"] for o in offers} == {"paperspace"}
    for o in offers:
        assert {
            "provider",
            "name",
            "region",
            "gpu",
            "gpu_count",
            "usd_per_hour",
            "fetched_at",
        } <= set(o)
        assert o["usd_per_hour"] > 0
    a6000 = [o for o in offers if o["gpu"] == "rtx_a6000" and o["gpu_count"] == 1]
    assert a6000 and a6000[0]["usd_per_hour"] == pytest.approx(1.89)


def test_prices_gpu_filter_and_staleness(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["prices", "--gpu", "A100 80GB", "--json"], capsys)
    assert code == 0
    offers = json.loads(out)
    assert offers and {o["gpu"] for o in offers} == {"a100_sxm4_80gb", "a100_pcie_80gb"}
    code, out, _ = run(["prices", "--provider", "aws-spot", "--sources"], capsys)
    (source,) = [line for line in out.splitlines() if line.startswith("aws-spot: ")]
    assert "95 of 95 rows stale" in source  # bundled spot estimates are older than 30 days
    assert "stale" in out.splitlines()[3]  # and each row says so (--wide not needed at 80)


def test_every_command_has_help_text() -> None:
    from costcalc.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sub.choices
    helps = {action.dest: action.help for action in sub._choices_actions}  # type: ignore[attr-defined]
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        assert helps.get(name), f"{name} has no help line"
        assert command.description, f"{name} has no description"
        for action in command._actions:
            if action.dest != "help" and action.option_strings:
                assert action.help or action.choices, f"{name} {action.option_strings} undocumented"


@pytest.mark.parametrize(
    ("region", "code"),
    [("germany", "DE"), ("US-CA", "US-CA"), ("us-ca", "US-CA"), ("aws:us-east-1", "aws:us-east-1")],
)
def test_region_by_code_or_name(region: str, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(["quick", "--gpu", "rtx3090", "--region", region], capsys)
    assert doc["inputs"]["assumptions"]["home_region"] == code


def test_misspelt_country_name_suggests_its_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["quick", "--gpu", "rtx3090", "--region", "fr4nce"], capsys)
    assert code == 2 and "did you mean FR" in err


def test_a_stale_verdict_price_says_how_to_refresh(capsys: pytest.CaptureFixture[str]) -> None:
    _, stale, _ = run(["quick", "--gpu", "rtx3090", "--provider", "aws-spot"], capsys)
    stale = " ".join(stale.split())  # as read, not as wrapped
    assert "an estimate (derived, never observed)" in stale
    assert "stale (estimates over 30 d): `costcalc refresh` fetches current prices." in stale
    assert "stale: observed spot/marketplace prices over 7 d, estimates over 30 d" in stale
    _, fresh, _ = run([*REFERENCE, "--provider", "custom"], capsys)
    assert "costcalc refresh" not in fresh  # a price given just now is not stale


def test_json_offers_carry_the_cost_efficiency_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(["quick", "--gpu", "rtx3090", "--provider", "paperspace", "--all"], capsys)
    (m4000,) = [o for o in doc["offers"] if o["gpu"] == "quadro_m4000" and o["gpu_count"] == 1]
    assert m4000["usd_per_hour"] == 0.45  # the DOMAIN.md section 2 example, from the snapshot
    ratios = m4000["cost_efficiency"]
    assert ratios["per_gb_per_min_bandwidth"] == pytest.approx(0.14, abs=0.005)
    assert ratios["per_100_cuda_cores"] == pytest.approx(0.027, abs=0.0005)
    assert ratios["per_gb_memory"] == pytest.approx(0.056, abs=0.0005)
    assert ratios["per_fp32_tflops"] == pytest.approx(0.17, abs=0.01)


@pytest.mark.usefixtures("wide_terminal")
def test_the_table_fills_with_guaranteed_offers(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["quick", "--gpu", "rtx3090", "--top", "8"], capsys)
    rows = tables(out)[0]
    assert len(rows) >= 8
    free = [row for row in rows if " * " in row or row.rstrip().endswith("*")]
    assert len(free) <= 1  # the free tier stands for Colab once; the rest can be rented for sure


@pytest.mark.parametrize("stdin", ["devnull", "terminal"])
def test_bare_costcalc_in_a_pipe_prints_help_instead_of_starting_the_app(stdin: str) -> None:
    """`costcalc | cat` from cron (no terminal at all) or typed in a shell (a terminal on
    stdin, a pipe on stdout): help and exit 0, never the app waiting for keys that never come."""
    import os
    import pty
    import subprocess
    import sys

    controller, terminal = pty.openpty() if stdin == "terminal" else (None, None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "costcalc"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL if terminal is None else terminal,
        )
    finally:
        for fd in (controller, terminal):
            if fd is not None:
                os.close(fd)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: costcalc")
    assert "quick" in done.stdout and "Traceback" not in done.stderr
    assert "Examples:" in done.stdout


def test_a_desktop_a100_is_the_pcie_card_and_the_output_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["quick", "--gpu", "a100", "--desktop-price", "9000"], capsys)
    assert code == 0, err
    assert "\nDesktop: 1x A100 PCIe 40GB, $9,000 up front" in out
    lines = err.splitlines()
    # the first note, wrapped to the terminal with a hanging indent (the next one says that a
    # passive data-centre card does not work in a desktop)
    end = next(i for i, line in enumerate(lines[1:], 1) if not line.startswith("  "))
    first, *rest = lines[:end]
    assert all(line.startswith("  ") for line in rest) and len(first) <= 80
    assert lines[end].startswith("costcalc: note: 1x A100 PCIe 40GB: Does not work as a desktop")
    assert " ".join(line.strip() for line in [first, *rest]) == (
        "costcalc: note: 'a100' read as the A100 PCIe 40GB, the desktop card; "
        "say SXM for the A100 SXM4 40GB server module"
    )
    doc = run_json(["quick", "--gpu", "A100 80GB", "--desktop-price", "15000"], capsys)
    assert doc["inputs"]["scenario"]["gpu"] == "a100_pcie_80gb"
    assert doc["desktop"]["load_w"] == 300 + 100  # the PCIe card's 300 W, not the SXM's 400
    assert any("A100 PCIe 80GB" in note for note in doc["notes"])
    sxm = run_json(["quick", "--gpu", "A100 80GB SXM4", "--desktop-price", "15000"], capsys)
    assert sxm["inputs"]["scenario"]["gpu"] == "a100_sxm4_80gb"
    # beside the fit check (a passive card, an SXM module: neither works in a desktop)
    unfit = [n for n in doc["notes"] if "Does not work as a desktop" in n]
    assert [n for n in sxm["notes"] if "Does not work as a desktop" not in n] == [
        n for n in doc["notes"][1:] if n not in unfit
    ]
    h100 = run_json(["quick", "--gpu", "h100", "--desktop-price", "30000"], capsys)
    assert h100["inputs"]["scenario"]["gpu"] == "h100_pcie_80gb"


def test_a_cloud_a100_is_still_every_a100(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["quick", "--gpu", "a100", "--desktop-price", "9000", "--cloud-gpu", "a100"]
    doc = run_json([*argv, "--scale-out"], capsys)
    assert {o["gpu"] for o in doc["offers"]} >= {"a100_sxm4_40gb", "a100_sxm4_80gb"}


def test_a_desktop_without_a_price_answers_all_but_break_even(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28: a card with no dated price (the RTX A4500; the L40S of the issue is a passive
    server card, with no Buy since issue 37). Every figure that does not need one is there;
    break-even is asked for in one line."""
    code, out, err = run(["quick", "--no-config", "--gpu", "rtx_a4500", "--util", "0.40"], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    assert "Desktop: 1x RTX A4500, price not known, 300 W under load" in out
    assert "kWh and $" in out and "CO2e a year" in out  # the desktop's running costs
    asked = [line for line in out.splitlines() if "--desktop-price" in line]
    assert len(asked) == 1 and out.count("No verdict: no desktop price is known") == 1
    tables = out.index("Comparable cloud offers")
    table = out[out.index("break-even", tables) : out.index("--wide shows")].splitlines()[1:]
    rows = [row for row in table if row.strip()]
    assert rows and all(row.endswith("  -") for row in rows)  # unknown: not "never", no days
    assert "beats the cheapest" not in out  # no break-even utilisation either


def test_a_desktop_without_a_price_in_json_says_why_break_even_is_null(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(["quick", "--no-config", "--gpu", "rtx_a4500", "--util", "0.40"], capsys)
    assert doc["desktop"]["price_usd"] is None
    assert doc["break_even_utilisation"] is None
    assert doc["break_even_unknown"].startswith("no desktop price is known for the RTX A4500")
    assert "--desktop-price" in doc["break_even_unknown"]
    assert doc["verdict"].startswith("No verdict: no desktop price is known")
    assert doc["desktop"]["kwh_per_year"] > 0 and doc["desktop"]["co2_kg_per_year"] > 0
    assert doc["offers"] and all(o["break_even_days"] is None for o in doc["offers"])
    paid = [o for o in doc["offers"] if o["guaranteed"]]  # a free tier costs $0
    assert paid and all(o["usd_per_year"] > 0 and o["co2_kg_per_year"] > 0 for o in paid)
    best = doc["best"]
    assert best is not None and best["usd_per_year"] == min(
        o["usd_per_year"]
        for o in doc["offers"]
        if o["role"] == "comparable" and o["guaranteed"] and o not in doc["set_aside_stale"]
    )


def test_a_desktop_without_a_price_still_costs_each_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["quick", "--no-config", "--gpu", "a100", "--run-hours", "5", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["desktop_run"] is None  # its hardware share needs the price
    runs = [o["run"] for o in doc["offers"] if o.get("run") and o["guaranteed"]]
    assert runs and all(r["usd"] > 0 and r["kwh"] > 0 for r in runs)


def test_a_price_given_for_that_desktop_brings_break_even_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["quick", "--no-config", "--gpu", "rtx_a4500", "--desktop-price", "2500"]
    doc = run_json([*argv, "--util", "0.9"], capsys)
    assert doc["break_even_unknown"] is None
    assert doc["verdict"].startswith(("Buy:", "Rent:"))
    assert any(o["break_even_days"] is not None for o in doc["offers"])


def test_main_reads_the_environment_it_is_given_and_changes_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main(argv, environ) takes the environment as a value (issue 21 item 5): a caller such as
    this test gives its own, and the process's environment is left as it was found."""
    import os

    monkeypatch.setenv("COSTCALC_UTIL", "90%")  # the process's: not the one given
    before = dict(os.environ)
    argv = ["quick", "--no-config", "--gpu", "rtx3090", "--json"]
    code = main(argv, environ={"COSTCALC_UTIL": "40%", "COSTCALC_RESALE": "0.3"})
    out, err = capsys.readouterr()
    assert code == 0, err
    assumptions = json.loads(out)["inputs"]["assumptions"]
    assert assumptions["utilisation"] == 0.4 and assumptions["resale_share"] == 0.3
    assert dict(os.environ) == before
    assert json.loads(run(argv, capsys)[1])["inputs"]["assumptions"]["utilisation"] == 0.9


def test_the_executable_is_main_and_exits_with_its_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The console entry point runs main on the process's arguments and leaves the process's
    environment as it found it."""
    import os
    import sys
    from pathlib import Path

    from costcalc.cli import console

    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'costcalc = "costcalc.cli:console"' in pyproject.splitlines()
    before = dict(os.environ)
    monkeypatch.setattr(sys, "argv", ["costcalc", "--version"])
    with pytest.raises(SystemExit) as ended:
        console()
    assert ended.value.code == 0 and dict(os.environ) == before
    assert capsys.readouterr().out.startswith("costcalc ")


def test_a_benchmarked_gpu_without_a_price_answers(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23 item 5: `quick --bench latest` after a bench on an H200 (rented, or one with no
    dated street price) costs the measured work on every offer; an H200 SXM is no desktop, so
    since issue 37 it has no Buy, and says why instead of asking for a price."""
    from costcalc.bench.store import save_result
    from tests.bench_results import gpu_bench

    save_result(gpu_bench("h200_sxm_141gb", power_w=650.0))
    doc = run_json(["quick", "--no-config", "--bench", "latest"], capsys)
    assert doc["inputs"]["desktop"]["gpu"] == "h200_sxm_141gb"
    assert doc["inputs"]["desktop"]["gpu_watts"] == 650.0  # the bench's measured watts
    assert doc["desktop"]["price_usd"] is None
    assert doc["decision"] == "cannot_build"
    assert doc["break_even_unknown"] == doc["decision_reason"]
    assert doc["decision_reason"].startswith("the H200 SXM 141GB needs an HGX server board")
    assert doc["best"] is not None and doc["best"]["usd_per_year"] > 0


def test_quick_names_a_known_lean_of_the_speeds_it_compares(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Every speed quick compares is relative to your GPU: on a GTX 1080 Ti with transformer
    # work (fp32, no tensor cores) they rest on Pascal FP32 transformer predictions, which
    # leaned 17 % too fast held out (predict_calibration.yaml biased_cells); quick says so once.
    # CNN work on the same card leaned no way beyond 10 %, and draws no such line.
    base = ["quick", "--gpu", "gtx1080ti", "--util", "0.15", "--desktop-price", "700"]
    code, _, err = run([*base, "--kind", "transformer"], capsys)
    said = " ".join(err.split())
    assert code == 0 and said.count("Pascal cards 16% too fast") == 1
    assert "speeds relative to the GeForce GTX 1080 Ti" in said
    code, _, err = run([*base, "--kind", "cnn"], capsys)
    assert code == 0 and "too fast" not in err


def test_quick_prices_each_offer_at_the_batch_its_gpu_holds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 39's Done-when: `quick --target-batch max` prices each offer at its own batch (the
    # largest that fits its GPU, from the job's 20 GB at batch 8 on the desktop) and says so in
    # the table's header and in "why this number".
    from costcalc.store.bundled import load_catalog, load_predictor

    catalog, predictor = load_catalog(), load_predictor()
    base = ["quick", "--no-config", "--gpu", "rtx3090", "--kind", "transformer", "--dtype",
            "fp16", "--batch", "8", "--memory-gb", "20", "--cloud-gpu", "a100"]  # fmt: skip
    own = run_json([*base, "--target-batch", "max", "--all"], capsys)
    same = run_json([*base, "--all"], capsys)
    assert own["inputs"]["scenario"]["target_batch"] == "max"
    desktop = catalog.get("rtx3090")
    for offer in own["offers"]:
        if offer["gpu_count"] != 1:
            continue
        target = catalog.get(offer["gpu"])
        # (80 x 0.95 - 0.6 - 10) / 1.25 = 51.5 -> 48; (40 x 0.95 - 0.6 - 10) / 1.25 = 21.9 -> 16
        expected = 48 if target.memory_gb == 80 else 16 if target.memory_gb == 40 else None
        assert offer["batch"] == expected, offer["gpu"]
        at = predictor.speedup(
            desktop, target, "transformer", "fp16", batch=8, target_batch=offer["batch"]
        )
        assert offer["relative_speed"] == pytest.approx(at)
    faster = {o["name"]: o["relative_speed"] for o in own["offers"]}
    assert all(faster[o["name"]] > o["relative_speed"] for o in same["offers"])
    assert all("batch" not in o for o in same["offers"])  # "same": one batch, no column
    argv = [*base, "--target-batch", "max", "--util", "0.9", "--explain"]
    code, out, _ = run([*argv, "--wide"], capsys)
    said = " ".join(out.split())
    assert code == 0
    assert (
        "at batch 8 per GPU on your desktop and, on each offer, the largest batch that fits" in said
    )
    header = next(line for line in out.splitlines() if line.lstrip().startswith("provider"))
    assert " batch " in header  # the table's batch column
    code, narrow, _ = run(argv, capsys)  # 80 columns: the column makes way, and says so
    assert "--wide shows" in narrow and "batch" in narrow.split("--wide shows")[1].splitlines()[0]
    # the verdict's offer is an A100 40GB: 16 sequences where the 3090 runs 8
    assert "batch: the A100" in said and "runs batch 16 per GPU against batch 8" in said
    assert "batch on the A100 SXM4 40GB: the largest multiple of 8 that fits 40 GB" in said


def test_quick_target_batch_needs_the_jobs_memory_for_max(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["quick", "--no-config", "--gpu", "rtx3090", "--kind", "transformer"]
    code, out, err = run([*base, "--target-batch", "max"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "needs the job's memory" in err
    code, out, err = run([*base, "--target-batch", "huge"], capsys)
    assert code == 2 and "target batch must be same, max or a whole number" in err


def test_quick_scales_cnn_speeds_to_the_batch_per_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    # At a small batch a step's fixed cost (launches, the host) weighs more, so a big GPU gains
    # less over the desktop: --batch reaches the very predictor `predict --batch` uses, every
    # offer's speed is the predictor's at that batch, and the table's header says it.
    from costcalc.store.bundled import load_catalog, load_predictor

    catalog, predictor = load_catalog(), load_predictor()
    desktop = catalog.get("rtx3090")
    base = ["quick", "--no-config", "--gpu", "rtx3090", "--kind", "cnn", "--dtype", "fp16"]
    wide = [*base, "--cloud-gpu", "h100", "--all"]
    small = run_json([*wide, "--batch", "8"], capsys)
    default = run_json(wide, capsys)
    assert small["inputs"]["scenario"]["batch"] == 8
    assert default["inputs"]["scenario"]["batch"] is None
    by_gpu = {o["gpu"]: o["relative_speed"] for o in default["offers"] if o["gpu_count"] == 1}
    checked = 0
    for offer in small["offers"]:
        if offer["gpu_count"] != 1:
            continue
        target = catalog.get(offer["gpu"])
        at_8 = predictor.speedup(desktop, target, "cnn", "fp16", batch=8)
        assert offer["relative_speed"] == pytest.approx(at_8)
        assert offer["relative_speed"] < 0.8 * by_gpu[offer["gpu"]]
        checked += 1
    assert checked > 0
    code, out, _ = run([*base, "--batch", "8", "--cloud-gpu", "h100", "--explain"], capsys)
    said = " ".join(out.split())
    assert code == 0 and "speed relative to your desktop at batch 8 per GPU" in said
    assert "cnn work in fp16 at batch 8 per GPU" in said
    # without --batch the table says which batch its speeds assume, and how to set yours
    reference = predictor.kind_calibration("cnn").reference_batch
    code, out, _ = run([*base, "--top", "1"], capsys)
    said = " ".join(out.split())
    assert f"at the speed model's batch of {reference:g} per GPU (--batch N sets yours)" in said
    code, out, _ = run([*base[:-4], "--kind", "transformer", "--top", "1"], capsys)
    transformer = predictor.kind_calibration("transformer").reference_batch
    assert code == 0 and f"at the speed model's batch of {transformer:g} per GPU" in " ".join(
        out.split()
    )


def test_quick_scales_transformer_speeds_to_the_batch_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 39: transformers have a batch term (a fixed cost and per-step memory traffic per
    # step): at batch 2 an H100 gains less over a 3090 than at the reference.
    base = ["quick", "--no-config", "--gpu", "rtx3090", "--kind", "transformer", "--all"]
    with_batch = run_json([*base, "--batch", "2", "--cloud-gpu", "h100"], capsys)
    without = run_json([*base, "--cloud-gpu", "h100"], capsys)
    assert with_batch["inputs"]["scenario"]["batch"] == 2
    assert not any("not used" in note for note in with_batch["notes"])
    small = {o["name"]: o["relative_speed"] for o in with_batch["offers"]}
    assert all(small[o["name"]] < o["relative_speed"] for o in without["offers"])
    code, out, err = run([*base, "--batch", "0"], capsys)
    assert code == 2 and out == ""
    said = err.strip().splitlines()
    assert said == ["costcalc: error: batch per GPU must be at least 1, got '0'"]
