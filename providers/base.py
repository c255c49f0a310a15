"""The one interface every price provider implements, and the plain implementation most use.

Rule kept here: a provider is data plus two functions. It names its bundled snapshot (a dated
YAML file in prices/), how its snapshot becomes offers, how old its prices may get before they
are called stale, the environment variables it reads, whether its offers guarantee a GPU, and,
when it has a machine-readable source, how `costcalc refresh` fetches a new snapshot. Adding a
provider is one module in providers/ that defines `PROVIDER`, one data file in prices/, one test
module, and one line in providers/registry.py (docs/providers.md walks through it): its GPU-name
table and the settings it reads are fields here, so no other file lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from costcalc.core.models import CloudOffer, ColabSnapshot, OfferRow, PriceSnapshot
from costcalc.core.offers import Snapshot, offers_from_price_snapshot
from costcalc.edge.resources import PRICES_PACKAGE

from .catalog_spec import CatalogFeed
from .gpu_names import Choice

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

Progress = Callable[[str], None]


class EnvVar(Struct, frozen=True):
    """An environment variable a provider reads: a URL override or a credential."""

    name: str
    what: str
    secret: bool = False
    """Credentials are sent only to their provider's own https host, and never printed."""
    optional: bool = False
    """A credential the live fetch can do without (sent when set, e.g. Vast.ai's API key)."""
    aliases: tuple[str, ...] = ()
    """Other names read for the same setting, after `name` (the provider's own CLI's variable,
    e.g. VAST_API_KEY), so a key already set for that tool works here too."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every variable this setting reads, in the order they are tried."""
        return (self.name, *self.aliases)


CATALOG_ENV: tuple[EnvVar, ...] = (
    EnvVar("COSTCALC_GPUHUNT_URL", "gpuhunt's published catalog (the base its v3 files are under)"),
    EnvVar("COSTCALC_SKYPILOT_URL", "SkyPilot's hosted catalogs (the base of v8/<cloud>/vms.csv)"),
    EnvVar("COSTCALC_SKYPILOT_COMMITS_URL", "GitHub's commits API for the SkyPilot files' dates"),
)
"""The settings of every provider read from the field's catalogs (providers/catalogs.py)."""


class Fetched(Struct, frozen=True):
    """A fetched snapshot and the GPU names the feed offered that no table maps: skipped, and
    reported once in the refresh's result (`refresh --json` counts them)."""

    snapshot: PriceSnapshot
    unknown_gpus: tuple[str, ...] = ()
    readings: tuple[OfferRow, ...] = ()
    """Other dated readings of the snapshot's own offers (a catalog's price for an offer the
    direct feed priced), named as the offer they read: the refresh records them in the history,
    where `quick` shows them in the offer's range, and never stores them as offers."""
    note: str = ""
    """What the refresh's line should add ('cross-checked 12 offers against the catalogs')."""
    from_catalogs: tuple[OfferRow, ...] = ()
    """The snapshot's rows that came from the field's catalogs, each dated by its catalog file
    (not by the refresh): the refresh records them in the history as observed."""


class Skip(Struct, frozen=True):
    """A refresh with nothing to fetch (no public source, or no credentials), and why."""

    hint: str = ""
    """What the user can do about it, e.g. which variable enables a live fetch."""


class Provider(Protocol):
    """What the registry, `costcalc prices`, `refresh`, the app and the docs ask of a provider."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def short(self) -> str:
        """The label in a table column ('AWS spot'); empty when the label is short already."""
        ...

    @property
    def snapshot_file(self) -> str: ...
    @property
    def snapshot_package(self) -> str:
        """The package the bundled snapshot ships in: costcalc.data.prices."""
        ...

    @property
    def snapshot_model(self) -> type[PriceSnapshot] | type[ColabSnapshot]: ...
    @property
    def guaranteed_gpu(self) -> bool: ...
    @property
    def env(self) -> tuple[EnvVar, ...]: ...
    @property
    def gpu_names(self) -> Mapping[str, Choice]:
        """The feed's GPU names (compared as `gpu_names.compact` writes them) -> catalog keys."""
        ...

    @property
    def ignored_gpus(self) -> Mapping[str, str]:
        """Names in the feed that are no GPU offer at all (placeholders), with the reason."""
        ...

    @property
    def live(self) -> bool:
        """True when `refresh` can fetch prices (perhaps only with credentials)."""
        ...

    def offers(self, snapshot: Snapshot) -> list[CloudOffer]: ...

    def refresh(
        self, client: HttpClient, now: datetime, progress: Progress
    ) -> PriceSnapshot | Fetched | Skip: ...


Fetcher = Callable[["HttpClient", datetime, Progress], "PriceSnapshot | Fetched | Skip"]


class Feed(Struct, frozen=True):
    """A Fetcher that imports its module when first called: see `feed`."""

    package: str | None
    module: str
    function: str

    def load(self) -> Fetcher:
        """The named function, its module imported now (importlib keeps it for later calls)."""
        from importlib import import_module

        found: Fetcher = getattr(import_module(self.module, self.package), self.function)
        return found

    def __call__(
        self, client: HttpClient, now: datetime, progress: Progress
    ) -> PriceSnapshot | Fetched | Skip:
        return self.load()(client, now, progress)


def feed(package: str | None, module: str, function: str) -> Feed:
    """A provider's `fetch`, named rather than imported: `fetch=feed(__package__, ".runpod_feed",
    "refresh")` runs runpod_feed.refresh, importing providers/runpod_feed.py on the first call.

    Why: `costcalc quick` and the app read every provider's description (the price book asks
    `registry.every()`), but only `refresh` runs a feed, so a provider keeps its fetching and
    parsing in providers/<name>_feed.py and quick never loads it (issue 38's start-up target:
    loading the feeds was 1.5 % of quick's instructions with bytecode, 3 % without). `package`
    is the describing module's `__package__`, not written out, because the same files are
    imported as `costcalc.providers` at run time and as `providers` by mypy.
    """
    return Feed(package, module, function)


class FeedProvider(Struct, frozen=True, eq=False):
    """A provider whose snapshot is a PriceSnapshot: the shape almost every provider has."""

    name: str
    label: str
    snapshot_file: str
    fetch: Fetcher | None = None
    """None: a curated table only; `refresh` reports it as skipped, with its age."""
    short: str = ""
    guaranteed_gpu: bool = True
    env: tuple[EnvVar, ...] = ()
    gpu_names: Mapping[str, Choice] = field(default_factory=dict)
    """What its feed calls each GPU -> the catalog key (read through gpu_names.GpuNames); a
    curated table writes catalog keys itself and needs none."""
    ignored_gpus: Mapping[str, str] = field(default_factory=dict)
    snapshot_model: type[PriceSnapshot] | type[ColabSnapshot] = PriceSnapshot
    to_offers: Callable[[Snapshot], list[CloudOffer]] | None = None
    snapshot_package: str = PRICES_PACKAGE
    catalogs: CatalogFeed | None = None
    """The field's catalogs (gpuhunt, SkyPilot) that list this provider, and how to read its
    rows there (providers/catalog_spec.py): beside `fetch`, or instead of it; the refresh adds
    them to what `refresh` returns (providers/from_catalogs.py)."""

    @property
    def live(self) -> bool:
        return self.fetch is not None or self.catalogs is not None

    def offers(self, snapshot: Snapshot) -> list[CloudOffer]:
        if self.to_offers is not None:
            found = self.to_offers(snapshot)
        else:
            assert isinstance(snapshot, PriceSnapshot)
            found = offers_from_price_snapshot(snapshot)
        if self.guaranteed_gpu:
            return found
        return [replace(o, **{"guaranteed": False}) for o in found]

    def refresh(
        self, client: HttpClient, now: datetime, progress: Progress
    ) -> PriceSnapshot | Fetched | Skip:
        if self.fetch is None:
            return Skip()
        return self.fetch(client, now, progress)
