"""How fast the new providers' parsers are, next to the bare JSON decode of the same bytes.

1. Vast.ai: a 10,000-offer bundles answer in the real shape (offers cloned from the recorded
   fixture with varied GPU names, counts, prices, verification and reliability), parsed by
   `costcalc.providers.vast.parse` (decode, filter, group, percentiles).
2. Azure: a full Retail Prices page set (10 pages of 1,000 items: NC/ND/NV sizes in 50 regions,
   Linux, Windows, spot and Low Priority meters, as the API pages them), parsed page by page by
   `costcalc.providers.azure.parse`.

Each parser and `json.loads` of the same bytes are timed interleaved in one run, and the median
of --repeat runs is printed, because this machine is shared and noisy.

Run: .venv/bin/python benchmarks/bench_providers.py [--repeat N]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

FEEDS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "feeds"

VAST_NAMES = [
    ("RTX 4090", 24564),
    ("RTX 3090", 24576),
    ("RTX 5090", 32607),
    ("A100 SXM4", 81920),
    ("A100 PCIE", 40960),
    ("H100 SXM", 81559),
    ("H100 NVL", 95830),
    ("L40S", 46068),
    ("RTX A6000", 49140),
    ("A800 PCIE", 81920),  # not in the catalog: reported, not guessed
]
AZURE_SIZES = [
    "Standard_NC24ads_A100_v4",
    "Standard_NC48ads_A100_v4",
    "Standard_NC96ads_A100_v4",
    "Standard_NC40ads_H100_v5",
    "Standard_NC80adis_H100_v5",
    "Standard_ND96isr_H100_v5",
    "Standard_ND96amsr_A100_v4",
    "Standard_NC4as_T4_v3",
    "Standard_NC64as_T4_v3",
    "Standard_NV36ads_A10_v5",
    "Standard_NV12ads_A10_v5",
    "Standard_NC128ds_xl_RTXPRO6000BSE_v6",
]


def vast_answer(n: int, rng: random.Random) -> bytes:
    template = json.loads((FEEDS / "vast-bundles.json").read_text())["offers"]
    offers = []
    for i in range(n):
        offer = copy.copy(rng.choice(template))
        name, ram = rng.choice(VAST_NAMES)
        count = rng.choice((1, 1, 1, 2, 2, 4, 8))
        offer.update(
            id=40_000_000 + i,
            gpu_name=name,
            gpu_ram=ram,
            num_gpus=count,
            dph_base=round(rng.uniform(0.2, 3.0) * count, 4),
            min_bid=round(rng.uniform(0.1, 1.5) * count, 4),
            storage_cost=rng.choice((0.1, 0.15, 0.2, 0.3)),
            reliability2=round(rng.uniform(0.85, 0.999), 4),
            verification=rng.choice(("verified", "verified", "verified", "unverified")),
        )
        offers.append(offer)
    return json.dumps({"offers": offers}).encode()


def azure_pages(pages: int, per_page: int, rng: random.Random) -> list[bytes]:
    template = json.loads((FEEDS / "azure-prices-page1.json").read_text())
    item = template["Items"][0]
    regions = [f"region{i:02d}" for i in range(50)]
    meters = [("", "Linux"), (" Spot", "Linux"), (" Low Priority", "Linux"), ("", "Windows")]
    out = []
    for page in range(pages):
        items = []
        for _ in range(per_page):
            size = rng.choice(AZURE_SIZES)
            meter, os_name = rng.choice(meters)
            short = size.removeprefix("Standard_").replace("_", " ")
            product = "Virtual Machines Series" + (" Windows" if os_name == "Windows" else "")
            items.append(
                {
                    **item,
                    "armSkuName": size,
                    "armRegionName": rng.choice(regions),
                    "meterName": short + meter,
                    "skuName": short + meter,
                    "productName": product,
                    "retailPrice": round(rng.uniform(0.3, 90.0), 6),
                }
            )
        following = None if page == pages - 1 else f"https://prices.azure.com/p?$skip={page + 1}"
        out.append(json.dumps({**template, "Items": items, "NextPageLink": following}).encode())
    return out


def median_seconds(runs: list[float]) -> str:
    return f"{statistics.median(runs) * 1000:8.1f} ms"


def side_by_side(
    label: str, parse: Callable[[], Any], decode: Callable[[], Any], repeat: int
) -> None:
    parsed: list[float] = []
    decoded: list[float] = []
    for _ in range(repeat):  # interleaved, so both see the same machine load
        start = time.perf_counter()
        decode()
        decoded.append(time.perf_counter() - start)
        start = time.perf_counter()
        parse()
        parsed.append(time.perf_counter() - start)
    ratio = statistics.median(parsed) / statistics.median(decoded)
    print(
        f"{label:<44} parse {median_seconds(parsed)}   json.loads {median_seconds(decoded)}"
        f"   ratio {ratio:4.1f}x   (median of {repeat})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    from costcalc.providers import azure_feed, vast_feed

    rng = random.Random(20261123)
    answer = vast_answer(10_000, rng)
    found = vast_feed.parse(answer, date(2026, 11, 23))
    print(
        f"Vast.ai answer: 10,000 offers, {len(answer) / 2**20:.1f} MB -> {len(found.rows)} "
        f"summary offers, {len(found.unknown_gpus)} unknown GPU name(s)"
    )
    side_by_side(
        "vast_feed.parse (10,000 offers)",
        lambda: vast_feed.parse(answer, date(2026, 11, 23)),
        lambda: json.loads(answer),
        args.repeat,
    )

    pages = azure_pages(10, 1000, rng)
    found = azure_feed.parse(pages)
    size = sum(len(p) for p in pages) / 2**20
    print(
        f"Azure page set: 10 pages x 1,000 items, {size:.1f} MB -> {len(found.rows)} offers, "
        f"{len(found.unknown_gpus)} unmapped size(s)"
    )
    side_by_side(
        "azure_feed.parse (10 pages, 10,000 items)",
        lambda: azure_feed.parse(pages),
        lambda: [json.loads(p) for p in pages],
        args.repeat,
    )


if __name__ == "__main__":
    main()
