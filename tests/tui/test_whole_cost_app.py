"""The whole cost in the app (issue 42): storage and transfer, a loan and the hybrid plan typed
into the setup panel give the answer `costcalc quick` gives for the same flags, the verdict says
what it compares, 'why this number' shows the plan's table, and app-state.yaml remembers them.
Keys are typed one by one and in one burst, through each field's own key."""

from __future__ import annotations

import json

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static, TabbedContent

from costcalc.cli import main
from costcalc.store.settings import Settings, load_app_state
from costcalc.tui.screens.job_panel import JobPanel
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import burst, record_notifications, started, wait_until

PROFILE = "jan:1400,feb:1400,mar:700,apr:700,may:700,jun:700,jul:700,aug:700"
"""Eight busy months (two of them past one desktop's 730 hours) and four idle ones: owning one
desktop and renting the rest beats both owning none and owning two."""
HOW = pytest.mark.parametrize("at_once", [False, True], ids=["key-by-key", "burst"])


def main_of(pilot: Pilot[object]) -> MainScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def type_keys(pilot: Pilot[object], keys: list[str], *, at_once: bool) -> None:
    """Keys as a user presses them, then the app idle with the table focused again."""
    if at_once:
        burst(pilot.app, *keys)
    else:
        await pilot.press(*keys)
    screen = main_of(pilot)
    await wait_until(pilot.app, lambda: isinstance(screen.focused, OffersTable))
    await pilot.pause()


def field_keys(key: str, text: str) -> list[str]:
    """A field's key (its text is selected: what is typed replaces it), the text, Enter."""
    return [key, *text, "enter"]


def quick(argv: list[str], capsys: pytest.CaptureFixture[str], *, json_out: bool) -> str:
    capsys.readouterr()
    code = main(["quick", "--no-config", *argv, *(["--json"] if json_out else [])])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def text_of(screen: MainScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


@HOW
async def test_the_hybrid_plan_typed_in_the_app_is_quicks(
    app_factory: MakeApp,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    at_once: bool,
) -> None:
    app = app_factory(Settings(gpu="rtx4090"), persist=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = main_of(pilot)
        assert screen.calc is not None and screen.calc.hybrid is None
        # the switch: its key, Enter opens its menu, down to yes, Enter, Escape to the table
        await pilot.press("Y")
        assert isinstance(screen.focused, Select) and screen.focused.id == "hybrid"
        await pilot.press("enter", "down", "enter", "escape")
        await wait_until(app, lambda: screen.settings.hybrid)
        keys = [
            *field_keys("~", PROFILE),
            *field_keys("X", "3"),
            *field_keys("%", "8%"),
            *field_keys("#", "3"),
        ]
        await type_keys(pilot, keys, at_once=at_once)
        s = screen.settings
        assert (s.profile, s.max_owned, s.loan_apr, s.loan_term_years) == (PROFILE, 3, 0.08, 3)
        calc = screen.calc
        assert calc is not None and calc.hybrid is not None
        verdict = " ".join(text_of(screen, "#basis-line").split())
        await pilot.press("w")
        tabs = screen.query_one(TabbedContent)
        await wait_until(app, lambda: tabs.active == "why-pane")
        await pilot.pause()
        why = text_of(screen, "#why-text")
        await app.workers.wait_for_complete()
    state = load_app_state().values
    assert state["hybrid"] is True and state["profile"] == PROFILE and state["max_owned"] == 3
    assert state["loan_apr"] == 0.08 and state["loan_term_years"] == 3

    monkeypatch.setenv("COSTCALC_NOW", FIXED_NOW.isoformat())
    argv = ["--gpu", "rtx4090", "--hybrid", "--profile", PROFILE, "--max-owned", "3"]
    argv += ["--apr", "8%", "--term-years", "3"]
    doc = json.loads(quick(argv, capsys, json_out=True))
    assert calc.hybrid.chosen.owned == doc["hybrid"]["owned"] == 1  # the profile's point
    assert calc.hybrid.chosen.total_usd == pytest.approx(doc["hybrid"]["total_usd"])
    assert [r.owned for r in calc.hybrid.rows] == [r["owned"] for r in doc["hybrid"]["rows"]]

    monkeypatch.setenv("COLUMNS", "200")  # no line of quick's text wrapped
    text = quick(argv, capsys, json_out=False).splitlines()
    plan = text[text.index(next(x for x in text if x.startswith("Hybrid plan:"))) :]
    table = plan[plan.index(next(x for x in plan if x.split()[:1] == ["owned"])) :][:5]
    assert table[2].endswith("<-")  # one owned: the chosen row
    shown = why.splitlines()
    for line in table:  # the table as quick prints it, a row a line (two cells to the left)
        assert line.removeprefix("  ") in shown, line
    assert plan[0] in verdict  # own 1 desktop and rent the rest: $... over 3 years
    basis = next(x for x in text if "The verdict compares" in x)
    assert basis.split("undiscounted")[0].strip() in verdict  # what the verdict weighs


@HOW
async def test_a_dataset_and_runs_a_year_move_the_verdicts_cost_as_quick_says(
    app_factory: MakeApp,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    at_once: bool,
) -> None:
    app = app_factory(Settings(gpu="rtx4090", utilisation=0.3), persist=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = main_of(pilot)
        assert screen.calc is not None and screen.calc.comparison.best is not None
        before_usd = screen.calc.comparison.best.usd_per_year
        await type_keys(pilot, [*field_keys("@", "500"), *field_keys("&", "20")], at_once=at_once)
        # runs a year are the job's: the Job panel's field (J), applied on Enter
        await pilot.press("J")
        await wait_until(app, lambda: isinstance(app.screen, JobPanel))
        app.screen.query_one("#train-runs", Input).focus()
        await pilot.pause()
        runs = ["ctrl+u", "5", "0", "enter"]
        if at_once:
            burst(app, *runs)
        else:
            await pilot.press(*runs)
        await wait_until(app, lambda: screen.settings.runs_per_year == 50)
        await pilot.press("escape")
        await wait_until(app, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()
        calc = screen.calc
        assert calc is not None and calc.comparison.best is not None
        verdict = " ".join(text_of(screen, "#verdict-line").split())
        await app.workers.wait_for_complete()
    state = load_app_state().values
    assert (state["dataset_gb"], state["checkpoint_gb"], state["runs_per_year"]) == (500, 20, 50)

    monkeypatch.setenv("COSTCALC_NOW", FIXED_NOW.isoformat())
    argv = ["--gpu", "rtx4090", "--util", "0.3"]
    plain_doc = json.loads(quick(argv, capsys, json_out=True))
    argv += ["--dataset-gb", "500", "--checkpoint-gb", "20", "--runs-per-year", "50"]
    doc = json.loads(quick(argv, capsys, json_out=True))
    assert before_usd == pytest.approx(plain_doc["best"]["usd_per_year"])
    best = calc.comparison.best
    assert (best.offer.provider, best.offer.name) == (doc["best"]["provider"], doc["best"]["name"])
    assert best.usd_per_year == pytest.approx(doc["best"]["usd_per_year"])
    storage = doc["rent_extras"]["verdict_offer"]["storage_usd_per_year"]
    assert storage > 0  # the dataset kept on the verdict offer's volume costs something
    assert best.usd_per_year != pytest.approx(before_usd)
    assert verdict == " ".join(str(doc["verdict"]).split())


async def test_a_profile_that_does_not_read_stays_marked_and_changes_nothing(
    app_factory: MakeApp,
) -> None:
    app = app_factory(Settings(gpu="rtx4090", hybrid=True))
    posted = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        screen = main_of(pilot)
        before = screen.settings
        await pilot.press(*field_keys("~", "jan:400,foo:3"))
        await wait_until(app, lambda: any("'foo' is not a month" in m for m in posted))
        field = screen.query_one("#profile", Input)
        assert field.has_class("-invalid") and field.value == "jan:400,foo:3"
        assert screen.settings == before
        await pilot.press("escape")
        await wait_until(app, lambda: isinstance(screen.focused, OffersTable))
        assert field.value == "" and not field.has_class("-invalid")
