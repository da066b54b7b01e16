"""The floor's tournament commands at the boundary (pure): each command's arguments as a model
that refuses what it does not know, so a misspelt or stray argument is a clear refusal instead
of being ignored (``register`` with ``clb`` would otherwise register a player without his club).

`parse` gives the command's model or raises `Refused` with the reason in the floor's words and
the rule the argument serves: a player's name PVB 13 (players are known at their seats by it),
a club or the draw's seed PVB 08a(1), the chips a bust taken back gives PVB 64a(1) (the floor
sets a busted player's place); an argument the command does not take, or a command the
tournament does not know, is a floor procedure gone wrong (DFO, as the tables refuse an unknown
floor command).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from controller.room.tournament.draw import Refused, checked_club, checked_name

PROCEDURE = "DFO"  # a command or an argument the tournament does not know
MAX_CHIPS = 10**9  # the tables' own limit on a stack


def _name(value: object, info: ValidationInfo) -> str:
    return checked_name(value, info.field_name or "name")


def _club(value: object) -> str | None:
    return checked_club(value)


def _seed(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise Refused("args.seed: a whole number from 0 (to draw again from a seed)",
                      "PVB 08a(1)")
    return value


def _stack(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_CHIPS:
        raise Refused(f"args.stack: the chips the player gets back, a whole number from 1 to "
                      f"{MAX_CHIPS:,}", "PVB 64a(1)")
    return value


def _table(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 32 or not value.isprintable():
        raise Refused("args.table: the table's id, as tournament.toml's tables name it",
                      "RULES T3")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise Refused("args.clock: true or false", "RULES T3")
    return value


PlayerName = Annotated[str, BeforeValidator(_name)]
TableId = Annotated[str | None, BeforeValidator(_table)]
Flag = Annotated[bool, BeforeValidator(_flag)]
Club = Annotated[str | None, BeforeValidator(_club)]
Seed = Annotated[int | None, BeforeValidator(_seed)]
Stack = Annotated[int | None, BeforeValidator(_stack)]


class CommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    command: ClassVar[str] = ""


class RegisterArgs(CommandArgs):
    command = "register"
    name: PlayerName
    club: Club = None


class ReenterArgs(CommandArgs):
    command = "reenter"
    name: PlayerName


class UnregisterArgs(CommandArgs):
    command = "unregister"
    name: PlayerName


class DrawArgs(CommandArgs):
    command = "draw"
    seed: Seed = None


class UndoBustArgs(CommandArgs):
    """``stack``: the chips a player who lost his seat gets back (the floor's count); none for
    one the tables still show with his chips."""

    command = "undo_bust"
    player: PlayerName
    stack: Stack = None


class PlayerArgs(CommandArgs):
    player: PlayerName


class MoveDoneArgs(PlayerArgs):
    command = "move_done"


class AddOnArgs(PlayerArgs):
    command = "add_on"


class RebuyArgs(PlayerArgs):
    command = "rebuy"


class ExportArgs(CommandArgs):
    command = "export"


class GoOnWithoutArgs(CommandArgs):
    """A table whose state has not come since the tournament started (``table``), or the
    clock's (``clock``: true): the director tells the tournament to go on without it."""

    command = "go_on_without"
    table: TableId = None
    clock: Flag = False

    @model_validator(mode="after")
    def _one(self) -> GoOnWithoutArgs:
        if (self.table is None) == (not self.clock):
            raise Refused("go_on_without: name one table (args.table) or the clock "
                          "(args.clock: true)", "RULES T3")
        return self


class BreakTableArgs(CommandArgs):
    """A table gone on without (its Pi gone for good): the director breaks it, and its players
    are drawn seats at the other tables."""

    command = "break_table"
    table: TableId = None

    @model_validator(mode="after")
    def _named(self) -> BreakTableArgs:
        if self.table is None:
            raise Refused("break_table: name the table (args.table)", "RULES T3")
        return self


ARGS: dict[str, type[CommandArgs]] = {model.command: model for model in (
    RegisterArgs, ReenterArgs, UnregisterArgs, DrawArgs, UndoBustArgs, MoveDoneArgs, AddOnArgs,
    RebuyArgs, ExportArgs, GoOnWithoutArgs, BreakTableArgs)}
COMMANDS = frozenset(ARGS)


def parse(name: str, args: dict[str, Any]) -> CommandArgs:
    """The command's arguments, or `Refused` saying what is wrong with them."""
    model = ARGS.get(name)
    if model is None:
        raise Refused(f"unknown tournament command {name!r}; the tournament knows: "
                      f"{', '.join(sorted(COMMANDS))}", PROCEDURE)
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        raise _refusal(name, model, exc) from None


def _refusal(name: str, model: type[CommandArgs], exc: ValidationError) -> Refused:
    errors = exc.errors()
    stray = [e for e in errors if e["type"] == "extra_forbidden"]
    if stray:
        unknown = ", ".join(f"args.{'.'.join(map(str, e['loc']))}" for e in stray)
        takes = ", ".join(model.model_fields) or "no arguments"
        return Refused(f"{name} does not take {unknown} (it takes {takes}); nothing was done",
                       PROCEDURE)
    first = errors[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, Refused):
        return cause
    where = ".".join(map(str, first["loc"])) or "args"
    if first["type"] == "missing":  # (every argument a command needs is a player's name)
        try:
            checked_name(None, where)
        except Refused as missing:
            return missing
    return Refused(f"{name}: args.{where}: {first['msg']}", PROCEDURE)


__all__ = ["ARGS", "COMMANDS", "AddOnArgs", "BreakTableArgs", "CommandArgs", "DrawArgs",
           "ExportArgs", "GoOnWithoutArgs", "MoveDoneArgs", "RebuyArgs", "ReenterArgs",
           "RegisterArgs", "UndoBustArgs", "UnregisterArgs", "parse"]
