"""scripts/bundle_prices.py against the recorded feeds on the local test server, and
`costcalc prices --ages`, the same freshness table for a user's own snapshots."""

from __future__ import annotations

import runpy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace
from werkzeug import Response

from costcalc.cli import main
from costcalc.core.models import FxRates, PriceSnapshot
from costcalc.edge.resources import load_yaml_file
from costcalc.store.freshness import FEED_NOTE, SECOND_READING, readings

ROOT = Path(__file__).resolve().parents[2]
bundle: Callable[[list[str]], int] = runpy.run_path(str(ROOT / "scripts" / "bundle_prices.py"))[
    "main"
]
CURATED = ("nebius.yaml", "jarvislabs.yaml", "lambda.yaml", "paperspace.yaml", "colab.yaml")
"""Providers without a keyless feed: a rebuild must leave their files byte for byte."""


@pytest.fixture
def prices_copy(tmp_path: Path) -> Path:
    """A copy of the bundled prices to rebuild: the repository's own stay untouched."""
    target = tmp_path / "prices"
    shutil.copytree(ROOT / "prices", target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = bundle(list(args))
    return code, capsys.readouterr().out


def test_rebuild_replaces_keyless_feeds_and_keeps_curated_files(
    aws_feeds: Any, prices_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    curated = {name: (prices_copy / name).read_bytes() for name in CURATED}
    code, out = run(capsys, "--prices-dir", str(prices_copy))
    assert code == 0, out
    for name, before in curated.items():
        assert (prices_copy / name).read_bytes() == before, name

    runpod = prices_copy / "runpod.yaml"
    text = runpod.read_text()
    assert text.startswith("# prices/runpod.yaml -- RunPod: rebuilt from its live feed")
    assert "\n# Licence: " in text and "\n# Source: " in text
    snapshot = load_yaml_file(runpod, PriceSnapshot)
    assert snapshot.notes is not None and snapshot.notes.startswith(FEED_NOTE)
    # the recorded GraphQL answer's A100 PCIe Community price, not the curated table's rows
    a100 = [o for o in snapshot.offers if o.gpu == "a100_pcie_80gb" and o.gpu_count == 1]
    assert 1.19 in {o.usd_per_hour for o in a100}
    assert not any("datareceipts" in (o.source or "") for o in snapshot.offers)

    fx = load_yaml_file(prices_copy / "fx.yaml", FxRates)
    assert fx.fetched_at is None  # a bundled file: the rates are of their day
    assert "Euro reference rates: rebuilt" in (prices_copy / "fx.yaml").read_text()

    assert "runpod: bundled" in out and "nebius: kept the curated file" in out
    table = out.split("\n\n", 1)[1]
    assert "runpod.yaml" in table and "nebius.yaml" in table
    assert "cheapest comparable offer" in table
    assert "rtx3090" in table and "80%" in table


def test_a_failing_feed_keeps_its_file_and_fails_the_rebuild(
    aws_feeds: Any, prices_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    aws_feeds.serve("/vast/bundles/", lambda _request: Response("down", status=500))
    before = (prices_copy / "vast.yaml").read_bytes()
    code, out = run(capsys, "--prices-dir", str(prices_copy))
    assert code == 1
    assert "vast: FAILED, kept the old file" in out
    assert (prices_copy / "vast.yaml").read_bytes() == before
    assert "runpod: bundled" in out  # one failing feed blocks no other


def test_ages_only_reads_the_directory_it_is_given(
    prices_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = load_yaml_file(prices_copy / "nebius.yaml", PriceSnapshot)
    moved = replace(
        snapshot, **{"offers": tuple(replace(o, **{"fetched_at": None}) for o in snapshot.offers)}
    )
    from costcalc.edge.resources import write_model_yaml

    write_model_yaml(prices_copy / "nebius.yaml", moved)  # every row now the file's date
    code, out = run(capsys, "--prices-dir", str(prices_copy), "--ages-only")
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("nebius.yaml"))
    day = f"{snapshot.fetched_at:%Y-%m-%d}"
    assert line.count(day) == 2, line  # newest and oldest


def test_not_a_prices_directory_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bundle(["--prices-dir", str(tmp_path), "--ages-only"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a prices directory" in err


def test_prices_ages_tells_a_refreshed_file_from_a_curated_one(
    aws_feeds: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["refresh", "--provider", "runpod", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["prices", "--ages", "--wide"]) == 0
    out = capsys.readouterr().out
    origin = {line.split()[0]: line.split()[1] for line in out.splitlines() if ".yaml " in line}
    assert origin["runpod.yaml"] == "feed"
    assert origin["nebius.yaml"] == "curated"
    assert "deciding rows on one source" in out or "every deciding row" in out


def test_a_second_reading_is_named_in_the_source() -> None:
    from datetime import datetime, timezone

    from costcalc.core.models import CloudOffer

    def offer(source: str) -> CloudOffer:
        return CloudOffer(
            provider="runpod",
            name="1x RTX 3090",
            region="global",
            gpu="rtx3090",
            usd_per_hour=0.22,
            fetched_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
            source=source,
        )

    assert readings(offer("runpod.io/pricing, 2026-11-01"), feed=False) == "one source"
    both = f"runpod.io/pricing, 2026-11-01; {SECOND_READING} other.example, 2026-10-30, 0.23"
    assert readings(offer(both), feed=False) == "two sources"
    assert readings(offer("runpod.io/pricing"), feed=True) == "feed"


RECORDED = ROOT / "tests" / "fixtures" / "feeds" / "catalogs"


def _own_part(path: Path) -> str:
    return path.read_text().split("\n# --- rows from the field's catalogs", 1)[0]


def test_the_recorded_catalogs_build_dated_rows_and_say_what_they_leave_out(
    prices_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--catalogs with no network: the dated copies' rows, every file's own rows kept byte for
    byte, the undated copies left out and said so, the release stated; a second build changes
    nothing."""
    aws_own = _own_part(ROOT / "prices" / "aws_ondemand.yaml")
    code, out = run(
        capsys,
        "--prices-dir",
        str(prices_copy),
        "--catalogs",
        str(RECORDED),
        "--released",
        "2026-11-28",
    )
    assert code == 0, out
    massed = load_yaml_file(prices_copy / "massedcompute.yaml", PriceSnapshot)
    assert massed.offers and {f"{o.fetched_at:%Y-%m-%d}" for o in massed.offers} == {"2026-09-20"}
    assert all(o.tier == "secure" and "shadeform/vms.csv" in str(o.source) for o in massed.offers)
    verda = load_yaml_file(prices_copy / "verda.yaml", PriceSnapshot)
    assert not verda.offers and "no dated copy" in str(verda.notes)
    assert "verda:   left out SkyPilot's verda catalog: undated copy" in out
    aws_path = prices_copy / "aws_ondemand.yaml"
    assert _own_part(aws_path) == aws_own
    aws = load_yaml_file(aws_path, PriceSnapshot)
    added = [o for o in aws.offers if str(o.source).startswith("SkyPilot v8 aws")]
    assert {"eu-north-1", "me-central-1", "ca-central-1"} <= {o.region for o in added}
    assert "released: '2026-11-28'" in (prices_copy / "release.yaml").read_text()
    before = {p.name: p.read_bytes() for p in prices_copy.glob("*.yaml")}
    assert (
        run(
            capsys,
            "--prices-dir",
            str(prices_copy),
            "--catalogs",
            str(RECORDED),
            "--released",
            "2026-11-28",
        )[0]
        == 0
    )
    assert {p.name: p.read_bytes() for p in prices_copy.glob("*.yaml")} == before


def test_a_live_rebuild_adds_catalog_rows_to_a_curated_table_and_keeps_it(
    catalog_feeds: Any, prices_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lambda without a key and Crusoe are filled by the catalogs in a refresh; a rebuild keeps
    their own tables and appends what the catalogs add, never replaces them."""
    for name in ("lambda.yaml", "crusoe.yaml"):
        (prices_copy / name).write_text(_own_part(ROOT / "prices" / name))
    own = {name: (prices_copy / name).read_text() for name in ("lambda.yaml", "crusoe.yaml")}
    code, out = run(capsys, "--prices-dir", str(prices_copy))
    assert code == 0, out
    assert "lambda: kept its table" in out and "crusoe: kept its table" in out, out
    for name, text in own.items():
        after = (prices_copy / name).read_text()
        assert after.startswith(text.rstrip("\n")) and len(after) > len(text), name
        assert "read live from the catalogs on" in after
