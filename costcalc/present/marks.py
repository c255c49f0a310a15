"""The marks an offer's row carries in the CLI's tables and the app's, and the legend that says
what they mean.

Rule kept here: a mark is decided by the comparison alone, the same in every view: ★ the
verdict's offer (always the first row), † a stale price the verdict set aside
(`Comparison.set_aside`: cheaper, but of a kind that moves and too old to decide), ✗ a GPU that
cannot hold the job (the app; the CLI's cells say "does not fit"), and " *" after a name: no
guaranteed GPU, which is not the same as free (Colab's Pay As You Go has none and is paid).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from costcalc.core.compare import Comparison
from costcalc.core.models import OfferResult
from costcalc.core.tiers import is_free

VERDICT = "★"
SET_ASIDE = "†"
NO_FIT = "✗"
UNGUARANTEED = " *"
"""After an offer's name (display.clip keeps it when the name is cut)."""


def set_aside(result: OfferResult, comparison: Comparison) -> bool:
    """Whether the verdict left `result` out as a stale price."""
    return any(result is other for other in comparison.set_aside)


def mark(result: OfferResult, comparison: Comparison) -> str:
    """The row's mark: VERDICT, SET_ASIDE or a space."""
    if result is comparison.best:
        return VERDICT
    return SET_ASIDE if set_aside(result, comparison) else " "


def verdict_first(rows: Sequence[OfferResult], comparison: Comparison) -> list[OfferResult]:
    """`rows` in their order, the verdict's offer moved to the top when it is among them."""
    best = comparison.best
    first = [r for r in rows if r is best]
    return [*first, *(r for r in rows if r is not best)]


def legend(results: Iterable[OfferResult], comparison: Comparison) -> str | None:
    """One line for the marks the rows carry, or None when they carry none."""
    shown = list(results)
    parts = []
    if any(r is comparison.best for r in shown):
        parts.append(f"{VERDICT} the verdict")
    if any(set_aside(r, comparison) for r in shown):
        parts.append(f"{SET_ASIDE} left out as stale")
    unguaranteed = [r for r in shown if not r.offer.guaranteed]
    if unguaranteed:
        free = " ($0: a free tier)" if any(is_free(r.offer) for r in unguaranteed) else ""
        parts.append(f"{UNGUARANTEED.strip()} no guaranteed GPU{free}, never the verdict")
    return "; ".join(parts) if parts else None
