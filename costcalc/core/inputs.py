"""What people type, read one way everywhere: the input table behind the CLI's flags, the app's
fields, the environment and the settings file.

Rule kept here: pure and light. Each input is one row of INPUTS: the Scenario field it fills, its
flag, its label in the app, its help line and how its text reads. Bounds are not written here:
they are read from the Scenario field, so the CLI, the app and the settings file refuse the same
values with the same one-line message. A text that cannot be read raises CostcalcError saying
what a valid one looks like; an empty text means "not given".

How numbers read, the same for every input:
- "$2,200" and "2,200.50" use commas to group thousands; a lone decimal comma ("0,12") is
  refused with a hint rather than guessed, so 0,12 never becomes 12;
- shares (utilisation, PSU efficiency, resale) are written 0.15 or 15%; a whole number from 2 to
  100 without % is a percentage too (15 means 15%); anything else above 1 is refused;
- counts of tokens and items (amounts) also read as people say them: 2e8, 200M, 2B, 2T, 1.28M;
- non-finite numbers (nan, inf) and numbers past the input's bounds are refused with the bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from msgspec import Struct

from costcalc.core.constants import (
    DTYPES,
    KINDS,
    METHODS,
    MIN_UTILISATION,
    OFFER_KINDS,
    OPTIMIZERS,
    SHARDINGS,
    TIER_NAMES,
)
from costcalc.core.errors import CostcalcError, quoted
from costcalc.core.models import BASE_TIERS, RESALE_BY_AGE, Scenario
from costcalc.core.records import field_bounds
from costcalc.core.usage import MEASURED, MEASURED_PATTERN

Form = Literal[
    "money",
    "number",
    "amount",
    "share",
    "count",
    "text",
    "choice",
    "switch",
    "list",
    "target batch",
]

# Patterns compiled by `re` when first used: most numbers have no comma.
_GROUPED = r"^\d{1,3}(,\d{3})+(\.\d+)?$"
_DECIMAL_COMMA = r"^\d*,\d+$"
MAX_USD_PER_HOUR = 10_000_000.0
"""Your own offer's price per hour, in any currency (checked again in USD by the scenario)."""
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


# --------------------------------------------------------------------------- reading numbers


def number(text: str, what: str) -> float | None:
    """A finite number as people write it ('$2,200', '0.12', '1e6'); empty is None."""
    raw = text.strip().replace(" ", "").replace("_", "").lstrip("$")
    if not raw:
        return None
    if "," in raw:
        if re.match(_GROUPED, raw.lstrip("-")):
            raw = raw.replace(",", "")
        elif re.match(_DECIMAL_COMMA, raw.lstrip("-")):
            point = raw.replace(",", ".")
            raise CostcalcError(f"{what}: write {point} with a decimal point, got {quoted(text)}")
        else:
            raise CostcalcError(f"{what} must be a number, got {quoted(text)}")
    try:
        value = float(raw)
    except ValueError:
        raise CostcalcError(f"{what} must be a number, got {quoted(text)}") from None
    if not math.isfinite(value):  # 'inf', 'nan', or digits past a float's range
        wrong = "must be a finite number" if raw.strip("+-").isalpha() else "is too large"
        raise CostcalcError(f"{what} {wrong}, got {quoted(text)}")
    return value


AMOUNT_SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
"""Thousands, millions, billions (B or G) and trillions, as token counts are written."""


def amount(text: str, what: str) -> float | None:
    """A count as people write it: '2e8', '200M', '2T', '1.28M', '200,000,000'; empty is None."""
    raw = text.strip()
    scale = AMOUNT_SUFFIXES.get(raw[-1:].lower(), 1.0) if raw else 1.0
    try:
        value = number(raw[:-1] if scale != 1.0 else raw, what)
    except CostcalcError as exc:
        raise CostcalcError(f"{exc}; write it as 2e8, 200M or 2T") from None
    return None if value is None else value * scale


def share(text: str, what: str) -> float | None:
    """'0.15', '15%', '15 %' or a whole percentage '15' -> 0.15; empty is None."""
    raw = text.strip()
    if not raw:
        return None
    percent = raw.endswith("%")
    try:
        value = number(raw.rstrip("%"), what)
    except CostcalcError:
        value = None
    if value is None:
        raise CostcalcError(f"{what} must be a share like 0.15 or 15%, got {quoted(text)}")
    if percent:
        return value / 100
    if value > 1:
        if value == int(value) and value <= 100:
            return value / 100
        hint = f" (did you mean {value:g}%?)" if value <= 100 else ""
        raise CostcalcError(f"{what} must be a share like 0.15 or 15%, got {quoted(text)}{hint}")
    return value


MAX_WHOLE_DIGITS = 18
"""Digits a whole number may have: more than any count needs, and far below the 4,300 past which
int() refuses a text with a traceback."""


def whole(text: str, what: str) -> int | None:
    raw = text.strip()
    if not raw:
        return None
    if not re.fullmatch(r"[+]?\d+", raw):
        raise CostcalcError(f"{what} must be a whole number, got {quoted(text)}")
    if len(raw.lstrip("+").lstrip("0")) > MAX_WHOLE_DIGITS:
        raise CostcalcError(
            f"{what} must be a whole number of at most {MAX_WHOLE_DIGITS} digits, "
            f"got {quoted(text)}"
        )
    return int(raw)


def switch(text: str, what: str) -> bool | None:
    raw = text.strip().lower()
    if not raw:
        return None
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise CostcalcError(f"{what} must be yes or no, got {quoted(text)}")


def choice(text: str, what: str, choices: Iterable[str]) -> str | None:
    raw = text.strip().lower()
    if not raw:
        return None
    options = tuple(choices)
    if raw in options:
        return raw
    import difflib  # only to word a mistake

    close = difflib.get_close_matches(raw, options, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise CostcalcError(f"{what} must be one of {', '.join(options)}, got {quoted(text)}{hint}")


# --------------------------------------------------------------------------- bounds


def bounds(field: str) -> tuple[float | None, bool, float | None, bool]:
    """(low, low inclusive, high, high inclusive) of a Scenario field, from its constraints."""
    found = field_bounds(Scenario, field)
    ge, gt, le, lt = (found.get(name) for name in ("ge", "gt", "le", "lt"))
    low = float(ge) if ge is not None else float(gt) if gt is not None else None
    high = float(le) if le is not None else float(lt) if lt is not None else None
    return low, gt is None, high, lt is None


def check_bounds(value: float, field: str, what: str, text: str, as_share: bool = False) -> None:
    """One line saying the allowed range when `value` is outside the field's bounds."""
    low, low_in, high, high_in = bounds(field)
    too_low = low is not None and (value < low or (value == low and not low_in))
    too_high = high is not None and (value > high or (value == high and not high_in))
    if not (too_low or too_high):
        return
    if as_share:
        left = "[" if low_in else "("
        right = "]" if high_in else ")"
        lo, hi = (low or 0) * 100, (high or 1) * 100
        raise CostcalcError(
            f"{what} must be in {left}{lo:g}%, {hi:g}%{right} (a share: 0.15 or 15%), "
            f"got {quoted(text)}"
        )
    if too_low and low == 0:
        message = "cannot be negative" if low_in else "must be greater than 0"
    elif too_low:
        message = f"must be at least {low:,g}" if low_in else f"must be greater than {low:,g}"
    else:
        message = f"must be at most {high:,g}" if high_in else f"must be below {high:,g}"
    raise CostcalcError(f"{what} {message}, got {quoted(text)}")


# --------------------------------------------------------------------------- the table


class Input(Struct, frozen=True):
    """One input a user can give, and how every front end reads and shows it."""

    field: str
    """The Scenario field it fills (and its key in the settings file)."""
    flag: str
    label: str
    """Short label in the app's setup panel."""
    what: str
    """How messages name it: 'utilisation', 'desktop price'."""
    help: str
    form: Form
    group: str
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    item: Form = "text"
    """For a list: the form of each item."""
    alias: tuple[str, str] | None = None
    """Another flag that sets a fixed value: ('--no-spot', 'on-demand')."""
    words: str | None = None
    """A pattern of texts the input also takes as they are, for the store to resolve before
    the answer (utilisation: `measured`, `measured:14d`) or the answer to work out (resale:
    `age`)."""
    words_hint: str | None = None
    """How a message names those texts: 'measured (`costcalc monitor`'s samples)'."""
    also: tuple[str, ...] = ()
    """Other spellings of the flag, where another command names the same input differently
    (`costcalc job`'s --precision and --count): a job's command line reads the same in quick."""

    @property
    def env(self) -> str:
        """COSTCALC_ and the flag in capitals: --kwh-price -> COSTCALC_KWH_PRICE."""
        return "COSTCALC_" + self.flag.lstrip("-").upper().replace("-", "_")

    def parse(self, text: str) -> Any:
        """The value of `text`, checked; None when empty (not given)."""
        if self.form == "list":
            return self._parse_list(text)
        return self._parse_one(self.form, text)

    def _parse_one(self, form: Form, text: str) -> Any:
        if self.words is not None and re.fullmatch(self.words, text.strip().lower()):
            return text.strip().lower()
        if form in ("money", "number"):
            value = number(text, self.what)
        elif form == "amount":
            value = amount(text, self.what)
        elif form == "share":
            try:
                value = share(text, self.what)
            except CostcalcError as exc:
                if self.words is None or not re.search("[a-z]", text.lower()):
                    raise  # a number: the share's own message says it all
                raise CostcalcError(f"{exc}, or {self.words_hint}") from None
        elif form == "count":
            value = whole(text, self.what)
        elif form == "switch":
            return switch(text, self.what)
        elif form == "choice":
            return choice(text, self.what, self.choices)
        elif form == "target batch":
            if not text.strip():
                return None
            from costcalc.core.batching import parse_target_batch

            return parse_target_batch(text)
        else:
            return text.strip() or None
        if value is None:
            return None
        if self.form == "list":  # list items have no field of their own: money per hour
            if value < 0:
                raise CostcalcError(f"{self.what} cannot be negative, got {quoted(text)}")
            if value > MAX_USD_PER_HOUR:
                raise CostcalcError(
                    f"{self.what} must be at most {MAX_USD_PER_HOUR:,g}, got {quoted(text)}"
                )
        else:
            check_bounds(value, self.field, self.what, text, as_share=form == "share")
        return value

    def _parse_list(self, text: str) -> tuple[Any, ...] | None:
        # Numbers are separated by ";", spaces or ", " (a comma between digits is part of a
        # number: thousands, or a decimal comma, refused with a hint); names by "," or ";".
        pattern = r"\s*[;,]\s*" if self.item == "text" else r"[;\s]+|,(?!\d)"
        parts = [p for p in re.split(pattern, text.strip()) if p]
        if not parts:
            return None
        return tuple(self._parse_one(self.item, part) for part in parts)

    def show(self, value: Any) -> str:
        """How the app's field shows a value: what a person would type, never e-notation."""
        if value is None:
            return ""
        if isinstance(value, str) and self.words is not None:
            return value
        if self.form == "share":
            return f"{value * 100:.4g}%"
        if self.form == "switch":
            return "yes" if value else "no"
        if self.form == "list":
            return ", ".join(show_number(v) if isinstance(v, float) else str(v) for v in value)
        if isinstance(value, float):
            return show_number(value)
        return str(value)


def show_number(value: float) -> str:
    """2200 -> '2,200'; 1e6 -> '1,000,000'; 0.12 -> '0.12': as typed, grouped, no exponent."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    text = f"{value:,.6f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") else f"{value:.3g}"


def _money(field: str, flag: str, label: str, what: str, help: str, group: str) -> Input:
    return Input(field, flag, label, what, help, "money", group, metavar="AMOUNT")


INPUTS: tuple[Input, ...] = (
    # -- the desktop
    Input(
        "gpu",
        "--gpu",
        "GPU",
        "desktop GPU",
        "the desktop's GPU: rtx3090, 'RTX 4090', a6000 ... (`costcalc gpus` lists them; "
        "a100 or h100 is the PCIe card, an SXM module only when the name says SXM)",
        "text",
        "desktop",
        metavar="NAME",
    ),
    Input(
        "gpu_count",
        "--gpu-count",
        "GPUs",
        "GPU count",
        "GPUs in the desktop",
        "count",
        "desktop",
        metavar="N",
        also=("--count",),
    ),
    _money(
        "desktop_price_usd",
        "--desktop-price",
        "Price $",
        "desktop price",
        "whole machine, up front, in the chosen currency (default: GPU street price + a 2026 base "
        "system)",
        "desktop",
    ),
    Input(
        "gpu_watts",
        "--gpu-watts",
        "GPU W",
        "GPU watts",
        "draw of one GPU under load (default: its board power)",
        "number",
        "desktop",
        metavar="W",
    ),
    Input(
        "system_watts",
        "--system-watts",
        "Rest W",
        "system watts",
        "draw of the rest of the system under load (default 100 W for 1-2 GPUs)",
        "number",
        "desktop",
        metavar="W",
    ),
    Input(
        "idle_watts",
        "--idle-watts",
        "Idle W",
        "idle watts",
        "whole-system idle draw, counted with --always-on",
        "number",
        "desktop",
        metavar="W",
    ),
    Input(
        "used",
        "--used",
        "Used",
        "used cards",
        "price the cards on the second-hand market, where a dated used price exists",
        "switch",
        "desktop",
    ),
    Input(
        "base",
        "--base",
        "Base",
        "base system",
        "the base system around the GPUs: lean (6 cores, 32-64 GB), standard (16 cores, "
        "64-128 GB) or workstation (Threadripper PRO, ECC; the one that holds four cards); "
        "default: lean for 1 GPU, standard for 2, workstation for 3-4",
        "choice",
        "desktop",
        choices=BASE_TIERS,
    ),
    Input(
        "psu_efficiency",
        "--psu-efficiency",
        "PSU eff.",
        "PSU efficiency",
        "1 (default) counts the watts as drawn at the wall; 0.9 adds PSU losses",
        "share",
        "desktop",
        metavar="SHARE",
    ),
    Input(
        "resale_share",
        "--resale",
        "Resale",
        "resale share",
        "share of the price you get back after the horizon (0.3 or 30%), or age: the cards' "
        "used value today aged by their class's depreciation (fitted on dated used prices)",
        "share",
        "desktop",
        metavar="SHARE",
        words=RESALE_BY_AGE,
        words_hint=f"{RESALE_BY_AGE} (the resale the cards' age gives)",
    ),
    Input(
        "horizon_years",
        "--horizon",
        "Years",
        "horizon (years)",
        "years you will use the desktop (default 3)",
        "number",
        "desktop",
        metavar="YEARS",
    ),
    Input(
        "embodied",
        "--embodied",
        "Embodied",
        "embodied carbon",
        "add the desktop's manufacturing carbon, spread over its life",
        "switch",
        "desktop",
    ),
    # -- how it is used
    Input(
        "utilisation",
        "--util",
        "Util.",
        "utilisation",
        "share of all hours the GPU works: 0.15, 15% or 15 (default 15%, a PhD desktop; "
        "personal machines really sit at 5-10%), or measured: `costcalc monitor`'s busy share "
        "over 30 days (measured:7d: 7 days)",
        "share",
        "use",
        metavar="SHARE",
        words=MEASURED_PATTERN,
        words_hint=f"{MEASURED} (`costcalc monitor`'s samples)",
    ),
    Input(
        "always_on",
        "--always-on",
        "Stays on",
        "always on",
        "the machine idles between jobs instead of being switched off",
        "switch",
        "use",
    ),
    Input(
        "runs_per_year",
        "--runs-per-year",
        "Runs/year",
        "runs per year",
        "runs of the job a year: with --model, or --run-hours and no --util, the utilisation is "
        "runs x the run's hours on the desktop / 8,760 h; what each rented run adds (setup, "
        "downloads) counts this many times",
        "number",
        "use",
        metavar="N",
    ),
    # -- where it runs
    Input(
        "home_region",
        "--region",
        "Region",
        "home region",
        "where the desktop runs: sets the household electricity price and the grid's CO2; a "
        "country (US, DE, Germany, UK), a state or province (US-CA, California, CA-QC) or a "
        "cloud region",
        "text",
        "place",
        metavar="CODE",
    ),
    _money(
        "usd_per_kwh",
        "--kwh-price",
        "kWh price",
        "electricity price",
        "your electricity price per kWh, in the chosen currency (default: the home region's "
        "household price, dated and sourced)",
        "place",
    ),
    Input(
        "currency",
        "--currency",
        "Currency",
        "currency",
        "show and read every amount in this currency (EUR, GBP, JPY ...; ECB reference rates); "
        "default: the home region's currency, else USD",
        "text",
        "place",
        metavar="CODE",
    ),
    # -- the run
    Input(
        "run_hours",
        "--run-hours",
        "Run h",
        "run hours",
        "one training run takes H hours on the desktop: cost it on every offer",
        "number",
        "run",
        metavar="H",
    ),
    Input(
        "items_per_run",
        "--items",
        "Items",
        "items per run",
        "items (samples) one run processes: adds $ per item",
        "number",
        "run",
        metavar="N",
    ),
    Input(
        "memory_gb",
        "--memory-gb",
        "Mem GB",
        "GPU memory (GB)",
        "GPU memory the run needs (at --batch): smaller GPUs are marked 'does not fit'; "
        "--target-batch max splits it into a fixed part and a part per item",
        "number",
        "run",
        metavar="GB",
    ),
    Input(
        "kind",
        "--kind",
        "Kind",
        "workload kind",
        "workload kind used to compare GPU speeds",
        "choice",
        "run",
        choices=KINDS,
    ),
    Input(
        "dtype",
        "--dtype",
        "dtype",
        "precision",
        "training precision used to compare GPU speeds (default auto: fp16 mixed precision on "
        "a desktop GPU with tensor cores, fp32 otherwise; with --model, bf16 as costcalc job)",
        "choice",
        "run",
        choices=("auto", *DTYPES),
        also=("--precision",),
    ),
    Input(
        "batch",
        "--batch",
        "Batch",
        "batch per GPU",
        "batch per GPU of the run on the desktop: at a small batch what a step costs whatever "
        "its size (launches, the host, the optimizer's update) weighs more, so a big GPU gains "
        "less; default: the speed model's reference (256 images, 32 sequences of 1,024 tokens)",
        "count",
        "run",
        metavar="N",
    ),
    Input(
        "target_batch",
        "--target-batch",
        "Offer batch",
        "target batch",
        "batch per GPU on each offer: same (default: your run unchanged), max (the largest that "
        "fits each offer's GPU, from --memory-gb at --batch or a bench's memory fit) or N",
        "target batch",
        "run",
        metavar="same|max|N",
    ),
    Input(
        "bench",
        "--bench",
        "Bench",
        "bench result",
        "use a saved bench result (latest or a path): its GPU as the desktop, its measured "
        "speed split, its memory fit for the largest batch per GPU",
        "text",
        "run",
        metavar="latest|PATH",
    ),
    # -- the job (quick --model): a training job as `costcalc job` prices it
    Input(
        "model",
        "--model",
        "Model",
        "model",
        "a training job of this model (`costcalc job --list-models`): the run's hours on the "
        "desktop and on every offer come from the job's time model, the memory fit from its "
        "memory model",
        "text",
        "job",
        metavar="NAME",
    ),
    Input(
        "method",
        "--method",
        "Method",
        "method",
        "with --model: full training, or LoRA or QLoRA adapters over a frozen base",
        "choice",
        "job",
        choices=METHODS,
    ),
    Input(
        "tokens",
        "--tokens",
        "Tokens",
        "tokens",
        "with --model: tokens one run reads (2e8, 200M, 2T)",
        "amount",
        "job",
        metavar="T",
    ),
    Input(
        "epochs",
        "--epochs",
        "Epochs",
        "epochs",
        "with --model: epochs of --dataset-items each (instead of --tokens)",
        "amount",
        "job",
        metavar="E",
    ),
    Input(
        "dataset_items",
        "--dataset-items",
        "Items/ep.",
        "items per epoch",
        "with --model: sequences, images or audio windows in one epoch",
        "amount",
        "job",
        metavar="N",
    ),
    Input(
        "seq",
        "--seq",
        "Sequence",
        "sequence",
        "with --model: tokens per sequence (default: the model's pretraining sequence)",
        "count",
        "job",
        metavar="S",
    ),
    Input(
        "optimizer",
        "--optimizer",
        "Optimizer",
        "optimizer",
        "with --model: the optimizer, whose state takes memory (default adamw)",
        "choice",
        "job",
        choices=OPTIMIZERS,
    ),
    Input(
        "checkpointing",
        "--checkpointing",
        "Ckpt acts",
        "activation checkpointing",
        "with --model: full activation checkpointing (less memory, a second forward pass)",
        "switch",
        "job",
    ),
    Input(
        "sharding",
        "--sharding",
        "Sharding",
        "sharding",
        "with --model: ZeRO stage or FSDP over the desktop's GPUs (default none)",
        "choice",
        "job",
        choices=SHARDINGS,
    ),
    Input(
        "lora_rank",
        "--lora-rank",
        "LoRA rank",
        "LoRA rank",
        "with --model --method lora or qlora: the adapters' rank (default 16)",
        "count",
        "job",
        metavar="R",
    ),
    # -- the offers
    Input(
        "cloud_prices",
        "--cloud-price",
        "Your $/h",
        "cloud price",
        "add your own offer at this price per hour on the same GPUs (repeatable)",
        "list",
        "offers",
        metavar="USD_PER_HOUR",
        item="money",
    ),
    Input(
        "providers",
        "--provider",
        "Providers",
        "provider",
        "only these providers (repeatable)",
        "list",
        "offers",
        metavar="NAME",
    ),
    Input(
        "offer_kind",
        "--offers",
        "Offers",
        "offer kind",
        "all offers, only spot or only on-demand (--no-spot is --offers on-demand)",
        "choice",
        "offers",
        choices=OFFER_KINDS,
        alias=("--no-spot", "on-demand"),
    ),
    Input(
        "exclude_tiers",
        "--exclude",
        "Leave out",
        "excluded tiers",
        "leave out offers in these tiers (comma-separated, repeatable): "
        + ", ".join(TIER_NAMES)
        + "; e.g. community,marketplace for a data-centre SLA",
        "list",
        "offers",
        metavar="TIERS",
        choices=TIER_NAMES,
        item="choice",
    ),
    Input(
        "cloud_regions",
        "--cloud-region",
        "Regions",
        "cloud region",
        "only offers in this cloud region (repeatable): us-east-1, NY2, ...",
        "list",
        "offers",
        metavar="REGION",
    ),
    Input(
        "cloud_gpus",
        "--cloud-gpu",
        "Cloud GPU",
        "cloud GPU",
        "only offers with this GPU (repeatable); a family matches every variant: a100",
        "list",
        "offers",
        metavar="GPU",
    ),
    Input(
        "min_memory_gb",
        "--min-memory",
        "Min GB",
        "minimum memory",
        "only offers with at least this much memory per GPU",
        "number",
        "offers",
        metavar="GB",
    ),
    Input(
        "offer_match",
        "--match",
        "Match",
        "words",
        "only offers whose provider, name, GPU, region, plan/host or price kind as shown hold "
        "these words; | separates "
        "alternatives: 'a100|h100', 'rtx 4090|l40s'",
        "text",
        "offers",
        metavar="WORDS",
    ),
    Input(
        "scale_out",
        "--scale-out",
        "Scale-out",
        "scale-out",
        "let offers with more GPUs than the desktop be the verdict (their speed assumes the "
        "sourced multi-GPU scaling)",
        "switch",
        "offers",
    ),
    Input(
        "spot_checkpoint_minutes",
        "--spot-checkpoint-minutes",
        "Ckpt min",
        "checkpoint minutes",
        "minutes one checkpoint takes to write: prices a spot offer's interruptions (default 5)",
        "number",
        "offers",
        metavar="MIN",
    ),
    Input(
        "spot_restart_minutes",
        "--spot-restart-minutes",
        "Restart min",
        "restart minutes",
        "minutes to resume after a spot interruption (default 30)",
        "number",
        "offers",
        metavar="MIN",
    ),
    # -- what renting adds beyond the GPU-hours (costcalc.core.rent_extras)
    Input(
        "dataset_gb",
        "--dataset-gb",
        "Data GB",
        "dataset size",
        "the dataset your runs read: uploaded to the provider (free everywhere priced) and kept "
        "on its volume, at each provider's dated rate (prices/storage.yaml)",
        "number",
        "rent",
        metavar="GB",
    ),
    Input(
        "checkpoint_gb",
        "--checkpoint-gb",
        "Ckpt GB",
        "checkpoint size",
        "checkpoint or model downloaded after each run: egress beyond each provider's free "
        "allowance",
        "number",
        "rent",
        metavar="GB",
    ),
    Input(
        "egress_gb",
        "--egress-gb",
        "Egress GB",
        "egress per run",
        "other data downloaded after each run (results, logs, samples)",
        "number",
        "rent",
        metavar="GB",
    ),
    Input(
        "storage_gb",
        "--storage-gb",
        "Kept GB",
        "storage kept",
        "kept on the provider's volume between runs (default: the dataset and one checkpoint; "
        "0 uploads the dataset for every run)",
        "number",
        "rent",
        metavar="GB",
    ),
    Input(
        "setup_minutes",
        "--setup-minutes",
        "Setup min",
        "setup minutes",
        "minutes each rented run is billed before it trains: boot, image pull, data copy "
        "(default 0; VMs boot in under a minute to two, a 10-20 GB image or a dataset adds "
        "minutes)",
        "number",
        "rent",
        metavar="MIN",
    ),
    # -- owning, in full (costcalc.core.owning)
    Input(
        "loan_apr",
        "--apr",
        "APR",
        "loan APR",
        "finance the desktop: the loan's annual rate (0.08 or 8%); the verdict then compares "
        "the cash each way pays out over the horizon (needs --term-years)",
        "share",
        "own",
        metavar="RATE",
    ),
    Input(
        "loan_term_years",
        "--term-years",
        "Loan yrs",
        "loan term",
        "years the loan repays the whole price over, in equal monthly payments (alone: 0% APR)",
        "number",
        "own",
        metavar="YEARS",
    ),
    Input(
        "repairs",
        "--repairs",
        "Repairs",
        "repairs",
        "count an allowance for failed cards: the card class's published failure rate a year "
        "x the card's price (costcalc/data/ownership.yaml)",
        "switch",
        "own",
    ),
    Input(
        "failure_rate",
        "--failure-rate",
        "Fail/yr",
        "failure rate",
        "share of cards that fail a year, instead of the class's published figure (counts repairs)",
        "share",
        "own",
        metavar="SHARE",
    ),
    # -- own a baseline, rent the bursts (costcalc.core.hybrid)
    Input(
        "hybrid",
        "--hybrid",
        "Hybrid",
        "hybrid plan",
        "how many desktops to own and what to rent above them: every owned count costed over "
        "the horizon on your profile (default: the utilisation every month)",
        "switch",
        "hybrid",
    ),
    Input(
        "profile",
        "--profile",
        "Profile",
        "profile",
        "busy hours of one desktop's work per month for --hybrid: 'jan:400,feb:300,...' "
        "(months left out have none), or 'measured' (the last twelve months of the monitor's "
        "history); default: the utilisation every month",
        "text",
        "hybrid",
        metavar="MONTHS",
    ),
    Input(
        "max_owned",
        "--max-owned",
        "Max own",
        "most owned",
        "the most desktops --hybrid weighs (default: enough for the busiest month)",
        "count",
        "hybrid",
        metavar="N",
    ),
)

BY_FIELD: dict[str, Input] = {i.field: i for i in INPUTS}
RENT_EXTRAS_FIELDS = tuple(i.field for i in INPUTS if i.group == "rent")
"""What renting adds beyond the GPU-hours (costcalc.core.rent_extras)."""
OWNING_FIELDS = tuple(i.field for i in INPUTS if i.group == "own")
"""Owning, in full: a loan and repairs (costcalc.core.owning)."""
HYBRID_FIELDS = tuple(i.field for i in INPUTS if i.group == "hybrid")
"""Own a baseline, rent the bursts (costcalc.core.hybrid)."""
assert set(BY_FIELD) == set(Scenario.__struct_fields__), "every Scenario field has one input"


# --------------------------------------------------------------------------- layers


def parse_texts(texts: Mapping[str, Any]) -> dict[str, Any]:
    """Typed values from raw texts keyed by field (a list of texts for repeatable inputs).

    Only given inputs are returned: None or an empty list means "not given"."""
    values: dict[str, Any] = {}
    for field, raw in texts.items():
        spec = BY_FIELD[field]
        if raw is None or raw == [] or raw == ():
            continue
        if isinstance(raw, bool):
            values[field] = raw
        elif isinstance(raw, (list, tuple)):
            parsed = [spec.parse(str(text)) for text in raw]
            values[field] = tuple(v for part in parsed if part for v in part)
        else:
            value = spec.parse(str(raw))
            if value is not None:
                values[field] = value
    return values


def env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    """Inputs set in the environment: COSTCALC_UTIL=15%, COSTCALC_REGION=DE, ..."""
    texts = {spec.field: environ[spec.env] for spec in INPUTS if environ.get(spec.env)}
    try:
        return parse_texts(texts)
    except CostcalcError as exc:
        raise CostcalcError(f"in the environment: {exc}") from None


RESETS_PRICE = ("gpu", "gpu_count", "base")
"""A new GPU, GPU count or base system makes an earlier desktop price meaningless: back to the
default."""


SETS_UTILISATION = ("runs_per_year", "run_hours")
"""Runs a year and the hours of one run make a utilisation (runs x hours / 8,760)."""


def merge(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Later layers win: defaults < settings file < environment < flags or fields.

    A layer that changes the GPU or the GPU count without giving a price also drops the price an
    earlier layer gave (it was the price of another machine). A layer that gives runs a year or
    a run's hours without a utilisation sets the utilisation from them, once both are known
    (the scenario's notes say so)."""
    merged: dict[str, Any] = {}
    for layer in layers:
        if "desktop_price_usd" not in layer and any(
            k in layer and layer[k] != merged.get(k) for k in RESETS_PRICE
        ):
            merged.pop("desktop_price_usd", None)
        merged.update(layer)
        if "utilisation" not in layer and any(layer.get(k) is not None for k in SETS_UTILISATION):
            runs, hours = merged.get("runs_per_year"), merged.get("run_hours")
            if runs is not None and hours is not None:
                merged["utilisation"] = utilisation_of_runs(float(runs), float(hours))
    return merged


def utilisation_of_runs(runs_per_year: float, run_hours: float) -> float:
    """runs x hours / 8,760, or CostcalcError when that is no utilisation costcalc prices."""
    hours = runs_per_year * run_hours
    share = hours / 8760
    if share > 1:
        raise CostcalcError(
            f"{runs_per_year:g} runs a year x {run_hours:g} h = {hours:,.0f} h, more than a "
            "year's 8,760 h: give fewer runs, shorter runs or --gpu-count"
        )
    if share < MIN_UTILISATION:
        raise CostcalcError(
            f"{runs_per_year:g} runs a year x {run_hours:g} h = {hours:,.3g} h, under "
            f"{MIN_UTILISATION * 100:g}% of the year's hours: give --util for the use you plan"
        )
    return share
