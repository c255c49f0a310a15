"""The readings of an offer's price beyond the prices in use, read from disk: other dated
sources of the bundled prices (prices/readings.yaml) and the user's refresh history: the reader
`quick` and the app hand `scenario.evaluate` (core.ranges.ReadingsOf), which asks it for the
verdict's offer (the app keeps what it read per offer, in its screen, never in a widget).

Rule kept here: reading only; the range and whether the verdict holds across it are
costcalc.core.ranges' (pure)."""

from __future__ import annotations

from costcalc.core.models import CloudOffer
from costcalc.core.ranges import Point, ReadingsFile, cross_points
from costcalc.edge import locations
from costcalc.edge.resources import PRICES_PACKAGE, load_yaml_resource


def recorded_points(offer: CloudOffer) -> list[Point]:
    """Readings of `offer` (its provider, GPUs and region) from other dated sources and the
    user's refresh history; the history is read only when its file exists."""
    bundled = load_yaml_resource(PRICES_PACKAGE, "readings.yaml", ReadingsFile)
    points = cross_points(offer, bundled.readings)
    if not locations.exists(locations.history_db_text()):
        return points
    from costcalc.store import history  # sqlite3, only for a user who has a history

    found = history.query(gpu=offer.gpu, provider=offer.provider, region=offer.region)
    points += [
        (s.name, p.fetched_at, p.usd_per_hour, "history")
        for s in found
        if s.gpu_count == offer.gpu_count
        for p in s.points
    ]
    return points
