"""The whole cost in words: what renting adds beyond the GPU-hours (storage, transfer, setup),
owning in full (a loan, repairs, resale by age) and the hybrid plan's table of owned counts.

Rule kept here: pure and textual-free. Every amount shown is the one costcalc.core worked out
(rent_extras, owning, hybrid); the lines restate its arithmetic with the user's numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from costcalc.core.fx import USD, Money
from costcalc.core.records import plain
from costcalc.present import display as fmt
from costcalc.present.explain import Explanation, cur, num

if TYPE_CHECKING:
    from costcalc.core.hybrid import HybridPlan
    from costcalc.core.models import OfferResult
    from costcalc.core.rent_extras import ExtraYear, RentExtras
    from costcalc.core.scenario import Calculation


def extra_year(calc: Calculation, result: OfferResult) -> ExtraYear | None:
    """`result`'s provider's storage, transfer and setup a year, as the comparison counted them."""
    extras = calc.comparison.rules.extras
    if extras is None:
        return None
    return extras.year(result.offer.provider, busy_hours(calc))


def busy_hours(calc: Calculation) -> float:
    return calc.assumptions.utilisation * 8760


def rent_extras(calc: Calculation, result: OfferResult, m: Money = USD) -> Explanation | None:
    """How storage, transfer and setup enter the offer's cost a year, rate by sourced rate."""
    extras = calc.comparison.rules.extras
    year = extra_year(calc, result)
    if extras is None or year is None:
        return None
    use = extras.use
    runs = (
        f"runs/year = {num(year.runs)} (--runs-per-year)"
        if use.runs_per_year is not None
        else f"runs/year = {num(busy_hours(calc))} busy h / {num(use.run_hours or 0)} h a run "
        f"= {num(year.runs)}"
    )
    lines = [runs]
    if use.setup_h:
        lines.append(
            f"setup = {num(year.runs)} runs x {num(use.setup_h * 60)} min / 60 = "
            f"{num(year.setup_hours)} h a year, billed at the offer's "
            f"{cur(result.offer.usd_per_hour, m)}/h (in the hours above)"
        )
    rate = year.rate
    if rate is None:
        why = extras.left_out.get(result.offer.provider, "no sourced rate")
        if extras.rates or year.kept_gb or year.egress_gb:
            lines.append(f"storage and transfer: left out for this provider ({why})")
        return Explanation("Storage and transfer (rent side)", tuple(lines))
    volume = rate.volume_usd_per_gb_month or 0.0
    egress = rate.egress_usd_per_gb_decimal or 0.0
    upload = (
        f"{num(use.dataset_gb)} GB x {num(year.runs)} runs"
        if use.uploads_each_run
        else f"{num(use.dataset_gb)} GB once"
    )
    lines += [
        f"volume ({rate.volume}) = {num(year.kept_gb)} GB kept x {cur(volume, m)}/GB-month x 12"
        f" = {fmt.usd(year.storage_usd, m)}",
        f"egress = {num(year.runs)} runs x ({num(use.checkpoint_gb)} GB checkpoint + "
        f"{num(use.egress_gb)} GB other) = {num(year.egress_gb)} GB; beyond "
        f"{num(rate.free_egress_gb_per_month)} GB a month free: {num(year.billable_egress_gb)} GB"
        f" x {cur(egress, m)}/GB = {fmt.usd(year.egress_usd, m)}",
        f"upload: {upload}, free (ingress)",
        f"storage and transfer = {fmt.usd(year.storage_usd, m)} + {fmt.usd(year.egress_usd, m)}"
        f" = {fmt.usd(year.usd, m)} a year, added to the offer's cost a year",
        f"rates: {rate.label}, {rate.observed}: {rate.url}",
    ]
    return Explanation("Storage and transfer (rent side)", tuple(lines))


def owning(calc: Calculation, m: Money = USD) -> Explanation | None:
    """The loan, the repairs allowance and the resale by age, each with its arithmetic."""
    lines: list[str] = []
    loan = calc.loan
    if loan is not None:
        lines += [
            f"loan: {fmt.usd(loan.principal_usd, m)} over {loan.months} months at "
            f"{num(loan.apr * 100)}% APR: payment = L x r / (1 - (1 + r)^-n), r = "
            f"{num(loan.apr)} / 12 = {fmt.usd(loan.monthly_payment_usd, m)} a month",
            f"within the {num(calc.assumptions.horizon_years)}-year horizon: "
            f"{loan.payments_within} payments = {fmt.usd(loan.paid_within_usd, m)}"
            + (
                f", {fmt.usd(loan.balance_at_horizon_usd, m)} still owed at its end"
                if loan.balance_at_horizon_usd > 0.005
                else ""
            )
            + f"; interest {fmt.usd(loan.interest_within_usd, m)} = "
            f"{num(loan.interest_share)} of the price",
        ]
    repairs = calc.repairs
    if repairs is not None:
        rate = repairs.rate
        source = (
            f"{rate.segment} cards, {rate.source.strip()} ({rate.observed}): {rate.url}"
            if rate is not None
            else "your --failure-rate"
        )
        lines.append(
            f"repairs = {num(repairs.per_year)} failures a card-year x {repairs.cards} x "
            f"{cur(repairs.card_usd, m)} = {fmt.usd(repairs.usd_per_year, m)} a year ({source})"
        )
    resale = calc.resale
    if resale is not None:
        fit = resale.fit
        lines += [
            f"resale by age: {fit.segment} cards keep {num(fit.kept_per_year)} of their value a "
            f"year (ln(used / launch) = -{num(fit.rate_per_year)} x age, fitted on "
            f"{len(fit.points)} dated used prices)",
            f"a card now {cur(resale.card_now_usd, m)} ({resale.card_now_from}) -> after "
            f"{num(resale.horizon_years)} years {cur(resale.card_then_usd, m)}; x "
            f"{resale.cards} = {fmt.usd(resale.resale_usd, m)} = {num(resale.share)} of the "
            "price",
        ]
    if not lines:
        return None
    return Explanation("Owning, in full", tuple(lines))


def cash_basis_line(calc: Calculation) -> str | None:
    """What the verdict weighs when owning is counted in full (a loan, repairs), in the words
    `quick` prints under its verdict; None otherwise."""
    if calc.cash_basis is None:
        return None
    return f"The verdict compares {calc.cash_basis.removeprefix('comparing ')}."


def plan_lines(plan: HybridPlan, m: Money = USD) -> tuple[list[str], list[str]]:
    """The hybrid plan: what it says (prose), then the table of every owned count with its
    cost over the horizon."""
    from costcalc.core.hybrid import months_text

    years = num(plan.horizon_years)
    best = plan.chosen
    lines = [
        f"Hybrid plan: own {best.owned} desktop{'s' if best.owned != 1 else ''} and rent the "
        f"rest: {fmt.usd(best.total_usd, m)} over {years} years",
        f"  work: {plan.profile.source}: {months_text(plan.profile.hours)}",
        f"  above the owned desktops: {fmt.offer_label(plan.offer)} at "
        f"{cur(plan.usd_per_desktop_hour, m)} per desktop-hour; a desktop "
        f"{fmt.usd(plan.unit_price_usd, m)}, {fmt.usd(plan.unit_own_usd, m)} over the horizon",
    ]
    table = [
        f"  {'owned':>5} {'owned h/yr':>11} {'rented h/yr':>12} {'own':>10} {'power':>9} "
        f"{'rent':>10} {'total':>10}",
    ]
    for row in plan.rows:
        mark = " <-" if row.owned == best.owned else ""
        table.append(
            f"  {row.owned:>5} {row.owned_hours_per_year:>11,.0f} "
            f"{row.rented_hours_per_year:>12,.0f} {fmt.usd(row.own_usd, m):>10} "
            f"{fmt.usd(row.electricity_usd, m):>9} {fmt.usd(row.rent_usd, m):>10} "
            f"{fmt.usd(row.total_usd, m):>10}{mark}"
        )
    return lines, table


def summary_lines(calc: Calculation) -> tuple[list[str], list[str]]:
    """What the text answer adds under the desktop when these inputs are given: prose, and the
    hybrid plan's table."""
    m = calc.money
    lines: list[str] = []
    best = calc.comparison.best
    year = extra_year(calc, best) if best is not None else None
    if year is not None:
        if year.rate is None:
            lines.append(
                f"Rent side: storage and transfer left out for {best.offer.provider} "  # type: ignore[union-attr]
                "(no sourced rate)"
            )
        else:
            lines.append(
                f"Rent side: the verdict offer's storage {fmt.usd(year.storage_usd, m)} and "
                f"egress {fmt.usd(year.egress_usd, m)} a year ({num(year.runs)} runs, "
                f"{year.rate.label}'s rates of {year.rate.observed})"
            )
        if year.setup_hours:
            lines[-1] += f", {num(year.setup_hours)} h of setup billed"
    table: list[str] = []
    if calc.hybrid is not None:
        said, table = plan_lines(calc.hybrid, m)
        lines += ["", *said] if lines else said
    return lines, table


def to_json(calc: Calculation) -> dict[str, Any]:
    """The JSON fields these inputs add: rent_extras, owning, hybrid (absent when not given)."""
    doc: dict[str, Any] = {}
    extras: RentExtras | None = calc.comparison.rules.extras
    best = calc.comparison.best
    if extras is not None:
        year = extra_year(calc, best) if best is not None else None
        doc["rent_extras"] = {
            "use": plain(extras.use),
            "verdict_offer": None
            if year is None
            else {
                "provider": best.offer.provider,  # type: ignore[union-attr]
                "runs_per_year": year.runs,
                "kept_gb": year.kept_gb,
                "storage_usd_per_year": year.storage_usd,
                "egress_gb_per_year": year.egress_gb,
                "billable_egress_gb_per_year": year.billable_egress_gb,
                "egress_usd_per_year": year.egress_usd,
                "setup_hours_per_year": year.setup_hours,
                "rate": plain(year.rate) if year.rate is not None else None,
            },
            "left_out": {
                p: extras.left_out.get(p, "no sourced rate")
                for p in extras.missing({r.offer.provider for r in calc.comparison.offers})
            },
        }
    if calc.loan is not None or calc.repairs is not None or calc.resale is not None:
        doc["owning"] = {
            "basis": calc.cash_basis,
            "loan": plain(calc.loan) if calc.loan is not None else None,
            "repairs": plain(calc.repairs) if calc.repairs is not None else None,
            "resale_by_age": plain(calc.resale) if calc.resale is not None else None,
        }
    plan = calc.hybrid
    if plan is not None:
        doc["hybrid"] = {
            "owned": plan.chosen.owned,
            "total_usd": plan.chosen.total_usd,
            "profile_hours": list(plan.profile.hours),
            "profile_source": plan.profile.source,
            "rent_offer": {"provider": plan.offer.offer.provider, "name": plan.offer.offer.name},
            "usd_per_desktop_hour": plan.usd_per_desktop_hour,
            "unit_price_usd": plan.unit_price_usd,
            "unit_own_usd": plan.unit_own_usd,
            "horizon_years": plan.horizon_years,
            "rows": [{**plain(r), "total_usd": r.total_usd} for r in plan.rows],
        }
    return doc
