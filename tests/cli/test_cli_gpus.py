"""`costcalc gpus` as a user reads it: the names each card accepts, and a price that says what it
is (new, used or launch) and when it was true."""

from __future__ import annotations

import json
import re

import pytest

from costcalc.cli import main
from costcalc.core.catalog import card_price
from costcalc.store.bundled import load_catalog

PRICE_IS = re.compile(r"^(new|used|new or used) \d{4}-\d\d-\d\d$|^launch (19|20)\d\d$|^-$")


def listing(capsys: pytest.CaptureFixture[str], *words: str) -> list[str]:
    assert main(["gpus", *words, "--wide"]) == 0
    return capsys.readouterr().out.splitlines()


def test_every_price_is_dated_and_labelled(capsys: pytest.CaptureFixture[str]) -> None:
    lines = listing(capsys)
    header = lines[0]
    assert "price is" in header and "also written" in header
    start = header.index("price is")
    end = header.index("also written")
    catalog = {s.key: s for s in load_catalog()}
    for line in lines[1:]:
        key = line.split()[0]
        what = line[start:end].strip()
        assert PRICE_IS.match(what), line
        price = card_price(catalog[key])
        if price is None:
            assert what == "-"
        elif price.observed is None:
            assert what == f"launch {catalog[key].release_year}"
        else:
            assert what.endswith(price.observed.isoformat())
            assert what.startswith(price.condition)


def test_aliases_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    lines = listing(capsys, "--segment", "consumer")
    row = next(line for line in lines if line.startswith("rtx4090 "))
    assert "4090, RTX 4090" in row
    consumer = {s.key for s in load_catalog() if s.segment == "consumer"}
    assert {line.split()[0] for line in lines[1:]} == consumer


def test_json_carries_the_card_price_and_what_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "--json"]) == 0
    doc = {g["key"]: g for g in json.loads(capsys.readouterr().out)}
    assert doc["rtx4090"]["aliases"]
    price = card_price(next(s for s in load_catalog() if s.key == "rtx4090"))
    assert price is not None and price.observed is not None
    assert doc["rtx4090"]["card_price"]["usd"] == price.usd
    assert doc["rtx4090"]["card_price"]["date"] == price.observed.isoformat()
    assert doc["rtx4090"]["card_price"]["kind"] == price.condition
    launch = next(g for g in doc.values() if g["card_price"] and g["card_price"]["date"] is None)
    assert launch["card_price"]["kind"] == "launch"
    assert launch["card_price"]["launch_year"] == launch["release_year"]
