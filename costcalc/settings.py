"""The app's settings: what the user told costcalc last time, kept in config.yaml.

Rule kept here: the file crosses the edge through pydantic like every other file. A missing file
means defaults; a malformed one means defaults plus one line saying what is wrong, never a crash;
and a malformed file is kept aside (never silently overwritten) the first time new settings are
saved. Writes are atomic (`resources.write_model_yaml`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from costcalc import locations
from costcalc.constants import CUSTOM_PROVIDER, PROVIDERS
from costcalc.errors import DataFileError
from costcalc.resources import parse_yaml, validate, write_model_yaml

DEFAULT_GPU = "rtx3090"
"""The reference desktop of the canonical break-even example (DOMAIN.md section 1)."""

OfferKind = Literal["all", "spot", "on-demand"]
Dtype = Literal["fp32", "tf32", "fp16", "bf16"]
Kind = Literal["cnn", "transformer", "rnn", "generic"]


class Settings(BaseModel):
    """Inputs of the comparison and the choices the app remembers between sessions."""

    # Descriptions live in Field(); the attribute docstrings below are for readers of this file
    # (use_attribute_docstrings would parse this module's source at import: 10 ms of start-up).
    model_config = ConfigDict(frozen=True, extra="forbid")

    gpu: str | None = Field(
        default=None,
        description="Desktop GPU, a catalog key or any name the catalog resolves.",
    )
    """None: the GPU this machine has (nvidia-smi), else the RTX 3090 of the reference case."""

    gpu_count: int = Field(default=1, ge=1, le=16, description="GPUs in the desktop.")
    """Number of GPUs in the desktop; cloud offers are compared for the same work."""

    desktop_price_usd: float | None = Field(
        default=None, ge=0, description="Whole machine, up front, in USD."
    )
    """None: street price of the GPUs plus the base system for that many GPUs."""

    utilisation: float = Field(
        default=0.15, gt=0, le=1, description="Share of all hours the GPU works (0-1]."
    )
    """0.15 is a PhD student's desktop; most personal machines really sit at 0.05-0.10."""

    usd_per_kwh: float | None = Field(default=None, ge=0, description="Electricity price, USD/kWh.")
    """None: the bundled default (US average)."""

    home_region: str | None = Field(
        default=None, description="Grid the desktop draws from: US, DE, US-CA, ..."
    )
    """None: the bundled default home region."""

    horizon_years: float = Field(
        default=3.0, gt=0, le=20, description="Years the desktop will be used."
    )
    """The verdict says 'buy' only when break-even falls inside this horizon."""

    run_hours: float | None = Field(
        default=None, gt=0, description="Hours one training run takes on the desktop."
    )
    """None: no per-run columns, only yearly figures."""

    run_from_bench: bool = Field(
        default=False, description="Take the run from the latest bench result when one exists."
    )
    """True: per-run figures use the bench's measured throughput and largest batches."""

    items_per_run: float | None = Field(
        default=None, gt=0, description="Items (samples) one run processes."
    )
    """Adds $ per item; with a bench it also sets the run time."""

    memory_gb: float | None = Field(default=None, gt=0, description="GPU memory the run needs, GB.")
    """Offers whose GPU holds less are marked 'does not fit'. None: unknown."""

    dtype: Dtype = Field(default="fp16", description="Training precision used to compare GPUs.")
    """fp16 AMP is what most training uses today."""

    kind: Kind = Field(default="generic", description="Workload kind used to compare GPUs.")
    """cnn, transformer, rnn or generic."""

    providers: tuple[str, ...] = Field(
        default=(), description="Only offers from these providers; empty: all."
    )
    """Filter applied before the comparison, so the verdict uses the same offers."""

    offer_kind: OfferKind = Field(default="all", description="all, spot or on-demand offers.")
    """Spot offers are cheaper but can be interrupted."""

    theme: str = Field(default="textual-dark", description="Textual theme name.")
    """Any Textual theme (ctrl+p to try them; the choice is saved). NO_COLOR is honoured."""


KNOWN_PROVIDERS: tuple[str, ...] = (*PROVIDERS, CUSTOM_PROVIDER)


def settings_path() -> Path:
    return locations.config_file()


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """Settings from the config file, and a warning line when the file could not be used."""
    path = path or settings_path()
    if not path.exists():
        return Settings(), None
    try:
        text = path.read_text(encoding="utf-8")
        raw = parse_yaml(text, str(path))
        if raw is None:
            return Settings(), None
        settings = validate(raw, Settings, str(path))
    except OSError as exc:
        return Settings(), f"{path}: cannot read ({exc.strerror or exc}); using defaults"
    except DataFileError as exc:
        return Settings(), f"{exc}; using defaults (the file is kept as {path.name}.bad)"
    unknown = [p for p in settings.providers if p not in KNOWN_PROVIDERS]
    if unknown:
        kept = tuple(p for p in settings.providers if p in KNOWN_PROVIDERS)
        return settings.model_copy(update={"providers": kept}), (
            f"{path}: unknown provider(s) {', '.join(unknown)} ignored"
        )
    return settings, None


def save_settings(settings: Settings, path: Path | None = None, *, keep_bad: bool = False) -> Path:
    """Write the settings atomically; with `keep_bad`, first move an unreadable file aside."""
    path = path or settings_path()
    if keep_bad and path.exists():
        path.replace(path.with_name(path.name + ".bad"))
    write_model_yaml(path, settings)
    return path
