"""Card prices as a buyer meets them (issue 25 item 3, issue 28 item 2): new where the card is
sold new, used where it is not (and the output says why), a dated price for the data-centre
PCIe cards people put in desktops, and an answer without one."""

from __future__ import annotations

from typing import Any

import pytest

from costcalc.core.catalog import card_price
from costcalc.store.bundled import load_catalog
from tests.cli_run import run


def quick_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    import json

    code, out, _ = run(["quick", *argv, "--json"], capsys)
    assert code == 0
    return json.loads(out)


def test_a_card_sold_new_is_priced_new_and_used_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from costcalc.core.models import median_reading

    readings = load_catalog().get("rtx5090").price_readings
    new = quick_json(["--gpu", "rtx5090"], capsys)["desktop_price"]
    used = quick_json(["--gpu", "rtx5090", "--used"], capsys)["desktop_price"]
    assert new["condition"] == "new" and used["condition"] == "used"
    medians = [median_reading(readings, c)[0] for c in ("new", "used")]  # type: ignore[index]
    assert [new["card_usd"], used["card_usd"]] == pytest.approx(medians, abs=0.5)  # stated to $0.50
    code, out, _ = run(["quick", "--gpu", "rtx5090", "--used"], capsys)
    assert code == 0
    assert "median of 3 used card prices to 2026-09-30;" in " ".join(out.split())


def test_a_discontinued_card_says_why_its_price_is_used(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["quick", "--gpu", "rtx4090", "--util", "60%"], capsys)
    assert code == 0
    said = " ".join(out.split())
    assert "median of 4 used card prices to 2026-06-29: discontinued, bought used" in said


@pytest.mark.parametrize("key", ["a100_pcie_80gb", "h100_pcie_80gb", "rtx_pro6000", "a10"])
def test_cards_people_buy_have_a_dated_price(key: str) -> None:
    price = card_price(load_catalog().get(key))
    assert price is not None and price.observed is not None and price.observed.year == 2026
    assert price.source


def test_the_readme_example_answers_with_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28: `costcalc quick --gpu "A100 80GB" --util 0.40` exited 2 for want of a price."""
    doc = quick_json(["--gpu", "A100 80GB", "--util", "0.40"], capsys)
    assert doc["desktop"]["price_usd"] is not None
    assert doc["verdict"].startswith(("Rent", "Buy"))


def test_a_card_without_a_price_answers_and_asks_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = load_catalog().get("rtx_a4500")
    assert card_price(spec) is None  # no dated street price, no launch price on file
    code, out, err = run(["quick", "--gpu", "rtx_a4500", "--util", "40%"], capsys)
    assert code == 0
    text = out + err
    asks = [line for line in text.splitlines() if "--desktop-price" in line]
    assert len(asks) == 1, asks
    assert "kWh" in out  # electricity, carbon and the offers still come
