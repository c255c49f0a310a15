"""The bundled price and carbon data load through their models and hold plausible figures.

Each file is read the way the installed package reads it (importlib.resources), validated with its
pydantic model, then checked for figures that would silently break the calculator.
"""

from __future__ import annotations

from datetime import date
from importlib import resources
from typing import Any

import pytest
import yaml

from costcalc.core.models import (
    CarbonData,
    ColabSnapshot,
    DesktopDefaults,
    ElectricityData,
    FxRates,
    OfferRow,
    PriceSnapshot,
    RegionNames,
)
from costcalc.core.records import validated
from costcalc.edge.resources import PRICES_PACKAGE

# The GPU catalog's keys (hard-coded until the catalog module exposes them).
# fmt: off
GPU_KEYS = frozenset(
    (
        "gtx1060_6gb", "gtx1070", "gtx1070ti", "gtx1080", "gtx1080ti", "gtx1650", "gtx1660",
        "gtx1660_super", "gtx1660ti", "rtx2060", "rtx2060_super", "rtx2070", "rtx2070_super",
        "rtx2080", "rtx2080_super", "rtx2080ti", "titan_rtx", "rtx3060_12gb", "rtx3060ti",
        "rtx3070", "rtx3070ti", "rtx3080", "rtx3080ti", "rtx3090", "rtx3090ti", "rtx4060",
        "rtx4060ti_16gb", "rtx4070", "rtx4070_super", "rtx4070ti", "rtx4070ti_super", "rtx4080",
        "rtx4080_super", "rtx4090", "rtx5060ti_16gb", "rtx5070", "rtx5070ti", "rtx5080", "rtx5090",
        "quadro_m4000", "quadro_p4000", "quadro_p5000", "quadro_p6000", "quadro_rtx4000",
        "quadro_rtx5000", "quadro_rtx6000", "quadro_rtx8000", "rtx_a4000", "rtx_a4500", "rtx_a5000",
        "rtx_a5500", "rtx_a6000", "rtx6000_ada", "rtx_pro6000", "k80", "m60", "p4",
        "p100_pcie_16gb", "v100_pcie_16gb", "v100_pcie_32gb", "v100_sxm2_16gb", "v100_sxm2_32gb",
        "t4", "a10", "a10g", "l4", "l40s", "a40", "a100_pcie_40gb", "a100_sxm4_40gb",
        "a100_pcie_80gb", "a100_sxm4_80gb", "h100_pcie_80gb", "h100_sxm5_80gb", "h200_sxm_141gb",
        "b200",
    )
)
# fmt: on

PRICE_FILES = {
    "aws_ondemand": "aws_ondemand.yaml",
    "aws_spot": "aws_spot.yaml",
    "paperspace": "paperspace.yaml",
    "paperspace_2022": "history/paperspace_2022.yaml",
}
MIN_USD_PER_GPU_HOUR, MAX_USD_PER_GPU_HOUR = 0.05, 15.0


def _load(relpath: str) -> Any:
    text = resources.files(PRICES_PACKAGE).joinpath(relpath).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _header(relpath: str) -> str:
    return resources.files(PRICES_PACKAGE).joinpath(relpath).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def snapshots() -> dict[str, PriceSnapshot]:
    return {k: validated(PriceSnapshot, _load(v)) for k, v in PRICE_FILES.items()}


@pytest.fixture(scope="module")
def colab() -> ColabSnapshot:
    return validated(ColabSnapshot, _load("colab.yaml"))


@pytest.fixture(scope="module")
def desktop() -> DesktopDefaults:
    return validated(DesktopDefaults, _load("desktop.yaml"))


@pytest.fixture(scope="module")
def carbon() -> CarbonData:
    return validated(CarbonData, _load("carbon.yaml"))


@pytest.fixture(scope="module")
def electricity() -> ElectricityData:
    return validated(ElectricityData, _load("electricity.yaml"))


@pytest.fixture(scope="module")
def fx() -> FxRates:
    return validated(FxRates, _load("fx.yaml"))


@pytest.fixture(scope="module")
def region_names() -> RegionNames:
    return validated(RegionNames, _load("regions.yaml"))


# ----------------------------------------------------------------------------- provenance


@pytest.mark.parametrize(
    "relpath",
    [
        *PRICE_FILES.values(),
        "colab.yaml",
        "desktop.yaml",
        "carbon.yaml",
        "electricity.yaml",
        "fx.yaml",
        "regions.yaml",
    ],
)
def test_every_file_starts_with_a_provenance_header(relpath: str) -> None:
    text = _header(relpath)
    assert text.startswith("# prices/"), relpath
    head = text.split("\n\n", 1)[0].lower()
    assert "source" in head
    assert "date" in head


def test_snapshots_name_their_providers(snapshots: dict[str, PriceSnapshot]) -> None:
    assert snapshots["aws_ondemand"].provider == "aws-ondemand"
    assert snapshots["aws_spot"].provider == "aws-spot"
    assert snapshots["paperspace"].provider == "paperspace"
    assert snapshots["paperspace_2022"].provider == "paperspace"
    assert snapshots["aws_spot"].spot is True
    assert snapshots["aws_ondemand"].spot is False


# ----------------------------------------------------------------------------- offers


@pytest.mark.parametrize("which", list(PRICE_FILES))
def test_offers_are_non_empty_and_use_catalog_gpu_keys(
    snapshots: dict[str, PriceSnapshot], which: str
) -> None:
    snap = snapshots[which]
    assert snap.offers
    unknown = {o.gpu for o in snap.offers} - GPU_KEYS
    assert not unknown, f"{which}: gpu keys not in catalog: {unknown}"


@pytest.mark.parametrize("which", list(PRICE_FILES))
def test_prices_are_positive_and_per_gpu_hour_is_plausible(
    snapshots: dict[str, PriceSnapshot], which: str
) -> None:
    for o in snapshots[which].offers:
        if not o.guaranteed and o.usd_per_hour == 0:
            continue  # a free tier without a guaranteed GPU may cost nothing
        assert o.usd_per_hour > 0, (which, o.name)
        per_gpu = o.usd_per_hour / o.gpu_count
        assert MIN_USD_PER_GPU_HOUR <= per_gpu <= MAX_USD_PER_GPU_HOUR, (which, o.name, per_gpu)


@pytest.mark.parametrize("which", list(PRICE_FILES))
def test_every_offer_is_dated_and_sourced(snapshots: dict[str, PriceSnapshot], which: str) -> None:
    snap = snapshots[which]
    for o in snap.offers:
        assert o.source or snap.source, (which, o.name)
        assert o.fetched_at or snap.fetched_at, (which, o.name)


def test_offer_names_are_unique_per_region(snapshots: dict[str, PriceSnapshot]) -> None:
    for which, snap in snapshots.items():
        keys = [(o.name, o.region) for o in snap.offers]
        assert len(keys) == len(set(keys)), which


def test_aws_billing_is_per_second_with_a_minute_minimum(
    snapshots: dict[str, PriceSnapshot],
) -> None:
    for which in ("aws_ondemand", "aws_spot"):
        assert snapshots[which].billing_increment_s == 1
        assert snapshots[which].billing_minimum_s == 60


def test_spot_rows_carry_advisor_buckets(snapshots: dict[str, PriceSnapshot]) -> None:
    for o in snapshots["aws_spot"].offers:
        assert o.interruption_bucket is not None and 0 <= o.interruption_bucket <= 4, o.name
        assert o.savings_pct is not None and 0 < o.savings_pct < 100, o.name
        assert o.limits and "%" in o.limits, o.name
        assert o.source and "estimate" in o.source.lower(), o.name


def test_spot_estimate_is_below_on_demand(snapshots: dict[str, PriceSnapshot]) -> None:
    ondemand = {(o.name, o.region): o.usd_per_hour for o in snapshots["aws_ondemand"].offers}
    spot = snapshots["aws_spot"].offers
    assert spot
    for o in spot:
        od = ondemand.get((o.name, o.region))
        assert od is not None, f"spot row without a sourced on-demand price: {o.name} {o.region}"
        assert o.usd_per_hour < od, (o.name, o.region)
        assert o.savings_pct is not None
        assert o.usd_per_hour == pytest.approx(od * (1 - o.savings_pct / 100), rel=1e-3)


def test_aws_gpu_mapping_matches_the_instance_families(
    snapshots: dict[str, PriceSnapshot],
) -> None:
    by_name = {o.name: o for o in snapshots["aws_ondemand"].offers}
    assert by_name["p3.2xlarge"].gpu == "v100_sxm2_16gb"
    assert by_name["p3.16xlarge"].gpu_count == 8
    assert by_name["p4d.24xlarge"].gpu == "a100_sxm4_40gb"
    assert by_name["p5.48xlarge"].gpu == "h100_sxm5_80gb"
    assert by_name["g4dn.xlarge"].gpu == "t4"
    assert by_name["g5.xlarge"].gpu == "a10g"


AWS_HOME_REGION = "us-east-1"  # the region the file-level source and fetched_at describe
AWS_ONDEMAND_REGIONS = {
    "us-east-1",
    "us-west-2",
    "us-east-2",
    "eu-west-1",
    "eu-central-1",
    "ap-northeast-1",
}


def test_aws_rows_outside_the_home_region_carry_their_own_date_and_source(
    snapshots: dict[str, PriceSnapshot],
) -> None:
    for which in ("aws_ondemand", "aws_spot"):
        for o in own_rows(snapshots[which]):
            if o.region != AWS_HOME_REGION:
                assert o.fetched_at is not None and o.source, (which, o.name, o.region)
                assert o.region in o.source, (which, o.name, o.region)


def own_rows(snapshot: PriceSnapshot) -> list[OfferRow]:
    """The rows of a file's own, before the rows the field's catalogs add (each of which names
    its catalog file and date: tests/data/test_price_data.py checks them below)."""
    return [o for o in snapshot.offers if not (o.source or "").startswith(CATALOG_SOURCE)]


CATALOG_SOURCE = ("SkyPilot v8 ", "gpuhunt ")


def test_catalog_rows_name_their_catalog_and_date(snapshots: dict[str, PriceSnapshot]) -> None:
    added = [
        o for o in snapshots["aws_ondemand"].offers if o not in own_rows(snapshots["aws_ondemand"])
    ]
    assert added and {o.region for o in added} - AWS_ONDEMAND_REGIONS, "new regions added"
    for o in added:
        assert o.fetched_at is not None and f"as of {o.fetched_at:%Y-%m-%d}" in str(o.source)


def test_aws_ondemand_covers_the_major_regions(snapshots: dict[str, PriceSnapshot]) -> None:
    offers = own_rows(snapshots["aws_ondemand"])
    assert {o.region for o in offers} == AWS_ONDEMAND_REGIONS
    home = {o.name: o for o in offers if o.region == AWS_HOME_REGION}
    for o in offers:
        ref = home.get(o.name)
        assert ref is not None, f"{o.name} {o.region} has no {AWS_HOME_REGION} row"
        # Instance sizes do not change with the region; only the price does.
        assert (o.gpu, o.gpu_count, o.vcpus, o.ram_gb) == (
            ref.gpu,
            ref.gpu_count,
            ref.vcpus,
            ref.ram_gb,
        ), (o.name, o.region)
        # No region undercuts us-east-1 for these types (us-west-2 p4d differs in the 7th digit).
        assert ref.usd_per_hour * (1 - 1e-6) <= o.usd_per_hour <= 2 * ref.usd_per_hour, (
            o.name,
            o.region,
        )


def test_aws_ondemand_regional_figures_confirmed_by_the_price_list(
    snapshots: dict[str, PriceSnapshot],
) -> None:
    # AWS Price List AmazonEC2 20260910195514 (2026-09-10), copied SKU by SKU into a public fixture.
    price = {(o.name, o.region): o.usd_per_hour for o in snapshots["aws_ondemand"].offers}
    assert price[("p4d.24xlarge", "eu-west-1")] == pytest.approx(23.71569)
    assert price[("p4d.24xlarge", "us-west-2")] == pytest.approx(21.95764)
    assert price[("g5.2xlarge", "eu-west-1")] == pytest.approx(1.35296)
    assert price[("g4dn.xlarge", "eu-west-1")] == pytest.approx(0.587)
    assert price[("p5.48xlarge", "us-west-2")] == pytest.approx(55.04)
    # eu-west-1 publishes no g6 or p5 on-demand product: absent, not guessed.
    assert ("g6.xlarge", "eu-west-1") not in price
    assert ("p5.48xlarge", "eu-west-1") not in price


def test_spot_estimates_are_below_on_demand_and_dated_by_the_older_input(
    snapshots: dict[str, PriceSnapshot],
) -> None:
    od_snap, spot_snap = snapshots["aws_ondemand"], snapshots["aws_spot"]
    ondemand = {(o.name, o.region): o for o in od_snap.offers}
    for o in spot_snap.offers:
        od = ondemand.get((o.name, o.region))
        assert od is not None, (o.name, o.region)
        assert o.usd_per_hour < od.usd_per_hour, (o.name, o.region)
        spot_date = o.fetched_at or spot_snap.fetched_at
        od_date = od.fetched_at or od_snap.fetched_at
        assert spot_date <= od_date, (o.name, o.region)


def test_paperspace_plans_and_worked_example_prices(
    snapshots: dict[str, PriceSnapshot],
) -> None:
    # 2022: Gradient Pro $8; the 2026-09-20 page's individual Pro plan is $12 (issue 25)
    for which, pro_usd in (("paperspace", 12.0), ("paperspace_2022", 8.0)):
        snap = snapshots[which]
        fees = {p.name: p.monthly_fee_usd for p in snap.plans}
        assert fees == {"Free": 0.0, "Pro": pro_usd, "Growth": 39.0}, which
        # a GPU Droplet (DigitalOcean) needs no Gradient plan
        assert all(o.plan in fees or "GPU Droplet" in o.name for o in snap.offers), which


def test_paperspace_2022_worked_example_figures(snapshots: dict[str, PriceSnapshot]) -> None:
    snap = snapshots["paperspace_2022"]
    assert snap.fetched_at.date().isoformat() == "2022-04-01"
    by_gpu = {o.gpu: o for o in snap.offers}
    assert by_gpu["rtx_a6000"].usd_per_hour == pytest.approx(1.89)
    assert by_gpu["quadro_m4000"].usd_per_hour == pytest.approx(0.45)
    assert by_gpu["quadro_m4000"].plan == "Free"
    assert by_gpu["rtx_a6000"].plan == "Growth"
    assert len(snap.offers) == 12


def test_paperspace_excludes_commitment_prices(snapshots: dict[str, PriceSnapshot]) -> None:
    prices_seen = {o.usd_per_hour for o in snapshots["paperspace"].offers}
    assert 2.24 not in prices_seen  # HGX H100 3-year commitment
    assert 1.15 not in prices_seen  # A100-80G footnoted promo
    h100 = [o for o in snapshots["paperspace"].offers if o.gpu.startswith("h100")]
    # the page's '$3.09' next to 'H100' is the A100 40GB price; the H100 rows are DigitalOcean's
    assert h100 and all(o.usd_per_hour / o.gpu_count != pytest.approx(3.09) for o in h100)
    assert {o.usd_per_hour for o in h100} == {3.39, 23.92}


def test_paperspace_rows_carry_a_real_date(snapshots: dict[str, PriceSnapshot]) -> None:
    """No placeholder dates: a row whose source has no date is left out (issue 25)."""
    snap = snapshots["paperspace"]
    for o in snap.offers:
        assert (o.fetched_at or snap.fetched_at).year >= 2026, o.name


# ----------------------------------------------------------------------------- Colab


def test_colab_tiers(colab: ColabSnapshot) -> None:
    tiers = {t.key: t for t in colab.tiers}
    assert {"free", "payg", "pro", "pro_plus"} <= set(tiers)
    free = tiers["free"]
    assert free.monthly_fee_usd == 0 and not free.guaranteed and free.gpus == ("t4",)
    assert tiers["pro"].compute_units_per_month == 100
    assert tiers["pro_plus"].compute_units_per_month == 500
    for t in colab.tiers:
        assert set(t.gpus) <= GPU_KEYS, t.key
        assert t.limits and t.source, t.key


def test_colab_rates_convert_to_plausible_usd_per_hour(colab: ColabSnapshot) -> None:
    unit_usd = next(t.usd_per_unit for t in colab.tiers if t.key == "payg")
    assert unit_usd == pytest.approx(0.0999)
    gpus = [r.gpu for r in colab.rates]
    assert len(gpus) == len(set(gpus)), "one rate per GPU"
    for r in colab.rates:
        assert r.gpu in GPU_KEYS
        usd = r.units_per_hour * unit_usd
        assert MIN_USD_PER_GPU_HOUR <= usd <= MAX_USD_PER_GPU_HOUR, (r.gpu, usd)
    rate = {r.gpu: r.units_per_hour for r in colab.rates}
    assert rate["t4"] < rate["l4"] < rate["a100_sxm4_40gb"] < rate["a100_sxm4_80gb"]


# ----------------------------------------------------------------------------- desktop


def test_desktop_defaults(desktop: DesktopDefaults) -> None:
    assert set(desktop.base_system_usd) == {1, 2, 4}
    assert set(desktop.rest_of_system_w) == {1, 2, 4}
    assert set(desktop.idle_system_w) == {1, 2, 4}
    # Dettmers 2020: 100 W for the rest of a 1-2 GPU system. (His $701 barebone is no longer the
    # base price: in 2026 a 64 GB DDR5 kit alone cost about that; see test_base_system_...)
    assert desktop.rest_of_system_w[1] == desktop.rest_of_system_w[2] == 100
    for n in (1, 2, 4):
        assert desktop.idle_system_w[n] < desktop.rest_of_system_w[n] + 100 * n
    assert desktop.base_system_usd[1] <= desktop.base_system_usd[2] <= desktop.base_system_usd[4]
    assert 0.8 <= desktop.psu_efficiency_typical <= 0.96
    assert 0 < desktop.embodied_kgco2e_system < 2000
    assert 0 < desktop.embodied_kgco2e_per_gpu < 1000
    for field in (
        "base_systems",
        "rest_of_system_w",
        "idle_system_w",
        "psu_efficiency_typical",
        "embodied_kgco2e_system",
        "embodied_kgco2e_per_gpu",
        "life_years",
    ):
        assert field in desktop.notes, field


def test_base_system_prices_add_up_their_dated_2026_parts(desktop: DesktopDefaults) -> None:
    """Each base price is its parts list rounded to $50; every part is sourced and dated, the
    prices are 2026 ones (a PSU quote of 2025-09 aside) and no estimate hides as a dated price."""
    assert set(desktop.base_system_parts) == {1, 2, 4}
    assert desktop.base_system_as_of.year == 2026
    assert desktop.base_system_as_of <= desktop.as_of
    every = [
        (f"{tier} {n}", system)
        for tier, sizes in desktop.base_systems.items()
        for n, system in sizes.items()
    ]
    assert len(every) == 7  # lean and standard for 1-2 GPUs, workstation for 1, 2 and 4
    newest = max(p.observed for _, s in every for p in s.parts if not p.estimate)
    assert newest == desktop.base_system_as_of
    for n, (system_usd, parts) in ((name, (system.usd, system.parts)) for name, system in every):
        total = sum(p.usd for p in parts)
        assert system_usd == pytest.approx(total, abs=25), n
        assert {p.category for p in parts} == {
            "cpu",
            "motherboard",
            "ram",
            "ssd",
            "psu",
            "case",
            "cooler",
        }, n
        for part in parts:
            assert part.source and part.observed >= date(2025, 9, 1), (n, part.item)
            assert part.observed <= desktop.as_of, (n, part.item)
            assert part.estimate == part.source.startswith("estimate"), (n, part.item)
        dated = [p for p in parts if not p.estimate]
        # mostly dated prices (the lean 2-GPU list is the least: its x8/x8 board and full tower,
        # 27 %, have no 2026-dated price and say so)
        assert sum(p.usd for p in dated) > 0.7 * total, n
        assert max(p.observed for p in dated).year == 2026, n
    # issue 25: the 1-GPU default is the lean tier (6-8 cores, 32 GB): about $1,000-1,500 in 2026,
    # not the $2,200 of a 16-core, 64 GB build (which flipped a 3090's verdict to Rent)
    assert 900 <= desktop.base_system_usd[1] <= 1500
    assert desktop.base_system_usd[1] < desktop.base_system_usd[2] < desktop.base_system_usd[4]
    lean_ram = next(p for p in desktop.base_system_parts[1] if p.category == "ram")
    assert "32 GB" in lean_ram.item
    assert desktop.base_system_usd[4] <= 12_000
    # the defaults are lean, standard, workstation by GPU count; each tier costs more than the
    # one below it for the same count
    assert desktop.base_default == {1: "lean", 2: "standard", 4: "workstation"}
    tiers = desktop.base_systems
    for n in (1, 2):
        assert tiers["lean"][n].usd < tiers["standard"][n].usd < tiers["workstation"][n].usd


# ----------------------------------------------------------------------------- carbon


def test_carbon_intensities_and_pue_are_plausible(carbon: CarbonData) -> None:
    for r in carbon.regions:
        assert 0 <= r.gco2_per_kwh <= 1500, r.code
        assert 2000 <= r.year <= 2026, r.code  # OWID keeps a few old years (EH 2009)
        assert r.source, r.code
        if r.gco2_per_kwh_direct is not None:
            assert 0 <= r.gco2_per_kwh_direct <= 1500, r.code
            assert r.direct_year and r.direct_source, r.code
        if r.pue is not None:
            assert 1.0 <= r.pue <= 2.0, r.code
    for provider, pue in carbon.pue_defaults.items():
        assert 1.0 <= pue <= 2.0, provider
    assert carbon.pue_defaults["home"] == 1.0
    expected = {"aws", "gcp", "azure", "paperspace", "colab", "custom", "home"}
    assert expected <= set(carbon.pue_defaults)
    assert 0 < carbon.cloud_host_w_per_gpu < 300


def test_carbon_region_codes(carbon: CarbonData) -> None:
    codes = [r.code for r in carbon.regions]
    assert len(codes) == len(set(codes)), "duplicate region codes"
    present = set(codes)
    assert carbon.default_home_region in present
    for code in (
        "US",
        "US-CA",
        "DE",
        "FR",
        "CA-QC",
        "AU-NSW",
        "aws:us-east-1",
        "gcp:us-central1",
        "paperspace:NY2",
        "colab:global",
    ):
        assert code in present, code
    countries = [c for c in codes if ":" not in c and "-" not in c]
    assert all(len(c) == 2 and c.isupper() for c in countries), "countries use ISO alpha-2"
    assert len(countries) > 150
    cloud = [r for r in carbon.regions if ":" in r.code]
    assert all(r.pue is not None for r in cloud)


def test_every_grid_is_on_one_basis_and_says_so(carbon: CarbonData) -> None:
    assert carbon.basis == "lifecycle"
    header = _header("carbon.yaml").split("\n\n", 1)[0].lower()
    assert "lifecycle" in header and "odbl" in header
    for r in carbon.regions:
        assert r.basis == carbon.basis, r.code
        assert "lifecycle" in r.source.lower(), r.code
        assert "operational" not in r.source.lower(), r.code  # Google's figures are direct
        if r.code.startswith("gcp:"):
            assert r.gco2_per_kwh_direct is not None, r.code  # Google's own figure, kept aside
            assert "operational" in (r.direct_source or ""), r.code


def test_done_when_grids_compare_on_the_same_basis(carbon: CarbonData) -> None:
    ci = {r.code: r for r in carbon.regions}
    # aws:ca-central-1 draws from Quebec's grid, now lifecycle like Sweden's (was 1.5 direct)
    assert ci["aws:ca-central-1"].grid == "CA-QC"
    assert ci["aws:ca-central-1"].gco2_per_kwh == ci["CA-QC"].gco2_per_kwh == 41.0
    assert ci["SE"].gco2_per_kwh == 35.8
    assert ci["aws:ca-central-1"].basis == ci["SE"].basis == "lifecycle"
    # aws:us-west-2 and GCP us-west1 are both in Oregon: one grid, one figure (Ember 2025)
    assert ci["aws:us-west-2"].grid == ci["gcp:us-west1"].grid == "US-OR"
    assert ci["aws:us-west-2"].gco2_per_kwh == ci["gcp:us-west1"].gco2_per_kwh == 184.0
    assert ci["gcp:us-west1"].gco2_per_kwh_direct == pytest.approx(79.23)  # Google, operational
    for code in ("aws:us-west-2", "gcp:us-west1", "CA-QC", "US-OR"):
        assert ci[code].year == 2025, code


def test_cloud_regions_take_their_grids_figure(carbon: CarbonData) -> None:
    ci = {r.code: r for r in carbon.regions}
    for r in carbon.regions:
        if ":" in r.code:
            assert r.grid in ci, r.code
            assert r.gco2_per_kwh == pytest.approx(ci[r.grid].gco2_per_kwh, abs=0.06), r.code


def test_carbon_orders_known_grids(carbon: CarbonData) -> None:
    ci = {r.code: r.gco2_per_kwh for r in carbon.regions}
    assert ci["FR"] < ci["DE"] < ci["PL"]
    assert ci["CA-QC"] < ci["US-CA"] < ci["US-WV"]


# ----------------------------------------------------------------------------- electricity

EU_EEA = {
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
    "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK", "NO", "IS", "LI",
}  # fmt: skip
US_STATES_AND_DC = 51
CA_PROVINCES = {
    "CA-AB", "CA-BC", "CA-MB", "CA-NB", "CA-NL", "CA-NS", "CA-NT", "CA-NU", "CA-ON", "CA-PE",
    "CA-QC", "CA-SK", "CA-YT",
}  # fmt: skip


def test_every_household_price_is_sourced_dated_and_plausible(
    electricity: ElectricityData, fx: FxRates
) -> None:
    codes = [p.code for p in electricity.prices]
    assert len(codes) == len(set(codes)), "duplicate region codes"
    rates = {"EUR": 1.0, **fx.per_eur}
    for p in electricity.prices:
        assert p.source in electricity.sources, p.code
        assert p.period and date(2022, 1, 1) <= p.as_of <= electricity.as_of, p.code
        if p.currency in rates:  # a household kWh costs 1-60 US cents almost everywhere
            usd = p.price_per_kwh / rates[p.currency] * rates["USD"]
            assert 0.01 <= usd <= 0.6, (p.code, usd)
    for key, source in electricity.sources.items():
        assert source.label and source.citation and source.licence, key
    assert electricity.default_region in codes
    assert electricity.missing, "the file says which regions are missing and why"


def test_household_prices_cover_the_regions_the_issue_names(electricity: ElectricityData) -> None:
    codes = {p.code for p in electricity.prices}
    assert len([c for c in codes if c.startswith("US-")]) == US_STATES_AND_DC
    assert codes >= EU_EEA
    assert codes >= CA_PROVINCES
    assert {"US", "GB", "JP", "CH", "AU", "NZ", "IN", "KR"} <= codes
    assert len(codes) >= 150


def test_done_when_prices_match_their_sources(electricity: ElectricityData) -> None:
    by = {p.code: p for p in electricity.prices}
    sources = electricity.sources
    germany = by["DE"]  # Eurostat nrg_pc_204, band DC, all taxes, 2025-S2
    assert (germany.price_per_kwh, germany.currency, germany.period) == (0.3869, "EUR", "2025-S2")
    assert sources[germany.source].label == "Eurostat"
    us, california = by["US"], by["US-CA"]  # EIA residential average, 2025
    assert (us.price_per_kwh, us.currency, us.period) == (0.1733, "USD", "2025")
    assert (california.price_per_kwh, california.period) == (0.3264, "2025")
    assert sources[california.source].label == "EIA"
    uk = by["GB"]  # Ofgem cap, 1 Oct - 31 Dec 2026, unit rate 26.32 p, standing charge 54.83 p/day
    assert (uk.price_per_kwh, uk.currency, uk.standing_charge_per_day) == (0.2632, "GBP", 0.5483)
    assert uk.as_of == date(2026, 10, 1) and sources[uk.source].label == "Ofgem price cap"
    japan = by["JP"]  # TEPCO model household, October 2026
    assert (japan.price_per_kwh, japan.currency, japan.period) == (36.8, "JPY", "2026-10")


def test_electricity_header_names_licences_and_says_household(electricity: ElectricityData) -> None:
    head = _header("electricity.yaml").split("\n\n", 1)[0].lower()
    for word in ("public domain", "cc by 4.0", "open government licence", "mit", "household"):
        assert word in head, word
    assert "data-centre" in head or "business" in head


# ----------------------------------------------------------------------------- currencies


def test_fx_rates_are_the_ecb_reference_rates_of_one_day(fx: FxRates) -> None:
    assert fx.as_of == date(2026, 10, 6)
    assert "ecb" in fx.source.lower() and "source acknowledged" in fx.licence
    assert {"USD", "JPY", "GBP", "CHF", "INR", "CAD", "AUD"} <= set(fx.per_eur)
    assert "EUR" not in fx.per_eur  # the base
    assert len(fx.per_eur) == 29  # every currency of the one day, none from another
    assert fx.per_eur["USD"] == 1.1269 and fx.per_eur["JPY"] == 178.15
    for peg in fx.pegs:
        assert peg.anchor in fx.per_eur or peg.anchor == "EUR", peg.currency
        assert peg.currency not in fx.per_eur and peg.source, peg.currency


# ----------------------------------------------------------------------------- regions


def test_region_aliases_point_at_known_codes(
    region_names: RegionNames, carbon: CarbonData, electricity: ElectricityData
) -> None:
    known = {r.code for r in carbon.regions} | {p.code for p in electricity.prices}
    for alias in region_names.aliases:
        assert set(alias.codes) <= known, alias.alias
    keys = [a.alias.casefold() for a in region_names.aliases]
    assert len(keys) == len(set(keys)), "an alias listed twice"
    by = {a.alias: a.codes for a in region_names.aliases}
    assert by["UK"] == ("GB",) and by["California"] == ("US-CA",) and by["Japan"] == ("JP",)
    assert by["Georgia"] == ("GE", "US-GA")  # ambiguous on purpose
    assert by["CA-MT"] == ("CA-MB",)  # an earlier version's code still works


def test_curated_euro_prices_convert_at_the_bundled_ecb_rate() -> None:
    """A euro price and the rates file must not disagree on what a euro is (issue 25)."""
    fx = validated(FxRates, _load("fx.yaml"))
    hetzner = validated(PriceSnapshot, _load("hetzner.yaml"))
    for o in hetzner.offers:
        assert o.price_in_currency is not None, o.name
        rate = o.usd_per_hour / o.price_in_currency
        assert rate == pytest.approx(fx.per_eur["USD"], rel=1e-4), o.name


def test_no_figure_cites_a_search_index_id() -> None:
    """A citation is a page or a repository file a person can open, never an id of the index the
    data was found through (issue 25)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [
        *root.joinpath("prices").rglob("*.yaml"),
        *root.joinpath("costcalc/data").glob("*.yaml"),
    ]
    assert len(files) > 20
    for path in files:
        text = path.read_text(encoding="utf-8").casefold()
        for phrase in ("search-index", "find_string id", "file id 6", "file id 7"):
            assert phrase not in text, (path.name, phrase)
