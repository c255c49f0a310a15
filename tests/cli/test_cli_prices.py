"""`costcalc prices` answers "where is it cheapest?": sorted per GPU-hour, the answer first, each
offer once, on-demand and spot side by side; its filters as a user types them."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from costcalc.cli import main
from tests.cli_run import run


def offers(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code, out, err = run(["prices", *argv, "--json"], capsys)
    assert code == 0, err
    found: list[dict[str, Any]] = json.loads(out)
    return found


def table(out: str) -> tuple[list[str], list[list[str]]]:
    """The header's titles and the rows' cells of the printed table (cells split on 2+ spaces)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "GPU" in line and "provider" in line)
    rows = []
    for line in lines[start + 1 :]:
        if not line.startswith(" ") or line.strip().startswith("--wide"):
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return re.split(r"\s{2,}", lines[start].strip()), rows


def test_the_cheapest_h100_is_the_first_row_and_the_first_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    every = offers(["--gpu", "h100"], capsys)
    cheapest = min(every, key=lambda o: o["usd_per_gpu_hour"])
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = run(["prices", "--gpu", "h100"], capsys)
    assert code == 0
    assert out.startswith("Cheapest: ")
    assert f"${cheapest['usd_per_gpu_hour']:,.3f} per GPU-hour" in out.split("\n\n")[0]
    titles, rows = table(out)
    first = dict(zip(titles, rows[0], strict=False))
    price = first["$/GPU-h"] if first["$/GPU-h"] != "-" else first["spot $/GPU-h"]
    assert float(price) == pytest.approx(cheapest["usd_per_gpu_hour"], abs=0.0005)
    assert all(len(line) <= 100 for line in out.splitlines())
    assert len({tuple(r) for r in rows}) == len(rows), "a row repeats"
    lowest = [
        min(float(c) for c in (dict(zip(titles, r, strict=False)).get(k, "-") for k in
            ("$/GPU-h", "spot $/GPU-h")) if c != "-")
        for r in rows
    ]  # fmt: skip
    assert lowest == sorted(lowest)


def test_provenance_comes_after_the_answer_and_in_full_with_sources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(["prices", "--gpu", "h100"], capsys)
    assert not [line for line in out.splitlines() if line.startswith("  source: ")]
    assert "--sources says where each comes from" in " ".join(out.splitlines()[-2:])
    _, out, _ = run(["prices", "--gpu", "h100", "--sources"], capsys)
    assert out.index("Cheapest: ") < out.index("\n  source: ")


def test_spot_and_on_demand_of_one_instance_share_a_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    both = offers(["--provider", "aws-spot", "--provider", "aws-ondemand"], capsys)
    names = {o["name"] for o in both if o["spot"]} & {o["name"] for o in both if not o["spot"]}
    assert names, "the bundled AWS feeds share instance types"
    _, out, _ = run(
        ["prices", "--provider", "aws-spot", "--provider", "aws-ondemand", "--wide"], capsys
    )
    titles, rows = table(out)
    cells = [dict(zip(titles, r, strict=False)) for r in rows]
    shared = [c for c in cells if c["offer"] in names]
    assert shared and all(c["$/GPU-h"] != "-" and c["spot $/GPU-h"] != "-" for c in shared)
    assert len([c for c in cells if c["offer"] == shared[0]["offer"]]) == len(
        {c["GPU"] for c in cells if c["offer"] == shared[0]["offer"]}
    )


def test_filters_memory_offers_and_sort(capsys: pytest.CaptureFixture[str]) -> None:
    big = offers(["--min-memory", "80"], capsys)
    assert big and all(o["gpu"] not in ("t4", "l4", "rtx4090") for o in big)
    spot = offers(["--offers", "spot"], capsys)
    assert spot and all(o["spot"] for o in spot)
    _, out, _ = run(["prices", "--offers", "on-demand", "--gpu", "a100", "--wide"], capsys)
    titles, rows = table(out)
    assert "spot $/GPU-h" not in titles
    _, out, _ = run(["prices", "--gpu", "a100", "--sort", "hour", "--wide"], capsys)
    titles, rows = table(out)
    per_hour = [float(dict(zip(titles, r, strict=False))["$/h"].replace(",", "")) for r in rows]
    assert per_hour == sorted(per_hour)


@pytest.mark.parametrize("memory", ["-1", "0", "lots", "1" * 5000])
def test_a_bad_memory_is_one_line(memory: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["prices", "--min-memory", memory])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "memory must be a number of GB above 0" in err
