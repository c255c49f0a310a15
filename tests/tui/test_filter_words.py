"""The words filter (`/`) matches what the offers table shows, and nothing it hides."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from costcalc.core.scenario import AppData, evaluate, offer_text
from costcalc.present import columns as cols
from costcalc.present.report import table_context
from costcalc.providers.registry import short_labels
from costcalc.store.settings import Settings
from costcalc.tui.screens.main import MainScreen
from costcalc.tui.widgets.offers import OffersTable
from tests.tui.conftest import MakeApp
from tests.tui.helpers import burst, wait_until

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def test_every_word_the_filter_reads_is_on_screen(data: AppData) -> None:
    """Each word of an offer's filter text is in the cells the app shows for it (every column
    it can show); the provider is read by its id, shown by its name ('aws-spot': 'AWS spot')."""
    calc = evaluate(Settings(gpu="rtx3090", run_hours=5), data, NOW)
    shown = cols.shown(cols.APP_COLUMNS, run=True, batch=False)
    ctx = table_context(calc, calc.comparison.offers, short_labels())
    for result in calc.comparison.offers:
        offer = result.offer
        cells = " ".join(cols.cells(result, shown, ctx).values()).casefold()
        words = offer_text(offer, data.catalog).split()
        provider_words = offer.provider.split()
        for word in words[len(provider_words) :]:
            assert word in cells, (word, offer.name, cells)


async def test_free_matches_only_offers_that_show_free(app_factory: MakeApp) -> None:
    """Seen: `/free` kept Paperspace's M4000, whose plan is called 'Free' in the price data
    but shows no 'free' anywhere in its row."""
    app = app_factory(Settings(gpu="rtx3090"))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(app, lambda: screen.calc is not None)
        burst(app, "/", "f", "r", "e", "e", "enter")
        await wait_until(app, lambda: screen.settings.offer_match == "free")
        await pilot.pause()
        table = screen.query_one(OffersTable)
        assert screen.calc is not None
        offers = screen.calc.comparison.offers
        assert offers
        assert not any("M4000" in r.offer.name for r in offers)
        for row in table.rows:
            if row.kind == "offer":
                assert "free" in " ".join(table.cell_text_all(row).values()).casefold()


@pytest.mark.parametrize("words", ["rtx 4090", "a100|h100", "spot"])
def test_words_people_type_still_match(data: AppData, words: str) -> None:
    calc = evaluate(Settings(gpu="rtx3090", offer_match=words), data, NOW)
    assert len(calc.comparison.offers) > 3
