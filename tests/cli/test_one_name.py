"""One name, one GPU, in every command (issue 37): 'a100' was the SXM module in `predict` and
`gpus` and the PCIe card in `quick`. A name that does not say the form factor is the PCIe card
(the one a desktop takes) wherever one card is meant; a filter over offers (`--cloud-gpu`,
`prices --gpu`, `history --gpu`) takes every variant of the family."""

from __future__ import annotations

import json
from typing import Any

import pytest

from costcalc.cli import main

CARDS = {
    "a100": "a100_pcie_40gb",
    "A100 80GB": "a100_pcie_80gb",
    "h100": "h100_pcie_80gb",
    "A100 SXM4": "a100_sxm4_40gb",
    "H100 SXM": "h100_sxm5_80gb",
}


def json_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("typed", "key"), CARDS.items())
def test_every_command_reads_a_name_as_the_same_card(
    typed: str, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    quick = json_of(["quick", "--no-config", "--gpu", typed, "--desktop-price", "9000"], capsys)
    assert quick["inputs"]["scenario"]["gpu"] == key
    to = json_of(["predict", "--from", "rtx3090", "--to", typed], capsys)
    assert to["target"] == key
    source = json_of(["predict", "--from", typed, "--to", "rtx3090", "--seconds", "60"], capsys)
    assert source["source"] == key
    desktops = json_of(["desktops", "--no-config", "--gpu", typed, "--count", "1"], capsys)
    assert desktops["inputs"]["scenario"]["gpus"] == [key]
    listed = json_of(["gpus"], capsys)
    owners = [g["key"] for g in listed if typed.casefold() in map(str.casefold, g["aliases"])]
    assert owners in ([key], [])  # `gpus` lists the name under the card it reads as, if at all


def test_predict_says_which_card_a_bare_name_is_after_its_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["predict", "--from", "rtx3090", "--to", "a100"]) == 0
    out, err = capsys.readouterr()
    assert "A100 PCIe 40GB" in out and "SXM" not in out
    assert " ".join(err.split()) == (
        "note: 'a100' read as the A100 PCIe 40GB, the desktop card; say SXM for the A100 "
        "SXM4 40GB server module"
    )
    assert main(["predict", "--from", "rtx3090", "--to", "A100 SXM4"]) == 0
    out, err = capsys.readouterr()
    assert "A100 SXM4 40GB" in out and err == ""


def test_history_takes_every_variant_of_a_family_as_prices_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A filter over offers, not one card: the clouds mostly rent the SXM A100."""
    series = json_of(["history", "--gpu", "a100"], capsys)
    gpus = {s["gpu"] for s in series}
    assert {"a100_sxm4_40gb", "a100_sxm4_80gb", "a100_pcie_80gb"} <= gpus
    assert all(g.startswith("a100") for g in gpus)
    prices = json_of(["prices", "--gpu", "a100"], capsys)
    assert {o["gpu"] for o in prices} == gpus
