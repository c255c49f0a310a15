"""The registry: one line per provider, each provider's module imported only when asked for."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from costcalc.core.errors import CostcalcError
from costcalc.providers import registry

PREFIX = "costcalc.providers."


def provider_modules_after(code: str) -> set[str]:
    """The provider modules (registry MODULES entries) a fresh interpreter has imported after
    running `code`."""
    script = textwrap.dedent(code) + "\nimport sys\nprint('\\n'.join(sys.modules))\n"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    wanted = {PREFIX + module.lstrip(".") for module in registry.MODULES.values()}
    return {line for line in out.splitlines() if line in wanted}


def test_every_line_names_the_module_of_that_provider() -> None:
    assert [p.name for p in registry.every()] == list(registry.names())
    assert registry.every() == registry.PROVIDERS
    assert len(set(registry.labels().values())) == len(registry.names())
    assert len(set(registry.every())) == len(registry.names())  # values: hashable, distinct


def test_an_unknown_name_is_one_line_with_the_closest() -> None:
    with pytest.raises(CostcalcError, match=r"unknown provider 'runpd'; did you mean runpod\?"):
        registry.get("runpd")


@pytest.mark.subprocess
def test_names_and_one_provider_import_only_that_provider() -> None:
    loaded = provider_modules_after(
        """
        from costcalc.providers import registry
        assert "vast" in registry.names()
        registry.get("runpod")
        """
    )
    assert loaded == {PREFIX + "runpod"}


@pytest.mark.subprocess
def test_quick_for_one_provider_imports_no_other() -> None:
    loaded = provider_modules_after(
        """
        import contextlib, io
        from costcalc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["quick", "--gpu", "rtx3090", "--provider", "coreweave"]) == 0
            assert main(["gpus"]) == 0
        """
    )
    assert loaded == {PREFIX + "coreweave"}
