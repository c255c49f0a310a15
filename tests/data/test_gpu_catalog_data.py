"""Data checks for the bundled GPU catalog (costcalc/data/gpus.yaml).

The catalog is hand-curated from several public sources; these tests catch the mistakes such
curation makes: a missing or renamed key, a name that resolves to two GPUs, a figure with no
source, a sparse or FP16-accumulate tensor figure where a dense FP32-accumulate one belongs.
"""

from __future__ import annotations

import importlib.resources
import re
from collections import defaultdict

import pytest
import yaml

from costcalc.core.models import GpuCatalogFile, GpuSpec
from costcalc.core.records import validated

REQUIRED_KEYS = {
    "consumer": [
        "gtx1060_6gb",
        "gtx1070",
        "gtx1070ti",
        "gtx1080",
        "gtx1080ti",
        "gtx1650",
        "gtx1660",
        "gtx1660_super",
        "gtx1660ti",
        "rtx2060",
        "rtx2060_super",
        "rtx2070",
        "rtx2070_super",
        "rtx2080",
        "rtx2080_super",
        "rtx2080ti",
        "titan_rtx",
        "rtx3060_12gb",
        "rtx3060ti",
        "rtx3070",
        "rtx3070ti",
        "rtx3080",
        "rtx3080ti",
        "rtx3090",
        "rtx3090ti",
        "rtx4060",
        "rtx4060ti_16gb",
        "rtx4070",
        "rtx4070_super",
        "rtx4070ti",
        "rtx4070ti_super",
        "rtx4080",
        "rtx4080_super",
        "rtx4090",
        "rtx5060ti_16gb",
        "rtx5070",
        "rtx5070ti",
        "rtx5080",
        "rtx5090",
    ],
    "workstation": [
        "quadro_m4000",
        "quadro_p4000",
        "quadro_p5000",
        "quadro_p6000",
        "quadro_rtx4000",
        "quadro_rtx5000",
        "quadro_rtx6000",
        "quadro_rtx8000",
        "rtx_a4000",
        "rtx_a4500",
        "rtx_a5000",
        "rtx_a5500",
        "rtx_a6000",
        "rtx6000_ada",
        "rtx_pro6000",
    ],
    "datacenter": [
        "k80",
        "m60",
        "p4",
        "p100_pcie_16gb",
        "v100_pcie_16gb",
        "v100_pcie_32gb",
        "v100_sxm2_16gb",
        "v100_sxm2_32gb",
        "t4",
        "a10",
        "a10g",
        "l4",
        "l40s",
        "a40",
        "a100_pcie_40gb",
        "a100_sxm4_40gb",
        "a100_pcie_80gb",
        "a100_sxm4_80gb",
        "h100_pcie_80gb",
        "h100_sxm5_80gb",
        "h200_sxm_141gb",
        "b200",
    ],
}

PRE_VOLTA = {"Kepler", "Maxwell", "Pascal"}
PRE_AMPERE = PRE_VOLTA | {"Volta", "Turing"}
GEFORCE_HALF_RATE = {"Ampere", "Ada Lovelace", "Blackwell"}

# Names other engineers' code and users write, and the GPU each must resolve to.
EXPECTED_ALIASES = {
    "3090": "rtx3090",
    "1080ti": "gtx1080ti",
    "4090": "rtx4090",
    "rtx a6000": "rtx_a6000",
    "a6000": "rtx_a6000",
    # a name that does not say SXM is the PCIe card, in every command (costcalc.core.catalog)
    "A100-80G": "a100_pcie_80gb",
    "A100 80GB": "a100_pcie_80gb",
    "A100": "a100_pcie_40gb",
    "a100 40gb": "a100_pcie_40gb",
    "A100 SXM4": "a100_sxm4_40gb",
    "V100": "v100_pcie_16gb",
    "V100 32GB": "v100_pcie_32gb",
    "V100-32G": "v100_pcie_32gb",
    "H100": "h100_pcie_80gb",
    "H100 SXM": "h100_sxm5_80gb",
    "H200": "h200_sxm_141gb",
    "M4000": "quadro_m4000",
    "P4000": "quadro_p4000",
    "P5000": "quadro_p5000",
    "P6000": "quadro_p6000",
    "RTX4000": "quadro_rtx4000",
    "RTX5000": "quadro_rtx5000",
    "A4000": "rtx_a4000",
    "A5000": "rtx_a5000",
    "RTX 6000 Ada": "rtx6000_ada",
    "6000 Ada": "rtx6000_ada",
    "RTX PRO 6000": "rtx_pro6000",
    "G4": "rtx_pro6000",
    "Titan RTX": "titan_rtx",
    "K80": "k80",
    "T4": "t4",
    "L4": "l4",
}


def normalise(name: str) -> str:
    """How aliases are compared: case-insensitive, without spaces, '-' and '_'."""
    return re.sub(r"[\s\-_]", "", name).lower()


def token_set(name: str) -> frozenset[str]:
    """Name lookup also ignores token order ('A100 SXM4 80GB' == 'a100 80gb sxm4')."""
    return frozenset(t for t in re.split(r"[\s\-_]+", name.lower()) if t)


def load_catalog() -> GpuCatalogFile:
    text = importlib.resources.files("costcalc.data").joinpath("gpus.yaml").read_text("utf-8")
    return validated(GpuCatalogFile, yaml.safe_load(text))


@pytest.fixture(scope="module")
def catalog() -> GpuCatalogFile:
    return load_catalog()


@pytest.fixture(scope="module")
def by_key(catalog: GpuCatalogFile) -> dict[str, GpuSpec]:
    return {g.key: g for g in catalog.gpus}


def alias_owners(gpus: tuple[GpuSpec, ...], key_fn=normalise) -> dict[object, set[str]]:
    """Every name a GPU answers to (key, name, aliases) -> the GPU keys answering to it."""
    owners: dict[object, set[str]] = defaultdict(set)
    for gpu in gpus:
        for name in (gpu.key, gpu.name, *gpu.aliases):
            owners[key_fn(name)].add(gpu.key)
    return owners


def test_catalog_has_at_least_55_gpus(catalog: GpuCatalogFile) -> None:
    assert len(catalog.gpus) >= 55


def test_keys_are_unique(catalog: GpuCatalogFile) -> None:
    keys = [g.key for g in catalog.gpus]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    assert not duplicates


@pytest.mark.parametrize("segment", sorted(REQUIRED_KEYS))
def test_required_keys_present_in_their_segment(by_key: dict[str, GpuSpec], segment: str) -> None:
    missing = [k for k in REQUIRED_KEYS[segment] if k not in by_key]
    assert not missing
    wrong_segment = [k for k in REQUIRED_KEYS[segment] if by_key[k].segment != segment]
    assert not wrong_segment


def test_no_alias_maps_to_two_gpus(catalog: GpuCatalogFile) -> None:
    clashes = {n: ks for n, ks in alias_owners(catalog.gpus).items() if len(ks) > 1}
    assert not clashes


def test_no_alias_maps_to_two_gpus_ignoring_token_order(catalog: GpuCatalogFile) -> None:
    clashes = {n: ks for n, ks in alias_owners(catalog.gpus, token_set).items() if len(ks) > 1}
    assert not clashes


@pytest.mark.parametrize(("alias", "key"), sorted(EXPECTED_ALIASES.items()))
def test_common_names_resolve_to_the_agreed_gpu(
    catalog: GpuCatalogFile, alias: str, key: str
) -> None:
    owners = alias_owners(catalog.gpus)
    assert owners.get(normalise(alias)) == {key}


def test_every_row_names_sources_for_specs_and_power(catalog: GpuCatalogFile) -> None:
    unsourced = [
        g.key
        for g in catalog.gpus
        if not g.sources.get("specs", "").strip() or not g.sources.get("power", "").strip()
    ]
    assert not unsourced


def test_rows_with_a_price_or_idle_figure_name_its_source(catalog: GpuCatalogFile) -> None:
    missing = [
        g.key for g in catalog.gpus if g.launch_price_usd is not None and not g.sources.get("price")
    ]
    missing += [
        g.key for g in catalog.gpus if g.idle_power_w is not None and not g.sources.get("idle")
    ]
    assert not missing


def test_source_notes_cite_catalog_source_ids(catalog: GpuCatalogFile) -> None:
    """Each figure group names where it came from, using the ids in the file's `sources`."""
    ids = set(catalog.sources)
    uncited = []
    for gpu in catalog.gpus:
        for group, text in gpu.sources.items():
            words = set(re.findall(r"[a-z0-9_]+", text.lower()))
            if not words & ids and not text.lower().startswith(("no tensor", "omitted")):
                uncited.append(f"{gpu.key}.{group}")
    assert not uncited


def test_catalog_sources_carry_licence_of_epoch(catalog: GpuCatalogFile) -> None:
    assert "CC BY 4.0" in catalog.sources["epoch"]


def test_no_tensor_figures_before_volta(catalog: GpuCatalogFile) -> None:
    wrong = [
        g.key
        for g in catalog.gpus
        if g.architecture in PRE_VOLTA
        and (g.fp16_tensor_tflops or g.bf16_tensor_tflops or g.tf32_tensor_tflops)
    ]
    assert not wrong


def test_no_bf16_or_tf32_before_ampere(catalog: GpuCatalogFile) -> None:
    wrong = [
        g.key
        for g in catalog.gpus
        if g.architecture in PRE_AMPERE and (g.bf16_tensor_tflops or g.tf32_tensor_tflops)
    ]
    assert not wrong


def test_geforce_tensor_figures_are_dense_fp32_accumulate(catalog: GpuCatalogFile) -> None:
    """GeForce Ampere/Ada/Blackwell: dense FP16 with FP32 accumulate is 2x FP32.

    4x would be the FP16-accumulate (or sparse) rate, 8x sparse FP16-accumulate.
    """
    wrong = {
        g.key: round(g.fp16_tensor_tflops / g.fp32_tflops, 2)
        for g in catalog.gpus
        if g.segment == "consumer" and g.architecture in GEFORCE_HALF_RATE and g.fp16_tensor_tflops
        if not 1.9 <= g.fp16_tensor_tflops / g.fp32_tflops <= 2.1
    }
    assert not wrong
    checked = [
        g for g in catalog.gpus if g.segment == "consumer" and g.architecture in GEFORCE_HALF_RATE
    ]
    assert all(g.fp16_tensor_tflops for g in checked)


def test_tf32_is_half_the_fp16_tensor_rate(catalog: GpuCatalogFile) -> None:
    wrong = {
        g.key: round(g.tf32_tensor_tflops / g.fp16_tensor_tflops, 2)
        for g in catalog.gpus
        if g.tf32_tensor_tflops and g.fp16_tensor_tflops
        if not 0.45 <= g.tf32_tensor_tflops / g.fp16_tensor_tflops <= 0.55
    }
    assert not wrong


def test_bf16_equals_fp16_tensor_where_both_given(catalog: GpuCatalogFile) -> None:
    wrong = [
        g.key
        for g in catalog.gpus
        if g.bf16_tensor_tflops
        and g.fp16_tensor_tflops
        and abs(g.bf16_tensor_tflops - g.fp16_tensor_tflops) > 0.01 * g.fp16_tensor_tflops
    ]
    assert not wrong


def test_idle_power_is_below_board_power(catalog: GpuCatalogFile) -> None:
    wrong = [
        g.key
        for g in catalog.gpus
        if g.idle_power_w is not None and g.idle_power_w >= g.board_power_w
    ]
    assert not wrong


def test_street_price_comes_with_its_date(catalog: GpuCatalogFile) -> None:
    wrong = [
        g.key for g in catalog.gpus if (g.street_price_usd is None) != (g.street_price_date is None)
    ]
    assert not wrong


def test_street_prices_are_dated_sourced_and_not_in_the_future(catalog: GpuCatalogFile) -> None:
    """A street price is a dated observation: it needs a date no later than the catalog's as_of
    and a `street_price` entry in its row's sources saying where and whether new or used."""
    wrong = [
        g.key
        for g in catalog.gpus
        if g.street_price_usd is not None
        and (
            g.street_price_date is None
            or g.street_price_date > catalog.as_of
            or not g.sources.get("street_price")
            or not re.match(r"(new|used|new or used)\b", g.sources["street_price"])
        )
    ]
    assert not wrong
    stray = [
        g.key for g in catalog.gpus if g.street_price_usd is None and "street_price" in g.sources
    ]
    assert not stray


def test_dual_gpu_boards_are_listed_per_gpu(by_key: dict[str, GpuSpec]) -> None:
    assert by_key["k80"].memory_gb == 12
    assert by_key["m60"].memory_gb == 8
    for key in ("k80", "m60"):
        assert "per gpu" in (by_key[key].notes or "").lower()


@pytest.mark.parametrize(
    ("key", "field", "expected"),
    [
        ("rtx3090", "board_power_w", 350),
        ("rtx3090", "memory_gb", 24),
        ("rtx4090", "fp16_tensor_tflops", 165.2),
        ("a100_sxm4_40gb", "bandwidth_gbs", 1555),
        ("a100_sxm4_40gb", "board_power_w", 400),
        ("a100_pcie_40gb", "board_power_w", 250),
        ("v100_sxm2_16gb", "bandwidth_gbs", 900),
        ("v100_sxm2_16gb", "board_power_w", 300),
        ("v100_pcie_16gb", "board_power_w", 250),
        ("h100_sxm5_80gb", "fp16_tensor_tflops", 989.4),
        ("h100_sxm5_80gb", "tf32_tensor_tflops", 494.7),
        ("a100_sxm4_40gb", "tf32_tensor_tflops", 156),
        ("t4", "fp16_tensor_tflops", 65),
        ("rtx6000_ada", "memory_gb", 48),
        ("rtx6000_ada", "board_power_w", 300),
        ("rtx_pro6000", "memory_gb", 96),
        ("quadro_m4000", "bandwidth_gbs", 192),
        # issue 25's audit: the vendor figure, not a lower-clock or graphics-only one
        ("b200", "fp32_tflops", 75),  # the HGX B200 datasheet table (80 is the GB200's)
        ("k80", "fp32_tflops", 4.37),
        ("quadro_rtx5000", "board_power_w", 265),
        # issue 25's catalog gaps: a GPU a provider rents needs a row for its offer to show
        ("mi300x", "memory_gb", 192),
        ("mi300x", "bandwidth_gbs", 5300),
        ("gh200_96gb", "memory_gb", 96),
        ("titan_v", "fp16_tensor_tflops", 110),
        ("b300", "fp32_tflops", 75),
        ("rtx2000_ada", "memory_gb", 16),
        ("rtx4000_ada", "fp32_tflops", 26.7),
        ("rtx4000_sff_ada", "board_power_w", 70),
        ("rtx4500_ada", "bandwidth_gbs", 432),
        ("rtx5000_ada", "fp16_tensor_tflops", 261.1),
        ("rtx_pro4000", "memory_gb", 24),
        ("rtx_pro4000_sff", "board_power_w", 70),
        ("rtx_pro4500", "memory_gb", 32),
        ("rtx_pro5000", "memory_gb", 48),
        ("a16", "memory_gb", 16),  # per GPU: the board holds four
    ],
)
def test_known_anchor_figures(
    by_key: dict[str, GpuSpec], key: str, field: str, expected: float
) -> None:
    assert getattr(by_key[key], field) == pytest.approx(expected, rel=0.01)


def test_street_prices_say_new_or_used_and_used_prices_are_dated(catalog: GpuCatalogFile) -> None:
    for g in catalog.gpus:
        if g.street_price_usd is not None:
            assert g.street_price_condition is not None, g.key
            assert g.sources["street_price"].startswith(g.street_price_condition), g.key
        else:
            assert g.street_price_condition is None, g.key
        assert (g.used_price_usd is None) == (g.used_price_date is None), g.key
        if g.used_price_usd is not None:
            assert g.street_price_condition == "new", g.key  # used beside a new price
            assert g.used_price_date is not None and g.used_price_date <= catalog.as_of, g.key
            assert "resale" in g.sources["street_price"], g.key


def test_default_desktop_cards_are_priced_from_2026_sources(by_key: dict[str, GpuSpec]) -> None:
    """The Done-when: rtx3090 and rtx4090 default to a dated 2026 street price, named in the data
    (and so in `costcalc gpus --json`), never to a launch price."""
    for key, usd, condition in (("rtx3090", 850, "used"), ("rtx4090", 1925, "used")):
        spec = by_key[key]
        assert spec.desktop_price_usd == usd, key
        assert spec.street_price_date is not None and spec.street_price_date.year == 2026, key
        assert spec.street_price_condition == condition, key
        assert "price_readings" in spec.sources["street_price"], key


def test_paperspace_v100_rows_name_the_pcie_card_the_catalog_describes(
    by_key: dict[str, GpuSpec],
) -> None:
    """Paperspace's V100s are PCIe (14 FP32 TFLOPS in its own benchmark): the price file and the
    catalog's notes must say the same card (issue 25)."""
    from importlib import resources

    import yaml

    from costcalc.edge.resources import PRICES_PACKAGE

    text = resources.files(PRICES_PACKAGE).joinpath("paperspace.yaml").read_text(encoding="utf-8")
    v100 = {o["gpu"] for o in yaml.safe_load(text)["offers"] if o["name"].startswith("V100")}
    assert v100 == {"v100_pcie_16gb", "v100_pcie_32gb"}
    for key in ("v100_sxm2_16gb", "v100_sxm2_32gb"):
        notes = by_key[key].notes or ""
        assert "Paperspace" not in notes or "PCIe" in notes, key
