"""The GPU-name normaliser: one table per provider (a field of its PROVIDER), every value a
catalog key, unknown names skipped and reported once, never guessed."""

from __future__ import annotations

import pytest

from costcalc.providers import registry
from costcalc.providers.gpu_names import GpuNames
from costcalc.store.bundled import load_catalog


def names_of(provider: str) -> GpuNames:
    found = registry.get(provider)
    return GpuNames(found.gpu_names, found.ignored_gpus)


def test_the_live_feeds_that_name_gpus_have_a_table() -> None:
    tabled = {p.name for p in registry.every() if p.gpu_names}
    assert {"runpod", "vast", "lambda", "oci"} <= tabled


def test_every_table_value_is_a_catalog_key() -> None:
    catalog = load_catalog()
    wrong = []
    for provider in registry.every():
        for name, choice in provider.gpu_names.items():
            keys = choice.values() if isinstance(choice, dict) else [choice]
            wrong += [f"{provider.name}: {name} -> {key}" for key in keys if key not in catalog]
    assert not wrong


def test_table_names_are_written_the_way_they_are_compared() -> None:
    for provider in registry.every():
        for name in [*provider.gpu_names, *provider.ignored_gpus]:
            assert name == " ".join(name.lower().split()), (provider.name, name)


@pytest.mark.parametrize(
    ("provider", "name", "memory_gb", "key"),
    [
        ("runpod", "NVIDIA GeForce RTX 4090", None, "rtx4090"),
        ("runpod", "NVIDIA  H100 80GB HBM3", None, "h100_sxm5_80gb"),
        ("vast", "RTX 4090", 24.0, "rtx4090"),
        ("vast", "A100 PCIE", 80.0, "a100_pcie_80gb"),
        ("vast", "A100 PCIE", 40.0, "a100_pcie_40gb"),
        ("vast", "A100 SXM4", 79.6, "a100_sxm4_80gb"),
        ("vast", "H100 NVL", 93.6, "h100_nvl_94gb"),
        ("lambda", "H100 (80 GB SXM5)", None, "h100_sxm5_80gb"),
        ("oci", "BM.GPU.H100.8", None, "h100_sxm5_80gb"),
    ],
)
def test_known_names(provider: str, name: str, memory_gb: float | None, key: str) -> None:
    names = names_of(provider)
    assert names.key(name, memory_gb) == key
    assert names.unknown == ()


def test_unknown_names_are_reported_once_in_order() -> None:
    names = names_of("vast")
    for name in ("RTX 9090", "A800 PCIE", "RTX 9090"):
        assert names.key(name) is None
    assert names.unknown == ("A800 PCIE", "RTX 9090")


def test_a_name_that_needs_its_memory_is_not_guessed_without_it() -> None:
    names = names_of("vast")
    assert names.key("A100 PCIE") is None
    assert names.key("A100 PCIE", 48.0) is None
    assert names.unknown == ("A100 PCIE (48 GB)", "A100 PCIE (memory not given)")


def test_placeholders_are_skipped_silently() -> None:
    names = names_of("runpod")
    assert names.key("unknown") is None
    assert names.unknown == ()
