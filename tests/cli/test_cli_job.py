"""`costcalc job` as a user runs it: the answer first and on one screen, JSON with the chosen
run's figures and every offer's, one-line errors, the inputs people bring (their PUE, grid,
watts, price), and counts up to 1,024 for clusters and 8 for desktops."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli_run import run, run_json

FINE_TUNE = ["job", "--model", "llama-3.1-8b", "--method", "lora", "--tokens", "2e8"]
README = [*FINE_TUNE, "--gpu", "rtx3090"]
PRETRAIN = ["job", "--model", "llama-3.2-1b", "--tokens", "20B", "--gpu", "h100sxm",
            "--count", "8", "--sharding", "fsdp"]  # fmt: skip
SCREEN_LINES = 40


@pytest.mark.parametrize("argv", [README, PRETRAIN], ids=["fine-tune", "pretrain"])
def test_the_answer_comes_first_and_fits_one_screen_of_80_columns(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(argv, capsys)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) <= SCREEN_LINES, len(lines)
    assert max(map(len, lines)) <= 80
    assert lines[0].startswith(("Fits ", "Does not fit ")), lines[0]
    assert "GB per GPU" in lines[0]
    assert any(line.startswith("Cheapest offer that holds it:") for line in lines)
    assert any(line.startswith("Fastest:") for line in lines)


def test_the_readme_fine_tune_says_it_does_not_fit_a_3090_and_what_would(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(README, capsys)
    assert doc["gpu"] == "rtx3090" and doc["where"] == "desktop"
    assert doc["fits"] is False and doc["memory_gb_per_gpu"] > doc["usable_gb_per_gpu"]
    assert doc["would_fit"] and any("--checkpointing" in w for w in doc["would_fit"])
    assert doc["cost_basis"].startswith("electricity")
    assert doc["offers"] and all(o["fits"] for o in doc["offers"])
    costs = [o["cost"] for o in doc["offers"]]
    assert costs == sorted(costs)  # cheapest first
    assert all(d["gpu_count"] <= 8 and d["fits"] for d in doc["desktops"])


def test_json_carries_the_chosen_runs_figures_and_each_offers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(PRETRAIN, capsys)
    wanted = ("memory_gb_per_gpu", "fits", "hours", "gpu_hours", "cost", "energy_kwh", "co2_kg")
    for key in wanted:
        assert doc[key] is not None, key
    assert doc["gpu_count"] == 8 and doc["fits"] is True
    assert doc["gpu_hours"] == pytest.approx(doc["hours"] * 8)
    assert doc["hours_low"] < doc["hours"] < doc["hours_high"]
    for offer in doc["offers"]:
        assert set(wanted) <= set(offer)
        assert offer["gpu_count"] == 8 and offer["provider"]
    assert sum(t["fixed_gb"] + t["per_item_gb"] for t in doc["memory_terms"]) == pytest.approx(
        doc["memory_gb_per_gpu"], abs=0.01
    )


def test_every_figure_of_the_answer_reaches_why_this_number(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json([*PRETRAIN, "--explain"], capsys)
    text = "\n".join(line for part in doc["explain"] for line in part["lines"])
    titles = [part["title"] for part in doc["explain"]]
    assert titles[:5] == [
        "Memory per GPU",
        "Training FLOPs",
        "Share of peak",
        "Hours",
        "Cost, energy and CO2 of a run",
    ]
    assert f"= {doc['memory_gb_per_gpu']:.2f} GB" in text
    assert f"= {doc['hours']:,.1f} h" in text
    assert f"{doc['gpu_hours']:,.0f} GPU-hours" in text
    assert "Rajbhandari" in text and "Korthikanti" in text and "Kaplan" in text


def test_your_pue_grid_watts_and_price_describe_your_own_cluster(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["job", "--model", "llama-2-7b", "--tokens", "1e10", "--sharding", "fsdp",
            "--cloud-gpu", "a100_sxm4_80gb", "--count", "16", "--cloud-price", "1.5",
            "--pue", "1.2", "--grid-g-per-kwh", "57", "--watts-per-gpu", "400"]  # fmt: skip
    doc = run_json(argv, capsys)
    assert doc["where"] == "yours" and doc["gpu_count"] == 16
    assert doc["cost"] == pytest.approx(1.5 * 16 * doc["hours"])
    assert doc["energy_kwh"] == pytest.approx(400 * 16 * doc["hours"] / 1000)
    assert doc["co2_kg"] == pytest.approx(doc["energy_kwh"] * 1.2 * 57 / 1000)
    per_server = run_json([*argv, "--price-per", "instance"], capsys)
    assert per_server["cost"] == pytest.approx(1.5 * 2 * doc["hours"])  # two servers of 8


def test_runs_a_year_give_the_yearly_cost_and_the_utilisation_quick_weighs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json([*README, "--checkpointing", "--seq", "2048", "--runs-per-year", "12"], capsys)
    year = doc["yearly"]
    assert year["usd_per_year"] == pytest.approx(12 * doc["cost"])
    assert year["utilisation"] == pytest.approx(12 * doc["hours"] / 8760)


def test_without_a_gpu_the_cheapest_offer_that_holds_it_answers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(["job", "--model", "qwen2.5-0.5b", "--tokens", "1e9"], capsys)
    assert doc["where"] == "offer" and doc["label"] == doc["offers"][0]["label"]


def test_a_cluster_runs_to_1024_gpus_and_no_further(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["job", "--model", "llama-3.1-70b", "--tokens", "1e11", "--sharding", "fsdp",
            "--gpu", "h100_sxm5_80gb"]  # fmt: skip
    doc = run_json([*base, "--count", "1024"], capsys)
    assert doc["gpu_count"] == 1024 and doc["instances"] == 128
    code, out, err = run([*base, "--count", "1025"], capsys)
    assert code == 2 and not out and len(err.strip().splitlines()) == 1
    assert "--count" in err and "1024" in err


def test_a_desktop_card_stays_within_8_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([*README, "--count", "9"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "at most 8" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["job", "--model", "llama-3.1-9b", "--tokens", "1e9"], "did you mean llama-3.1-8b"),
        (["job", "--model", "llama-3.1-8b", "--tokens", "lots"], "--tokens"),
        (["job", "--model", "llama-3.1-8b"], "give --tokens"),
        (["job", "--tokens", "1e9"], "name the model"),
        (["job", "--model", "dit-xl-2", "--epochs", "1", "--dataset-items", "1e6"], "parameter"),
        (["job", "--model", "llama-3.1-8b", "--tokens", "1e9", "--gpu", "rtx9090"], "unknown GPU"),
        (["job", "--model", "llama-3.1-8b", "--tokens", "1e9", "--pue", "0.5"], "--pue"),
        (
            ["job", "--model", "llama-3.1-8b", "--tokens", "1e9", "--cloud-price", "2"],
            "--cloud-gpu",
        ),
        ([*README, "--cloud-gpu", "h100sxm", "--cloud-price", "2"], "two GPUs"),
        ([*README, "--count", "0"], "--count"),
        ([*README, "--batch", "0"], "--batch"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code, out, err = run(argv, capsys)
    except SystemExit as done:  # argparse's own refusals
        code, (out, err) = int(done.code or 0), capsys.readouterr()
    assert code == 2
    assert not out
    assert len(err.strip().splitlines()) == 1, err
    assert words in err
    assert "Traceback" not in err


def test_list_models_shows_the_bundled_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["job", "--list-models"], capsys)
    assert code == 0
    for key in ("llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "gemma-2-9b", "phi-3-mini", "gpt2-124m",
                "bert-base", "vit-b-16", "resnet-50", "dit-xl-2", "whisper-small"):  # fmt: skip
        assert key in out, key
    assert len(out.splitlines()) >= 26


def test_in_a_pipe_the_answer_is_80_columns_and_its_first_line_the_verdict() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", *README[:1], *README[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Does not fit 1x RTX 3090")
    assert max(map(len, lines)) <= 80 and len(lines) <= SCREEN_LINES


def test_quick_never_reads_the_model_list() -> None:
    script = (
        "import contextlib, io, sys\n"
        "from costcalc.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['quick', '--gpu', 'rtx3090', '--util', '0.15']) == 0\n"
        "print('\\n'.join(sys.modules))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert not {"costcalc.core.job", "costcalc.core.mfu", "costcalc.core.job_cost"} & set(loaded)


def documented_job_examples() -> list[tuple[list[str], str]]:
    """(argv, the first line shown) of every `costcalc job` example in docs/job.md."""
    import shlex
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "job.md").read_text("utf-8")
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("$ costcalc job "):
            found.append((shlex.split(line[2:])[1:], lines[number + 1]))
    return found


def test_the_docs_show_job_examples_as_they_answer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = documented_job_examples()
    assert len(examples) >= 3
    monkeypatch.setenv("COLUMNS", "80")
    for argv, first in examples:
        code, out, err = run(argv, capsys)
        assert code == 0, err
        assert out.splitlines()[0] == first, argv
