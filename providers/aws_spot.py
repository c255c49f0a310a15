"""AWS EC2 spot prices from the keyless feed behind the EC2 spot pricing page.

Format (spot.json; the older spot.js wraps the same object in `callback(...);`):
    {"vers": 0.01, "config": {"rate": "perhr", "valueColumns": ["linux", "mswin"],
     "currencies": ["USD"], "regions": [{"region": "us-east-1", "instanceTypes": [
        {"type": "gpuCurrentGen", "sizes": [{"size": "g4dn.xlarge", "valueColumns": [
            {"name": "linux", "prices": {"USD": "0.1578"}}, ...]}]}]}]}}
Prices are strings per hour for the whole instance; "N/A*" (and "0" for types the feed has
no price for yet) mean no offer. Old payloads name regions the legacy way (us-east,
eu-ireland, apac-tokyo), normalised here to region codes. One price per region: the feed
carries no availability-zone detail.

Rule kept here: parse is pure; fetch is the only function that touches the network; both live in
providers/aws_spot_feed.py, imported only when `refresh` runs.
"""

from __future__ import annotations

from .aws_instances import aws_instance_table
from .base import CATALOG_ENV, EnvVar, FeedProvider, feed
from .catalog_spec import CatalogFeed, CatalogSource

NAME = "aws-spot"
URL_ENV = "COSTCALC_AWS_SPOT_URL"


PROVIDER = FeedProvider(
    name=NAME,
    label="AWS EC2 spot",
    short="AWS spot",
    snapshot_file="aws_spot.yaml",
    fetch=feed(__package__, ".aws_spot_feed", "refresh"),
    env=(
        EnvVar(URL_ENV, "spot price feed URL"),
        EnvVar("COSTCALC_AWS_ADVISOR_URL", "Spot Instance Advisor feed URL"),
        *CATALOG_ENV,
    ),
    catalogs=CatalogFeed(
        sources=(CatalogSource("skypilot", "aws"), CatalogSource("gpuhunt", "aws")),
        ways="spot",
        price_kind="observed",
        instances=aws_instance_table,
    ),
)
