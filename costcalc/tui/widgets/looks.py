"""How each line of the break-even plots looks, in both plots and in their legend: the desktop a
thin braille line, the selected offer a thick block line, the cheapest a dotted one."""

from __future__ import annotations

from msgspec import Struct


class Look(Struct, frozen=True):
    """How one line is drawn: plotext's marker, the legend's sample of it, and its colour."""

    marker: str
    sample: str
    rgb: tuple[int, int, int]

    @property
    def style(self) -> str:
        r, g, b = self.rgb
        return f"bold rgb({r},{g},{b})"


DESKTOP = Look("braille", "⠒⠒", (70, 150, 255))
OFFERS = (Look("hd", "▄▄", (255, 140, 30)), Look("dot", "••", (60, 190, 90)))
"""The first offer (the selected one) and the second (the cheapest, when it is another)."""
