"""Paperspace (a DigitalOcean company): machines by the hour, with Gradient plans.

Paperspace publishes no machine-readable price list, so the bundled table (prices/paperspace.yaml,
read from paperspace.com/pricing) is kept. With a DigitalOcean token, `costcalc refresh` adds the
GPU Droplets from DigitalOcean's sizes API (providers/digitalocean.py, read by
providers/paperspace_feed.py, both imported only when `refresh` runs) to it.
"""

from __future__ import annotations

from .base import EnvVar, FeedProvider, feed

NAME = "paperspace"
SNAPSHOT_FILE = "paperspace.yaml"
DIGITALOCEAN_URL_ENV = "COSTCALC_DIGITALOCEAN_URL"
DIGITALOCEAN_TOKEN_ENVS = (
    "COSTCALC_DIGITALOCEAN_TOKEN",
    "DIGITALOCEAN_TOKEN",
    "DIGITALOCEAN_ACCESS_TOKEN",
)
"""The settings the DigitalOcean feed reads, named here because they are Paperspace's settings."""


PROVIDER = FeedProvider(
    name=NAME,
    label="Paperspace",
    snapshot_file=SNAPSHOT_FILE,
    fetch=feed(__package__, ".paperspace_feed", "refresh"),
    env=(
        EnvVar(
            DIGITALOCEAN_TOKEN_ENVS[0],
            "DigitalOcean API token (sizes:read)",
            secret=True,
            aliases=DIGITALOCEAN_TOKEN_ENVS[1:],
        ),
        EnvVar(DIGITALOCEAN_URL_ENV, "DigitalOcean sizes API URL"),
    ),
)
