"""AWS EC2 reserved instances for GPU instance types: 1- and 3-year Standard terms, no upfront.

Source: the Price List bulk offer file in CSV form (the same file as aws_ondemand's bulk format),
       https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv
whose rows with TermType "Reserved" carry LeaseContractLength ("1yr", "3yr"), PurchaseOption
("No Upfront", "Partial Upfront", "All Upfront") and OfferingClass ("standard", "convertible").
A no-upfront reservation has one row, Unit "Hrs", PricePerUnit the hourly rate; the upfront
options add a "Quantity" row with the fee. The file is hundreds of MB a region and is read as a
stream of lines; because of its size, `costcalc refresh` fetches it only when URL_ENV names it
(a URL or a {region} template), and otherwise keeps the bundled snapshot.

Rules kept here:
- Linux, shared tenancy, no pre-installed software, capacity "Used", Standard class, No Upfront,
  1 or 3 years: the hourly rate is owed for every hour of the term, used or not (term_years);
- a row is named '<type> (1-yr reserved)', so a type's terms never share a name;
- parsers are pure; fetch is the only function that touches the network (both in
  providers/aws_reserved_feed.py, imported only when `refresh` runs).
"""

from __future__ import annotations

from .base import EnvVar, FeedProvider, feed

NAME = "aws-reserved"
URL_ENV = "COSTCALC_AWS_RESERVED_URL"


PROVIDER = FeedProvider(
    name=NAME,
    label="AWS EC2 reserved",
    short="AWS reserved",
    snapshot_file="aws_reserved.yaml",
    fetch=feed(__package__, ".aws_reserved_feed", "refresh"),
    env=(EnvVar(URL_ENV, "Price List bulk CSV URL ({region} template) with Reserved rows"),),
)
