"""Fault cases for stored files: whole snapshots only, and no file costcalc reads can take more
than a bounded amount of memory.

- every refreshed snapshot carries its row count and checksum, checked on load: a file cut at a
  line boundary is still valid YAML and must not load with fewer offers;
- a body with no length to confirm it (no Content-Length, not chunked) is compared with the last
  snapshot, or in a fresh home with the bundled one; one cut by the deadline is an error, never
  a short price list; a Price List CSV must end in a line break and give every row its columns;
- texts and whole snapshots have size limits, so a stored snapshot is always readable;
- YAML is bounded in values, not only bytes (tests/faults/test_faults_limits.py measures the CLI).

Feeds come from real servers on 127.0.0.1: the werkzeug one in tests/conftest.py, and a raw
socket server here for what werkzeug will not do (close a body early without a length).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from werkzeug import Response

from costcalc.cli import main
from costcalc.core.models import PriceSnapshot
from costcalc.core.records import plain
from costcalc.edge.resources import MAX_NODES, DataFileError, check_yaml_shape, load_yaml_text
from costcalc.feeds.refresh import MAX_FIELD_CHARS, row_identity
from costcalc.providers.registry import PROVIDERS
from costcalc.store import snapshots
from costcalc.store.snapshots import load_bundled, load_refreshed, load_snapshot, refreshed_path
from tests.conftest import FEEDS, FeedRoutes
from tests.rawtcp import RawTcpServer

CSV = (FEEDS / "ec2-offer-us-east-1.csv").read_bytes()
CSV_LINES = CSV.splitlines(keepends=True)


def refresh(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["refresh", *args])
    out, err = capsys.readouterr()
    return code, out, err


class RawServer(RawTcpServer):
    """HTTP by hand: a 200 with no Content-Length, `body`, then either a close (the body looks
    whole) or silence until the test ends (only the deadline ends it)."""

    def __init__(self, body: bytes, *, close: bool, drip_s: float = 0.0) -> None:
        self.body = body
        self.close_after = close
        self.drip_s = drip_s
        """Seconds between bytes of the status line and headers (a trickle), 0 for all at once."""
        super().__init__()

    def url(self, path: str) -> str:
        return f"{self.origin}{path}"

    def answer(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nConnection: close\r\n\r\n"
            try:
                for byte in head if self.drip_s else ():
                    conn.sendall(bytes([byte]))
                    time.sleep(self.drip_s)
                conn.sendall(self.body if self.drip_s else head + self.body)
            except OSError:
                return
            if not self.close_after:
                self.stop.wait(30)

    def shut(self) -> None:
        self.close()


@pytest.fixture
def ondemand_csv(aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch) -> FeedRoutes:
    """AWS on-demand from the bulk CSV (streamed line by line): 3 offers."""
    aws_feeds.serve_file("/ondemand/us-east-1.csv", "ec2-offer-us-east-1.csv", "text/csv")
    monkeypatch.setenv("COSTCALC_AWS_ONDEMAND_URL", aws_feeds.url("/ondemand/{region}.csv"))
    monkeypatch.setenv("COSTCALC_AWS_REGIONS", "us-east-1")
    return aws_feeds


# --------------------------------------------------------------------------- seals


def test_a_snapshot_cut_at_a_line_boundary_does_not_load(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    path = refreshed_path("aws-spot")
    lines = path.read_text().splitlines(keepends=True)
    cut = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("- name:"))
    path.write_text("".join(lines[:cut]))  # still valid YAML, with fewer offers
    loaded = load_snapshot("aws-spot")
    assert loaded.origin == "bundled" and "checksum does not match" in str(loaded.warning)
    assert main(["quick", "--gpu", "rtx3090", "--provider", "aws-spot"]) == 0
    assert "checksum does not match" in capsys.readouterr().err


def test_a_seal_that_counts_other_rows_is_refused(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, "--provider", "aws-spot")[0] == 0
    path = refreshed_path("aws-spot")
    first, body = path.read_text().split("\n", 1)
    rows = load_refreshed(path, PriceSnapshot).offers
    path.write_text(first.replace(f"{len(rows)} rows", f"{len(rows) + 1} rows") + "\n" + body)
    with pytest.raises(DataFileError, match=f"{len(rows)} rows where its seal says"):
        load_refreshed(path, PriceSnapshot)


def test_an_unsealed_snapshot_is_reported_and_the_bundled_one_used() -> None:
    path = refreshed_path("aws-spot")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((Path(__file__).parents[2] / "prices" / "aws_spot.yaml").read_text())
    loaded = load_snapshot("aws-spot")
    assert loaded.origin == "bundled" and "no row count and checksum" in str(loaded.warning)


# --------------------------------------------------------------------------- unconfirmed bodies


def test_a_body_without_length_cut_by_the_deadline_is_not_stored(
    ondemand_csv: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a fresh home there is nothing to compare with: the deadline's cut must be an error
    (it used to read as a clean end, and 1 of 3 offers was stored as the whole list)."""
    server = RawServer(b"".join(CSV_LINES[:12]), close=False)  # g4dn only, then silence
    try:
        monkeypatch.setenv("COSTCALC_AWS_ONDEMAND_URL", server.url("/{region}.csv"))
        monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "5")
        monkeypatch.setenv("COSTCALC_HTTP_DEADLINE", "1")
        code, _out, err = refresh(capsys, "--provider", "aws-ondemand")
    finally:
        server.shut()
    assert code == 1 and "no complete answer within 1 s" in err, err
    assert not refreshed_path("aws-ondemand").exists()


def test_a_header_trickle_cut_by_the_deadline_is_not_an_empty_payload(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = RawServer(b"", close=False, drip_s=0.01)  # headers in ~0.7 s, then silence
    try:
        monkeypatch.setenv("COSTCALC_AWS_SPOT_URL", server.url("/spot.json"))
        monkeypatch.setenv("COSTCALC_HTTP_TIMEOUT", "5")
        monkeypatch.setenv("COSTCALC_HTTP_DEADLINE", "1.5")
        code, _out, err = refresh(capsys, "--provider", "aws-spot")
    finally:
        server.shut()
    assert code == 1 and "no complete answer within 1.5 s" in err, err
    assert "empty payload" not in err


def test_a_body_without_length_with_fewer_offers_than_last_time_is_refused(
    ondemand_csv: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refresh(capsys, "--provider", "aws-ondemand")[0] == 0
    good = refreshed_path("aws-ondemand").read_bytes()
    server = RawServer(b"".join(CSV_LINES[:14]), close=True)  # 2 of 3 offers, then a close
    try:
        monkeypatch.setenv("COSTCALC_AWS_ONDEMAND_URL", server.url("/{region}.csv"))
        code, _out, err = refresh(capsys, "--provider", "aws-ondemand")
        assert code == 1 and "came without a length to check it by" in err, err
        assert "2 offers where the last snapshot had 3" in err
        assert refreshed_path("aws-ondemand").read_bytes() == good
        assert refresh(capsys, "--provider", "aws-ondemand", "--force")[0] == 0
    finally:
        server.shut()
    assert len(load_refreshed(refreshed_path("aws-ondemand"), PriceSnapshot).offers) == 2


def test_a_fresh_home_keeps_the_bundled_offers_when_a_body_without_length_stops_early(
    ondemand_csv: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cut at a line boundary the CSV is still whole in form: its one g4dn row replaced the
    206 bundled offers (238 with the catalogs' rows). Now it is compared with the bundled rows
    of its region."""
    bundled = load_snapshot("aws-ondemand").snapshot.offers  # type: ignore[union-attr]
    own = [r for r in bundled if not str(r.source).startswith("SkyPilot v8 aws")]
    assert len(own) == 206
    in_region = len({row_identity(r) for r in bundled if r.region == "us-east-1"})
    server = RawServer(b"".join(CSV_LINES[:12]), close=True)  # g4dn only, then a close
    try:
        monkeypatch.setenv("COSTCALC_AWS_ONDEMAND_URL", server.url("/{region}.csv"))
        code, _out, err = refresh(capsys, "--provider", "aws-ondemand")
        assert code == 1 and "came without a length to check it by" in err, err
        assert f"holds 1 offers where the bundled prices have {in_region} in its region" in err
        assert "(cut short?); run with --force to accept" in err
        assert not refreshed_path("aws-ondemand").exists()
        assert load_snapshot("aws-ondemand").snapshot.offers == bundled  # type: ignore[union-attr]
        assert refresh(capsys, "--provider", "aws-ondemand", "--force")[0] == 0
    finally:
        server.shut()
    assert len(load_refreshed(refreshed_path("aws-ondemand"), PriceSnapshot).offers) == 1


def test_a_fresh_home_is_told_when_a_whole_answer_has_under_half_the_bundled_rows(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    """A body whose length was confirmed is whole: stored, but the line says what it replaced
    (the recorded spot feed has 14 offers in the 3 regions where the bundled file has 95)."""
    code, out, _err = refresh(capsys, "--provider", "aws-spot")
    assert code == 0
    assert "refreshed, 14 offers; under half the bundled prices' 95 in its 3 regions" in out
    code, out, _err = refresh(capsys, "--provider", "aws-spot")  # compared with its own now
    assert code == 0 and "under half" not in out


def test_a_body_without_length_cut_mid_row_is_not_stored(
    ondemand_csv: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even forced: a body shorter than its Content-Length, or a chunked one cut mid-chunk, is
    refused by urllib3 ("download broke off"); one with no length is refused by its format."""
    server = RawServer(CSV[: CSV.index(b'"p4d.24xlarge"')], close=True)
    try:
        monkeypatch.setenv("COSTCALC_AWS_ONDEMAND_URL", server.url("/{region}.csv"))
        code, _out, err = refresh(capsys, "--provider", "aws-ondemand", "--force")
    finally:
        server.shut()
    assert code == 1 and "ends without a line break (cut short?)" in err, err
    assert not refreshed_path("aws-ondemand").exists()


def test_a_price_list_row_short_of_columns_is_a_cut_not_a_skipped_row() -> None:
    from costcalc.providers import aws_ondemand_feed
    from costcalc.providers.common import FeedError

    lines = CSV.decode().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if '"p4d.24xlarge"' in line)
    lines[row] = lines[row].rsplit(",", 3)[0] + "\n"
    with pytest.raises(FeedError, match=f"line {row + 1} of the Price List CSV has .* columns"):
        aws_ondemand_feed.parse_bulk_csv(lines)


# --------------------------------------------------------------------------- size limits


def test_megabyte_names_are_held_back_and_the_snapshot_stays_small(
    aws_feeds: FeedRoutes, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads((FEEDS / "runpod-gputypes.json").read_text())
    for gpu_type in doc["data"]["gpuTypes"]:
        if gpu_type["displayName"] == "RTX 4090":
            gpu_type["displayName"] = "R" * 2**20
    aws_feeds.serve("/runpod/graphql", lambda _r: Response(json.dumps(doc), content_type="json"))
    code, out, err = refresh(capsys, "--provider", "runpod", "--json")
    assert code == 0, err
    (result,) = json.loads(out)["results"]
    assert result["held_back"] and all("characters (at most" in n for n in result["held_back"])
    assert len(out) < 20_000  # the names are shortened in the report too
    assert refreshed_path("runpod").stat().st_size < 100_000
    assert load_snapshot("runpod").warning is None


def test_a_snapshot_too_big_to_read_back_is_not_stored(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The limit is lowered so the test needs no 16 MB feed; the rule is the same."""
    assert refresh(capsys, "--provider", "runpod")[0] == 0
    good = refreshed_path("runpod").read_bytes()
    monkeypatch.setattr(snapshots, "MAX_SNAPSHOT_BYTES", 2048)
    code, _out, err = refresh(capsys, "--provider", "runpod")
    assert code == 1 and "bytes, more than 2,048; not stored" in err, err
    assert refreshed_path("runpod").read_bytes() == good


def test_a_snapshot_with_more_values_than_a_reader_counts_is_not_stored(
    aws_feeds: FeedRoutes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The limit is lowered so the test needs no 200,000-value feed; the rule is the same."""
    assert refresh(capsys, "--provider", "runpod")[0] == 0
    good = refreshed_path("runpod").read_bytes()
    monkeypatch.setattr(snapshots, "MAX_SNAPSHOT_NODES", 100)
    code, _out, err = refresh(capsys, "--provider", "runpod")
    assert code == 1, err
    assert "would have more than 100 values, more than a reader takes; not stored" in err
    assert refreshed_path("runpod").read_bytes() == good


def test_the_bundled_files_are_well_inside_the_limits() -> None:
    """prices/ is edited by hand: its files are checked here against the limits a stored
    snapshot must meet, not by checksums."""
    prices = Path(__file__).parents[2] / "prices"
    for path in prices.glob("*.yaml"):
        check_yaml_shape(path.read_bytes(), str(path), max_nodes=MAX_NODES // 10)
    for provider in PROVIDERS:
        snapshot = load_bundled(provider)
        if isinstance(snapshot, PriceSnapshot):
            for row in snapshot.offers:
                texts = [v for v in plain(row).values() if isinstance(v, str)]
                assert max(map(len, texts)) <= MAX_FIELD_CHARS, (provider.name, row.name)


# --------------------------------------------------------------------------- YAML values


def test_yaml_is_bounded_in_values_not_only_bytes() -> None:
    text = "overrides: [" + ", ".join(["0"] * (MAX_NODES + 1)) + "]\n"
    started = time.monotonic()
    with pytest.raises(DataFileError, match="YAML values"):
        load_yaml_text(text, "prices.yaml", PriceSnapshot)
    assert time.monotonic() - started < 1.0  # refused before the parser sees it
