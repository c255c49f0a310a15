"""How fast the refresh job is: the spot-feed parser on a full-size payload, and a whole refresh.

1. Generates a spot.json payload in the real shape (about 3 MB: ~30 regions, every instance
   family, Linux and Windows prices, some "N/A*") and times `costcalc.providers.aws_spot.parse`
   against a bare `json.loads` of the same payload, interleaved, best of N. Target: well under
   0.5 s.
2. Serves generated spot, advisor and on-demand feeds from a local HTTP server on 127.0.0.1 and
   times `costcalc.feeds.refresh.run_refresh(["aws-spot", "aws-ondemand"])` end to end (download,
   parse, checks, snapshot writes, history transaction) in a throwaway COSTCALC_HOME.

Run: .venv/bin/python benchmarks/bench_refresh.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REGIONS = [
    "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1", "ca-west-1", "sa-east-1",
    "eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1", "eu-central-2", "eu-north-1",
    "eu-south-1", "eu-south-2", "me-south-1", "me-central-1", "il-central-1", "af-south-1",
    "ap-east-1", "ap-south-1", "ap-south-2", "ap-northeast-1", "ap-northeast-2",
    "ap-northeast-3", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4",
    "us-west-2-lax-1",
]  # fmt: skip
BLOCKS = {
    "generalCurrentGen": [
        "m5",
        "m5a",
        "m5d",
        "m6i",
        "m6a",
        "m6g",
        "m7i",
        "m7a",
        "m7g",
        "t3",
        "t4g",
    ],
    "computeCurrentGen": [
        "c5",
        "c5a",
        "c5n",
        "c6i",
        "c6a",
        "c6g",
        "c7i",
        "c7a",
        "c7g",
        "c5d",
        "c6in",
        "c6id",
        "c7gn",
    ],
    "memoryCurrentGen": [
        "r5",
        "r5a",
        "r5b",
        "r5n",
        "r6i",
        "r6a",
        "r6g",
        "r7i",
        "r7a",
        "r7g",
        "x2idn",
        "x2iedn",
        "z1d",
    ],
    "storageCurrentGen": ["i3", "i3en", "i4i", "d3", "d3en", "im4gn"],
    "gpuCurrentGen": ["g4dn", "g5", "g6", "g6e", "p3", "p4d", "p5", "g4ad", "g5g", "inf1", "inf2"],
}
SIZES = ["medium", "large", "xlarge", "2xlarge", "3xlarge", "4xlarge", "6xlarge", "8xlarge",
         "12xlarge", "16xlarge", "24xlarge", "32xlarge", "48xlarge", "metal"]  # fmt: skip


def spot_payload(seed: int = 7) -> str:
    rng = random.Random(seed)

    def column(name: str) -> dict[str, Any]:
        usd = "N/A*" if rng.random() < 0.05 else f"{rng.uniform(0.1, 40):.4f}"
        return {"name": name, "prices": {"USD": usd}}

    regions = []
    for region in REGIONS:
        blocks = []
        for block, families in BLOCKS.items():
            sizes = [
                {"size": f"{family}.{size}", "valueColumns": [column("linux"), column("mswin")]}
                for family in families
                for size in SIZES
            ]
            blocks.append({"type": block, "sizes": sizes})
        regions.append(
            {
                "region": region,
                "footnotes": {"*": "notAvailableForCCorCGPU"},
                "instanceTypes": blocks,
            }
        )
    doc = {
        "vers": 0.01,
        "config": {
            "rate": "perhr",
            "valueColumns": ["linux", "mswin"],
            "currencies": ["USD"],
            "regions": regions,
        },
    }
    return json.dumps(doc)


def advisor_payload(seed: int = 7) -> str:
    from costcalc.providers.aws_instances import gpu_instances

    rng = random.Random(seed)
    names = list(gpu_instances())
    return json.dumps(
        {
            "instance_types": {n: {"emr": True, "cores": 8, "ram_gb": 64.0} for n in names},
            "ranges": [{"index": i, "label": "x", "dots": i, "max": 5 * (i + 1)} for i in range(5)],
            "spot_advisor": {
                r: {"Linux": {n: {"s": rng.randint(30, 90), "r": rng.randint(0, 4)} for n in names}}
                for r in REGIONS
            },
            "global_rate": "<10%",
        }
    )


def ondemand_payload() -> str:
    from costcalc.providers.aws_instances import gpu_instances

    entries = {
        f"{name} Linux": {"Instance Type": name, "price": f"{0.5 + g.gpu_count * 2:.4f}",
                          "vCPU": "8", "Memory": "64 GiB", "Location": "US East (N. Virginia)"}
        for name, g in gpu_instances().items()
    }  # fmt: skip
    return json.dumps({"manifest": {}, "regions": {"US East (N. Virginia)": entries}})


def best_of(repeat: int, *jobs: Callable[[], object]) -> list[float]:
    """Best wall time of each job over `repeat` interleaved rounds (fair to both)."""
    best = [float("inf")] * len(jobs)
    for _ in range(repeat):
        for i, job in enumerate(jobs):
            started = time.perf_counter()
            job()
            best[i] = min(best[i], time.perf_counter() - started)
    return best


def serve(routes: dict[str, bytes]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds per timing (best is kept)")
    args = parser.parse_args()

    from costcalc.providers import aws_spot_feed

    payload = spot_payload()
    raw = payload.encode()
    rows = aws_spot_feed.parse(raw)
    t_json, t_parse = best_of(
        args.repeat, lambda: json.loads(raw), lambda: aws_spot_feed.parse(raw)
    )
    print(
        f"spot payload: {len(raw) / 2**20:.2f} MB, {len(REGIONS)} regions, {len(rows)} GPU offers"
    )
    print(f"  json.loads          {t_json * 1000:8.1f} ms")
    print(
        f"  aws_spot_feed.parse      {t_parse * 1000:8.1f} ms  ({t_parse / t_json:.2f}x json.loads)"
    )
    verdict = "OK" if t_parse < 0.5 else "TOO SLOW"
    print(f"  target < 500 ms: {verdict}")

    server = serve(
        {
            "/spot.json": raw,
            "/advisor.json": advisor_payload().encode(),
            "/ondemand.json": ondemand_payload().encode(),
        }
    )
    base = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as home:
        os.environ.update(
            COSTCALC_HOME=home,
            COSTCALC_AWS_SPOT_URL=f"{base}/spot.json",
            COSTCALC_AWS_ADVISOR_URL=f"{base}/advisor.json",
            COSTCALC_AWS_ONDEMAND_URL=f"{base}/ondemand.json",
        )
        from costcalc.feeds.refresh import run_refresh

        times = []
        for _ in range(3):
            started = time.perf_counter()
            report = run_refresh(["aws-spot", "aws-ondemand"], force=True)
            times.append(time.perf_counter() - started)
            assert report.exit_code == 0, report.results
        offers = sum(r.offers for r in report.results)
        print(
            "whole refresh (aws-spot + aws-ondemand, local server): "
            f"best {min(times) * 1000:.0f} ms, first {times[0] * 1000:.0f} ms; "
            f"{offers} offers written and recorded"
        )
    server.shutdown()


if __name__ == "__main__":
    main()
