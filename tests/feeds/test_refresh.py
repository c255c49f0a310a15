"""`costcalc refresh` against a real HTTP server on 127.0.0.1 that misbehaves on purpose.

After every fault: the right exit code, one clear stderr line per failing provider, the last
good snapshot byte-for-byte intact and the history unchanged for that provider.
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.edge import locations
from costcalc.feeds.refresh import RefreshLocked, lock_path, run_refresh
from costcalc.store.snapshots import load_snapshot, refreshed_path

AWS = ["--provider", "aws-spot", "--provider", "aws-ondemand"]
SPOT_JSON = (Path(__file__).parents[1] / "fixtures" / "feeds" / "spot.json").read_text()


def refresh(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["refresh", *args])
    out, err = capsys.readouterr()
    return code, out, err


def history_count(provider: str) -> int:
    db = locations.history_db()
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT COUNT(*) FROM observations WHERE provider = ?", (provider,))
        return int(row.fetchone()[0])


def prices_json(capsys: pytest.CaptureFixture[str], provider: str) -> list[dict[str, Any]]:
    assert main(["prices", "--provider", provider, "--json"]) == 0
    doc: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return doc


def test_refresh_updates_prices_and_history(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    before = prices_json(capsys, "aws-spot")
    assert before and all("ESTIMATE" in o["source"] for o in before)  # the bundled estimates

    code, out, err = refresh(capsys, *AWS)

    assert (code, err) == (0, "")
    assert "aws-spot: ok: refreshed, 14 offers" in out
    assert "aws-ondemand: ok: refreshed, 10 offers" in out
    after = {(o["region"], o["name"]): o for o in prices_json(capsys, "aws-spot")}
    assert len(after) == 14
    p4d = after[("us-east-1", "p4d.24xlarge")]
    assert (p4d["usd_per_hour"], p4d["gpu_count"], p4d["interruption_bucket"]) == (11.2, 8, 3)
    assert p4d["stale"] is False and "spot.json" in p4d["source"]
    assert history_count("aws-spot") == 14 and history_count("aws-ondemand") == 10
    assert load_snapshot("aws-spot").origin == str(refreshed_path("aws-spot"))


def test_json_report(aws_feeds: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = refresh(capsys, "--provider", "aws-spot", "--provider", "colab", "--json")
    doc = json.loads(out)
    assert code == doc["exit_code"] == 0
    spot, colab = doc["results"]
    assert (spot["provider"], spot["ok"], spot["offers"], spot["skipped"]) == (
        "aws-spot",
        True,
        14,
        False,
    )
    assert colab["skipped"] and "curated prices of 2026-09-27" in colab["message"]


def test_quiet_prints_nothing_when_all_is_well(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, *AWS, "--quiet") == (0, "", "")


def test_paperspace_without_token_is_skipped_not_faked(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = refresh(capsys, "--provider", "paperspace")
    assert code == 0
    assert "paperspace: skipped: no machine-readable price list" in out
    assert "COSTCALC_DIGITALOCEAN_TOKEN" in out
    assert not refreshed_path("paperspace").exists()
    assert aws_feeds.hits == {}  # nothing was fetched


def test_paperspace_with_token_adds_gpu_droplets_to_the_curated_table(
    aws_feeds: Any,
    tls_feed_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tls_feed_server.serve_file("/v2/sizes", "do-sizes.json")
    monkeypatch.setenv("COSTCALC_DIGITALOCEAN_URL", tls_feed_server.url("/v2/sizes"))
    monkeypatch.setenv("COSTCALC_DIGITALOCEAN_TOKEN", "secret")
    code, out, _ = refresh(capsys, "--provider", "paperspace")
    assert code == 0, out
    offers = {(o["name"], o["region"]): o for o in prices_json(capsys, "paperspace")}
    assert offers[("gpu-h100x8-640gb", "tor1")]["usd_per_hour"] == 26.0
    assert ("A100", "NY2") in offers  # curated rows are kept
    # only the observed droplet prices: H100 x1 in two regions, H100 x8, MI300X x1
    assert history_count("paperspace") == 4


# --------------------------------------------------------------------------- faults


def slow(_request: Request) -> Response:
    time.sleep(1.5)  # past the 0.5 s read timeout
    return Response(SPOT_JSON, content_type="application/json")


def status(code: int) -> Callable[[Request], Response]:
    return lambda _request: Response("oops", status=code)


def body(
    text: str | bytes, content_type: str = "application/json"
) -> Callable[[Request], Response]:
    return lambda _request: Response(text, content_type=content_type)


def absurd() -> str:
    """Every spot price a thousand times too high: a feed that changed units, refused whole
    (one wrong GPU alone is held back: tests/faults/test_faults_prices.py)."""
    doc = json.loads(SPOT_JSON)
    for region in doc["config"]["regions"]:
        for kind in region["instanceTypes"]:
            for size in kind["sizes"]:
                for column in size["valueColumns"]:
                    usd = column["prices"].get("USD")
                    if usd not in (None, "N/A*"):
                        column["prices"]["USD"] = str(float(usd) * 1000)
    return json.dumps(doc)


FAULTS: dict[str, tuple[Callable[[Request], Response], str]] = {
    "slow past timeout": (slow, "no answer within 0.5 s"),
    "500 every time": (status(500), "HTTP 500"),
    "404": (status(404), "HTTP 404"),
    "HTML": (body("<!DOCTYPE html><html><body>Maintenance</body></html>", "text/html"), "got HTML"),
    "truncated JSON": (body(SPOT_JSON[: len(SPOT_JSON) // 2]), "ends early"),
    "wrong shape": (body('{"vers": 0.01, "data": [1, 2]}'), "unexpected shape: config"),
    "huge body": (body(b"{" + b" " * (2 * 2**20) + b"}"), "exceeds 1.0 MB"),
    "every price absurd": (body(absurd()), "held back whole: its prices are a median 1000.00x"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_fault_keeps_last_good_snapshot_and_history(
    fault: str, aws_feeds: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSTCALC_HTTP_MAX_MB", "1")
    assert refresh(capsys, *AWS)[0] == 0
    good = refreshed_path("aws-spot").read_bytes()
    spot_rows = history_count("aws-spot")

    handler, reason = FAULTS[fault]
    aws_feeds.serve("/spot.json", handler)
    code, out, err = refresh(capsys, *AWS)

    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "aws-spot failed" in lines[0] and reason in lines[0], lines[0]
    assert "kept its last good snapshot" in lines[0]
    assert "aws-ondemand: ok" in out  # the other provider still refreshed
    assert refreshed_path("aws-spot").read_bytes() == good
    assert load_snapshot("aws-spot").warning is None
    assert history_count("aws-spot") == spot_rows
    assert history_count("aws-ondemand") == 20


def test_500_then_success_is_retried(aws_feeds: Any, capsys: pytest.CaptureFixture[str]) -> None:
    calls = []

    def flaky(_request: Request) -> Response:
        calls.append(1)
        return Response("busy", status=503) if len(calls) == 1 else Response(SPOT_JSON)

    aws_feeds.serve("/spot.json", flaky)
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert (code, err) == (0, "")
    assert len(calls) == 2


def test_gzip_bodies_are_decoded(aws_feeds: Any, capsys: pytest.CaptureFixture[str]) -> None:
    packed = gzip.compress(SPOT_JSON.encode())
    aws_feeds.serve(
        "/spot.json",
        lambda _r: Response(
            packed, headers={"Content-Encoding": "gzip"}, content_type="application/json"
        ),
    )
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    assert len(prices_json(capsys, "aws-spot")) == 14


def test_gzip_bomb_is_cut_at_the_size_limit(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSTCALC_HTTP_MAX_MB", "1")
    bomb = gzip.compress(b" " * (20 * 2**20))  # 20 KB on the wire, 20 MB decoded
    aws_feeds.serve("/spot.json", lambda _r: Response(bomb, headers={"Content-Encoding": "gzip"}))
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 1 and "exceeds 1.0 MB" in err


def test_advisor_failure_fails_the_spot_refresh(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    aws_feeds.serve("/spot-advisor-data.json", status(404))
    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 1 and "spot-advisor-data.json: HTTP 404" in err
    assert not refreshed_path("aws-spot").exists()


def test_payload_dropping_most_rows_is_refused_unless_forced(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    doc = json.loads(SPOT_JSON)
    doc["config"]["regions"] = doc["config"]["regions"][2:]  # 4 of 14 rows left
    aws_feeds.serve("/spot.json", body(json.dumps(doc)))

    code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 1 and "refused: 4 offers where the last snapshot had 14" in err
    assert len(prices_json(capsys, "aws-spot")) == 14

    assert refresh(capsys, "--provider", "aws-spot", "--force")[0] == 0
    assert len(prices_json(capsys, "aws-spot")) == 4


def test_unknown_provider_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["refresh", "--provider", "aws-spto"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "did you mean aws-spot?" in err[0]


def test_history_lists_both_observations_of_a_price_refreshed_twice(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    argv = ["history", "--json", "--gpu", "A100 40GB", "--region", "us-east-1"]
    assert main([*argv, "--provider", "aws-spot"]) == 0
    series = json.loads(capsys.readouterr().out)
    assert [(s["provider"], s["name"]) for s in series] == [("aws-spot", "p4d.24xlarge")]
    points = series[0]["points"]
    assert [p["usd_per_hour"] for p in points] == [11.2, 11.2]
    assert points[0]["fetched_at"] < points[1]["fetched_at"]


# --------------------------------------------------------------------------- the lock


def test_refresh_while_locked_raises_and_exits_3(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import filelock

    lock_path().parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(lock_path()):
        with pytest.raises(RefreshLocked) as caught:
            run_refresh(["aws-spot"])
        assert caught.value.exit_code == 3
        code, _, err = refresh(capsys, "--provider", "aws-spot")
    assert code == 3 and "another refresh is running" in err
    assert aws_feeds.hits == {}
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0  # released: works again


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "COSTCALC_HOME": str(home)}


def test_two_concurrent_refresh_processes(
    aws_feeds: Any, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second process started while the first holds the lock exits 3; the first finishes."""
    # The first's answer waits until the second has ended, so the first holds the lock for as
    # long as a busy machine takes to start the second (a fixed sleep raced it).
    monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "120")
    second_ended = threading.Event()

    def ok_once_the_second_ended(_request: Request) -> Response:
        second_ended.wait(timeout=120)
        return Response(SPOT_JSON, content_type="application/json")

    aws_feeds.serve("/spot.json", ok_once_the_second_ended)
    command = [sys.executable, "-m", "costcalc", "refresh", "--provider", "aws-spot"]
    first = subprocess.Popen(
        command, env=_env(isolated_home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not aws_feeds.hits.get("/spot.json") and time.monotonic() < deadline:
            time.sleep(0.02)
        second = subprocess.run(command, env=_env(isolated_home), capture_output=True, text=True)
    finally:
        second_ended.set()
    first_out, first_err = first.communicate(timeout=120)

    assert second.returncode == 3, second.stderr
    assert "another refresh is running" in second.stderr
    assert first.returncode == 0, first_err
    assert "aws-spot: ok: refreshed, 14 offers" in first_out
    assert len(load_snapshot("aws-spot").snapshot.offers) == 14


def test_refresh_killed_between_write_and_rename_leaves_previous_snapshot(
    aws_feeds: Any, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    good = refreshed_path("aws-spot").read_bytes()
    doc = json.loads(SPOT_JSON)
    for region in doc["config"]["regions"]:
        for block in region["instanceTypes"]:
            for size in block["sizes"]:
                for column in size["valueColumns"]:
                    if column["prices"]["USD"][0].isdigit() and column["prices"]["USD"] != "0":
                        column["prices"]["USD"] = str(float(column["prices"]["USD"]) * 1.1)
    aws_feeds.serve("/spot.json", body(json.dumps(doc)))

    script = textwrap.dedent(
        """
        import os, signal
        from costcalc.feeds.refresh import run_refresh

        real_replace = os.replace

        def die(src, dst):  # the crash: temp file written and fsynced, rename never happens
            if str(dst).endswith("aws_spot.yaml"):
                os.kill(os.getpid(), signal.SIGKILL)
            return real_replace(src, dst)

        os.replace = die
        run_refresh(["aws-spot"])
        """
    )
    crashed = subprocess.run([sys.executable, "-c", script], env=_env(isolated_home))
    assert crashed.returncode == -9

    snapshots = refreshed_path("aws-spot").parent
    assert list(snapshots.glob(".*.tmp"))  # the half-done write is there...
    assert refreshed_path("aws-spot").read_bytes() == good  # ...but never replaced the snapshot
    assert load_snapshot("aws-spot").warning is None

    assert refresh(capsys, "--provider", "aws-spot")[0] == 0  # the next run recovers
    assert not list(snapshots.glob(".*.tmp"))
    prices = {
        o["name"]: o["usd_per_hour"]
        for o in prices_json(capsys, "aws-spot")
        if o["region"] == "us-east-1"
    }
    assert prices["p4d.24xlarge"] == pytest.approx(11.2 * 1.1)


# --------------------------------------------------------------------------- cron


def test_print_cron_gives_absolute_paths_and_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = refresh(capsys, "--print-cron")
    assert code == 0
    line = out.strip()
    fields = line.split()
    assert len(fields[:5]) == 5 and fields[1] == "*/6"
    assert "PATH=" in line and " refresh --quiet" in line
    assert f">> {locations.log_dir() / 'refresh.log'} 2>&1" in line
    assert str(locations.log_dir()) in line and line.count("\n") == 0
    executable = line.split(" refresh --quiet")[0].split()[-1]
    assert Path(executable).is_absolute()


def test_log_lines_carry_a_timestamp_when_not_on_a_terminal(
    aws_feeds: Any, isolated_home: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "costcalc", "refresh", "--provider", "colab"],
        env=_env(isolated_home),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0
    stamp, rest = done.stdout.strip().split(" ", 1)
    assert stamp.endswith("Z") and stamp[:2] == "20"
    assert rest.startswith("colab: skipped")


# --------------------------------------------------------------------------- progress events


def test_progress_tells_each_provider_as_it_goes(aws_feeds: Any) -> None:
    """Started, then each host asked (once), then how it ended; the result's line names hosts,
    never URLs."""
    from costcalc.feeds.refresh import ProviderAsking, ProviderFinished, ProviderStarted

    aws_feeds.serve("/spot.json", status(500))
    events: list[object] = []
    report = run_refresh(["aws-spot", "hetzner"], progress=events.append)
    host = aws_feeds.base_url.removeprefix("http://")

    started = [e for e in events if isinstance(e, ProviderStarted)]
    assert [(e.provider, e.label, e.index, e.total) for e in started] == [
        ("aws-spot", "AWS EC2 spot", 1, 2),
        ("hetzner", "Hetzner", 2, 2),
    ]
    spot = events[: events.index(started[1])]
    assert [e for e in spot if isinstance(e, ProviderAsking)] == [ProviderAsking("aws-spot", host)]
    finished = [e.result for e in events if isinstance(e, ProviderFinished)]
    assert finished == report.results
    failed, curated = finished
    assert failed.line == f"HTTP 500 INTERNAL SERVER ERROR after 2 retries ({host})"
    assert "spot.json" in failed.message  # the CLI's and --json's message keep the path
    assert curated.skipped and curated.hosts == ()
    assert curated.line.startswith("curated table, ") and "(no public price feed)" in curated.line


@pytest.mark.parametrize(
    ("message", "plain"),
    [
        ("api.runpod.io/graphql: HTTP 500 Server Error", "HTTP 500 Server Error"),
        (
            "https://api.runpod.io/graphql: the API answered an error: x",
            "the API answered an error: x",
        ),
        ("127.0.0.1:8080/spot.json: no answer within 0.5 s", "no answer within 0.5 s"),
        (
            "implausible price: g5 in us-east-1 at $900",
            "implausible price: g5 in us-east-1 at $900",
        ),
        ("other.example/x: HTTP 404 Not Found", "other.example/x: HTTP 404 Not Found"),
        ("no colon here", "no colon here"),
    ],
)
def test_a_reason_loses_the_host_its_line_names_at_the_end(message: str, plain: str) -> None:
    from costcalc.feeds.refresh import without_host

    assert without_host(message, ["api.runpod.io", "127.0.0.1:8080"]) == plain


def as_cron_runs(line: str) -> str:
    """The command cron hands the shell for a crontab line (cronie's do_command.c): the five
    time fields dropped, `\\%` read as `%`, and the command cut at the first other `%`."""
    command = line.split(None, 5)[5]
    out: list[str] = []
    escaped = False
    for char in command:
        if escaped:
            if char == "%":
                out[-1] = "%"
            else:
                out.append(char)
            escaped = False
        elif char == "%":
            break
        else:
            out.append(char)
            escaped = char == "\\"
    return "".join(out)


def test_the_cron_line_keeps_its_percent_signs_and_quotes_its_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """cron cut the command at the first `%` (a home like ~/50%off); every path here is also
    one a shell would split, expand or run."""
    import shlex

    odd = "50% off $(touch pwned) 'it' \\%d"
    home = tmp_path / odd / "home"
    bin_dir = tmp_path / odd / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "costcalc").touch()
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("COSTCALC_HOME", str(home))
    code, out, _ = refresh(capsys, "--print-cron")
    assert code == 0
    words = shlex.split(as_cron_runs(out.strip()))
    log_dir = str(locations.log_dir())
    assert words[:3] == ["mkdir", "-p", log_dir] and words[3] == "&&"
    assert words[4].startswith(f"PATH={bin_dir}:") and words[5] == f"COSTCALC_HOME={home}"
    assert words[6:] == [
        str(bin_dir / "costcalc"),
        "refresh",
        "--quiet",
        ">>",
        f"{log_dir}/refresh.log",
        "2>&1",
    ]
