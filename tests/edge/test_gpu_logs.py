"""`costcalc monitor --import FILE`: logs people already keep give the utilisation they hold.

The fixtures (tests/fixtures/usage/, whose README names each format's source) are in the formats
nvidia-smi, dcgm-exporter, Prometheus and Slurm's sacct write, with values made up to known
totals. Their timestamps are local times (nvidia-smi's, sacct's): the tests read them in UTC.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from costcalc.cli import main
from costcalc.store import gpu_logs

LOGS = Path(__file__).parents[1] / "fixtures" / "usage"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC, so a log's local timestamps read the same on every machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def imported(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["monitor", "--import", *args, "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def quick_util(now: str, util: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    os.environ["COSTCALC_NOW"] = now
    try:
        assert main(["quick", "--gpu", "rtx3090", "--util", util, "--json"]) == 0
    finally:
        del os.environ["COSTCALC_NOW"]
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_an_nvidia_smi_csv_log_gives_its_busy_share(capsys: pytest.CaptureFixture[str]) -> None:
    doc = imported([str(LOGS / "nvidia-smi-2x3090.csv")], capsys)
    assert (doc["format"], doc["samples"], doc["new"]) == ("nvidia-smi", 480, 480)
    measured = doc["measured"]
    assert measured["busy_share"] == pytest.approx(0.375)  # 2 h + 1 h of 2 x 4 h
    assert measured["gpus"] == 2
    assert measured["names"] == ["NVIDIA GeForce RTX 3090"]
    assert measured["load_w"] == 340
    assert measured["peak_memory_mib"] == 21017
    assert measured["start"] == "2026-11-02T09:00:00.113000Z"
    # and quick answers from it: the same share, and the measured watts for this very card
    answer = quick_util("2026-11-02T13:30:00+00:00", "measured:1d", capsys)
    assert answer["inputs"]["assumptions"]["utilisation"] == pytest.approx(0.375)
    assert answer["inputs"]["desktop"]["gpu_watts"] == 340


def test_importing_the_same_log_twice_adds_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    log = str(LOGS / "nvidia-smi-2x3090.csv")
    assert imported([log], capsys)["new"] == 480
    again = imported([log], capsys)
    assert (again["new"], again["measured"]["busy_share"]) == (0, pytest.approx(0.375))


def test_dcgm_exporter_samples_give_their_busy_share(capsys: pytest.CaptureFixture[str]) -> None:
    doc = imported([str(LOGS / "dcgm-exporter-2xa100.prom")], capsys)
    assert (doc["format"], doc["samples"]) == ("dcgm", 60)
    measured = doc["measured"]
    assert measured["busy_share"] == pytest.approx(2 / 3)  # 30 + 10 of 2 x 30 minutes
    assert measured["hosts"] == ["dgx-07"]  # the exporter's Hostname label
    assert measured["names"] == ["NVIDIA A100-SXM4-80GB"]
    assert 385 <= measured["load_w"] <= 415
    assert measured["peak_memory_mib"] == 71234


def test_prometheus_query_range_json_gives_its_busy_share(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = imported([str(LOGS / "prometheus-query-range-l40s.json"), "--format", "dcgm"], capsys)
    measured = doc["measured"]
    assert (doc["format"], doc["samples"]) == ("prometheus-json", 120)
    assert measured["busy_share"] == pytest.approx(0.25)
    assert measured["load_w"] == 331
    assert measured["hosts"] == ["gpu-node-3"]


def test_a_sacct_export_gives_the_clusters_utilisation_and_gpu_hours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [str(LOGS / "sacct-parsable2.txt"), "--gpus", "16"]
    doc = imported([*args, "--since", "2026-10-01", "--until", "2026-10-08"], capsys)
    assert doc["format"] == "sacct"
    assert doc["jobs"] == 6  # steps, the pending job and the CPU-only job left out
    assert doc["gpu_hours"] == pytest.approx(336)
    assert doc["cluster_gpu_hours"] == pytest.approx(16 * 7 * 24)
    assert doc["utilisation"] == pytest.approx(0.125)
    assert doc["gpu_hours_by_user"] == {"ana": 192, "ben": 120, "cara": 12, "dan": 12}
    assert doc["gpu_hours_by_account"] == {"ml-lab": 204, "vision": 132}
    assert doc["measured"]["busy_share"] == pytest.approx(0.125)
    answer = quick_util("2026-10-08T00:00:00+00:00", "measured:7d", capsys)
    assert answer["inputs"]["assumptions"]["utilisation"] == pytest.approx(0.125)
    assert answer["measured_utilisation"]["sources"] == ["sacct"]


def test_a_sacct_export_of_one_account_and_its_text(capsys: pytest.CaptureFixture[str]) -> None:
    log = str(LOGS / "sacct-parsable2.txt")
    args = ["monitor", "--import", log, "--gpus", "16", "--account", "vision"]
    assert main([*args, "--since", "2026-10-01", "--until", "2026-10-08"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Imported 3 jobs with GPUs from sacct-parsable2.txt (Slurm sacct export" in out
    assert "132 GPU-hours of 2,688 on 16 GPUs: utilisation 5%" in out
    assert "(Slurm sacct export, recorded as host cluster)" in out  # no Cluster, no --host
    assert "by user: ben 120 h (4%), dan 12 h (0.45%)" in out


def test_the_nvidia_smi_import_says_what_it_found(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["monitor", "--import", str(LOGS / "nvidia-smi-2x3090.csv")]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    text = " ".join(out.split())
    assert "Imported 480 samples of 2 GPU(s) from nvidia-smi-2x3090.csv (nvidia-smi CSV log" in text
    assert "busy 38% of the GPU-hours from 2026-11-02 09:00 to 2026-11-02 13:00 UTC" in text
    assert "340 W per GPU when busy (median)" in text


def test_the_gpus_in_alloctres() -> None:
    assert gpu_logs.gpus_of("billing=64,cpu=32,gres/gpu:a100=4,gres/gpu=4,mem=256G") == 4
    assert gpu_logs.gpus_of("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1") == 3
    assert gpu_logs.gpus_of("cpu=1,gres/gpu=1,gres/gpumem=4G,gres/gpuutil=100") == 1
    assert gpu_logs.gpus_of("billing=1,cpu=1,mem=2000M,node=1") == 0


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


SMI_HEAD = "timestamp, index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"


@pytest.mark.parametrize(
    ("name", "text", "extra", "message"),
    [
        ("empty.csv", "", [], "not a log costcalc reads"),
        ("notes.txt", "my GPU was busy a lot\n", [], "not a log costcalc reads"),
        (
            "short.csv",
            SMI_HEAD + "2026/11/02 09:00:00.000, 0, GPU-a, RTX, 97 %, 1 MiB\n",
            [],
            "line 2: 6 fields where the header has 7",
        ),
        (
            "badtime.csv",
            SMI_HEAD + "yesterday, 0, GPU-a, RTX, 97 %, 1 MiB, 300 W\n",
            [],
            "line 2: timestamp 'yesterday' is not nvidia-smi's",
        ),
        (
            "badvalue.csv",
            SMI_HEAD + "2026/11/02 09:00:00.000, 0, GPU-a, RTX, 170 %, 1 MiB, 300 W\n",
            [],
            "line 2: '170 %' is out of range",
        ),
        (
            "one.csv",
            SMI_HEAD + "2026/11/02 09:00:00.000, 0, GPU-a, RTX, 97 %, 1 MiB, 300 W\n",
            [],
            "has one sample",
        ),
        (
            "scrape.prom",
            'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 87\n',
            [],
            "a sample without a timestamp",
        ),
        ("range.json", '{"status": "success", "data": {}}', [], "not a Prometheus query_range"),
        (
            "jobs.txt",
            "JobID|User|Start|End|AllocTRES\n1|ana|2026-10-01T00:00:00|2026-10-02T00:00:00|"
            "gres/gpu=1\n",
            [],
            "needs the cluster's GPU count: add --gpus N",
        ),
        (
            "crowded.txt",
            "JobID|User|Start|End|AllocTRES\n1|ana|2026-10-01T00:00:00|2026-10-02T00:00:00|"
            "gres/gpu=8\n",
            ["--gpus", "4"],
            "more than --gpus 4",
        ),
        (
            "elapsed.txt",
            "JobID|Start|Elapsed|AllocTRES\n1|2026-10-01T00:00:00|a while|gres/gpu=1\n",
            ["--gpus", "4"],
            "Elapsed 'a while' is not",
        ),
        ("any.csv", SMI_HEAD, ["--format", "nvidia"], "--format must be one of"),
    ],
)
def test_a_bad_log_is_one_line_and_exit_2(
    name: str,
    text: str,
    extra: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["monitor", "--import", write(tmp_path, name, text), *extra]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err


def test_a_log_past_the_byte_limit_is_refused_by_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gpu_logs, "LOG_MAX_BYTES", 1024)
    log = write(tmp_path, "big.csv", SMI_HEAD + "x" * 2000)
    assert main(["monitor", "--import", log]) == 2
    assert "larger than 1 kB" in capsys.readouterr().err


def test_a_missing_or_binary_log_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["monitor", "--import", str(tmp_path / "nowhere.csv")]) == 2
    assert "no such file" in capsys.readouterr().err
    binary = tmp_path / "log.bin"
    binary.write_bytes(b"\xff\xfe\x00\x01" * 100)
    assert main(["monitor", "--import", str(binary)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


@pytest.mark.subprocess
def test_a_bad_log_from_the_command_line_is_one_line(tmp_path: Path) -> None:
    log = write(tmp_path, "bad.csv", SMI_HEAD + "2026/11/02 09:00:00.000, 0, x\n")
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "monitor", "--import", log],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("costcalc: error: ") and done.stderr.count("\n") == 1
