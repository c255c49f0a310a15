"""AWS EC2 on-demand list prices for GPU instance types, from keyless AWS sources.

Two formats, chosen by the URL:

1. The per-location JSON behind the EC2 on-demand pricing page (default, about 1 MB a region):
       https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/
       ec2-ondemand-without-sec-sel/<Location>/Linux/index.json
   {"regions": {"US East (N. Virginia)": {"<rate key>": {"Instance Type": "g4dn.xlarge",
    "price": "0.5260000000", "vCPU": "4", "Memory": "16 GiB", ...}, ...}}}
2. The official Price List bulk offer file in CSV form (URL ending in .csv), e.g.
       https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.csv
   Five preamble lines, a header row, then one row per SKU and term. It is hundreds of MB, so it
   is parsed as a stream of lines: only the few GPU rows are ever held in memory.

Rule kept here: parsers are pure (in providers/aws_ondemand_feed.py, imported only when
`refresh` runs); only Linux, shared tenancy, no pre-installed software,
on-demand capacity ("Used") counts as the list price of an instance.
"""

from __future__ import annotations

from .aws_instances import aws_instance_table
from .base import CATALOG_ENV, EnvVar, FeedProvider, feed
from .catalog_spec import CatalogFeed, CatalogSource

NAME = "aws-ondemand"
URL_ENV = "COSTCALC_AWS_ONDEMAND_URL"
REGIONS_ENV = "COSTCALC_AWS_REGIONS"
"""Comma-separated region codes to fetch instead of the feed's REGIONS."""


PROVIDER = FeedProvider(
    name=NAME,
    label="AWS EC2 on-demand",
    short="AWS",
    snapshot_file="aws_ondemand.yaml",
    fetch=feed(__package__, ".aws_ondemand_feed", "refresh"),
    env=(
        EnvVar(URL_ENV, "on-demand price list URL ({region}/{location} templates, or a bulk .csv)"),
        EnvVar(REGIONS_ENV, "comma-separated regions to fetch"),
        *CATALOG_ENV,
    ),
    catalogs=CatalogFeed(
        sources=(CatalogSource("skypilot", "aws"), CatalogSource("gpuhunt", "aws")),
        ways="on-demand",
        instances=aws_instance_table,
    ),
)
