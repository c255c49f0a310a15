"""Keys as people press them: one by one and in one burst, Escape and Enter in every field, a
key for every setup field, the first screen at 80 and 140 columns, folding, export, palette."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static

from costcalc.core.scenario import AppData
from costcalc.present import columns as cols
from costcalc.store.settings import Settings
from costcalc.tui.app import CostcalcApp
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.later import FilledLater
from costcalc.tui.widgets.offers import OffersTable
from costcalc.tui.widgets.setup import FIELD_KEYS, SetupPanel
from tests.tui.conftest import MakeApp
from tests.tui.helpers import burst, counting_layouts, wait_until


def main_of(app: CostcalcApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    return screen


async def settle(pilot: object) -> None:
    for _ in range(3):
        await pilot.pause()  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- bursts


BURSTS = [
    # (keys, what the settings then say, the field's text)
    (("u", "ctrl+a", "ctrl+k", "6", "0", "enter"), {"utilisation": 0.60}, ("utilisation", "60%")),
    (("u", "3", "5", "%", "enter"), {"utilisation": 0.35}, ("utilisation", "35%")),
    (("g", *"rtx 4090", "enter"), {"gpu": "rtx4090"}, ("gpu", "GeForce RTX 4090")),
    (("y", "5", "enter", "u", "4", "0", "enter"), {"horizon_years": 5, "utilisation": 0.4}, None),
    (("h", "1", "2", "enter"), {"run_hours": 12}, ("run_hours", "12")),
    (("i", *"1000000", "enter"), {"items_per_run": 1e6}, ("items_per_run", "1,000,000")),
]


@pytest.mark.parametrize(("keys", "wanted", "field"), BURSTS)
@pytest.mark.parametrize("how", ["one by one", "burst"])
async def test_keys_in_a_burst_land_as_keys_typed_slowly(
    app_factory: MakeApp,
    keys: tuple[str, ...],
    wanted: dict[str, object],
    field: tuple[str, str] | None,
    how: str,
) -> None:
    """The failure seen by users: `u` then `C-a C-k 6 0 Enter` in one write left the field
    empty. Cause: Textual's `Widget.focus()` moves focus only after the keys already waiting
    are handled, so they went to the table; the app now moves focus at once
    (`Screen.set_focus`)."""
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        if how == "burst":
            burst(app, *keys)
        else:
            await pilot.press(*keys)
        await settle(pilot)
        screen = main_of(app)
        for name, value in wanted.items():
            assert getattr(screen.settings, name) == value
        if field is not None:
            assert screen.query_one(f"#{field[0]}", Input).value == field[1]
        assert isinstance(screen.focused, OffersTable)  # Enter applies and returns


@pytest.mark.parametrize(
    ("keys", "wanted"),
    [
        (("u", "4", "0", "enter"), {"utilisation": 0.4}),
        (("f", "enter"), {}),  # a filter select: its menu opens, nothing is changed
        (("tab",), {}),
    ],
)
async def test_keys_before_the_fields_are_mounted_wait_for_them(
    app_factory: MakeApp,
    keys: tuple[str, ...],
    wanted: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The setup panel and the filters are filled right after the first frame; keys sent at
    once (a typist faster than the app's start) land in the fields as they would later. The
    fields are held back here until the keys are sent, whatever this machine's speed."""
    gate = asyncio.Event()
    mount_later = FilledLater._mount_later

    async def held_back(part: FilledLater) -> None:
        await gate.wait()
        await mount_later(part)

    monkeypatch.setattr(FilledLater, "_mount_later", held_back)
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = main_of(app)
        await wait_until(app, lambda: screen.calc is not None)
        burst(app, *keys)
        # (Not pilot.pause(): it waits for the screen's queue to empty, which the key holds
        # until the fields are there.)
        await asyncio.sleep(0.2)
        assert not screen.filled
        gate.set()
        await wait_until(app, lambda: screen.filled)
        await settle(pilot)
        for name, value in wanted.items():
            assert getattr(screen.settings, name) == value
        if keys[0] == "u":
            assert screen.query_one("#utilisation", Input).value == "40%"
            assert isinstance(screen.focused, OffersTable)
        elif keys[0] == "f":
            assert screen.query_one("#provider", Select).expanded
        else:
            assert screen.focused is not None and screen.focused is not screen.query_one(
                OffersTable
            )


async def test_a_burst_after_enter_goes_to_the_table(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        burst(app, "u", "6", "0", "enter", "s", "s")
        await settle(pilot)
        table = main_of(app).query_one(OffersTable)
        assert main_of(app).settings.utilisation == 0.60
        assert table.sort_column == "break_even_days"  # best first -> $/year -> break-even


# ---------------------------------------------------------------------- Escape and Enter


@pytest.mark.parametrize("field", sorted(FIELD_KEYS))
async def test_every_field_has_a_key_and_escape_leaves_it(app_factory: MakeApp, field: str) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        before = screen.settings
        await pilot.press(FIELD_KEYS[field])
        await pilot.pause()
        focused = screen.focused
        assert focused is not None and focused.id == field
        shown = focused.value if isinstance(focused, Input) else None  # a default shows, too
        if isinstance(focused, Input):
            await pilot.press("9")  # typed, then abandoned
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(screen.focused, OffersTable)
        assert screen.settings == before  # Escape applied nothing
        if isinstance(focused, Input):
            assert focused.value == shown


async def test_escape_and_enter_in_the_words_filter(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        burst(app, "/", "f", "r", "e", "e", "escape", "t")
        await settle(pilot)
        assert screen.query_one("#text", Input).value == "free"
        assert screen.settings.offer_match == "free"
        assert isinstance(screen.focused, OffersTable)
        await pilot.press("/", "ctrl+a", "ctrl+k", *"a100|h100", "enter", "s")
        await settle(pilot)
        assert screen.settings.offer_match == "a100|h100"
        assert isinstance(screen.focused, OffersTable)
        assert screen.query_one(OffersTable).sort_column == "usd_per_year"  # s reached the table
        assert screen.calc is not None
        assert {r.offer.gpu[:4] for r in screen.calc.comparison.offers} <= {"a100", "h100"}


async def test_escape_and_a_key_in_one_write_arrive_as_alt(app_factory: MakeApp) -> None:
    """Seen in tmux: `/ f r e e Escape t` in one write. A terminal encodes Alt+t as ESC t, so
    Textual reads the pair as 'alt+t' (checked with a key logger); the app binds no Alt key and
    takes it as Escape, then t."""
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        burst(app, "/", "f", "r", "e", "e", "alt+t")
        await settle(pilot)
        assert screen.query_one("#text", Input).value == "free"
        assert isinstance(screen.focused, OffersTable)
        burst(app, "u", "6", "alt+s")  # Escape cancels the 6, s sorts
        await settle(pilot)
        assert screen.settings.utilisation == 0.15
        assert screen.query_one(OffersTable).sort_column == "usd_per_year"


async def test_a_burst_at_80_columns_closes_the_setup_panel_it_opened(
    app_factory: MakeApp,
) -> None:
    """At 80 columns a field's key opens the setup panel and Enter closes it; in a burst the
    field's focus event arrives after Enter and must not open it again."""
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        burst(app, "u", "ctrl+a", "ctrl+k", "6", "0", "enter")
        await settle(pilot)
        assert screen.settings.utilisation == 0.60
        assert isinstance(screen.focused, OffersTable)
        assert not screen.query_one(SetupPanel).display


async def test_a_select_field_takes_its_key_and_escape(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        await pilot.press("K")
        assert isinstance(screen.focused, Select)
        await pilot.press("enter", "down", "enter")  # open, next kind, choose
        await settle(pilot)
        assert screen.settings.kind != "generic"
        await pilot.press("escape")
        assert isinstance(screen.focused, OffersTable)


async def test_ctrl_c_quits(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("u", "ctrl+c")
    assert app.return_code == 0


# ---------------------------------------------------------------------- the first screen


def visible_rows(table: OffersTable) -> int:
    """How many of the table's scrolling rows fit under its header and pinned rows."""
    return table.scrollable_content_region.height - 1 - len(table.view.pinned)


async def test_first_screen_at_140x45_answers(app_factory: MakeApp, data: AppData) -> None:
    """Done when: the verdict row and at least one offer from every provider, with offer, GPU
    name, $/year, break-even, speed and price age visible."""
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        table = screen.query_one(OffersTable)
        calc = screen.calc
        assert calc is not None and calc.comparison.best is not None
        assert table.view.pinned[0].result is calc.comparison.best
        assert table.cursor == 0  # the cursor starts on the verdict
        shown = {c.key for c in table.fitted.columns}
        assert {"name", "gpus", "usd_per_year", "break_even_days"} <= shown
        assert {"relative_speed", "price_age_days", "provider"} <= shown
        on_screen = table.view.rows[: visible_rows(table)]
        providers = {r.result.offer.provider for r in on_screen if r.result is not None}
        providers.add(calc.comparison.best.offer.provider)
        # with the catalogs' providers (issue 41) not every provider fits one screen: the
        # screen is all distinct providers' offers as far as it goes, and every provider's
        # offers are in the table below it
        everyone = {o.provider for o in data.book.offers}
        assert len(providers) >= min(len(everyone), visible_rows(table) - 2)
        in_table = {r.result.offer.provider for r in table.view.rows if r.result is not None}
        assert in_table | {calc.comparison.best.offer.provider} == everyone
        # display names, never cut without an ellipsis, and the markers on screen
        lines = [table.render_line(y).text for y in range(table.size.height)]
        assert lines[1].startswith("★")
        assert not any("aws-spot" in line for line in lines)
        assert any("AWS spot" in line for line in lines)


async def test_first_screen_at_80x24_keeps_the_first_four_columns(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = main_of(app).query_one(OffersTable)
        shown = [c.key for c in table.fitted.columns]
        assert {"name", "gpus", "usd_per_year", "break_even_days"} <= set(shown)
        lines = [table.render_line(y).text for y in range(table.size.height)]
        assert all(len(line) <= table.size.width for line in lines)
        assert visible_rows(table) >= 8
        # the columns that did not fit are one key away, one at a time
        hidden = table.fitted.hidden
        assert hidden > 0
        await pilot.press("right")
        moved = [c.key for c in table.fitted.columns]
        assert "name" in moved and moved != shown
        assert set(moved) - set(shown)
        await pilot.press("left")
        assert [c.key for c in table.fitted.columns] == shown


async def test_the_cursor_returns_to_the_verdict_after_a_change(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        table = main_of(app).query_one(OffersTable)
        await pilot.press("down", "down", "down", "pagedown")
        assert table.cursor > 3
        await pilot.press("u", "4", "0", "enter")
        await settle(pilot)
        assert table.cursor == 0
        assert table.scroll_offset.y == 0
        assert table.cursor_row is not None
        assert table.cursor_row.result is main_of(app).calc.comparison.best  # type: ignore[union-attr]


async def test_enter_opens_a_folded_row_and_a_shows_them_all(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        table = main_of(app).query_one(OffersTable)
        folded = next(i for i, r in enumerate(table.rows) if r.folded and r.kind == "offer")
        head = table.rows[folded]
        table.cursor = folded
        await pilot.press("enter")
        rows = table.rows
        at = next(i for i, r in enumerate(rows) if r.key == head.key)
        members = rows[at + 1 : at + 1 + head.folded]
        assert len(members) == head.folded and all(r.member for r in members)
        assert head.result is not None
        groups = {cols.BY_KEY["gpus"].cell(r.result, table.ctx) for r in members if r.result}
        assert groups == {cols.BY_KEY["gpus"].cell(head.result, table.ctx)}
        await pilot.press("enter")
        assert len(table.rows) == len(rows) - head.folded
        await pilot.press("a")
        offers = [r for r in table.rows if r.kind == "offer"]
        assert len(offers) == table.view.offers
        assert "all" in str(table.border_subtitle)


# ---------------------------------------------------------------------- export and palette


@pytest.mark.parametrize("kind", ["csv", "markdown"])
async def test_export_writes_the_rows_shown(
    app_factory: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    app = app_factory(Settings(gpu="rtx3090", offer_match="runpod"))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        screen.action_export(kind)
        await pilot.pause()
        files = list(tmp_path.glob("costcalc-offers-*"))
        assert len(files) == 1
        text = files[0].read_text(encoding="utf-8")
        table = screen.query_one(OffersTable)
        lines = text.strip().splitlines()
        body = lines[1:] if kind == "csv" else lines[2:]
        assert len(body) == len([r for r in table.rows if r.kind != "section"])
        assert "RunPod" in text and "verdict" in text
        assert ("cost_per_year_usd" if kind == "csv" else "$/year") in lines[0]
        if kind == "markdown":
            assert lines[1].startswith("|---")


async def test_a_served_app_exports_into_its_folder(
    app_factory: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`costcalc serve` gives its apps a folder under COSTCALC_HOME (made on the first export):
    a web page must not write where the server happens to run."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "home" / "data" / "exports"
    app = app_factory(export_dir=folder)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        main_of(app).action_export("csv")
        await pilot.pause()
    assert [p.name[:16] for p in folder.iterdir()] == ["costcalc-offers-"]
    assert not any(tmp_path.glob("costcalc-offers-*"))


NUMBER_HEADERS = ("_usd", "_eur", "_days", "_x", "_kg_per_year", "_kg_per_run", "_per_run")


@pytest.mark.parametrize(
    "settings",
    [
        Settings(gpu="rtx3090"),
        Settings(gpu="rtx3090", run_hours=12, items_per_run=3e6, currency="EUR"),
    ],
    ids=["per-year", "per-run-in-euros"],
)
async def test_the_csv_export_loads_as_numbers(
    app_factory: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """Seen: the CSV held "$5,509", "340 d" and "2.29x", which a spreadsheet cannot sum. Every
    figure is now a plain number under a header with its unit, loadable with csv + float()."""
    import csv

    monkeypatch.chdir(tmp_path)
    app = app_factory(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        screen.action_export("csv")
        await pilot.pause()
        (path,) = tmp_path.glob("costcalc-offers-*.csv")
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        calc = screen.calc
        assert calc is not None and calc.comparison.best is not None
        headers = list(rows[0])
        cur = settings.currency.lower() if settings.currency else "usd"
        wanted = {"speed_x", "break_even_days", f"cost_per_year_{cur}", f"price_per_hour_{cur}"}
        if settings.run_hours:
            wanted = {"speed_x", f"cost_per_run_{cur}", "hours_per_run", f"cost_per_item_{cur}"}
        assert wanted <= set(headers)
        numeric = [h for h in headers if h.endswith(NUMBER_HEADERS) or h in wanted]
        figures = 0
        for row in rows:
            for header in numeric:
                if row[header]:
                    float(row[header])  # a plain number or an empty cell, nothing else
                    figures += 1
        assert figures > len(rows) * 3
        verdict = next(r for r in rows if r["part"] == "verdict")
        best = calc.comparison.best
        assert float(verdict["speed_x"]) == pytest.approx(best.relative_speed)
        if settings.run_hours:
            assert best.run is not None
            money = float(verdict[f"cost_per_run_{cur}"])
            assert money == pytest.approx(calc.money.of(best.run.usd))
            desk = next(r for r in rows if r["part"] == "your desktop")
            assert float(desk["hours_per_run"]) == pytest.approx(12)
        else:
            money = float(verdict[f"cost_per_year_{cur}"])
            assert money == pytest.approx(calc.money.of(best.usd_per_year))
            assert float(verdict["break_even_days"]) == pytest.approx(best.break_even_days)


async def test_the_palette_offers_the_apps_commands(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in (
            "Refresh prices",
            "Benchmark this machine",
            "Set desktop GPU",
            "Set utilisation",
            "Sort by $/year",
            "Export the table as CSV",
            "Add your own price",
        ):
            assert wanted in titles
        command = next(
            c for c in app.get_system_commands(app.screen) if c.title == "Sort by break-even"
        )
        command.callback()
        assert main_of(app).query_one(OffersTable).sort_column == "break_even_days"


async def test_a_long_text_scrolls_in_its_field_while_typed(app_factory: MakeApp) -> None:
    """Setup fields skip Textual's layout pass when the app sets their text (FieldInput); while
    the user types they keep it, which is how a long text scrolls to the cursor."""
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = main_of(app)
        await pilot.press("l", *"United Kingdom of Great Britain xyz")
        await settle(pilot)
        field = screen.query_one("#home_region", Input)
        assert field.value == "United Kingdom of Great Britain xyz"
        assert field.scroll_x > 0  # the end of the text, where the cursor is, is in view
        await pilot.press("ctrl+a", "ctrl+k", "D", "E", "enter")
        await settle(pilot)
        assert screen.settings.home_region == "DE" and field.value == "DE"


@pytest.mark.parametrize(("size", "passes"), [((140, 45), 0), ((80, 24), 1)])
@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        (("u", "ctrl+a", "ctrl+k", "4", "0"), {"utilisation": 0.40}),
        (("u", "ctrl+a", "ctrl+k", "3", "5"), {"utilisation": 0.35}),  # a preset: its label too
        (("g", "ctrl+a", "ctrl+k", *"rtx 4090"), {"gpu": "rtx4090"}),  # verdict lines change
    ],
)
async def test_a_new_answer_is_a_repaint_not_a_layout_pass(
    app_factory: MakeApp,
    typed: tuple[str, ...],
    expected: dict[str, object],
    size: tuple[int, int],
    passes: int,
) -> None:
    """Enter changes texts, not sizes: the setup fields and the preset keep one line, each
    verdict line keeps the rows it has (two at full width). So the answer is one repaint; a
    layout pass of the whole screen (25-60 ms with 5,000 offers, benchmarks/tui_keypress.py)
    would come from a widget asking for one. At 80 columns the setup panel, open while a
    field is edited, closes: one pass, as it lies over the table (beside it, the table would
    change size and Textual would lay out a second time). It starts at 45 %, where the
    lines already take the rows each new answer's take (a flip line that names an electricity
    price wraps at 140 columns)."""
    app = app_factory(Settings(gpu="rtx3090", utilisation=0.45))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = main_of(app)
        verdict = screen.query_one("#verdict-line", Static)
        before = str(verdict.render())
        await pilot.press(*typed)
        await settle(pilot)
        with counting_layouts(screen) as layouts:  # a layout or a scroll reflow
            await pilot.press("enter")
            await settle(pilot)
        assert len(layouts) == passes
        assert {k: getattr(screen.settings, k) for k in expected} == expected
        assert str(verdict.render()) != before
        if expected.get("utilisation") == 0.35:
            assert screen.query_one("#preset", Select).value == 0.35
            assert "35% group cluster" in str(screen.query_one("#preset #label", Static).render())
