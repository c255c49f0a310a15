"""GPU name lookup: what people type resolves to one catalog entry, or fails with suggestions."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from costcalc.core.catalog import GpuCatalog, compact, token_key
from costcalc.core.errors import UnknownGpu
from costcalc.store.bundled import load_catalog


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("rtx3090", "rtx3090"),
        ("RTX 3090", "rtx3090"),
        ("3090", "rtx3090"),
        ("GeForce RTX 3090", "rtx3090"),
        ("nvidia geforce rtx-3090", "rtx3090"),
        ("A100 80GB SXM4", "a100_sxm4_80gb"),
        ("a100 sxm4 80gb", "a100_sxm4_80gb"),
        ("A100-80G", "a100_pcie_80gb"),
        ("Quadro RTX 8000", "quadro_rtx8000"),
        ("V100 32GB", "v100_pcie_32gb"),
        ("rtx a6000", "rtx_a6000"),
        ("A6000", "rtx_a6000"),
        ("T4", "t4"),
        ("H100", "h100_pcie_80gb"),
        ("NVIDIA H100 80GB HBM3", "h100_sxm5_80gb"),  # the SXM module's own device name
        ("rtx 4090", "rtx4090"),
    ],
)
def test_names_people_write_resolve(typed: str, key: str) -> None:
    assert load_catalog().resolve(typed).key == key


def test_unknown_gpu_suggests_the_closest_names() -> None:
    with pytest.raises(UnknownGpu) as caught:
        load_catalog().resolve("rtx 3009")
    assert "rtx3090" in caught.value.suggestions
    assert "did you mean" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_nonsense_has_no_false_suggestions() -> None:
    with pytest.raises(UnknownGpu) as caught:
        load_catalog().resolve("zzzzzzzz")
    assert caught.value.suggestions == []


def test_forms_ignore_spacing_case_and_order() -> None:
    assert compact("RTX-3090") == compact("rtx 3090") == "rtx3090"
    assert token_key("A100 80 GB SXM4") == token_key("sxm4 a100 80gb")


def test_an_ambiguous_name_is_refused_with_both_candidates() -> None:
    catalog = load_catalog()
    specs = [catalog.get("rtx3090"), catalog.get("rtx3080")]
    clash = GpuCatalog(
        [
            replace(specs[0], **{"aliases": ("ampere",)}),
            replace(specs[1], **{"aliases": ("ampere",)}),
        ]
    )
    with pytest.raises(UnknownGpu) as caught:
        clash.resolve("ampere")
    assert caught.value.suggestions == ["rtx3080", "rtx3090"]


def test_catalog_has_the_required_coverage() -> None:
    catalog = load_catalog()
    assert len(catalog) >= 55
    for key in (
        "gtx1080ti",
        "titan_rtx",
        "quadro_m4000",
        "rtx6000_ada",
        "a10g",
        "l40s",
        "k80",
        "p100_pcie_16gb",
        "a100_pcie_40gb",
        "h100_pcie_80gb",
        "h200_sxm_141gb",
        "b200",
    ):
        assert key in catalog


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("a100", "a100_pcie_40gb"),
        ("A100 40GB", "a100_pcie_40gb"),
        ("A100 80GB", "a100_pcie_80gb"),
        ("A100-80G", "a100_pcie_80gb"),
        ("h100", "h100_pcie_80gb"),
        ("H100 80GB", "h100_pcie_80gb"),
        ("V100 32GB", "v100_pcie_32gb"),
    ],
)
def test_a_card_without_sxm_in_its_name_is_the_pcie_card(typed: str, key: str) -> None:
    catalog = load_catalog()
    spec, note = catalog.resolve_noted(typed)
    assert spec.key == key and spec.form_factor == "PCIe"
    assert note is not None and repr(typed) in note and spec.short_name in note
    assert "SXM" in note
    assert catalog.resolve(typed) is spec  # one lookup: the same card with or without a note


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("A100 SXM4", "a100_sxm4_40gb"),
        ("A100 80GB SXM4", "a100_sxm4_80gb"),
        ("a100_sxm4_80gb", "a100_sxm4_80gb"),
        ("H100 SXM", "h100_sxm5_80gb"),
        ("A100 PCIe", "a100_pcie_40gb"),
        ("a100_pcie_40gb", "a100_pcie_40gb"),
        ("H100 NVL", "h100_nvl_94gb"),
        ("h200", "h200_sxm_141gb"),  # no PCIe H200 in the catalog: the one there is
        ("rtx4090", "rtx4090"),
    ],
)
def test_a_card_named_exactly_is_taken_as_named(typed: str, key: str) -> None:
    spec, note = load_catalog().resolve_noted(typed)
    assert spec.key == key and note is None


def test_a_name_that_does_not_say_sxm_never_reaches_an_sxm_card_with_a_pcie_twin() -> None:
    """One name, one GPU: `resolve` is every command's lookup, so no name of an SXM module
    that has a PCIe twin may leave out what sets it apart (SXM, or its own HBM3 device name)."""
    catalog = load_catalog()
    twins = {
        (s.short_name.split()[0], s.memory_gb, s.architecture)
        for s in catalog
        if s.form_factor == "PCIe"
    }
    for spec in catalog:
        if spec.form_factor != "SXM":
            continue
        if (spec.short_name.split()[0], spec.memory_gb, spec.architecture) not in twins:
            continue
        for alias in spec.aliases:
            assert "sxm" in alias.lower() or "hbm3" in alias.lower(), (spec.key, alias)


def test_filters_take_every_variant_of_a_family() -> None:
    catalog = load_catalog()
    family = {spec.key for spec in catalog.family("a100")}
    assert {"a100_pcie_40gb", "a100_sxm4_40gb", "a100_pcie_80gb", "a100_sxm4_80gb"} <= family
