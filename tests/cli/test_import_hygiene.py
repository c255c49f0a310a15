"""Imports point one way: the core runs without the front ends, and quick loads nothing heavy."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.imports import loaded_after

HEAVY = ("textual", "torch", "requests")


def all_modules_after(code: str) -> set[str]:
    """Every module a fresh interpreter has imported once it has run `code`."""
    script = textwrap.dedent(code) + "\nimport sys\nprint('\\n'.join(sys.modules))\n"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(out.splitlines())


def modules_after(code: str) -> set[str]:
    """The top-level packages of `all_modules_after`."""
    return {name.split(".")[0] for name in all_modules_after(code)}


def test_costcalc_quick_imports_neither_textual_torch_nor_requests() -> None:
    loaded = modules_after(
        """
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["quick", "--gpu", "rtx3090", "--util", "0.15", "--run-hours", "3"]) == 0
        """
    )
    assert "costcalc" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_quick_parses_no_yaml_once_the_cache_holds_the_files() -> None:
    """A run after the first (the test's home starts with the parse cache a first run leaves)
    reads every data file from its cached records: no YAML parser, no pydantic."""
    loaded = modules_after(
        """
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["quick", "--gpu", "rtx3090", "--util", "0.15"]) == 0
            assert main(["quick", "--gpu", "rtx4090", "--region", "DE", "--json"]) == 0
        """
    )
    assert "costcalc" in loaded
    assert not loaded & {*HEAVY, "pydantic", "pydantic_core", "yaml"}


def test_version_and_help_load_nothing_but_the_parser() -> None:
    for argv in (["--version"], ["--help"]):
        script = f"""
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main({argv!r})
        """
        loaded = all_modules_after(script)
        costcalc_modules = {m for m in loaded if m.startswith("costcalc")}
        assert costcalc_modules <= {
            "costcalc",
            "costcalc.cli",
            "costcalc.cli.output",
            "costcalc.core",
            "costcalc.core.errors",
            "costcalc.core.terminal",
            "costcalc.core.version",
        }, argv
        assert not {m.split(".")[0] for m in loaded} & {*HEAVY, "pydantic", "yaml"}
    # --version is answered before the parser is even imported (issue 27: <= 0.5x the baseline)
    loaded = modules_after("from costcalc.cli import main\nassert main(['--version']) == 0")
    assert not loaded & {"argparse", "typing"}


def test_costcalc_desktops_stays_light_too() -> None:
    loaded = modules_after(
        """
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["desktops", "--gpu", "rtx4090", "--count", "1,2"]) == 0
            assert main(["desktops", "--gpu", "rtx4090", "--json"]) == 0
        """
    )
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_quick_json_and_prices_stay_light_too() -> None:
    loaded = modules_after(
        """
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["quick", "--gpu", "a6000", "--json"]) == 0
            assert main(["prices", "--json"]) == 0
            assert main(["gpus"]) == 0
        """
    )
    assert not loaded & set(HEAVY)


PURE_CORE = (
    "costcalc.core.engine",
    "costcalc.core.models",
    "costcalc.core.compare",
    "costcalc.core.predict",
    "costcalc.core.scenario",
    "costcalc.core.inputs",
    "costcalc.core.offers",
    "costcalc.present.columns",
    "costcalc.present.report",
    "costcalc.present.explain",
    "costcalc.core.bench_apply",
    "costcalc.core.hardware",
    "costcalc.core.feasibility",
    "costcalc.core.desktops",
    "costcalc.present.desktops_report",
)


def test_pure_core_imports_no_io_or_front_end() -> None:
    """At run time; `lint-imports` (pyproject's contracts) checks the same statically."""
    loaded = modules_after("import " + ", ".join(PURE_CORE))
    io = {"sqlite3", "urllib3", "platformdirs", "filelock", "yaml", "providers"}
    assert not loaded & {*HEAVY, *io}


def test_engine_module_is_pure_stdlib() -> None:
    loaded = modules_after("import costcalc.core.engine")
    assert "pydantic" not in loaded and "yaml" not in loaded


def test_the_refresh_job_loads_neither_textual_nor_torch() -> None:
    # A refresh with no reachable feed still runs the whole job: fetch, fail, report, history.
    loaded = modules_after(
        """
        import contextlib, io, os
        os.environ["COSTCALC_AWS_SPOT_URL"] = "http://127.0.0.1:9/spot.json"
        os.environ["COSTCALC_AWS_ADVISOR_URL"] = "http://127.0.0.1:9/advisor.json"
        os.environ["COSTCALC_HTTP_RETRIES"] = "0"
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["refresh", "--provider", "aws-spot"]) == 1
        """
    )
    assert "requests" in loaded  # the job did run its HTTP client
    assert not loaded & {"textual", "torch"}


FEED_ONLY = ("costcalc.providers.digitalocean", "costcalc.providers.aws_spot_advisor")
"""Modules only a provider's feed imports (Paperspace's DigitalOcean reader, the Spot Advisor)."""


def test_quick_loads_the_providers_descriptions_but_none_of_their_feeds() -> None:
    """The price book reads every provider's description; the fetching and parsing live in
    providers/<name>_feed.py, which only `refresh` imports (issue 38's start-up target)."""
    loaded = loaded_after(
        """
import contextlib, io
from costcalc.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["quick", "--gpu", "rtx3090", "--util", "0.15"]) == 0
"""
    )
    assert {"costcalc.providers.runpod", "costcalc.providers.aws_ondemand"} <= loaded
    feeds = {m for m in loaded if m.endswith("_feed") or m in FEED_ONLY}
    assert not feeds, sorted(feeds)


ONLY_WHEN_ASKED = (
    "costcalc.core.plausible",  # judges a refreshed snapshot's or your own prices
    "costcalc.core.rent_extras",  # storage and transfer (--dataset-gb, ...)
    "costcalc.present.whole_cost",  # their words, and a loan's, repairs', the hybrid plan's
)


def test_quick_loads_the_price_rules_and_the_whole_cost_only_when_asked() -> None:
    """A plain quick reads the bundled prices (checked by the tests, not again at each run) and
    counts no storage, loan or repairs: it loads none of their modules. A refreshed snapshot, or
    the inputs that count them, do."""
    plain = loaded_after(
        """
import contextlib, io
from costcalc.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["quick", "--gpu", "rtx3090", "--util", "0.15"]) == 0
    assert main(["quick", "--gpu", "rtx3090", "--util", "0.15", "--json"]) == 0
"""
    )
    assert not plain & set(ONLY_WHEN_ASKED), sorted(plain & set(ONLY_WHEN_ASKED))
    asked = loaded_after(
        """
import contextlib, io
from costcalc.cli import main
from costcalc.store.snapshots import refreshed_path, sealed_snapshot, load_bundled
path = refreshed_path("runpod")
path.parent.mkdir(parents=True, exist_ok=True)
path.write_text(sealed_snapshot(load_bundled("runpod"), path.name))
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["quick", "--gpu", "rtx3090", "--util", "0.3", "--dataset-gb", "500",
                 "--apr", "0.08", "--term-years", "3"]) == 0
"""
    )
    assert set(ONLY_WHEN_ASKED) <= asked, sorted(set(ONLY_WHEN_ASKED) - asked)


def test_every_provider_names_a_feed_that_exists() -> None:
    """A feed named by string (providers/base.py's `feed`) is checked here, not first found
    misspelt by a user's `refresh`: each loads, as the function it names."""
    from costcalc.providers import registry
    from costcalc.providers.base import Feed, FeedProvider

    named = [
        p.fetch
        for p in registry.every()
        if isinstance(p, FeedProvider) and isinstance(p.fetch, Feed)
    ]
    assert len(named) >= 7
    for fetch in named:
        assert fetch.module.endswith("_feed"), fetch
        assert callable(fetch.load()), fetch
