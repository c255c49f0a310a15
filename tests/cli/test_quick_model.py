"""`costcalc quick --model`: the rent-or-buy verdict for a named training job, its hours and
memory from `costcalc job`'s own models and its utilisation from the runs a year (issue 40,
part 4), as a user runs it in-process through `costcalc.cli.main`."""

from __future__ import annotations

import pytest

from tests.cli_run import run, run_json

LORA = ["--model", "llama-3.1-8b", "--method", "lora", "--tokens", "2e8"]
"""The README's fine-tune: it does not fit a 24 GB card at its 8,192 sequence."""
SMALL = ["--model", "gpt2-124m", "--tokens", "1e9"]
"""A job a 24 GB card holds."""


def test_the_runs_hours_and_memory_are_costcalc_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    quick = run_json(["quick", "--gpu", "rtx4090", *SMALL, "--runs-per-year", "12"], capsys)
    job = run_json(["job", *SMALL, "--gpu", "rtx4090"], capsys)
    assert quick["job"]["desktop_hours"] == pytest.approx(job["hours"])
    assert quick["job"]["memory_gb_per_gpu"] == pytest.approx(job["memory_gb_per_gpu"], abs=1e-3)
    assert quick["job"]["fits"] is job["fits"] is True
    assert quick["inputs"]["workload"]["run_hours"] == pytest.approx(job["hours"])


def test_runs_a_year_set_the_utilisation(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(["quick", "--gpu", "rtx4090", *SMALL, "--runs-per-year", "40"], capsys)
    hours = doc["job"]["desktop_hours"]
    assert doc["inputs"]["assumptions"]["utilisation"] == pytest.approx(40 * hours / 8760)
    assert doc["job"]["runs_per_year"] == 40
    assert doc["inputs"]["scenario"]["runs_per_year"] == 40


def test_every_offers_speed_is_the_ratio_of_the_jobs_hours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(["quick", "--gpu", "rtx4090", *SMALL, "--util", "20%", "--all"], capsys)
    job = run_json(["job", *SMALL, "--gpu", "h100sxm"], capsys)
    mine = doc["job"]["desktop_hours"]
    h100 = [o for o in doc["offers"] if o["gpu"] == "h100_sxm5_80gb" and o["gpu_count"] == 1]
    assert h100, "the bundled snapshot has single H100 SXM offers"
    for offer in h100:
        assert offer["relative_speed"] == pytest.approx(mine / job["hours"], rel=1e-6)


def test_offers_that_cannot_hold_the_job_are_out(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(["quick", "--gpu", "rtx4090", *LORA, "--runs-per-year", "12", "--all"], capsys)
    need = doc["job"]["memory_gb_per_gpu"]
    assert doc["job"]["fits"] is False and need > 24
    assert doc["decision"] == "cannot_fit" and doc["verdict"].startswith("Rent: ")
    offers = doc["offers"]
    assert all(o["fits"] is (o["role"] != "less memory") for o in offers)
    assert doc["best"]["fits"] and doc["best"]["gpu_memory_gb"] >= need
    assert not any(o["fits"] for o in offers if o["gpu_memory_gb"] < need)
    assert any(o["gpu_memory_gb"] >= need and o["fits"] for o in offers)


def test_the_text_says_which_job_and_its_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(["quick", "--gpu", "rtx4090", *LORA, "--runs-per-year", "12"], capsys)
    assert code == 0
    head = " ".join(out.split("\n\n")[0].split())
    assert "12 runs a year (3.4% utilisation)" in head
    assert "The job: a run of Llama 3.1 8B (LoRA rank 16 on 200M tokens" in head
    assert "cannot hold this job (67.1 GB per GPU)" in head
    assert max(map(len, out.splitlines())) <= 80


def test_tokens_read_as_people_write_them(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["quick", "--gpu", "rtx4090", "--model", "gpt2-124m", "--util", "20%"]
    written = [run_json([*base, "--tokens", t], capsys)["job"]["tokens"] for t in ("1e9", "1B")]
    assert written == [1e9, 1e9]


def test_precision_and_count_are_spelt_as_costcalc_job_spells_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(
        ["quick", "--gpu", "rtx4090", "--count", "2", "--precision", "fp16", *SMALL], capsys
    )
    assert doc["inputs"]["desktop"]["gpu_count"] == 2
    assert doc["job"]["precision"] == "fp16"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--model", "llama-3-8b", "--tokens", "2e8"], "did you mean llama-3.1-8b"),
        (["--model", "gpt2-124m"], "needs its data: --tokens"),
        (["--model", "gpt2-124m", "--tokens", "lots"], "write it as 2e8, 200M or 2T"),
        (["--model", "llama-3.1-70b", "--tokens", "2T", "--runs-per-year", "12"], "more than"),
    ],
    ids=["unknown-model", "no-tokens", "bad-tokens", "runs-past-the-year"],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["quick", "--gpu", "rtx4090", *argv], capsys)
    assert code != 0 and not out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], err
    assert "Traceback" not in err


def test_without_a_model_the_job_inputs_stay_out_of_the_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(["quick", "--gpu", "rtx4090", "--util", "20%"], capsys)
    assert "job" not in doc
    assert not {"model", "tokens", "runs_per_year"} & set(doc["inputs"]["scenario"])
