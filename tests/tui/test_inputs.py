"""Pilot tests: what a user types and presses, and the numbers they then see."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from costcalc.core.compare import Comparison, compare
from costcalc.core.decision import decision
from costcalc.core.models import Workload
from costcalc.core.scenario import AppData, build_assumptions, build_desktop, scale_fn
from costcalc.present import columns
from costcalc.present import display as fmt
from costcalc.providers import registry
from costcalc.store.settings import Settings
from costcalc.tui import rows
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable, offer_key
from costcalc.tui.widgets.setup import SetupPanel
from tests.tui.conftest import FIXED_NOW, MakeApp
from tests.tui.helpers import burst, notified, started, wait_until


def engine_comparison(data: AppData, gpu: str, utilisation: float) -> Comparison:
    """The comparison computed the CLI's way, independently of the app."""
    desktop = build_desktop(data.catalog.resolve(gpu), data.desktop_defaults)
    assumptions = build_assumptions(
        data.grid, utilisation=utilisation, usd_per_kwh=data.default_usd_per_kwh
    )
    workload = Workload(dtype="fp16")
    speed = data.predictor.speed_fn("generic", "fp16")
    scale = scale_fn(data.scaling, "generic")
    offers = data.book.offers
    return compare(
        desktop,
        assumptions,
        workload,
        offers,
        data.catalog,
        data.grid,
        FIXED_NOW,
        speed=speed,
        scale=scale,
    )


def cell(table: OffersTable, offer: str, column: str) -> str:
    """A cell of the row that shows the offer with key `offer` (its own or its group's)."""
    row = table.row_for_offer(offer)
    assert row is not None, f"{offer} is not on a row"
    if column == "mark":
        return table._mark(row).strip("▸▾ ")
    return table.cell_text(row.key, column)


async def test_u_then_60_enter_gives_the_engines_break_even(
    app_factory: MakeApp, data: AppData
) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OffersTable)
        before = engine_comparison(data, "rtx3090", 0.15)
        assert before.best is not None
        key = offer_key(before.best)
        assert cell(table, key, "break_even_days") == fmt.days_short(before.best.break_even_days)

        await pilot.press("u", "6", "0", "enter")
        await pilot.pause()

        expected = engine_comparison(data, "rtx3090", 0.60)
        assert screen.settings.utilisation == 0.60
        assert screen.calc is not None
        got = {offer_key(r): r.break_even_days for r in screen.calc.comparison.offers}
        assert got == {offer_key(r): r.break_even_days for r in expected.offers}
        assert expected.best is not None
        best_key = offer_key(expected.best)
        shown = cell(table, best_key, "break_even_days")
        assert shown == fmt.days_short(expected.best.break_even_days)
        assert shown != fmt.days_short(before.best.break_even_days)
        assert cell(table, best_key, "mark") == "★"
        verdict = str(screen.query_one("#verdict-line").render())
        named = registry.labels()
        assert verdict == fmt.verdict(
            expected,
            screen.calc.assumptions,
            screen.calc.spec,
            labels=named,
            decided=decision(expected, screen.calc.assumptions),
        )
        assert named[expected.best.offer.provider] in verdict  # a name, not a key


async def test_utilisation_accepts_percent_and_share(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        for typed, share in (("35%", 0.35), ("0.05", 0.05), ("60", 0.60)):
            await pilot.press("u", *typed, "enter")
            await pilot.pause()
            assert screen.settings.utilisation == share


async def test_bad_utilisation_is_refused_with_a_notification(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("u", "1", "5", "0", "enter")
        await pilot.pause()
        assert screen.settings.utilisation == 0.15
        assert notified(app, "utilisation")
        assert screen.query_one("#utilisation").has_class("-invalid")


async def test_pick_a_gpu_by_typing(app_factory: MakeApp, data: AppData) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("g", *"rtx 409", "enter")
        await pilot.pause()
        assert screen.settings.gpu == "rtx4090"
        assert screen.calc is not None
        expected = build_desktop(data.catalog.get("rtx4090"), data.desktop_defaults)
        assert screen.calc.desktop.price_usd == expected.price_usd
        assert screen.query_one("#desktop_price_usd").value == f"{expected.price_usd:,.0f}"


async def test_unknown_gpu_is_refused_with_candidates(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("g", *"zz9000", "enter")
        await pilot.pause()
        assert screen.settings.gpu == "rtx3090"
        assert notified(app, "unknown GPU")


async def test_utilisation_preset(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.query_one("#preset").value = 0.05
        await pilot.pause()
        assert screen.settings.utilisation == 0.05


def assert_sorted(table: OffersTable, column: str | None, reverse: bool = False) -> None:
    """Pinned verdict first; then, section by section, the heads in the column's order (best
    first: the cheapest of each provider, one each, before the sections)."""
    calc = table.calc
    assert calc is not None
    pinned = [r for r in table.view.pinned if r.kind == "offer"]
    assert [r.result for r in pinned] == [calc.comparison.best]
    sections: dict[str, list[rows.Row]] = {}
    current = ""
    for row in table.view.rows:
        if row.kind == "section":
            current = row.key
            continue
        sections.setdefault(current, []).append(row)
    names = list(sections)
    if column is None:
        assert names[0] == "section:providers"
        providers = [r.result.offer.provider for r in sections.pop(names[0]) if r.result]
        assert len(providers) == len(set(providers))
        everyone = {r.offer.provider for r in calc.comparison.offers}
        assert set(providers) | {calc.comparison.best.offer.provider} == everyone  # type: ignore[union-attr]
    order = [n.removeprefix("section:") for n in sections]
    assert order == [n for n in rows.SECTION_ORDER if n in order]
    for heads in sections.values():
        keys = [
            rows.rank_key(r.result, False) if column is None else columns.sort_key(r.result, column)
            for r in heads
            if r.result is not None
        ]
        assert keys == sorted(keys, reverse=reverse)


async def test_sort_by_key_and_by_header(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OffersTable)
        assert table.sort_column is None
        assert_sorted(table, None)
        await pilot.press("s")  # the most important figure on screen: $ a year
        assert table.sort_column == "usd_per_year"
        assert_sorted(table, "usd_per_year")
        await pilot.press("s")
        assert table.sort_column == "break_even_days"
        assert_sorted(table, "break_even_days")
        await pilot.press("S")
        assert_sorted(table, "break_even_days", reverse=True)
        # no screen of "does not fit" rows at the top, whatever the order
        first = table.view.rows[1].result
        assert first is not None and first.fits is not False

        await pilot.click(OffersTable, offset=(5, 1))  # the "provider" header, inside the border
        await pilot.pause()
        assert table.sort_column == "provider"
        assert_sorted(table, "provider")


async def test_filter_by_text_region_provider_and_spot(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OffersTable)
        await pilot.press("slash", *"a100")
        await pilot.pause()
        shown = [table.result_for(k) for k in table.shown_keys]
        assert shown and all(r is not None and r.offer.gpu.startswith("a100") for r in shown)

        screen.query_one("#text").value = ""
        screen.query_one("#region").value = "NY2"
        await pilot.pause()
        shown = [table.result_for(k) for k in table.shown_keys]
        assert shown and all(r is not None and r.offer.provider == "paperspace" for r in shown)

        screen.query_one("#region").value = "all"
        screen.query_one("#provider").value = "aws-spot"
        await pilot.pause()
        assert screen.settings.providers == ("aws-spot",)
        assert screen.calc is not None
        assert {r.offer.provider for r in screen.calc.comparison.offers} == {"aws-spot"}

        screen.query_one("#provider").value = "all"
        screen.query_one("#offer_kind").value = "on-demand"
        await pilot.pause()
        assert screen.calc is not None
        assert not any(r.offer.spot for r in screen.calc.comparison.offers)


async def test_does_not_fit_is_marked(app_factory: MakeApp) -> None:
    app = app_factory(Settings(gpu="rtx3090", memory_gb=40, run_hours=10))
    async with app.run_test(size=(140, 45)):
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OffersTable)
        assert screen.calc is not None
        small = next(r for r in screen.calc.comparison.offers if r.fits is False)
        key = offer_key(small)
        table.action_toggle_all()  # it may be folded under a sibling in another region
        assert cell(table, key, "mark") == "✗"
        assert cell(table, key, "run_usd") == fmt.DOES_NOT_FIT


async def test_why_panel_explains_the_selected_offer(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("w")
        await pilot.pause()
        text = str(screen.query_one("#why-text").render())
        assert "450 W x 0.15 x 8,760 h / 1000 = 591.3 kWh" in text
        # the US household average (EIA 2025), the default home region's price
        assert "591.3 kWh x $0.1733/kWh = $102.47" in text


async def test_help_and_break_even_screens_open_and_close(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.press("e")
        assert type(app.screen).__name__ == "BreakEvenScreen"
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("q")
    assert app.return_code == 0


async def test_quitting_right_after_start_is_clean(app_factory: MakeApp) -> None:
    """q before the plots have mounted: the app ends with exit 0 and no error, every time."""
    for _ in range(8):
        app = app_factory()
        async with app.run_test(size=(140, 45)) as pilot:
            await pilot.press("q")
        assert app.return_code == 0  # (an error inside the app would re-raise from run_test)


def _single_gpu_speeds(screen: MainScreen) -> dict[str, float]:
    assert screen.calc is not None
    return {
        r.offer.gpu: r.relative_speed
        for r in screen.calc.comparison.offers
        if r.offer.gpu_count == 1
    }


async def test_batch_field_scales_cnn_speeds_typed_one_by_one(
    app_factory: MakeApp, data: AppData
) -> None:
    """N jumps to the batch per GPU; at 8 a step's fixed cost weighs more, so every cloud GPU
    gains less over the desktop, by the very predictor `predict --batch` uses."""
    app = app_factory(Settings(gpu="rtx3090", kind="cnn", dtype="fp16"))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(app, lambda: screen.calc is not None)
        before = _single_gpu_speeds(screen)
        await pilot.press("N", "8", "enter")
        await wait_until(app, lambda: screen.settings.batch == 8)
        await pilot.pause()
        after = _single_gpu_speeds(screen)
        desktop = data.catalog.get("rtx3090")
        h100 = [gpu for gpu in after if gpu.startswith("h100")]
        assert h100
        for gpu in h100:
            target = data.catalog.get(gpu)
            expected = data.predictor.speedup(desktop, target, "cnn", "fp16", batch=8)
            assert after[gpu] == expected
            assert after[gpu] < 0.8 * before[gpu]


async def test_target_batch_typed_in_a_burst_gives_each_offer_its_own_batch(
    app_factory: MakeApp, data: AppData
) -> None:
    """A jumps to the offers' batch: with the job's memory at its batch, `max` runs each cloud
    GPU at the largest batch it holds, faster than at the desktop's, and the why panel names
    the batch and why (issue 39)."""
    settings = Settings(gpu="rtx3090", kind="transformer", dtype="fp16", batch=8, memory_gb=20)
    app = app_factory(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(app, lambda: screen.calc is not None)
        before = _single_gpu_speeds(screen)
        burst(app, "A", "m", "a", "x", "enter")
        await wait_until(app, lambda: screen.settings.target_batch == "max")
        await pilot.pause()
        after = _single_gpu_speeds(screen)
        desktop = data.catalog.get("rtx3090")
        for gpu in ("a100_pcie_80gb", "h100_sxm5_80gb"):
            if gpu not in after:
                continue
            expected = data.predictor.speedup(
                desktop, data.catalog.get(gpu), "transformer", "fp16", batch=8, target_batch=48
            )
            assert after[gpu] == pytest.approx(expected) and after[gpu] > before[gpu]
        rows = [r for r in screen.calc.comparison.offers if r.offer.gpu_count == 1]
        assert {r.batch for r in rows if r.spec.memory_gb == 80} == {48}


async def test_a_key_for_a_field_below_the_fold_shows_it_at_80x24(app_factory: MakeApp) -> None:
    """At 80 columns a field's key opens the setup panel over the table; the field (here the
    batch, near the panel's end) is scrolled into view, so what is typed is seen. Seen: the
    panel opened at its top and the typing went into a field out of sight."""
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await started(pilot)
        for key, field_id in (("N", "batch"), ("escape", None), ("g", "gpu"), ("escape", None)):
            await pilot.press(key)
            if field_id is None:
                continue
            field = screen.query_one(f"#{field_id}", Input)
            await wait_until(app, lambda f=field: app.focused is f)  # type: ignore[misc]
            await pilot.pause()
            panel = screen.query_one(SetupPanel)
            assert panel.region.contains_region(field.region), field_id
