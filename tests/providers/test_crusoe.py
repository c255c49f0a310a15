"""Crusoe: a curated, dated table of whole VMs that `costcalc refresh` keeps and reports with
its age, and that every command compares like any other provider."""

from __future__ import annotations

import json
import re

import pytest

from costcalc.cli import main
from costcalc.core.models import OfferRow, PriceSnapshot
from costcalc.store.snapshots import load_bundled, refreshed_path
from tests.conftest import FeedRoutes, serve_catalogs
from tests.providers import feedcheck


def table() -> PriceSnapshot:
    found = load_bundled("crusoe")
    assert isinstance(found, PriceSnapshot)
    return found


def own_rows() -> list[OfferRow]:
    """Crusoe's own rows (its page's), before the rows Shadeform's catalog adds."""
    return [r for r in table().offers if "crusoe.ai/cloud/pricing" in str(r.source)]


def test_the_catalog_adds_only_what_the_table_lacks_bought_through_shadeform() -> None:
    added = [r for r in table().offers if r not in own_rows()]
    assert added and all(r.name.endswith(" (via Shadeform)") for r in added)
    assert all(
        "shadeform/vms.csv" in str(r.source) and "2026-09-20" in str(r.source) for r in added
    )
    assert {(r.gpu, r.gpu_count) for r in added}.isdisjoint(
        {(r.gpu, r.gpu_count) for r in own_rows()}
    )


def test_a_row_is_a_whole_vm_of_the_size_its_type_names() -> None:
    for row in own_rows():
        size = re.fullmatch(r"[a-z0-9]+-\d+gb(?:-sxm-ib)?\.(\d+)x", row.name)
        assert size is not None, row.name
        assert row.gpu_count == int(size[1]), row.name
        # HGX boards (SXM, InfiniBand) are rented eight GPUs at a time
        assert ("-sxm-ib." in row.name) == (row.gpu_count == 8), row.name
        per_gpu = re.search(r"\$(\d+\.\d\d)/GPU-hr", str(row.limits))
        if per_gpu:  # the page's per-GPU figure, times the VM's GPUs
            assert row.usd_per_hour == pytest.approx(float(per_gpu[1]) * row.gpu_count)


def test_every_row_names_its_source_and_date() -> None:
    snapshot = table()
    assert snapshot.fetched_at.date().isoformat() == "2026-09-20"
    for row in own_rows():
        assert "crusoe.ai/cloud/pricing" in str(row.source)
        assert row.fetched_at == snapshot.fetched_at


def test_refresh_keeps_the_table_and_reports_its_age(
    capsys: pytest.CaptureFixture[str], feed_server: FeedRoutes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the catalogs listing no Crusoe VM, its curated table stays (tests/providers/
    test_catalog_refresh.py: with Shadeform's rows, the refresh stores them)."""
    serve_catalogs(feed_server, monkeypatch, recorded=False)
    code, report = feedcheck.refresh(capsys, "crusoe")
    result = feedcheck.result(report, "crusoe")
    assert code == 0 and result["skipped"] and result["ok"]
    assert re.search(r"kept the curated prices of 2026-09-20 \([\d,]+ d old\)", result["message"])
    assert not refreshed_path("crusoe").exists()


def test_quick_compares_its_vms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quick", "--gpu", "rtx4090", "--provider", "crusoe", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {o["provider"] for o in doc["offers"]} == {"crusoe"}
    h100 = next(o for o in doc["offers"] if o["name"] == "h100-80gb-sxm-ib.8x")
    assert (h100["gpu_count"], h100["usd_per_hour"]) == (8, pytest.approx(31.2))
