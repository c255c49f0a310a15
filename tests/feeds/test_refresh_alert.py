"""An alert when the answer flips (issue 41, item 5): a refresh re-evaluates the saved scenario
(config.yaml) on the prices before and after it; a recorded RunPod price moved across its flip
price, served by a real HTTP server on 127.0.0.1, fires one line, exit code 4 and, through
apprise, a notification that a second local endpoint receives."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from costcalc.cli import main
from costcalc.edge import locations
from tests.conftest import FEEDS, FeedRoutes, serve_keyless_feeds

RUNPOD = json.loads((FEEDS / "runpod-gputypes.json").read_text())
SCENARIO = """\
gpu: rtx3090
utilisation: 0.15
providers: [runpod]
cloud_gpus: [rtx4090]
"""
"""A desktop RTX 3090 against RunPod's RTX 4090s: Rent, against the Community Cloud offer at
$0.34/h (buying pays back against it alone above about $0.89/h), the Secure Cloud one at
$0.69/h also renting cheaper."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["refresh", "--provider", "runpod", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def feed_with_4090(community: float, secure: float) -> bytes:
    doc = json.loads(json.dumps(RUNPOD))
    for gpu in doc["data"]["gpuTypes"]:
        if gpu["id"] == "NVIDIA GeForce RTX 4090":
            gpu["communityPrice"], gpu["securePrice"] = community, secure
    return json.dumps(doc).encode()


@pytest.fixture
def runpod(feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    serve_keyless_feeds(feed_server, monkeypatch)
    return feed_server


def serve_runpod(routes: FeedRoutes, community: float, secure: float) -> None:
    body = feed_with_4090(community, secure)
    routes.serve("/runpod/graphql", lambda _r: Response(body, content_type="application/json"))


@pytest.fixture
def saved_scenario() -> Path:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SCENARIO)
    return path


class Inbox:
    """A local endpoint apprise's json:// service posts to: what it received."""

    def __init__(self, routes: FeedRoutes) -> None:
        self.received: list[dict[str, Any]] = []
        routes.serve("/notify", self._receive)
        self.url = routes.url("/notify").replace("http://", "json://")

    def _receive(self, request: Request) -> Response:
        self.received.append(json.loads(request.get_data()))
        return Response("ok")


def test_a_price_moved_across_the_flip_threshold_flips_the_answer_and_alerts(
    runpod: FeedRoutes, saved_scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inbox = Inbox(runpod)
    serve_runpod(runpod, 0.34, 0.69)
    code, out, err = run(capsys, "--notify", inbox.url)
    assert (code, err) == (0, "")  # the same prices: no alert
    assert "flipped" not in out and inbox.received == []

    serve_runpod(runpod, 1.20, 1.40)  # both 4090s past ~$0.89/h: buying pays back now
    code, out, err = run(capsys, "--notify", inbox.url)

    assert (code, err) == (4, "")
    alerts = [line for line in out.splitlines() if "the answer flipped" in line]
    assert len(alerts) == 1, out
    line = alerts[0]
    assert "costcalc: the answer flipped: Rent → Buy for 1x RTX 3090 at 15% utilisation" in line
    assert "went from $0.340/h to $1.200/h" in line
    assert out.splitlines()[-1] == line  # the last line, after the refresh's summary
    (sent,) = inbox.received
    assert sent["title"] == "costcalc: Rent → Buy"
    assert sent["message"] == line.split(" ", 1)[1]  # without the log's timestamp

    code, out, _ = run(capsys, "--notify", inbox.url)  # the same again: said once
    assert code == 0 and "flipped" not in out and len(inbox.received) == 1


def test_the_verdict_offer_crossing_its_flip_price_alone_alerts_while_the_answer_holds(
    runpod: FeedRoutes, saved_scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve_runpod(runpod, 0.34, 0.69)
    assert run(capsys)[0] == 0
    serve_runpod(runpod, 1.20, 0.69)  # the Secure Cloud 4090 still rents cheaper

    code, out, err = run(capsys, "--quiet")

    assert (code, err) == (4, "")
    (line,) = out.splitlines()  # --quiet: only the alert
    assert line.endswith("the answer stays Rent: 1 other comparable offer keeps it"), line
    assert "RunPod 1x RTX 4090 (Community Cloud) in global crossed its flip price: " in line
    assert "$0.340/h → $1.200/h (against it alone the answer flips above $0.842/h)" in line


def test_a_buy_that_turns_to_rent_alerts_too(
    runpod: FeedRoutes, saved_scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve_runpod(runpod, 1.20, 1.40)
    assert run(capsys)[0] == 4  # from the bundled prices ($0.34): Rent → Buy
    serve_runpod(runpod, 0.34, 1.40)
    code, out, _ = run(capsys, "--json")
    doc = json.loads(out)
    assert code == doc["exit_code"] == 4
    assert doc["alert"]["kind"] == "flipped"
    assert doc["alert"]["line"].startswith("costcalc: the answer flipped: Buy → Rent")


def test_without_a_saved_scenario_a_refresh_is_as_before(
    runpod: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    serve_runpod(runpod, 1.20, 1.40)
    code, out, err = run(capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].endswith("refresh: 1 refreshed, 0 skipped, 0 failed")


def test_no_alert_skips_the_saved_scenario(
    runpod: FeedRoutes, saved_scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve_runpod(runpod, 1.20, 1.40)
    code, out, _ = run(capsys, "--no-alert")
    assert code == 0 and "flipped" not in out


def test_as_in_app_watches_the_answer_the_app_shows(
    runpod: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    from costcalc.store.settings import app_state_path

    state = app_state_path()
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(SCENARIO)
    serve_runpod(runpod, 1.20, 1.40)
    assert run(capsys)[0] == 0  # config.yaml names no GPU: nothing to watch
    serve_runpod(runpod, 0.34, 0.69)
    code, out, _ = run(capsys, "--as-in-app")
    assert code == 4 and "the answer flipped: Buy → Rent" in out


def test_notify_without_apprise_says_how_to_install_it(
    runpod: FeedRoutes,
    saved_scenario: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # apprise is installed here (the test extra); None in sys.modules makes `import apprise`
    # fail as it does where it is not, which cannot be had otherwise in this environment.
    monkeypatch.setitem(sys.modules, "apprise", None)
    code, out, err = run(capsys, "--notify", "json://127.0.0.1/x")
    assert code == 2 and out == ""
    assert err.strip() == (
        "costcalc: error: --notify needs apprise, which is not installed: "
        "pip install 'costcalc[notify]'"
    )
    assert not locations.snapshots_dir().exists()  # refused before any refresh


def test_a_notify_url_apprise_cannot_use_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "--notify", "nonsense://x")
    assert code == 2 and "apprise cannot send to a 'nonsense' URL" in err


def test_an_endpoint_that_fails_is_one_line_and_the_alert_still_exits_4(
    runpod: FeedRoutes, saved_scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runpod.serve("/notify", lambda _r: Response("down", status=500))
    serve_runpod(runpod, 1.20, 1.40)
    code, out, err = run(capsys, "--notify", runpod.url("/notify").replace("http", "json", 1))
    assert code == 4 and "the answer flipped" in out
    (line,) = err.splitlines()
    assert line.startswith("costcalc: refresh: the alert could not be sent to json://")
