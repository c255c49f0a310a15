"""The cost engine: electricity, cloud cost, break-even, cost per run, carbon.

Rule kept here: pure arithmetic on plain numbers and frozen models. No files, no network, no
clock (callers pass `now`), no imports beyond the standard library and the models. Every function
is cheap enough to run for thousands of offers on each keystroke.
"""

from __future__ import annotations

import math
from collections.abc import Callable

PaysBackAt = Callable[[float], bool]
"""Whether the desktop pays back within the horizon, as a function of utilisation."""

HOURS_PER_YEAR = 24 * 365
DAYS_PER_YEAR = 365
MONTHS_PER_YEAR = 12
HOURS_PER_MONTH = HOURS_PER_YEAR / MONTHS_PER_YEAR


# --------------------------------------------------------------------------- electricity


def desktop_load_w(
    gpu_watts: float, gpu_count: int, system_watts: float, psu_efficiency: float
) -> float:
    """Wall draw while working: all GPUs plus the rest of the system, through the PSU."""
    return (gpu_watts * gpu_count + system_watts) / psu_efficiency


def desktop_kwh_per_year(
    load_w: float, utilisation: float, idle_watts: float = 0.0, always_on: bool = False
) -> float:
    """Energy a year: load power for the busy hours, idle power for the rest when left on.

    kWh = W x u x 8760 / 1000 (+ idle W x (1 - u) x 8760 / 1000 when the machine stays on).
    """
    busy_kwh = load_w * utilisation * HOURS_PER_YEAR / 1000
    idle_kwh = idle_watts * (1 - utilisation) * HOURS_PER_YEAR / 1000 if always_on else 0.0
    return busy_kwh + idle_kwh


def electricity_usd(kwh: float, usd_per_kwh: float) -> float:
    return kwh * usd_per_kwh


def co2_kg(kwh: float, grid_gco2_per_kwh: float, pue: float = 1.0) -> float:
    """Operational carbon: energy x PUE x grid carbon intensity (g -> kg)."""
    return kwh * pue * grid_gco2_per_kwh / 1000


def embodied_co2_kg_per_year(embodied_kgco2e: float, life_years: float) -> float:
    """Manufacturing carbon spread evenly over the machine's life."""
    return embodied_kgco2e / life_years


# --------------------------------------------------------------------------- cloud


def multi_gpu_speedup(gpu_count: int, efficiency_per_doubling: float = 0.95) -> float:
    """Throughput of n GPUs relative to one, for data-parallel training.

    Each doubling keeps `efficiency_per_doubling` of linear scaling: 8 GPUs -> 8 x 0.95^3 = 6.86x,
    between the 7x (A100, NVLink 3) and 6.67x (V100) that Dettmers measured from 1 to 8 GPUs.
    """
    if gpu_count <= 1:
        return float(gpu_count)
    return float(gpu_count * efficiency_per_doubling ** math.log2(gpu_count))


def interruption_overhead(monthly_share: float, checkpoint_h: float, restart_h: float) -> float:
    """Expected extra share of run time that spot interruptions cost.

    `monthly_share` is the share of instances the provider reclaims in a month (AWS Spot
    Advisor's interruption frequency). Interruptions arrive at rate r = -ln(1 - share) per
    month; the job checkpoints every T hours at a cost of `checkpoint_h` each, with Young's
    optimum T = sqrt(2 c / r) (J. W. Young, "A first order approximation to the optimum
    checkpoint interval", CACM 17(9), 1974); each interruption loses half an interval of work
    on average plus `restart_h` to get capacity back and reload. Overhead = c / T + r (T/2 + R).
    """
    if monthly_share <= 0:
        return 0.0
    rate = -math.log(1 - min(monthly_share, 0.99)) / HOURS_PER_MONTH
    if checkpoint_h <= 0:
        return rate * restart_h
    interval = math.sqrt(2 * checkpoint_h / rate)
    return checkpoint_h / interval + rate * (interval / 2 + restart_h)


def cloud_hours_for(desktop_hours: float, relative_speed: float) -> float:
    """Hours the offer needs for the work the desktop does in `desktop_hours`.

    `relative_speed` is offer throughput / desktop throughput: 2x faster needs half the hours.
    """
    return desktop_hours / relative_speed


def billed_hours_per_year(hours: float, increment_s: int) -> float:
    """Hours a year a provider bills for `hours` of use: exact for hourly or finer billing; whole
    days or months for servers rented by the day or the month (rented for the months you need)."""
    if increment_s < 86_400 or hours <= 0:
        return hours
    increment_h = increment_s / 3600
    return math.ceil(hours / increment_h - 1e-9) * increment_h


def cloud_usd_for_hours(
    hours_per_year: float,
    usd_per_hour: float,
    monthly_fee_usd: float = 0.0,
    included_usd_per_month: float = 0.0,
) -> float:
    """Yearly cloud bill: usage beyond what the plan includes, plus twelve plan fees."""
    usage_per_month = hours_per_year * usd_per_hour / MONTHS_PER_YEAR
    extra_per_month = usage_per_month - included_usd_per_month
    if extra_per_month < 0:  # (not max(): this runs once per offer on every keystroke)
        extra_per_month = 0.0
    return MONTHS_PER_YEAR * (monthly_fee_usd + extra_per_month)


def cloud_server_w(gpu_count: int, gpu_board_w: float, host_w_per_gpu: float) -> float:
    """Draw of a cloud server running `gpu_count` GPUs: their board power plus each GPU's share
    of the host (CPU, memory, network)."""
    return gpu_count * (gpu_board_w + host_w_per_gpu)


# --------------------------------------------------------------------------- break-even


def break_even_days(
    desktop_price_usd: float,
    cloud_usd_per_day: float,
    electricity_usd_per_day: float,
    resale_share: float,
    interest_share: float = 0.0,
) -> float | None:
    """Day on which buying has cost as much as renting, the desktop counted at its price less
    what it sells for after the horizon (`resale_share` of it), plus the interest a loan for it
    costs within the horizon (`interest_share` of it).

    Solves  price x (1 - resale + interest) + running_per_day x d = cloud_per_day x d,  where
    the running cost a day is the electricity (and the repairs allowance, which the caller adds
    to it). None ("never") when renting costs no more per day than running the desktop. With no
    resale and no loan this is DOMAIN.md's canonical break-even; with them, `pays_back` on its
    answer is exactly "the desktop's cash out over the horizon is no more than renting's"
    (`horizon_cost_usd` of both), so the verdict, these days and the break-even utilisation can
    never disagree.
    """
    saving_per_day = cloud_usd_per_day - electricity_usd_per_day
    if saving_per_day <= 0:
        return None
    days = desktop_price_usd * (1 - resale_share + interest_share) / saving_per_day
    return days if math.isfinite(days) else None  # a saving too small to ever pay back


def pays_back(break_even_days: float | None, horizon_years: float) -> bool:
    """The verdict's one rule: buying wins when the desktop has paid for itself within the
    horizon."""
    return break_even_days is not None and break_even_days <= horizon_years * DAYS_PER_YEAR


def horizon_cost_usd(
    price_usd: float,
    running_usd_per_year: float,
    horizon_years: float,
    resale_share: float = 0.0,
    interest_share: float = 0.0,
) -> float:
    """Total cost of owning over a horizon: price, a loan's interest within it, running costs,
    minus what it sells for after."""
    return price_usd * (1 - resale_share + interest_share) + running_usd_per_year * horizon_years


# --------------------------------------------------------------------------- financing


def monthly_payment_usd(principal_usd: float, apr: float, months: int) -> float:
    """The level monthly payment that repays `principal_usd` in `months` at `apr` a year,
    compounded monthly (r = apr / 12): P = L x r / (1 - (1 + r)^-n); L / n without interest."""
    rate = apr / MONTHS_PER_YEAR
    if rate == 0:
        return principal_usd / months
    return principal_usd * rate / (1 - (1 + rate) ** -months)


def loan_balance_usd(principal_usd: float, apr: float, months: int, paid: int) -> float:
    """What is still owed after `paid` of the `months` payments:
    B_k = L x (1 + r)^k - P x ((1 + r)^k - 1) / r."""
    rate = apr / MONTHS_PER_YEAR
    payment = monthly_payment_usd(principal_usd, apr, months)
    if rate == 0:
        return max(principal_usd - payment * paid, 0.0)
    grown = (1 + rate) ** paid
    return max(principal_usd * grown - payment * (grown - 1) / rate, 0.0)


def loan_months(term_years: float) -> int:
    """Monthly payments in a term of `term_years` (at least one)."""
    return max(round(term_years * MONTHS_PER_YEAR), 1)


def interest_within_usd(
    principal_usd: float, apr: float, term_years: float, horizon_years: float
) -> float:
    """The interest a loan of the whole price costs within the horizon: the payments made in it
    less the principal they repaid, plus the interest accrued on what is owed in a last part
    month. A term longer than the horizon leaves a balance that is paid when the horizon ends
    (from the resale or cash): it is part of the price, so only the interest counts."""
    months = loan_months(term_years)
    within = horizon_years * MONTHS_PER_YEAR
    paid = min(months, math.floor(within + 1e-9))
    payment = monthly_payment_usd(principal_usd, apr, months)
    owed = loan_balance_usd(principal_usd, apr, months, paid)
    interest = payment * paid - (principal_usd - owed)
    if paid < months and within > paid:
        interest += owed * apr / MONTHS_PER_YEAR * (within - paid)
    return max(interest, 0.0)


def break_even_utilisation(
    pays_back_at: PaysBackAt, at: float, lo: float = 1e-4, hi: float = 1.0
) -> float | None:
    """Utilisation above which the desktop pays back within the horizon, found next to `at`
    (the user's utilisation).

    `pays_back_at(u)` is the verdict's rule at utilisation u. The search brackets `at`: below it
    when the desktop wins there, above it when it loses, so the figure always agrees with the
    verdict at the user's utilisation, even where monthly billing or plan fees make the costs
    step rather than grow smoothly. None when renting stays cheaper even at `hi`; `lo` when the
    desktop wins at any utilisation down to it.
    """
    if pays_back_at(at):
        if pays_back_at(lo):
            return lo
        hi = at
    elif not pays_back_at(hi):
        return None
    else:
        lo = at
    for _ in range(60):  # invariant: the desktop loses at lo and wins at hi
        mid = (lo + hi) / 2
        if pays_back_at(mid):
            hi = mid
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------- runs


def billed_seconds(run_s: float, increment_s: int = 0, minimum_s: int = 0) -> float:
    """Seconds a provider charges for a run: rounded up to its increment, at least its minimum.

    An increment of 0 bills the exact time (the benchmark definition of the cost of a run).
    """
    if run_s <= 0:
        return 0.0
    rounded = math.ceil(run_s / increment_s - 1e-9) * increment_s if increment_s > 0 else run_s
    return float(rounded if rounded > minimum_s else minimum_s)


def run_cost_usd(
    run_s: float,
    usd_per_hour: float,
    increment_s: int = 0,
    minimum_s: int = 0,
    plan_share_usd: float = 0.0,
) -> float:
    """Cost of one run: billed time / 3600 x price per hour, plus its share of any plan fee."""
    return billed_cost_usd(
        billed_seconds(run_s, increment_s, minimum_s), usd_per_hour, plan_share_usd
    )


def billed_cost_usd(billed_s: float, usd_per_hour: float, plan_share_usd: float = 0.0) -> float:
    """What billed seconds cost at a price per hour, plus a share of a plan fee."""
    return billed_s / 3600 * usd_per_hour + plan_share_usd


def runs_per_month(utilisation: float, run_hours: float) -> float:
    """Runs a month at this utilisation, when one run takes `run_hours` on the desktop."""
    return utilisation * HOURS_PER_YEAR / MONTHS_PER_YEAR / run_hours


def plan_share_usd(monthly_fee_usd: float, runs_per_month: float) -> float:
    """The part of a monthly plan fee that one run carries, at the user's pace of work."""
    if monthly_fee_usd <= 0:
        return 0.0
    return monthly_fee_usd / max(runs_per_month, 1.0)


def usd_per_batch_item(usd_per_hour: float, max_batch: int) -> float | None:
    """Price per hour / largest batch that fits; None ("does not fit") when not even 1 fits."""
    if max_batch < 1:
        return None
    return usd_per_hour / max_batch


def usd_per_item(run_usd: float, items: float) -> float:
    return run_usd / items


# --------------------------------------------------------------------------- efficiency ratios


def cost_efficiency(
    usd_per_hour: float,
    bandwidth_gbs: float,
    cuda_cores: int | None,
    memory_gb: float,
    fp32_tflops: float,
) -> dict[str, float | None]:
    """The Paperspace benchmark's ratios of $/h to GB/min, 100 CUDA cores, GB and FP32 TFLOPS."""
    return {
        "per_gb_per_min_bandwidth": usd_per_hour / bandwidth_gbs * 60,
        "per_100_cuda_cores": usd_per_hour / cuda_cores * 100 if cuda_cores else None,
        "per_gb_memory": usd_per_hour / memory_gb,
        "per_fp32_tflops": usd_per_hour / fp32_tflops,
    }
