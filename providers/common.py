"""What every feed parser shares: decoding a payload and saying in one line why it is unusable.

Rule kept here: parsers are pure. They take bytes or text that someone else fetched and either
return offers or raise FeedError with a message a user can read in a cron log ("got HTML, not
JSON", "JSON ends early at byte 1200"); never a traceback, never a half-parsed result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from msgspec import Struct

if TYPE_CHECKING:
    from costcalc.core.models import OfferRow

T = TypeVar("T")

_JSONP = re.compile(r"^\s*[A-Za-z_$][\w$.]*\s*\(")


class FeedError(ValueError):
    """A payload that cannot be trusted: wrong format, wrong shape or implausible figures."""


class Parsed(Struct, frozen=True):
    """What a parser found: the offers, and the GPU names (or VM sizes) it skipped because no
    table maps them (providers/gpu_names.py), so the refresh can report them."""

    rows: list[OfferRow]
    unknown_gpus: tuple[str, ...] = ()


def as_text(payload: bytes | str) -> str:
    if isinstance(payload, str):
        return payload
    try:
        return payload.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FeedError(f"not UTF-8 text (bad byte at {exc.start})") from exc


def strip_jsonp(text: str) -> str:
    """`callback({...});` -> `{...}`: the spot feed has been served both ways."""
    match = _JSONP.match(text)
    if match is None:
        return text
    end = text.rstrip().rstrip(";").rstrip()
    if not end.endswith(")"):
        raise FeedError("JSONP payload ends early (no closing parenthesis)")
    return text[match.end() : len(end) - 1]


def load_json(payload: bytes | str) -> Any:
    """Decode JSON (or JSONP) with a one-line reason when it is not JSON at all."""
    text = strip_jsonp(as_text(payload))
    head = text.lstrip()[:200].lower()
    if not head:
        raise FeedError("empty payload")
    if head.startswith("<"):
        kind = "HTML" if ("<html" in head or "<!doctype" in head) else "XML or HTML"
        raise FeedError(f"got {kind}, not JSON")
    import json  # only when a feed is read: not on `costcalc quick`'s path

    try:
        return json.loads(text)
    except RecursionError as exc:
        raise FeedError("JSON nested too deeply; not a price list") from exc
    except json.JSONDecodeError as exc:
        end = text.rstrip()
        if exc.pos >= len(end) or not end.endswith(("}", "]")):
            raise FeedError(f"JSON ends early at byte {len(end)} (truncated download?)") from exc
        raise FeedError(f"not valid JSON: {exc.msg} at line {exc.lineno}") from exc


def expect(value: Any, kind: type, where: str) -> Any:
    """`value` if it has the expected JSON type, else a FeedError naming the path."""
    if not isinstance(value, kind):
        names: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
        got = type(value).__name__ if value is not None else "nothing"
        wanted = names.get(kind, kind.__name__)
        raise FeedError(f"unexpected shape: {where} should be {wanted}, got {got}")
    return value


def price(text: Any) -> float | None:
    """A feed price string as a float; None for 'N/A*', '', '0' and other non-prices."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str):
        try:
            value = float(text)
        except ValueError:
            return None
    else:
        return None
    return value if value > 0 and value == value and value != float("inf") else None


def named(url: str, parse: Callable[[], T]) -> T:
    """Run a fetch-and-parse, prefixing a parse failure with the URL it came from."""
    try:
        return parse()
    except FeedError as exc:
        raise FeedError(f"{url}: {exc}") from exc
