"""Every option of `costcalc quick` fed whatever a user (or a script) might type: the answer is
either valid JSON with exit 0 or one line on stderr with exit 2, never a traceback."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from costcalc.cli import main
from costcalc.core import inputs

# The CLI on hundreds of generated values, seconds in all: left out of the fast subset.
pytestmark = pytest.mark.slow

AWKWARD = (
    "",
    " ",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "1e308",
    "-1e308",
    "1e-320",
    "-0",
    "0",
    "0,12",
    "1,500",
    "$2,200",
    "15%",
    "150%",
    "1.7",
    "99999999999999999999999",
    "\x1b[2J",
    "٣",
    "½",
    "latest",
    "rtx3090",
    "a100",
    "DE",
    "yes",
    "a\x00b",
    "\x00",
)
TEXTS = st.one_of(
    st.sampled_from(AWKWARD),
    st.text(max_size=16),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)
VALUED = [spec for spec in inputs.INPUTS if spec.form != "switch"]


def no_nan(token: str) -> float:
    raise ValueError(f"{token} is not JSON")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("spec", VALUED, ids=[spec.flag for spec in VALUED])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_any_value_of_any_option(spec: inputs.Input, text: str) -> None:
    base = ["quick", "--no-config", "--provider", "custom", "--cloud-price", "1.5"]
    if spec.field != "gpu":
        base += ["--gpu", "rtx3090"]
    code, out, err = run([*base, f"{spec.flag}={text}", "--json"])
    assert "Traceback" not in err
    if code == 0:
        json.loads(out, parse_constant=no_nan)  # strictly valid JSON: no NaN, no Infinity
    else:
        assert code == 2, (code, err)
        assert out == "" and len(err.strip().splitlines()) == 1, err
        assert err.startswith("costcalc") and "error" in err


@settings(max_examples=40, deadline=None)
@given(
    util=st.floats(min_value=0.001, max_value=1),
    hours=st.floats(min_value=0.01, max_value=1e6),
    items=st.floats(min_value=1, max_value=1e15),
    price=st.floats(min_value=0, max_value=1e6),
    count=st.integers(min_value=1, max_value=16),
)
def test_json_stays_valid_at_the_edges_of_every_bound(
    util: float, hours: float, items: float, price: float, count: int
) -> None:
    argv = [
        "quick",
        "--no-config",
        "--gpu",
        "rtx4090",
        f"--util={util!r}",
        f"--run-hours={hours!r}",
        f"--items={items!r}",
        f"--desktop-price={price!r}",
        f"--gpu-count={count}",
        "--provider",
        "aws-ondemand",
        "--json",
    ]
    code, out, err = run(argv)
    assert code == 0, err
    doc = json.loads(out, parse_constant=no_nan)
    assert doc["desktop"]["price_usd"] == pytest.approx(price) or price == 0


@pytest.mark.parametrize("path", ["~0", "~no-such-user-here/bench.json"])
def test_a_home_that_does_not_exist_is_a_missing_file(
    path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """'~0' names the home of a user called 0: Path.expanduser raises RuntimeError for it."""
    assert main(["quick", "--gpu", "rtx3090", "--bench", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such bench result" in err
