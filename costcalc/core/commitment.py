"""What a commitment costs a year, and when it may stand against buying a desktop.

A commitment (an AWS reserved instance or savings plan, an Azure reservation, a GCP
committed-use discount) is a price per hour owed for every hour of its term, used or not, so:

- its yearly cost is price/h x 8,760 h for each instance the work needs, whatever the
  utilisation (on-demand costs price/h x the hours used);
- the instances the work needs: ceil(hours needed a year / 8,760), at least one (a slower cloud
  GPU at high utilisation can need more hours than a year has);
- it is compared with buying only when the horizon covers the term: a 1-year term against a
  1-year or longer horizon, a 3-year term against a 3-year or longer one. Over a horizon
  longer than the term the commitment is renewed at the same price (a 1-year term renewed
  three times covers a 3-year horizon); when the horizon is not a whole number of terms, the
  last term is paid in full and its cost is spread over the horizon (a 1-year term over a
  2.5-year horizon pays 3 years: x 3 / 2.5 on the yearly cost). A term longer than the horizon
  (3 years against 1) is shown, costed the same way, but never decides the verdict: whoever
  buys it pays for years they said they would not use.

Rule kept here: pure arithmetic; docs/method.md ("Commitments") states the same formula.
"""

from __future__ import annotations

import math

from costcalc.core.engine import HOURS_PER_YEAR

_EPS = 1e-9


def instances_needed(hours_per_year: float) -> int:
    """Committed instances that give `hours_per_year` of compute: at least one."""
    return max(1, math.ceil(hours_per_year / HOURS_PER_YEAR - _EPS))


def terms_paid(term_years: float, horizon_years: float) -> int:
    """Terms bought to cover the horizon: the term renewed until the horizon is covered."""
    return max(1, math.ceil(horizon_years / term_years - _EPS))


def committed_usd_per_year(
    usd_per_hour: float, hours_per_year: float, term_years: float, horizon_years: float
) -> float:
    """Yearly cost of a commitment: price/h x 8,760 h x instances needed, times the terms paid
    over the horizon's length in years (1 when the horizon is a whole number of terms).

    1-year term at $2.401/h, 7,008 h of work a year (80 %), 3-year horizon:
    2.401 x 8,760 x 1 x (3 x 1 / 3) = $21,032.76 a year."""
    paid_years = terms_paid(term_years, horizon_years) * term_years
    return (
        usd_per_hour
        * HOURS_PER_YEAR
        * instances_needed(hours_per_year)
        * (paid_years / horizon_years)
    )


def fits_horizon(term_years: float, horizon_years: float) -> bool:
    """Whether a commitment may decide the verdict: its term no longer than the horizon."""
    return term_years <= horizon_years + _EPS


def term_label(term_years: int) -> str:
    """'1-yr reserved': how tables and the verdict name a commitment."""
    return f"{term_years}-yr reserved"
