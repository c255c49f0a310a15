"""The field's maintained price catalogs, read as they are published: gpuhunt's per-provider CSVs
and SkyPilot's per-cloud `vms.csv` files, each row as a `CatalogRow` of its real provider.

Formats (both CSV with a header row; a column is found by its name, never its place):
- gpuhunt (dstackai/gpuhunt, `_internal/storage.py` CATALOG_V2_FIELDS), one file per provider:
    instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,
    gpu_vendor,flags,cpu_arch,provider_data
  `price` is USD per hour for the instance, `spot` is 'True' or 'False', `gpu_memory` GB per GPU.
- SkyPilot (skypilot-org/skypilot-catalog, catalogs/v8/<cloud>/vms.csv):
    InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
  in an order that differs per cloud (AWS adds AvailabilityZone and Arch, Verda UpstreamCloudId);
  `Price` and `SpotPrice` are USD per hour for the instance, either may be empty. Shadeform's
  catalog resells many clouds: its InstanceType is '<cloud>_<type>' ('massedcompute_A6000x8').

Rules kept here:
- pure: text in, rows out; a file that is not such a CSV is a FeedError in one line;
- only GPU rows: a row without an accelerator, or with a count under one, is no GPU offer;
- a row whose price does not read as a positive number is skipped (an empty SpotPrice is no
  spot offer), never guessed; the GPU name stays the catalog's own (each provider's table maps
  it, costcalc.providers.gpu_names);
- rows repeated per availability zone are one offer per region: on-demand prices are the
  region's, a spot price the cheapest of its zones (as SkyPilot itself reads them).
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping

from msgspec import Struct
from msgspec.structs import replace

from .common import FeedError, as_text, price

GPUHUNT_COLUMNS = ("instance_name", "location", "price", "gpu_count", "gpu_name", "spot")
"""The gpuhunt columns a row cannot do without."""
SKYPILOT_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
"""The SkyPilot columns a row cannot do without (SpotPrice, GpuInfo and zones may be absent)."""
AGGREGATORS = frozenset({"shadeform"})
"""SkyPilot catalogs whose InstanceType names the cloud that runs the machine."""
MAX_FIELD = 2000
"""Longest cell read: a GpuInfo dict is a few hundred characters."""


class CatalogRow(Struct, frozen=True):
    """One GPU offer as a catalog lists it, with the provider that rents it out."""

    provider: str
    """The catalog's name for who rents it: 'verda', 'aws', 'massedcompute'."""
    instance: str
    region: str
    gpu_name: str
    """The catalog's GPU name ('H100', 'A100-80GB', 'RTXPro6000')."""
    gpu_count: int
    usd_per_hour: float
    spot: bool = False
    gpu_memory_gb: float | None = None
    vcpus: int | None = None
    ram_gb: float | None = None
    zones: int = 1
    """How many availability zones the row stands for (its spot price is their cheapest)."""


def _reader(payload: bytes | str, required: Iterable[str], what: str) -> Iterator[dict[str, str]]:
    text = as_text(payload)
    head = text.lstrip()[:200].lower()
    if not head:
        raise FeedError(f"empty {what}")
    if head.startswith("<"):
        raise FeedError(f"got HTML, not the {what} CSV")
    csv.field_size_limit(MAX_FIELD * 8)
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or ())]
    if missing:
        raise FeedError(f"not a {what} CSV: no column {', '.join(missing)}")
    try:
        yield from reader
    except csv.Error as exc:
        raise FeedError(f"{what} CSV breaks at line {reader.line_num}: {exc}") from exc


def _count(text: str | None) -> int | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return int(value) if value >= 1 and value == int(value) else None


def _number(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if value > 0 and value == value and value != float("inf") else None


def _whole(text: str | None) -> int | None:
    value = _number(text)
    return int(value) if value is not None and value >= 1 else None


# --------------------------------------------------------------------------- gpuhunt


_ZONE = re.compile(r"^([a-z]+-[a-z]+\d+)-[a-z]$")
"""A GCP zone ('us-central1-a'); gpuhunt's GCP catalog is per zone, costcalc's offers per region."""


def _merge_zones(rows: Iterable[CatalogRow]) -> list[CatalogRow]:
    """One row per instance, region and kind: a region's price (the cheapest zone's)."""
    merged: dict[tuple[str, str, str, bool], CatalogRow] = {}
    for row in rows:
        key = (row.provider, row.instance, row.region, row.spot)
        seen = merged.get(key)
        if seen is None:
            merged[key] = row
        else:
            cheaper = row if row.usd_per_hour < seen.usd_per_hour else seen
            merged[key] = replace(cheaper, zones=seen.zones + 1)
    return list(merged.values())


def parse_gpuhunt(payload: bytes | str, provider: str) -> list[CatalogRow]:
    """The GPU rows of one provider's gpuhunt catalog file (`<provider>.csv`)."""
    rows = []
    for line in _reader(payload, GPUHUNT_COLUMNS, "gpuhunt catalog"):
        count = _count(line.get("gpu_count"))
        name = (line.get("gpu_name") or "").strip()
        usd = price(line.get("price"))
        if count is None or not name or usd is None or len(name) > MAX_FIELD:
            continue
        if (line.get("gpu_vendor") or "nvidia").lower() not in ("nvidia", "amd"):
            continue  # TPUs, Gaudi, Tenstorrent: no catalog key, and no GPU offer to compare
        location = (line.get("location") or "").strip()[:MAX_FIELD]
        zone = _ZONE.match(location) if provider == "gcp" else None
        rows.append(
            CatalogRow(
                provider=provider,
                instance=(line.get("instance_name") or "").strip()[:MAX_FIELD],
                region=zone[1] if zone else location,
                gpu_name=name,
                gpu_count=count,
                usd_per_hour=usd,
                spot=(line.get("spot") or "").strip().lower() == "true",
                gpu_memory_gb=_number(line.get("gpu_memory")),
                vcpus=_whole(line.get("cpu")),
                ram_gb=_number(line.get("memory")),
            )
        )
    return _merge_zones(rows)


# --------------------------------------------------------------------------- SkyPilot


def gpu_memory_gb(info: str | None) -> float | None:
    """Memory per GPU from a GpuInfo cell: a Python or JSON dict with Gpus[0].MemoryInfo.SizeInMiB,
    which most clouds write in MiB and Shadeform in GB (a value under 1,024 is GB)."""
    if not info or len(info) > MAX_FIELD:
        return None
    try:
        data = json.loads(info)
    except ValueError:
        try:
            data = ast.literal_eval(info)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    try:
        size = float(data["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if size <= 0:
        return None
    return size if size < 1024 else size / 1024


def _provider_of(cloud: str, instance: str) -> tuple[str, str]:
    if cloud in AGGREGATORS and "_" in instance:
        who, _, rest = instance.partition("_")
        return who.lower(), rest
    return cloud, instance


def parse_skypilot(payload: bytes | str, cloud: str) -> list[CatalogRow]:
    """The GPU rows of one SkyPilot `vms.csv`: an on-demand row for each Price, a spot row for
    each SpotPrice, one per instance type and region (GCP's composed from its host and GPU
    rows, `gcp_machines`)."""
    lines = _reader(payload, SKYPILOT_COLUMNS, "SkyPilot catalog")
    if cloud == "gcp":
        return gcp_machines(lines)
    rows: list[CatalogRow] = []
    for line in lines:
        name = (line.get("AcceleratorName") or "").strip()
        count = _count(line.get("AcceleratorCount"))
        instance = (line.get("InstanceType") or "").strip()
        region = (line.get("Region") or "").strip()
        if not name or count is None or not instance or not region:
            continue  # no accelerator, or a GPU sold apart from its host (GCP's n1 GPUs)
        if max(len(name), len(instance), len(region)) > MAX_FIELD:
            continue
        provider, instance = _provider_of(cloud, instance)
        memory = gpu_memory_gb(line.get("GpuInfo"))
        for spot, column in ((False, "Price"), (True, "SpotPrice")):
            usd = price((line.get(column) or "").strip())
            if usd is None:
                continue
            rows.append(
                CatalogRow(
                    provider=provider,
                    instance=instance,
                    region=region,
                    gpu_name=name,
                    gpu_count=count,
                    usd_per_hour=usd,
                    spot=spot,
                    gpu_memory_gb=memory,
                    vcpus=_whole(line.get("vCPUs")),
                    ram_gb=_number(line.get("MemoryGiB")),
                )
            )
    return _merge_zones(rows)


GCP_MACHINE_GPUS: dict[str, tuple[str, int, float]] = {
    **{f"a2-highgpu-{n}g": ("A100", n, 40.0) for n in (1, 2, 4, 8)},
    "a2-megagpu-16g": ("A100", 16, 40.0),
    **{f"a2-ultragpu-{n}g": ("A100-80GB", n, 80.0) for n in (1, 2, 4, 8)},
    **{f"a3-highgpu-{n}g": ("H100", n, 80.0) for n in (1, 2, 4, 8)},
    "a3-edgegpu-8g": ("H100", 8, 80.0),
    "a3-megagpu-8g": ("H100-MEGA", 8, 80.0),
    "a3-ultragpu-8g": ("H200", 8, 141.0),
    "a4-highgpu-8g": ("B200", 8, 180.0),
    **{f"g2-standard-{c}": ("L4", 1, 24.0) for c in (4, 8, 12, 16, 32)},
    "g2-standard-24": ("L4", 2, 24.0),
    "g2-standard-48": ("L4", 4, 24.0),
    "g2-standard-96": ("L4", 8, 24.0),
}
"""GCP machine types with GPUs built in -> SkyPilot's accelerator name, the GPUs and their GB
(Compute Engine's accelerator-optimized machine pages). GCP prices the host and the GPUs as
separate SKUs and SkyPilot's catalog keeps them apart (host rows without an accelerator, GPU
rows without an instance type): a whole VM costs its host plus its GPUs, never the host alone
(the trap of skypilot-catalog#31, '$0.94 vs $4.05'). GPUs attached to N1 hosts are left out:
the host is the user's choice, so no one price is the offer's."""


def gcp_machines(lines: Iterable[dict[str, str]]) -> list[CatalogRow]:
    """Whole-VM rows of GCP's accelerator-optimized machines: host + GPUs, per region, each
    zone's price the region's (on demand) or the cheapest zone's (spot)."""
    hosts: dict[tuple[str, str], dict[bool, float]] = {}
    gpus: dict[tuple[str, int, str], dict[bool, float]] = {}
    shapes: dict[str, tuple[int | None, float | None]] = {}
    for line in lines:
        instance = (line.get("InstanceType") or "").strip()
        region = (line.get("Region") or "").strip()
        name = (line.get("AcceleratorName") or "").strip()
        if not region:
            continue
        if instance and instance in GCP_MACHINE_GPUS:
            place: dict[bool, float] = hosts.setdefault((instance, region), {})
            shapes[instance] = (_whole(line.get("vCPUs")), _number(line.get("MemoryGiB")))
        elif not instance and name:
            count = _count(line.get("AcceleratorCount"))
            if count is None:
                continue
            place = gpus.setdefault((name, count, region), {})
        else:
            continue
        for spot, column in ((False, "Price"), (True, "SpotPrice")):
            usd = price((line.get(column) or "").strip())
            if usd is not None:
                place[spot] = min(usd, place.get(spot, usd))
    rows = []
    for (instance, region), host in hosts.items():
        name, count, memory = GCP_MACHINE_GPUS[instance]
        whole = gpus.get((name, count, region))
        each = gpus.get((name, 1, region))
        for spot, host_usd in host.items():
            if whole is not None and spot in whole:
                gpu_usd = whole[spot]
            elif each is not None and spot in each:
                gpu_usd = each[spot] * count
            else:
                continue  # no price for its GPUs in this region: no whole price either
            vcpus, ram = shapes.get(instance, (None, None))
            rows.append(
                CatalogRow(
                    provider="gcp",
                    instance=instance,
                    region=region,
                    gpu_name=name,
                    gpu_count=count,
                    usd_per_hour=round(host_usd + gpu_usd, 5),
                    spot=spot,
                    gpu_memory_gb=memory,
                    vcpus=vcpus,
                    ram_gb=ram,
                )
            )
    return rows


def by_provider(rows: Iterable[CatalogRow]) -> Mapping[str, list[CatalogRow]]:
    """Rows grouped by the provider that rents them out, in first-seen order."""
    found: dict[str, list[CatalogRow]] = {}
    for row in rows:
        found.setdefault(row.provider, []).append(row)
    return found
