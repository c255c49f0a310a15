"""EC2 instance type -> GPU catalog key and count, from costcalc/data/aws_instances.yaml.

Rule kept here: the AWS parsers keep an instance type only if this table maps it; a type the
table does not know is not a GPU offer we can compare, so it is dropped, never guessed.
"""

from __future__ import annotations

import functools
from datetime import date
from typing import Annotated

from msgspec import field

from costcalc.core.records import Meta, Record
from costcalc.edge.resources import load_yaml_resource


class InstanceGpus(Record, frozen=True, kw_only=True):
    """The GPUs one instance type carries."""

    gpu: Annotated[str, Meta(pattern=r"^[a-z0-9_]+$")]
    """GPU catalog key."""
    gpu_count: Annotated[int, Meta(ge=1)]


class AwsInstanceTable(Record, frozen=True, kw_only=True):
    """costcalc/data/aws_instances.yaml."""

    schema_version: Annotated[int, Meta(ge=1, le=1)] = 1
    source: str
    as_of: date
    instances: dict[str, InstanceGpus]
    skipped: dict[str, str] = field(default_factory=dict)
    """GPU instance types left out, with the reason."""


@functools.cache
def load_instance_table() -> AwsInstanceTable:
    return load_yaml_resource("costcalc.data", "aws_instances.yaml", AwsInstanceTable)


def gpu_instances() -> dict[str, InstanceGpus]:
    return load_instance_table().instances


def aws_instance_table() -> tuple[dict[str, InstanceGpus], dict[str, str]]:
    """The table and its skipped types, as the field's catalogs are read through it
    (providers/catalog_spec.py CatalogFeed.instances)."""
    table = load_instance_table()
    return table.instances, table.skipped
