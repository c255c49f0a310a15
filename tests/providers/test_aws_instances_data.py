"""The instance -> GPU table: every key in the catalog, nothing both mapped and skipped."""

from __future__ import annotations

from costcalc.providers.aws_instances import load_instance_table
from costcalc.store.bundled import load_catalog


def test_every_mapped_gpu_is_in_the_catalog() -> None:
    catalog = load_catalog()
    table = load_instance_table()
    unknown = {name: g.gpu for name, g in table.instances.items() if g.gpu not in catalog}
    assert not unknown


def test_mapped_and_skipped_are_disjoint_and_names_look_like_instance_types() -> None:
    table = load_instance_table()
    assert not set(table.instances) & set(table.skipped)
    for name in [*table.instances, *table.skipped]:
        family, _, size = name.partition(".")
        assert family and size, name


def test_known_facts_from_the_source() -> None:
    table = load_instance_table().instances
    assert (table["p4de.24xlarge"].gpu, table["p4de.24xlarge"].gpu_count) == ("a100_sxm4_80gb", 8)
    assert (table["g4dn.12xlarge"].gpu, table["g4dn.12xlarge"].gpu_count) == ("t4", 4)
    assert table["p5.4xlarge"].gpu_count == 1
    assert "g6f.large" not in table  # fractional GPU
    assert "g4ad.xlarge" not in table  # AMD
