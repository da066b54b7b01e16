"""The project's one exception hierarchy.

Every error also inherits the builtin it resembles, so callers that only know Python's own
exceptions still catch it (the habit STYLE.md admires in gpiozero).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (pydantic is not imported by `pokertable --help`)
    from pydantic import ValidationError


class PokertableError(Exception):
    """Base of every error pokertable raises on purpose."""


class RuleViolation(PokertableError, ValueError):
    """An action the rules refuse. ``rule`` is the tag from docs/rules.md, e.g. ``PVB 42(3)``.

    The message is written for the dealer: what was refused and why, in the floor's words.
    """

    def __init__(self, reason: str, rule: str) -> None:
        self.reason = reason
        self.rule = rule
        super().__init__(f"{reason} ({rule})")


class NotYourTurn(RuleViolation):
    """Someone acted while another seat was to act (PVB 36, 37)."""


class IllegalAmount(RuleViolation):
    """A bet or raise of an amount the betting rules do not allow (PVB 42, pot limit)."""


class FouledDeck(RuleViolation):
    """A card seen twice in one hand, or a card no deck knows (RULES I4, PVB 33)."""


class HandStateError(RuleViolation):
    """An operation that does not fit the stage of the hand (e.g. a card before betting ended)."""


class UnknownCards(PokertableError, ValueError):
    """A pot cannot be decided because a contender's hole cards are not known."""


class ConfigError(PokertableError, ValueError):
    """A rule profile or table configuration that does not validate."""


class PhhError(PokertableError, ValueError):
    """A PHH file that cannot be read as a hand (syntax, missing fields, unsupported variant)."""


class ExportError(PokertableError, ValueError):
    """A hand a format cannot carry: a void hand or a misdeal has no result to replay or
    import (controller/history/)."""


def first_error(exc: ValidationError, whole: str, document: object = None) -> str:
    """pydantic's first complaint as ``where: what`` (``whole`` names the object itself), without
    the input value: rejected input may be long, or not for a log line. The complaints a person
    meets most (a misspelt key, a missing one, an unknown kind) are said in plain words. Given
    the ``document`` validated, an entry of a list that has a name is called by it, as the
    file's own checks call it (``readers.chips.url``, not pydantic's ``readers.1.url``)."""
    errors = exc.errors()
    # A misspelt key shows up twice: the key it should have been is missing, the one written is
    # unknown. The unknown one points at the typo.
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    where = _where(first["loc"], document) or whole
    kind = first["type"]
    if kind == "extra_forbidden":
        return f"{where}: unknown key (misspelt?)"
    if kind == "missing":
        return f"{where}: missing"
    context = first.get("ctx") or {}
    field = str(context.get("discriminator", "kind")).strip("'")
    if kind == "union_tag_invalid":
        known = str(context.get("expected_tags", "")).replace("'", "")
        return f"{where}: unknown {field} {context.get('tag')!r} (known: {known})"
    if kind == "union_tag_not_found":
        return f"{where}: no {field} given"
    return f"{where}: {str(first['msg']).removeprefix('Value error, ')}"


def _where(loc: tuple[int | str, ...], document: object) -> str:
    """A complaint's place as dotted keys; a list's entry by its ``name`` where it has one."""
    parts: list[str] = []
    node = document
    for part in loc:
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
            name = node.get("name") if isinstance(node, dict) else None
            parts.append(name if isinstance(name, str) and name else str(part))
        else:
            parts.append(str(part))
            node = node.get(part) if isinstance(node, dict) else None
    return ".".join(parts)
