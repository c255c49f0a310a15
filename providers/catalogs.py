"""Downloading the field's catalogs, each file once per refresh, with the date it was true.

Where they are published (both keyless):
- gpuhunt (dstackai/gpuhunt `_internal/catalog.py`, `.github/scripts/publish_catalog.sh`): its CI
  collects each offline provider every hour and publishes, per provider,
  `{base}/{provider}/version` ('20261127-5': the day and the CI run) and then
  `{base}/{provider}/{version}/catalog.zip` holding `{provider}.csv`; base
  https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3 (COSTCALC_GPUHUNT_URL moves it).
- SkyPilot (skypilot-org/skypilot-catalog, read by `sky/catalog/common.py`):
  `{base}/v8/{cloud}/vms.csv`, base
  https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs
  (COSTCALC_SKYPILOT_URL); its date is the file's last commit, from GitHub's commits API
  `{api}?path=catalogs/v8/{cloud}/vms.csv&per_page=1` -> `[{"commit": {"committer": {"date":
  "2026-11-27T07:12:44Z"}}}]` (COSTCALC_SKYPILOT_COMMITS_URL), keyless at 60 requests an hour.

Rules kept here:
- every row keeps the catalog and the date it came from: a gpuhunt file is dated by its version,
  a SkyPilot file by its last commit; a file whose date cannot be had is not used (a price
  without a date is no price costcalc ships or shows);
- each file is downloaded once per refresh however many providers read it (Shadeform's resells
  nine clouds), and a file that failed fails once: the answer, or the error, is kept for the
  rest of that refresh (the same HTTP session) only;
- every download is bounded (`max_bytes`), and a zip is read member by member within the same
  bound, so a catalog cannot fill memory.
"""

from __future__ import annotations

import io
import os
import re
import weakref
import zipfile
from datetime import datetime, timezone
from typing import TYPE_CHECKING
from urllib.parse import quote

from msgspec import Struct

from .base import CATALOG_ENV
from .catalog_rows import CatalogRow, parse_gpuhunt, parse_skypilot
from .catalog_spec import CatalogSource
from .common import FeedError, as_text, expect, load_json, named

if TYPE_CHECKING:
    from costcalc.edge.net import HttpClient

    from .base import Progress

GPUHUNT_ENV, SKYPILOT_ENV, SKYPILOT_COMMITS_ENV = (var.name for var in CATALOG_ENV)
GPUHUNT_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3"
SKYPILOT_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs"
SKYPILOT_COMMITS_URL = "https://api.github.com/repos/skypilot-org/skypilot-catalog/commits"
SKYPILOT_VERSION = "v8"
"""The schema SkyPilot reads today (sky/skylet/constants.py CATALOG_SCHEMA_VERSION)."""

MAX_CATALOG_BYTES = 48 * 1024 * 1024
"""Largest catalog read, zipped or not: SkyPilot's AWS vms.csv, every instance type in every
zone, is about 3.7 MB, its GCP one 2.3 MB; a gpuhunt AWS catalog a few MB."""
MAX_SMALL_BYTES = 64 * 1024
"""A version file or a commits answer: a few hundred bytes."""
_VERSION = re.compile(r"^(\d{8})-\d+$")


class CatalogFile(Struct, frozen=True):
    """One downloaded catalog file: its rows, its date and where it came from."""

    source: str
    """'gpuhunt verda catalog 20261127-5', 'SkyPilot v8 shadeform/vms.csv'."""
    url: str
    dated: datetime
    rows: list[CatalogRow]


_cache: dict[tuple[str, str], CatalogFile | FeedError] = {}
_cache_owner: list[weakref.ref[object]] = []
"""The session of the refresh the cached files belong to, weakly: an id() of it could be a later
refresh's session once the first is freed, and that refresh would then read the first one's
files."""


def _cached(client: HttpClient, key: tuple[str, str]) -> CatalogFile | FeedError | None:
    owner = client.session
    if not _cache_owner or _cache_owner[0]() is not owner:  # a new refresh: forget the last
        _cache.clear()
        _cache_owner[:] = [weakref.ref(owner)]
    return _cache.get(key)


def gpuhunt_base() -> str:
    return (os.environ.get(GPUHUNT_ENV) or GPUHUNT_URL).rstrip("/")


def skypilot_base() -> str:
    return (os.environ.get(SKYPILOT_ENV) or SKYPILOT_URL).rstrip("/")


def skypilot_commits() -> str:
    return os.environ.get(SKYPILOT_COMMITS_ENV) or SKYPILOT_COMMITS_URL


def version_day(version: str) -> datetime:
    """'20261127-5' -> 2026-11-27 00:00 UTC: the day gpuhunt's CI published the catalog."""
    match = _VERSION.match(version)
    if match is None:
        raise FeedError(f"not a gpuhunt catalog version: {version[:40]!r}")
    try:
        return datetime.strptime(match[1], "%Y%m%d").replace(tzinfo=timezone.utc)
    except ValueError as exc:
        raise FeedError(f"not a gpuhunt catalog version: {version[:40]!r}") from exc


def unzip_member(data: bytes, name: str, max_bytes: int) -> bytes:
    """The member `name` of a zip archive, refused when it unpacks past `max_bytes`."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            try:
                info = archive.getinfo(name)
            except KeyError as exc:
                raise FeedError(f"the catalog zip holds no {name}") from exc
            if info.file_size > max_bytes:
                raise FeedError(f"{name} unpacks to {info.file_size:,} bytes, over {max_bytes:,}")
            with archive.open(info) as member:
                body = member.read(max_bytes + 1)
    except (zipfile.BadZipFile, EOFError) as exc:
        raise FeedError(f"not a zip archive ({exc})") from exc
    if len(body) > max_bytes:
        raise FeedError(f"{name} unpacks past {max_bytes:,} bytes")
    return body


def commit_date(payload: bytes | str) -> datetime:
    """The committer date of the first commit in a GitHub commits answer."""
    commits = expect(load_json(payload), list, "the commits answer")
    if not commits:
        raise FeedError("no commit touches the catalog file")
    try:
        text = commits[0]["commit"]["committer"]["date"]
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except (KeyError, TypeError, ValueError) as exc:
        raise FeedError("the commits answer has no committer date") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _gpuhunt(client: HttpClient, provider: str, progress: Progress) -> CatalogFile:
    base = f"{gpuhunt_base()}/{quote(provider)}"
    version = as_text(client.get(f"{base}/version", max_bytes=MAX_SMALL_BYTES)).strip()
    dated = version_day(version)
    url = f"{base}/{quote(version)}/catalog.zip"
    progress(f"downloading {url}")
    data = client.get(url, max_bytes=MAX_CATALOG_BYTES)
    text = unzip_member(data, f"{provider}.csv", MAX_CATALOG_BYTES)
    rows = named(url, lambda: parse_gpuhunt(text, provider))
    return CatalogFile(f"gpuhunt {provider} catalog {version}", url, dated, rows)


def _skypilot(client: HttpClient, cloud: str, progress: Progress) -> CatalogFile:
    path = f"{SKYPILOT_VERSION}/{quote(cloud)}/vms.csv"
    url = f"{skypilot_base()}/{path}"
    progress(f"downloading {url}")
    text = client.get(url, max_bytes=MAX_CATALOG_BYTES)
    rows = named(url, lambda: parse_skypilot(text, cloud))
    from costcalc.edge.net import FetchError

    dates = f"{skypilot_commits()}?path=catalogs/{path}&per_page=1"
    try:
        answer = client.get(dates, max_bytes=MAX_SMALL_BYTES)
        dated = named(dates, lambda: commit_date(answer))
    except (FeedError, FetchError) as exc:
        raise FeedError(
            f"no date for SkyPilot's {cloud} catalog, so it is not used: {exc}"
        ) from exc
    return CatalogFile(f"SkyPilot {SKYPILOT_VERSION} {cloud}/vms.csv", url, dated, rows)


def load(client: HttpClient, source: CatalogSource, progress: Progress) -> CatalogFile:
    """The catalog file `source` reads, downloaded once per refresh (FeedError or FetchError
    when it cannot be had or read: the same error for every provider that reads it)."""
    from costcalc.edge.net import FetchError

    key = (source.catalog, source.file)
    found = _cached(client, key)
    if found is None:
        try:
            if source.catalog == "gpuhunt":
                found = _gpuhunt(client, source.file, progress)
            else:
                found = _skypilot(client, source.file, progress)
        except FetchError as exc:
            found = FeedError(str(exc))
        except FeedError as exc:
            found = exc
        _cache[key] = found
    if isinstance(found, FeedError):
        raise FeedError(f"{source.label}: {found}")
    return found
