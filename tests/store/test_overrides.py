"""The user's prices.yaml: override or add offers; a bad file is one line and exit 2."""

from __future__ import annotations

import json
from typing import Any

import pytest

from costcalc.cli import main
from costcalc.edge import locations


def write_overrides(text: str) -> None:
    path = locations.price_overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def prices(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict[str, Any]], str]:
    assert main(["prices", "--json", *args]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_override_changes_the_price_and_says_where_it_came_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = {
        o["name"]: o for (o,) in [(o,) for o in prices(capsys, "--provider", "paperspace")[0]]
    }
    assert before["A100"]["usd_per_hour"] != 2.5
    write_overrides(
        "overrides:\n"
        "  - {provider: paperspace, name: a100, region: NY2, usd_per_hour: 2.5, as_of: 2026-11-20,"
        " note: quoted by sales}\n"
    )
    offers, err = prices(capsys, "--provider", "paperspace")
    a100 = next(o for o in offers if o["name"] == "A100")
    assert a100["usd_per_hour"] == 2.5
    assert a100["fetched_at"].startswith("2026-11-20")
    assert "prices.yaml" in a100["source"] and "quoted by sales" in a100["source"]
    assert err == ""
    others = {o["name"]: o["usd_per_hour"] for o in offers if o["name"] != "A100"}
    assert others == {n: o["usd_per_hour"] for n, o in before.items() if n != "A100"}


def test_added_offer_appears_with_a_resolved_gpu_and_reaches_quick(
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_overrides(
        "offers:\n"
        "  - provider: paperspace\n    name: A6000x2\n    region: NY2\n    gpu: RTX A6000\n"
        "    gpu_count: 2\n    usd_per_hour: 3.6\n"
    )
    offers, _ = prices(capsys, "--provider", "paperspace")
    added = next(o for o in offers if o["name"] == "A6000x2")
    assert (added["gpu"], added["gpu_count"], added["usd_per_hour"]) == ("rtx_a6000", 2, 3.6)
    assert main(["quick", "--gpu", "rtx3090", "--provider", "paperspace", "--json"]) == 0
    assert "A6000x2" in capsys.readouterr().out


def test_override_that_matches_nothing_is_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    write_overrides("overrides:\n  - {provider: paperspace, name: A1000, usd_per_hour: 1}\n")
    _, err = prices(capsys, "--provider", "paperspace")
    assert "overrides[0] (paperspace 'A1000') matches no offer" in err
    _, err = prices(capsys, "--provider", "aws-spot")  # not loaded: nothing to say
    assert err == ""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("overrides: [\n", "not valid YAML"),
        (
            "overrides:\n  - {provider: fluidstack, name: x, usd_per_hour: 1}\n",
            "unknown provider 'fluidstack'",
        ),
        ("overrides:\n  - {provider: paperspace, name: A100, usd_per_hour: -3}\n", "usd_per_hour"),
        ("surprise: 1\n", "surprise"),
        (
            "offers:\n  - {provider: paperspace, name: x, region: NY2, gpu: voodoo5,"
            " usd_per_hour: 1}\n",
            "offers[0].gpu: unknown GPU",
        ),
    ],
)
def test_malformed_file_is_one_line_exit_2(
    text: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write_overrides(text)
    assert main(["prices"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(locations.price_overrides_file()) in err and reason in err


def test_empty_file_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    before, _ = prices(capsys)
    write_overrides("# nothing yet\n")
    after, _ = prices(capsys)
    assert after == before
