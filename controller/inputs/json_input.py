"""JSON from outside (MQTT payloads, HTTP bodies), read with bounds: a payload nested thousands
deep, a number of thousands of digits, NaN or Infinity, bytes that are not UTF-8 are refused
with a reason (`BadJson`), never a `RecursionError` or a hang in whoever reads it."""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 64  # far deeper than any message of ours; a hostile one is refused before parsing
MAX_NUMBER_DIGITS = 30  # chips and seconds fit in far fewer
_BRACKETS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class BadJson(ValueError):
    """Not JSON we read, with the reason."""


def _number(text: str) -> float | int:
    if len(text) > MAX_NUMBER_DIGITS:
        raise BadJson(f"a number of {len(text)} digits")
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if isinstance(value, float) and not math.isfinite(value):
        raise BadJson(f"a number out of range ({text})")
    return value


def _constant(name: str) -> Any:
    raise BadJson(f"{name} is not a number JSON allows")


def depth(payload: bytes) -> int:
    """How deep the payload's arrays and objects nest (brackets inside strings do not count)."""
    deepest = level = 0
    for match in _BRACKETS.finditer(payload):
        token = match.group()
        if token in (b"[", b"{"):
            level += 1
            deepest = max(deepest, level)
        elif token in (b"]", b"}"):
            level -= 1
    return deepest


def loads_bounded(payload: bytes | bytearray | str) -> Any:
    """The payload's value, or `BadJson` saying why not."""
    data = payload.encode() if isinstance(payload, str) else bytes(payload)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadJson("not UTF-8 text") from None
    if not text.strip():
        raise BadJson("empty")
    nesting = depth(data)
    if nesting > MAX_DEPTH:
        raise BadJson(f"nested {nesting} levels deep (at most {MAX_DEPTH})")
    try:
        return json.loads(text, parse_int=_number, parse_float=_number,
                          parse_constant=_constant)
    except BadJson:
        raise
    except (ValueError, RecursionError) as exc:
        raise BadJson(f"not JSON ({str(exc).split(':')[0]})") from None


__all__ = ["MAX_DEPTH", "BadJson", "depth", "loads_bounded"]
