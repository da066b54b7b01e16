"""The tables an edited configuration lists (tournament.toml, cash.toml), and those the host
has grown by added to it in place: the one value changed, every other byte of the venue's file
(its other settings, comments, layout) kept, and the result checked to read as before but for
those tables. Where that cannot be done so, the install says what to add instead."""

from __future__ import annotations

import copy
import re
import tomllib
from typing import Any

import rtoml

# A key `tables` at a line's start (not `"tables"`, not a dotted key): the one form changed.
_KEY = re.compile(r"^[ \t]*tables[ \t]*=[ \t]*(?=\[)", re.MULTILINE)
_HEADER = re.compile(r"^[ \t]*\[")


def _read(text: str) -> dict[str, Any] | None:
    """The document as the services read it (rtoml) and as Python's own reader does; None
    where either refuses it or they disagree."""
    try:
        ours = tomllib.loads(text)
        theirs: dict[str, Any] = rtoml.loads(text)
    except (tomllib.TOMLDecodeError, rtoml.TomlParsingError, ValueError):
        return None
    return ours if ours == theirs else None


def listed_tables(text: str, section: str) -> list[str] | None:
    """The table ids ``[section] tables`` lists (an id, or ``{ table = ..., seats = ... }``);
    None where the file does not read or the value is not such a list."""
    value = _value(text, section, "tables")
    if not isinstance(value, list):
        return None
    ids = [entry.get("table") if isinstance(entry, dict) else entry for entry in value]
    return [i for i in ids if isinstance(i, str)] if all(isinstance(i, str) for i in ids) \
        else None


def listed_values(text: str, section: str, key: str) -> list[Any]:
    """``[section] key`` where it is a list (``break_order``); empty where it is not one or the
    file does not read."""
    value = _value(text, section, key)
    return value if isinstance(value, list) else []


def _value(text: str, section: str, key: str) -> Any:
    """``[section] key`` as the file reads; None where it does not read or has no such key."""
    document = _read(text)
    section_value = document.get(section) if document else None
    return section_value.get(key) if isinstance(section_value, dict) else None


def add_tables(text: str, section: str, new: list[str]) -> str | None:
    """``text`` with ``new`` appended to ``[section] tables`` and nothing else changed, or None
    where that cannot be done safely (the value written some other way: a dotted or quoted
    key, an entry the install does not know, a file that does not read)."""
    before = _read(text)
    if before is None or listed_tables(text, section) is None:
        return None
    start, end = _section(text, section)
    found = list(_KEY.finditer(text, start, end))
    if len(found) != 1:
        return None
    opening = found[0].end()  # the array's "["
    closing = _closing(text, opening, end, before[section]["tables"])
    if closing is None:
        return None
    inner = text[opening + 1:closing]
    entries = [f'"{table}"' for table in new]
    if "\n" in inner and inner.rstrip(" \t").endswith("\n") and _ends_in_comma(inner):
        # One entry a line, the "]" on its own: a line each, indented as the last entry.
        last = inner.rstrip().rsplit("\n", 1)[-1]
        indent = last[:len(last) - len(last.lstrip())]
        line_start = text.rindex("\n", opening, closing) + 1
        added = "".join(f"{indent}{entry},\n" for entry in entries)
        changed = text[:line_start] + added + text[line_start:]
    else:
        body = inner.rstrip()
        at = opening + 1 + len(body)
        if body.endswith(","):  # a trailing comma stays one
            changed = text[:at] + " " + ", ".join(entries) + "," + text[at:]
        else:
            joint = ", " if body.strip() else ""
            changed = text[:at] + joint + ", ".join(entries) + text[at:]
    after = _read(changed)
    expected = copy.deepcopy(before)
    expected[section]["tables"] = [*before[section]["tables"], *new]
    return changed if after == expected else None


def _section(text: str, section: str) -> tuple[int, int]:
    """Where ``[section]``'s own lines are (its header's end to the next header); (0, 0) where
    it has no header of that plain form."""
    header = re.compile(rf"^[ \t]*\[[ \t]*{re.escape(section)}[ \t]*\][ \t]*(#.*)?$",
                        re.MULTILINE)
    found = list(header.finditer(text))
    if len(found) != 1:
        return 0, 0
    start = found[0].end()
    for line in re.finditer(r"^.*$", text[start:], re.MULTILINE):
        if _HEADER.match(line.group()):
            return start, start + line.start()
    return start, len(text)


def _closing(text: str, opening: int, end: int, value: list[Any]) -> int | None:
    """The "]" that closes the array opened at ``opening``: the first that makes it read as
    the file's value."""
    for found in re.finditer(r"\]", text[opening:end]):
        at = opening + found.start()
        try:
            if tomllib.loads("v = " + text[opening:at + 1]) == {"v": value}:
                return at
        except tomllib.TOMLDecodeError:
            continue
    return None


def _ends_in_comma(inner: str) -> bool:
    lines = [line for line in inner.splitlines() if line.strip()]
    return bool(lines) and lines[-1].rstrip().endswith(",")


__all__ = ["add_tables", "listed_tables", "listed_values"]
