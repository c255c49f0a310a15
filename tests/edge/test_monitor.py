"""`costcalc monitor`: this machine's GPUs sampled into the history, and `--util measured`
answering from them.

This machine has no NVIDIA GPU, so the one thing faked is the device: tests/fakes/pynvml.py
stands in for nvidia-ml-py and plays a schedule of readings. The monitor, the SQLite history, the
files and the CLI (in a process of its own where a signal or a missing library matters) are the
real ones. The day-long run also fakes the clock, so that a day of 10-second samples takes a
second; the signal test runs on the real clock.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from costcalc.cli import main
from costcalc.edge import locations
from costcalc.edge.nvml import Gpus
from costcalc.feeds import monitor
from costcalc.store import usage

FAKES = Path(__file__).parents[1] / "fakes"
DAY_END = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)
RTX3090 = "NVIDIA GeForce RTX 3090"
BUSY_THEN_IDLE = {
    # 3 busy readings in 12: a busy share of 25 %; power when busy 280, 290, 310 W: median 290
    "util": [95, 80, 60, 0, 0, 0, 0, 0, 0, 0, 0, 3],
    "power_w": [280, 290, 310, 22, 22, 22, 22, 22, 22, 22, 22, 24],
    "memory_mib": 20480,
    "energy": True,
}


def fake_nvml(monkeypatch: pytest.MonkeyPatch, gpus: list[dict[str, Any]], **kw: Any) -> Any:
    """The fake pynvml, in sys.modules where `import pynvml` finds it, playing `gpus`."""
    spec = importlib.util.spec_from_file_location("pynvml", FAKES / "pynvml.py")
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.configure(gpus, **kw)
    monkeypatch.setitem(sys.modules, "pynvml", module)
    return module


class FakeTime:
    """The monitor's clock and stop: each wait moves the clock on by the time waited."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def clock(self) -> datetime:
        return self.now

    def is_set(self) -> bool:
        return False

    def wait(self, timeout: float | None = None) -> bool:
        self.now += timedelta(seconds=timeout or 0)
        return False


def run_quick(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["quick", *args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if code == 0 else {}


@pytest.fixture
def a_day_sampled(monkeypatch: pytest.MonkeyPatch) -> Iterator[monitor.Outcome]:
    """A day of 10-second samples of one RTX 3090 playing BUSY_THEN_IDLE, ending at DAY_END."""
    fake_nvml(monkeypatch, [{"name": RTX3090, "uuid": "GPU-3090-a", **BUSY_THEN_IDLE}])
    time_ = FakeTime(DAY_END - timedelta(days=1))
    gpus = Gpus()
    try:
        done = monitor.run(
            gpus,
            host="desk",
            interval_s=10,
            clock=time_.clock,
            stop=time_,
            samples=8640,
            flush_s=6 * 3600,  # four batches: a write costs a disk sync, not worth 288 here
        )
    finally:
        gpus.close()
    monkeypatch.setenv("COSTCALC_NOW", DAY_END.isoformat())
    yield done


def test_a_day_of_samples_gives_the_busy_share_and_load_watts_it_was_fed(
    a_day_sampled: monitor.Outcome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (a_day_sampled.samples, a_day_sampled.written) == (8640, 8640)
    use = usage.read_window(30, DAY_END)
    assert use is not None
    assert use.busy_share == pytest.approx(0.25)
    assert use.load_w == 290
    assert use.coverage == pytest.approx(1.0)
    assert use.peak_memory_mib == pytest.approx(20480)
    assert use.kernel_share == pytest.approx((95 + 80 + 60) / 300)
    code, doc = run_quick(["--gpu", "rtx3090", "--util", "measured"], capsys)
    assert code == 0
    assert doc["inputs"]["assumptions"]["utilisation"] == pytest.approx(0.25)
    assert doc["inputs"]["scenario"]["utilisation"] == "measured"
    assert doc["inputs"]["desktop"]["gpu_watts"] == 290  # the measured draw, not the 350 W label
    measured = doc["measured_utilisation"]
    assert (measured["window_days"], measured["load_w_used"]) == (30, True)


def test_the_answer_says_the_utilisation_was_measured(
    a_day_sampled: monitor.Outcome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["quick", "--gpu", "rtx3090", "--util", "measured:7d", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "at 25% utilisation" in out.split("\n")[0]
    text = " ".join(out.split())
    assert "Utilisation measured over the last 7 days: 25% of the GPU-hours" in text
    assert "290 W per GPU when busy (median), the desktop's GPU watts" in text
    assert "Utilisation (measured)" in out
    assert "busy share = busy GPU-hours / GPU-hours of the period = 6.0 h / 24.0 h = 25%" in text


def test_another_card_keeps_its_own_watts_and_given_watts_win(
    a_day_sampled: monitor.Outcome, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 3090's draw says nothing about a 4090; the utilisation (the work) still carries."""
    code, doc = run_quick(["--gpu", "rtx4090", "--util", "measured"], capsys)
    assert code == 0
    assert doc["inputs"]["assumptions"]["utilisation"] == pytest.approx(0.25)
    assert doc["inputs"]["desktop"]["gpu_watts"] == 450
    assert doc["measured_utilisation"]["load_w_used"] is False
    code, doc = run_quick(["--gpu", "rtx3090", "--util", "measured", "--gpu-watts", "333"], capsys)
    assert code == 0
    assert doc["inputs"]["desktop"]["gpu_watts"] == 333


def test_desktops_and_the_environment_read_measured_too(
    a_day_sampled: monitor.Outcome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert main(["desktops", "--gpu", "rtx3090", "--count", "1", "--util", "measured"]) == 0
    out = capsys.readouterr().out
    assert "Utilisation measured over the last 30 days: 25%" in " ".join(out.split())
    assert "at 25% utilisation" in out
    monkeypatch.setenv("COSTCALC_UTIL", "measured")
    code, doc = run_quick(["--gpu", "rtx3090"], capsys)
    assert code == 0
    assert doc["inputs"]["assumptions"]["utilisation"] == pytest.approx(0.25)


def test_quick_without_samples_says_how_to_get_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quick", "--gpu", "rtx3090", "--util", "measured"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "no GPU samples in the last 30 days" in err and "costcalc monitor" in err
    assert not Path(locations.history_db_text()).exists()  # asking creates no database


def test_a_window_with_no_samples_is_the_same_line(
    a_day_sampled: monitor.Outcome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COSTCALC_NOW", (DAY_END + timedelta(days=10)).isoformat())
    assert main(["quick", "--gpu", "rtx3090", "--util", "measured:7d"]) == 2
    assert "no GPU samples in the last 7 days" in capsys.readouterr().err


def test_once_takes_one_sample_that_stands_for_the_cron_period(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_nvml(
        monkeypatch,
        [
            {"name": RTX3090, "uuid": "GPU-a", "util": [99], "power_w": [301]},
            {"name": RTX3090, "uuid": "GPU-b", "util": [0], "power_w": []},  # no power reading
        ],
    )
    before = signal.getsignal(signal.SIGINT)
    assert main(["monitor", "--once", "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    assert signal.getsignal(signal.SIGINT) is before  # the handlers are put back
    with sqlite3.connect(locations.history_db_text()) as conn:
        rows = conn.execute(
            "SELECT gpu, source, span_s, busy_s, util_pct, power_w, energy_mj FROM gpu_samples "
            "ORDER BY gpu"
        ).fetchall()
    assert rows == [
        ("GPU-a", "nvml", 300.0, 300.0, 99.0, 301.0, None),
        ("GPU-b", "nvml", 300.0, 0.0, 0.0, None, None),
    ]


def test_no_library_or_no_device_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_nvml(monkeypatch, [], missing=True)
    assert main(["monitor", "--samples", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no GPU to monitor: NVML cannot start" in err
    fake_nvml(monkeypatch, [])
    assert main(["monitor"]) == 2
    assert "NVML sees no NVIDIA GPU" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "pynvml", None)  # as if nvidia-ml-py were not installed
    assert main(["monitor"]) == 2
    assert "nvidia-ml-py is not installed" in capsys.readouterr().err


@pytest.mark.subprocess
def test_costcalc_monitor_on_this_machine_without_a_gpu_is_one_line_exit_2() -> None:
    """The real command on this machine, nothing faked: no NVML library or no GPU here."""
    try:
        import pynvml

        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        pytest.skip("this machine has an NVIDIA GPU: the fake-device tests cover no GPU")
    except ImportError:
        pass
    except Exception as exc:  # NVMLError: no driver, no library, no device
        assert "NVML" in str(exc) or "Library" in str(exc) or exc
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "monitor"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COSTCALC_HOME": os.environ["COSTCALC_HOME"]},
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("costcalc: error: no GPU to monitor")


@pytest.mark.subprocess
def test_sigterm_stops_it_cleanly_with_the_last_batch_written(tmp_path: Path) -> None:
    """A service manager stops the monitor with SIGTERM: exit 0, and every sample it had read
    (all still in memory: a batch is written every 5 minutes) is in the database."""
    spec = tmp_path / "gpus.json"
    spec.write_text(json.dumps({"gpus": [{"name": RTX3090, "uuid": "GPU-x", **BUSY_THEN_IDLE}]}))
    env = {**os.environ, "PYTHONPATH": str(FAKES), "COSTCALC_FAKE_NVML": str(spec)}
    child = subprocess.Popen(
        [sys.executable, "-m", "costcalc", "monitor", "--interval", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    first = child.stdout.readline()
    assert first.startswith("monitor: sampling 1 GPU(s) (NVIDIA GeForce RTX 3090) every 0.05 s")
    time.sleep(1.0)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=30)
    assert (child.returncode, err) == (0, "")
    assert out.startswith("monitor: stopped: ")
    taken = int(out.split("stopped: ")[1].split(" sample")[0].replace(",", ""))
    assert taken >= 5
    assert f"{taken:,} written" in out
    with sqlite3.connect(locations.history_db_text()) as conn:
        assert conn.execute("SELECT count(*) FROM gpu_samples").fetchone()[0] == taken


def test_a_sample_recorded_twice_is_stored_once() -> None:
    sample = usage.Sample("desk", "GPU-a", RTX3090, "nvml", DAY_END, 10.0, 50.0)
    assert usage.record([sample, sample]) == 1
    assert usage.record([sample]) == 0


def test_old_samples_are_merged_into_hours_and_the_oldest_deleted() -> None:
    """Past RAW_DAYS a GPU's samples become one row an hour with the same busy time, and past
    KEEP_DAYS they are gone; the busy share and the power when busy read the same after."""
    now = DAY_END
    start = now - timedelta(days=usage.RAW_DAYS + 3)
    samples = [
        usage.Sample(
            "desk",
            "GPU-a",
            RTX3090,
            "nvml",
            start + timedelta(seconds=60 * i),
            60.0,
            90.0 if i % 4 == 0 else 1.0,
            power_w=300.0 if i % 4 == 0 else 20.0,
        )
        for i in range(6 * 60)  # 6 hours, a quarter busy
    ]
    ancient = usage.Sample("desk", "GPU-a", RTX3090, "nvml", now - timedelta(days=401), 60, 90)
    assert usage.record([*samples, ancient]) == len(samples) + 1
    before = usage.read_window(60, now)
    removed = usage.thin(now)
    after = usage.read_window(60, now)
    assert before is not None and after is not None
    with sqlite3.connect(locations.history_db_text()) as conn:
        rows = conn.execute("SELECT count(*), sum(merged) FROM gpu_samples").fetchone()
    assert rows == (6, 360)  # six hours of 60 samples each
    assert removed == 360 + 1 - 6
    assert after.busy_share == pytest.approx(before.busy_share) == pytest.approx(0.25)
    assert after.load_w == before.load_w == 300
    assert after.samples == before.samples == 360
    assert usage.thin(now) == 0  # merged once: nothing more to do


def test_samples_arriving_for_an_hour_already_merged_join_it() -> None:
    now = DAY_END
    hour = (now - timedelta(days=usage.RAW_DAYS + 1)).replace(minute=0, second=0, microsecond=0)
    first = [
        usage.Sample("desk", "GPU-a", RTX3090, "nvml", hour + timedelta(minutes=m), 60, 95)
        for m in range(0, 30)
    ]
    late = [
        usage.Sample("desk", "GPU-a", RTX3090, "nvml", hour + timedelta(minutes=m), 60, 0)
        for m in range(30, 60)
    ]
    usage.record(first)
    usage.thin(now)
    usage.record(late)  # an older log imported later
    usage.thin(now)
    with sqlite3.connect(locations.history_db_text()) as conn:
        row = conn.execute("SELECT span_s, busy_s, util_pct, merged FROM gpu_samples").fetchall()
    assert row == [(3600.0, 1800.0, 47.5, 60)]


def test_print_cron_escapes_percent_and_print_service_is_a_user_unit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "100%home"
    monkeypatch.setenv("COSTCALC_HOME", str(home))
    assert main(["monitor", "--print-cron"]) == 0
    cron = capsys.readouterr().out.strip()
    assert cron.startswith("*/5 * * * * ")
    assert "monitor --once --quiet >> " in cron and "monitor.log" in cron
    assert "100\\%home" in cron and "100%home" not in cron.replace("100\\%home", "")
    assert main(["monitor", "--print-service"]) == 0
    unit = capsys.readouterr().out
    assert "[Service]" in unit and "WantedBy=default.target" in unit
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    assert exec_start.endswith(" monitor --interval 10 --quiet")
    assert Path(exec_start.split("=", 1)[1].split(" ")[0]).is_absolute()
    assert "COSTCALC_HOME=" in unit and "100%%home" in unit
    assert "RestartPreventExitStatus=2" in unit


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--interval", "0"], "--interval must be"),
        (["--interval", "soon"], "--interval must be a number"),
        (["--samples", "0"], "--samples must be a whole number of at least 1"),
        (["--duration", "soon"], "--duration must be a number"),
        (["--duration", "0m"], "--duration must be a time"),
    ],
)
def test_bad_options_are_one_line(
    args: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_nvml(monkeypatch, [{"name": RTX3090, "uuid": "GPU-a", "util": [1], "power_w": [1]}])
    assert main(["monitor", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_duration_stops_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_nvml(monkeypatch, [{"name": RTX3090, "uuid": "GPU-a", **BUSY_THEN_IDLE}])
    time_ = FakeTime(DAY_END)
    gpus = Gpus()
    done = monitor.run(
        gpus, host="desk", interval_s=10, clock=time_.clock, stop=time_, duration_s=3600
    )
    gpus.close()
    assert (done.samples, done.stopped) == (360, False)


def test_show_says_what_quick_will_use(
    a_day_sampled: monitor.Outcome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["monitor", "--show", "--window", "30"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "desk: 1 GPU(s) from nvml, 8,640 rows" in out
    assert "busy 25% of the GPU-hours" in out and "290 W per GPU when busy" in out
    assert main(["monitor", "--show", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["measured"]["busy_share"] == pytest.approx(0.25)
    assert main(["monitor", "--forget", "desk"]) == 0
    assert "8,640 samples of 'desk' deleted" in capsys.readouterr().out
    assert main(["monitor", "--show"]) == 0
    assert capsys.readouterr().out.startswith("No GPU samples in ")


@pytest.mark.subprocess
def test_the_monitor_is_not_on_quicks_path() -> None:
    """quick --util 15% imports neither the sampler, NVML nor the log readers."""
    from tests.test_import_hygiene import all_modules_after

    loaded = all_modules_after(
        """
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["quick", "--gpu", "rtx3090", "--util", "15%"]) == 0
        """
    )
    assert not loaded & {
        "pynvml",
        "costcalc.edge.nvml",
        "costcalc.feeds.monitor",
        "costcalc.store.usage",
        "costcalc.store.gpu_logs",
        "sqlite3",
    }
