"""What the CLI prints, byte for byte, for fifty-five recorded scenarios: the guard for changes that
must not change an answer (a refactor, a new record library, a faster loader).

Each scenario runs `costcalc.cli.main` in the test's fresh home with the clock pinned and the
width fixed; its stdout, stderr and exit code are compared with tests/golden/outputs/<name>.txt.
A change that alters output on purpose regenerates them and shows the diff in review:

    COSTCALC_GOLDEN_UPDATE=1 python -m pytest -q -p no:xdist tests/golden
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from costcalc.cli import main

OUTPUTS = Path(__file__).parent / "outputs"
NOW = "2026-11-28T12:00:00+00:00"
DETTMERS = (
    "quick --gpu rtx3090 --util 0.15 --desktop-price 2200 --gpu-watts 350 --system-watts 100 "
    "--kwh-price 0.12 --cloud-price 2.14 --provider custom"
)

SCENARIOS: dict[str, str] = {
    # quick: the README's cases and the inputs people vary
    "quick-readme": "quick --gpu rtx3090 --util 0.15",
    "quick-dettmers": DETTMERS,
    "quick-dettmers-json": DETTMERS + " --json",
    "quick-dettmers-explain": DETTMERS + " --explain",
    "quick-brief-sla": "quick --gpu rtx3090 --util 0.15 --exclude community,marketplace --brief",
    "quick-de-eur": "quick --gpu rtx4090 --util 40% --region DE --currency EUR",
    "quick-4x4090": "quick --gpu rtx4090 --gpu-count 4 --util 0.9",
    "quick-4x4090-json": "quick --gpu rtx4090 --gpu-count 4 --util 0.9 --json",
    "quick-memory-40": "quick --gpu rtx3090 --memory-gb 40",
    "quick-a100-80": "quick --gpu 'A100 80GB' --util 0.5",
    "quick-a100": "quick --gpu a100 --util 0.5",
    "quick-h100-wide": "quick --gpu h100 --util 0.8 --wide",
    "quick-run": "quick --gpu rtx3090 --run-hours 10 --items 1000000",
    "quick-run-json": "quick --gpu rtx3090 --run-hours 10 --items 1000000 --json",
    "quick-transformer-b8": "quick --gpu rtx3090 --kind transformer --dtype fp16 --batch 8",
    "quick-cnn-b32-json": "quick --gpu rtx4090 --kind cnn --batch 32 --json",
    "quick-5090": "quick --gpu rtx5090 --util 5%",
    "quick-a6000-fr": "quick --gpu rtx_a6000 --util 0.35 --region FR",
    "quick-6000ada-x2": "quick --gpu rtx6000_ada --gpu-count 2 --util 0.6 --explain",
    "quick-gbp-json": "quick --gpu rtx3090 --util 0.15 --currency GBP --json",
    "quick-3080-nomarket": "quick --gpu rtx3080 --util 0.2 --exclude marketplace --top 5",
    "quick-used-resale": "quick --gpu rtx3090 --used --resale 0.4 --horizon 2 --util 25%",
    "quick-always-on": "quick --gpu rtx4090 --always-on --idle-watts 80 --util 10% --embodied",
    "quick-spot-only": "quick --gpu rtx4090 --offers spot --util 0.3 --all",
    "quick-scale-out": "quick --gpu rtx4090 --gpu-count 2 --scale-out --util 0.5 --cloud-gpu h100",
    "quick-match": "quick --gpu rtx4090 --match 'a100|h100' --util 0.3 --min-memory 40",
    "quick-us-ca": "quick --gpu rtx4090 --region US-CA --util 0.25 --base standard",
    "quick-bad-util": "quick --gpu rtx3090 --util 1.5",
    "quick-unknown-gpu": "quick --gpu rtx9999",
    "quick-negative-kwh": "quick --gpu rtx3090 --kwh-price -1",
    # predict
    "predict-readme": "predict --from rtx3090 --to rtx4090 --kind transformer",
    "predict-batch": "predict --from rtx4090 --to h100 --kind cnn --batch 64",
    "predict-all": "predict --from rtx3090 --to all --seconds 3600 --kind transformer --dtype fp16",
    "predict-json": "predict --from rtx3090 --to a100 --kind cnn --json",
    "predict-v100": "predict --from v100 --to a100 --kind rnn --dtype fp32",
    # desktops
    "desktops-readme-1": (
        "desktops --gpu rtx4090 --gpu rtx6000_ada --count 1,2,4 --kind transformer"
    ),
    "desktops-readme-2": (
        "desktops --gpu 5090 --gpu 3090 --count 1,2 --region DE --kwh-price 0.35 --util 30%"
    ),
    "desktops-readme-3": "desktops --gpu rtx4090 --gpu rtx_a6000 --count 2,4 --memory-gb 40 --json",
    # job
    "job-readme": "job --model llama-3.1-8b --method lora --tokens 2e8 --gpu rtx3090",
    "job-pretrain-json": "job --model llama-3.2-1b --tokens 20B --gpu h100sxm --count 8 --json",
    "job-explain": "job --model vit-b-16 --epochs 90 --dataset-items 1.28M --gpu rtx4090 --explain",
    # gpus, prices, history
    "gpus": "gpus",
    "gpus-json": "gpus --json",
    "prices-h100": "prices --gpu h100",
    "prices-4090-json": "prices --gpu rtx4090 --json",
    "prices-3090-wide": "prices --gpu rtx3090 --wide",
    "history-empty": "history --gpu h100",
    # help texts
    "help": "--help",
    "help-quick": "quick --help",
    "help-predict": "predict --help",
    "help-desktops": "desktops --help",
    "help-prices": "prices --help",
    "help-refresh": "refresh --help",
    "help-job": "job --help",
    "help-monitor": "monitor --help",
}


def run_scenario(words: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    try:
        code = main(words, environ={})
    except SystemExit as exc:  # argparse's --help and usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return f"{out}--- stderr ---\n{err}--- exit {code} ---\n"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_output_is_as_recorded(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex

    monkeypatch.setenv("COSTCALC_NOW", NOW)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("COSTCALC_UTIL", raising=False)
    got = run_scenario(shlex.split(SCENARIOS[name]), capsys)
    path = OUTPUTS / f"{name}.txt"
    if os.environ.get("COSTCALC_GOLDEN_UPDATE"):
        OUTPUTS.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")
