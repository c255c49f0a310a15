"""The wheel carries the repository's top-level providers/ and prices/ inside the package, as
costcalc/providers and costcalc/data/prices; an editable install leaves them where the checkout
keeps them, and the package finds them there (costcalc/__init__.py), so an edit to a feed's
module is seen at once rather than through a copy made when it was installed."""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

INSIDE = {"providers": "costcalc/providers", "prices": "costcalc/data/prices"}


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version == "standard":
            build_data["force_include"].update(INSIDE)
