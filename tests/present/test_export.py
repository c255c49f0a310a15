"""The CSV export as a spreadsheet reads it: a number per figure, units in the headers."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timezone

from costcalc.core.scenario import evaluate
from costcalc.present import columns as cols
from costcalc.present.export import CSV_FIELDS, ExportRow, export_text, offer_values
from costcalc.present.report import table_context
from costcalc.store.loaders import load_app_data
from costcalc.store.settings import Settings

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def test_every_column_has_csv_fields() -> None:
    assert set(CSV_FIELDS) == set(cols.BY_KEY)


def test_a_gpu_that_cannot_hold_the_job_has_empty_figures_not_words() -> None:
    data = load_app_data()
    calc = evaluate(Settings(gpu="rtx3090", memory_gb=40, run_hours=5), data, NOW)
    offers = calc.comparison.offers
    unfit = next(r for r in offers if r.fits is False)
    fits = next(r for r in offers if r.fits is not False)
    shown = cols.shown(cols.APP_COLUMNS, run=True, batch=False)
    ctx = table_context(calc, offers, None)
    rows = [
        ExportRow("x", cols.cells(r, shown, ctx), offer_values(r, shown, ctx))
        for r in (unfit, fits)
    ]
    lines = list(csv.DictReader(io.StringIO(export_text(rows, shown, ctx, "csv"))))
    assert lines[0]["cost_per_run_usd"] == ""
    assert lines[0]["price_per_hour_usd"] != ""  # the price is still the price
    assert float(lines[1]["cost_per_run_usd"]) > 0
    assert "does not fit" in export_text(rows, shown, ctx, "markdown")
    for line in lines:
        assert not any("$" in cell or "does not fit" in cell for cell in line.values())
