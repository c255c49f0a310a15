"""The whole cost (issue 42, parts 2-4): storage and transfer on the rent side, a loan, repairs
and resale by age on the owning side, and the hybrid plan, through `costcalc quick` as users
run it (main(argv)), checked against arithmetic written out here."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from costcalc.core.hybrid import MONTH_HOURS, parse_profile
from costcalc.store.snapshots import load_storage
from tests import cli_run
from tests.cli_run import REFERENCE, run


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    return cli_run.run_json([*argv, *["--all"]], capsys)


def custom_row(doc: Any) -> Any:
    (row,) = [o for o in doc["offers"] if o["provider"] == "custom"]
    return row


# --------------------------------------------------------------------------- the rent side


def by_offer(doc: Any, provider: str) -> dict[str, Any]:
    return {o["name"]: o for o in doc["offers"] if o["provider"] == provider}


def test_the_issues_example_adds_the_sourced_storage_to_the_rent_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`quick --gpu rtx4090 --util 0.3 --dataset-gb 500 --checkpoint-gb 20 --runs-per-year 50`:
    every RunPod offer keeps 500 + 20 GB on a network volume at $0.07 per GB-month
    (prices/storage.yaml, from docs.runpod.io) and downloads 50 x 20 GB for free:

        storage = 520 GB x $0.07 x 12 = $436.80 a year;  egress = 1,000 GB x $0 = $0

    so each RunPod offer's year costs $436.80 more; the answer shows it and says where the
    rate comes from."""
    plain = ["quick", "--gpu", "rtx4090", "--util", "0.3"]
    extras = [*plain, "--dataset-gb", "500", "--checkpoint-gb", "20", "--runs-per-year", "50"]
    before, after = run_json(plain, capsys), run_json([*extras, "--explain"], capsys)
    old, new = by_offer(before, "runpod"), by_offer(after, "runpod")
    assert old and old.keys() == new.keys()
    for name, row in new.items():
        assert row["usd_per_year"] - old[name]["usd_per_year"] == pytest.approx(436.80), name
    rate = next(r for r in load_storage().rates if "runpod" in r.providers)
    assert rate.url.startswith("https://") and rate.observed.year >= 2025
    found = after["rent_extras"]["verdict_offer"]
    assert found["provider"] == after["best"]["provider"]
    explained = "\n".join(after["explain"])
    assert "storage and transfer" in explained
    # the shown text, as a user reads it
    code, out, _ = run([*extras, "--explain"], capsys)
    assert code == 0
    assert "Storage and transfer (rent side)" in out
    assert "Rent side: the verdict offer's storage" in out


def test_egress_beyond_the_free_allowance_and_setup_minutes_are_priced(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """AWS (prices/storage.yaml): an EBS gp3 volume at $0.08 per GB-month, egress at $0.09 per
    GB beyond the first 100 GB a month. 50 runs a year of a 500 GB dataset and a 40 GB
    checkpoint, 12 minutes of setup each:

        storage = (500 + 40) GB x $0.08 x 12                  = $518.40 a year
        egress  = 50 x 40 GB = 2,000 GB a year = 166.67 GB a month;
                  (166.67 - 100) x 12 = 800 GB x $0.09        =  $72.00 a year
        setup   = 50 x 12 min / 60 = 10 h a year, billed at the offer's $/h

    so an hourly AWS on-demand offer's year rises by $590.40 + 10 h x its $/h."""
    plain = ["quick", "--gpu", "rtx4090", "--util", "0.3", "--provider", "aws-ondemand"]
    more = ["--dataset-gb", "500", "--checkpoint-gb", "40", "--runs-per-year", "50"]
    before = by_offer(run_json(plain, capsys), "aws-ondemand")
    after = by_offer(run_json([*plain, *more, "--setup-minutes", "12"], capsys), "aws-ondemand")
    assert before
    for name, row in after.items():
        old = before[name]
        assert row["hours_per_year"] == pytest.approx(old["hours_per_year"] + 10), name
        if row["term_years"] is None and not row["monthly_fee_usd"]:  # billed by the hour
            grew = 590.40 + 10 * row["usd_per_hour"]
            assert row["usd_per_year"] - old["usd_per_year"] == pytest.approx(grew, abs=0.01)


# --------------------------------------------------------------------------- owning in full


def test_a_loan_and_repairs_move_break_even_as_the_cash_flows_say(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """DOMAIN.md's case (a $2,200 desktop, $70.96 of electricity a year, a $2.14/h offer at
    15 %: 292.96 days), financed at 8 % APR over 3 years, with 5 % of cards failing a year:

        r = 0.08 / 12 = 0.0066667, n = 36
        payment = 2,200 x r / (1 - (1 + r)^-36) = 14.6667 / 0.212745 = $68.94 a month
        interest within the 3 years = 36 x 68.94 - 2,200 = $281.84 = 0.128109 of the price
        repairs = 0.05 x 1 card x $850 (the catalog's used RTX 3090) = $42.50 a year
        d = 2,200 x (1 + 0.128109) / (7.704 - (70.956 + 42.50) / 365)
          = 2,481.84 / (7.704 - 0.310838) = 335.69 days

    and the verdict says it compares the cash each way pays out."""
    plain = custom_row(run_json(REFERENCE, capsys))
    assert plain["break_even_days"] == pytest.approx(292.96, abs=0.01)
    loan = ["--apr", "0.08", "--term-years", "3"]
    doc = run_json([*REFERENCE, *loan, "--failure-rate", "0.05"], capsys)
    owning = doc["owning"]
    assert owning["loan"]["monthly_payment_usd"] == pytest.approx(68.94, abs=0.005)
    assert owning["loan"]["interest_within_usd"] == pytest.approx(281.84, abs=0.01)
    assert owning["repairs"]["card_usd"] == 850.0  # the figure the hand calculation used
    assert owning["repairs"]["usd_per_year"] == pytest.approx(42.50)
    assert custom_row(doc)["break_even_days"] == pytest.approx(335.69, abs=0.01)
    assert "comparing the cash each way pays out" in doc["decision_reason"]
    code, out, _ = run([*REFERENCE, *loan, "--failure-rate", "0.05", "--brief"], capsys)
    assert code == 0
    assert "The verdict compares the cash each way pays out" in out


def test_the_sourced_failure_rate_is_the_card_class_s(capsys: pytest.CaptureFixture[str]) -> None:
    """--repairs with no rate of its own: consumer cards fail 2.1 % a year (Mindfactory's RMA
    statistics, costcalc/data/ownership.yaml), so the allowance is 0.021 x $850 = $17.85 and

        d = 2,200 / (7.704 - (70.956 + 17.85) / 365) = 2,200 / 7.460696 = 294.88 days"""
    doc = run_json([*REFERENCE, "--repairs"], capsys)
    repairs = doc["owning"]["repairs"]
    assert repairs["per_year"] == 0.021
    assert repairs["rate"]["url"].startswith("https://")
    assert repairs["usd_per_year"] == pytest.approx(17.85)
    assert custom_row(doc)["break_even_days"] == pytest.approx(294.88, abs=0.01)


def test_a_term_longer_than_the_horizon_counts_only_the_interest_within_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A 5-year loan and a 1-year horizon: the 12 payments made and the balance still owed
    repay the price; only the interest within the year counts.

        payment = 2,200 x r / (1 - (1 + r)^-60) = 14.6667 / 0.328790 = $44.608;
        12 payments = $535.30;  (1 + r)^12 = 1.0830
        owed after 12 = 2,200 x 1.0830 - 44.608 x (1.0830 - 1) / r = $1,827.23
        interest = 535.30 - (2,200 - 1,827.23) = $162.53"""
    doc = run_json([*REFERENCE, "--apr", "8%", "--term-years", "5", "--horizon", "1"], capsys)
    loan = doc["owning"]["loan"]
    assert loan["monthly_payment_usd"] == pytest.approx(44.61, abs=0.005)
    assert loan["balance_at_horizon_usd"] == pytest.approx(1827.23, abs=0.01)
    assert loan["interest_within_usd"] == pytest.approx(162.53, abs=0.01)


def test_resale_by_age_follows_the_fitted_depreciation_and_a_share_overrides_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--resale age: consumer cards' dated used prices against their launch prices, fitted as
    ln(used / launch) = -k x age through the origin, k = -sum(age x ln kept) / sum(age^2);
    the 4090 resells after 3 years at its used price today x exp(-3k). --resale 0.3 stays
    the flat share."""
    base = ["quick", "--gpu", "rtx4090", "--util", "0.3"]
    doc = run_json([*base, "--resale", "age"], capsys)
    aged = doc["owning"]["resale_by_age"]
    points = aged["fit"]["points"]
    assert len(points) >= 5
    k = -sum(p["age_years"] * math.log(p["kept"]) for p in points) / sum(
        p["age_years"] ** 2 for p in points
    )
    assert aged["fit"]["rate_per_year"] == pytest.approx(k)
    assert aged["card_then_usd"] == pytest.approx(aged["card_now_usd"] * math.exp(-3 * k))
    price = doc["desktop"]["price_usd"]
    assert doc["inputs"]["assumptions"]["resale_share"] == pytest.approx(
        aged["card_then_usd"] / price
    )
    flat = run_json([*base, "--resale", "0.3"], capsys)
    assert flat["inputs"]["assumptions"]["resale_share"] == 0.3
    assert "owning" not in flat


# --------------------------------------------------------------------------- the hybrid plan

BUSY = "jan:1200,feb:1200,mar:900,apr:900,may:1500,jun:600,jul:300,aug:2500"
"""Eight busy months (up to 2,500 desktop-hours: more than three desktops' 730) and four idle."""


def brute_force(
    hours: list[float], count: int, unit_own: float, power: float, rent: float, years: float
) -> float:
    """Owning `count` desktops, costed directly: each month's hours up to count x 730 on the
    desktops (their electricity), the rest rented; the desktops' own cost once each."""
    served = sum(min(h, count * MONTH_HOURS) for h in hours)
    rented = sum(max(h - count * MONTH_HOURS, 0.0) for h in hours)
    return count * unit_own + years * (served * power + rented * rent)


def test_the_hybrid_plan_is_the_cheapest_owned_count_by_brute_force(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """DOMAIN.md's desktop ($2,200, 450 W at $0.12/kWh = $0.054 a busy hour) against the $2.14/h
    offer, over 3 years: a desktop pays for itself on the hours it takes when they are more
    than 2,200 / (3 x (2.14 - 0.054)) = 351.6 a year. The third desktop takes 40 + 730 = 770
    hours a year of this profile, the fourth 310: own 3."""
    argv = [*REFERENCE, "--provider", "custom", "--hybrid", "--profile", BUSY, "--max-owned", "6"]
    doc = run_json(argv, capsys)
    plan = doc["hybrid"]
    hours = plan["profile_hours"]
    assert hours == list(parse_profile(BUSY))
    assert sum(1 for h in hours if h) == 8 and sum(1 for h in hours if not h) == 4
    power = doc["desktop"]["load_w"] / 1000 * doc["inputs"]["assumptions"]["usd_per_kwh"]
    assert power == pytest.approx(0.054)
    assert plan["usd_per_desktop_hour"] == 2.14
    costs = [brute_force(hours, n, plan["unit_own_usd"], power, 2.14, 3.0) for n in range(0, 7)]
    assert [r["owned"] for r in plan["rows"]] == list(range(0, 7))
    for row, cost in zip(plan["rows"], costs, strict=True):
        assert row["total_usd"] == pytest.approx(cost)
    assert plan["owned"] == min(range(7), key=lambda n: costs[n]) == 3
    code, out, _ = run([*argv, "--top", "1"], capsys)
    assert code == 0
    assert "Hybrid plan: own 3 desktops and rent the rest" in out
    table = [
        line.split() for line in out.splitlines() if re.match(r"^ +\d+ +[\d,]+ +[\d,]+ +\$", line)
    ]
    assert [int(r[0]) for r in table] == list(range(7))
    assert [r[-1] for r in table].count("<-") == 1 and table[3][-1] == "<-"


def test_the_hybrid_plan_from_the_utilisation_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """No profile: the utilisation's 15 % every month (109.5 h of 730); one desktop, or none."""
    doc = run_json([*REFERENCE, "--provider", "custom", "--hybrid"], capsys)
    plan = doc["hybrid"]
    assert plan["profile_hours"] == pytest.approx([0.15 * MONTH_HOURS] * 12)
    assert [r["owned"] for r in plan["rows"]] == [0, 1]
    assert plan["owned"] == 1  # DOMAIN.md: the desktop pays back in 293 days of 1,095


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--dataset-gb", "-5"], "dataset size cannot be negative"),
        (["--checkpoint-gb", "lots"], "checkpoint size"),
        (["--apr", "1.5", "--term-years", "3"], "loan APR"),
        (["--apr", "0.08"], "--apr needs --term-years"),
        (["--hybrid", "--profile", "jan:400,feb:x"], "profile: write busy hours per month"),
        (["--hybrid", "--profile", "jan:400,foo:3"], "is not a month"),
        (["--hybrid", "--profile", "jan:400,jan:3"], "given twice"),
        (["--runs-per-year", "0"], "runs per year"),
        (["--checkpoint-gb", "20"], "count per run: give --runs-per-year"),
    ],
)
def test_bad_input_is_one_line_and_a_failing_exit(
    extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*REFERENCE, *extra], capsys)
    assert code != 0
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("costcalc: error: ") and says in lines[0]
    assert "Traceback" not in err


def test_what_the_verdict_compares_is_in_the_chosen_currency(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The loan's payments and the repairs in the line under the verdict are in the currency
    every other amount is shown in: euros with --currency EUR, at the same rate."""
    argv = ["quick", "--gpu", "rtx3090", "--apr", "0.08", "--term-years", "3", "--repairs"]
    in_usd = run_json([*argv, "--currency", "USD"], capsys)["owning"]["basis"]
    in_eur = run_json([*argv, "--currency", "EUR"], capsys)
    basis = in_eur["owning"]["basis"]
    assert "$" not in basis and "€" in basis
    usd = [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+\.\d\d)", in_usd)]
    eur = [float(x.replace(",", "")) for x in re.findall(r"€([\d,]+\.\d\d)", basis)]
    rate = in_eur["currency"]["per_usd"]
    assert len(usd) == len(eur) == 3
    assert eur == pytest.approx([u * rate for u in usd], abs=0.01)
