"""Commitments in the answers a user reads, on the bundled prices: the 1-year reservation
decides the verdict at 80 % utilisation where it is the cheapest comparable offer, on-demand
decides it at 15 %, and `quick` and `prices` name the commitment as its own kind.

The real case: an L40S desktop owned for 2 years against the hyperscalers (AWS on-demand, spot
and reserved, Azure). AWS g6e.xlarge (1x L40S) costs $1.861/h on demand in us-east-1 (Price
List 2026-09-24) and $1.17243/h on a 1-year Standard no-upfront reservation (ec2instances.info,
2026-01-21), renewed once over the 2 years: at 80 % the reservation costs 1.17243 x 8,760 =
$10,270.49 a year, on demand 0.80 x 8,760 x 1.861 = $13,041.89; at 15 % on demand costs
0.15 x 8,760 x 1.861 = $2,445.35, the reservation still $10,270.49. The 3-year term
($0.80395/h) binds longer than the 2-year horizon, so it is never the verdict there; over a
3-year horizon it is (0.80395 x 8,760 = $7,042.60 a year)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from costcalc.cli import main

HYPERSCALERS = [
    "--horizon",
    "2",
    "--provider",
    "aws-ondemand",
    "--provider",
    "aws-spot",
    "--provider",
    "aws-reserved",
    "--provider",
    "azure",
]


def quick(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(["quick", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_at_80_percent_the_one_year_reservation_decides_the_l40s_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = quick(capsys, "--gpu", "l40s", "--util", "0.8", *HYPERSCALERS)
    best = doc["best"]
    assert (best["provider"], best["name"]) == ("aws-reserved", "g6e.xlarge (1-yr reserved)")
    assert (best["way"], best["term_years"]) == ("committed", 1)
    assert best["usd_per_year"] == pytest.approx(1.17243 * 8760)
    on_demand = next(
        o
        for o in doc["offers"]
        if o["name"] == "g6e.xlarge" and o["region"] == "us-east-1" and o["way"] == "on-demand"
    )
    assert on_demand["usd_per_year"] == pytest.approx(0.8 * 8760 * 1.861)
    assert "g6e.xlarge (1-yr reserved)" in doc["verdict"]


def test_at_15_percent_the_same_reservation_loses_to_on_demand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = quick(capsys, "--gpu", "l40s", "--util", "0.15", *HYPERSCALERS)
    assert (doc["best"]["name"], doc["best"]["way"]) == ("g6e.xlarge", "on-demand")
    reserved = next(o for o in doc["offers"] if o["name"] == "g6e.xlarge (1-yr reserved)")
    assert reserved["usd_per_year"] == pytest.approx(1.17243 * 8760)  # paid whatever the use


def test_azure_one_year_reservation_decides_a_one_year_horizon_its_three_year_term_cannot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--gpu", "a100_pcie_80gb", "--util", "0.8", "--provider", "azure"]
    argv += ["--desktop-price", "17000"]
    one = quick(capsys, *argv, "--horizon", "1")["best"]
    # 21,033 $ for the year against 0.8 x 8,760 x 3.673 = 25,740 $ on demand
    assert one["name"] == "Standard_NC24ads_A100_v4 (1-yr reserved)"
    assert one["usd_per_year"] == pytest.approx(21033, abs=0.01)
    three = quick(capsys, *argv, "--horizon", "3")["best"]
    # over three years the 3-year term is comparable: 35,821 $ / 3 = 11,940 $ a year
    assert three["name"] == "Standard_NC24ads_A100_v4 (3-yr reserved)"
    assert three["usd_per_year"] == pytest.approx(35821 / 3, abs=0.01)


def test_quick_names_the_kind_in_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["quick", "--gpu", "l40s", "--util", "0.8", *HYPERSCALERS, "--wide"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    table = out.split("\nComparable cloud offers", 1)[1]  # the verdict, first, names it too
    row = next(line for line in table.splitlines() if "g6e.xlarge (1-yr reserved)" in line)
    assert "1-yr reserved" in row.split("g6e.xlarge (1-yr reserved)", 1)[1]


def test_prices_puts_the_reservation_beside_on_demand_and_spot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["prices", "--gpu", "l40s", "--provider", "aws-ondemand", "--wide"]) == 0
    assert "1-yr $/GPU-h" not in capsys.readouterr().out  # no commitment read: no column
    argv = ["prices", "--gpu", "l40s", "--region", "us-east-1", "--wide"]
    assert main([*argv, "--provider", "aws-ondemand", "--provider", "aws-reserved"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if "1-yr $/GPU-h" in line)
    row = next(line for line in lines if "g6e.xlarge " in line and "Cheapest" not in line)
    cells = row.split()
    assert header.split()[:6] == ["$/GPU-h", "1-yr", "$/GPU-h", "3-yr", "$/GPU-h", "GPU"]
    assert cells[:3] == ["1.861", "1.172", "0.804"]
    assert main([*argv, "--provider", "aws-reserved", "--offers", "committed", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc and all(o["way"] == "committed" for o in doc)
    assert {o["term_years"] for o in doc} == {1, 3}


def test_explain_shows_the_commitment_paid_for_every_hour(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["quick", "--gpu", "l40s", "--util", "0.8", *HYPERSCALERS, "--explain", "--wide"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "a 1-year commitment is paid for every hour of its term, used or not" in out
    assert "$/year = 8,760 h x $1.172/h x 1 instance = $10,270" in out


def test_over_three_years_the_three_year_term_decides_instead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--gpu", "l40s", "--util", "0.8", *HYPERSCALERS[2:], "--horizon", "3"]
    best = quick(capsys, *argv)["best"]
    assert (best["name"], best["term_years"]) == ("g6e.xlarge (3-yr reserved)", 3)
    assert best["usd_per_year"] == pytest.approx(0.80395 * 8760)


def test_prices_names_a_commitment_as_one_in_its_first_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["prices", "--gpu", "l40s", "--region", "us-east-1", "--offers", "committed", "--wide"]
    assert main([*argv, "--provider", "aws-reserved"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Cheapest: AWS g6e.xlarge (L40S), $1.172 per GPU-hour on a 1-year")
    assert "owed for every hour of the term" in first
