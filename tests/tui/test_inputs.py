"""Pilot tests: what a user types and presses, and the numbers they then see."""

from __future__ import annotations

from costcalc import columns
from costcalc import display as fmt
from costcalc.compare import Comparison, compare
from costcalc.models import Workload
from costcalc.scenario import AppData, build_assumptions, build_desktop, scale_fn
from costcalc.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable, group_of, offer_key
from tests.tui.conftest import FIXED_NOW, MakeApp


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


def cell(table: OffersTable, row_key: str, column: str) -> str:
    return str(table.get_cell(row_key, column))


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
        assert str(table.get_cell(best_key, "mark")) == "★"
        verdict = str(screen.query_one("#verdict-line").render())
        assert verdict == fmt.verdict(expected, screen.calc.assumptions, screen.calc.spec)


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
        assert any("utilisation" in n.message for n in app._notifications)
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
        assert any("unknown GPU" in n.message for n in app._notifications)


async def test_utilisation_preset(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.query_one("#preset").value = 0.05
        await pilot.pause()
        assert screen.settings.utilisation == 0.05


async def test_sort_by_key_and_by_header(app_factory: MakeApp) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OffersTable)
        assert screen.calc is not None
        results = {offer_key(r): r for r in screen.calc.comparison.offers}

        def order_by(column: str, reverse: bool = False) -> list[str]:
            """Comparable offers first, then scale-out, then the rest; sorted within each."""
            ranked = sorted(
                results.values(), key=lambda r: columns.sort_key(r, column), reverse=reverse
            )
            ranked.sort(key=lambda r: group_of(r, False))
            return [offer_key(r) for r in ranked]

        assert table.shown_keys == order_by("usd_per_year")
        table.focus()
        await pilot.press("s")  # the next column: break-even
        assert table.sort_column == "break_even_days"
        assert table.shown_keys == order_by("break_even_days")
        await pilot.press("S")
        assert table.shown_keys == order_by("break_even_days", reverse=True)

        await pilot.click(OffersTable, offset=(6, 1))  # the "provider" header, inside the border
        await pilot.pause()
        assert table.sort_column == "provider"
        assert table.shown_keys == order_by("provider")


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
        assert str(table.get_cell(key, "mark")) == "✗"
        assert str(table.get_cell(key, "run_usd")) == fmt.DOES_NOT_FIT


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
        assert app.return_code == 0
        assert app._exception is None
