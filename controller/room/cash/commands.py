"""The floor's cash commands at the boundary (pure): each command's arguments as a model that
refuses what it does not know, so a misspelt argument (``sign_up`` with ``phon``) is a clear
refusal instead of a player on the list without the number the floor will call.

`parse` gives the command's model or raises `Refused` with the reason in the floor's words and
the CG section the argument serves. ``tick`` is the service's own (time passing: a called player
who did not come leaves the list), and so are ``at_table``, ``left_seat``, ``carries`` and
``gone`` (what the tables' states say, at_tables.py); the floor cannot send them
(`FLOOR_COMMANDS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo

from controller.room.cash.ledger import CHANGE, FLOOR, MUST_MOVE, STAKE, TABLE_ID, Refused
from controller.room.tournament import names

PHONE = re.compile(r"^\+?[0-9 ()/-]{3,24}$")


def _name(value: object, info: ValidationInfo) -> str:
    what = info.field_name or "name"
    if not isinstance(value, str) or not value.strip():
        fault = ("missing" if value is None else "empty" if isinstance(value, str)
                 else f"not text ({type(value).__name__})")
        raise Refused(f"args.{what}: {fault}; give the player's name as the list shows it",
                      CHANGE)
    unseen = names.invisible(value)
    if unseen:
        raise Refused(f"args.{what}: a name with characters nobody sees ({', '.join(unseen[:3])})"
                      ": the floor could not tell it apart", CHANGE)
    name = " ".join(names.normalised(value).split())
    if len(name) > 40:
        raise Refused(f"args.{what}: a name is 1 to 40 printable characters", CHANGE)
    return name


def _initials(value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or names.invisible(value) or not 1 <= len(value.strip()) <= 6:
        raise Refused("args.initials: 1 to 6 printable characters (what the TV shows instead "
                      "of the name)", FLOOR)
    return value.strip()


def _phone(value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not PHONE.match(value.strip()):
        raise Refused("args.phone: a telephone number (digits, spaces, + ( ) / -), for the "
                      "floor to call the player when his seat is ready", FLOOR)
    return value.strip()


def _game(value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 24:
        raise Refused('args.game: the game and limit as the room names it ("NLH 2/5")', CHANGE)
    return value.strip()


def _table(value: object, info: ValidationInfo) -> str:
    if not isinstance(value, str) or not re.match(TABLE_ID, value):
        raise Refused(f"args.{info.field_name}: a table's id, as cash.toml's tables name it",
                      FLOOR)
    return value


def _maybe_table(value: object, info: ValidationInfo) -> str | None:
    return None if value is None else _table(value, info)


def _seat(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10:
        raise Refused("args.seat: a seat number from 1 to 10 (or none: any open seat)", FLOOR)
    return value


def _seed(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise Refused("args.seed: a whole number from 0 (the must-move draw's)", MUST_MOVE)
    return value


def _table_seat(value: object) -> int:
    seat = _seat(value)
    if seat is None:
        raise Refused("args.seat: the seat the table shows him at, from 1 to 10", FLOOR)
    return seat


def _stake(least: int, meaning: str) -> Callable[[object], int | None]:
    """A ``stack`` argument: none, or a whole number of chips from ``least`` (``meaning``: what
    the refusal says it is)."""
    def checked(value: object) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not least <= value <= 10**9:
            raise Refused(f"args.stack: {meaning}", STAKE)
        return value
    return checked


def _chips(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10**9:
        raise Refused("args.stack: the chips the table shows, a whole number from 0", STAKE)
    return value


def _call_seconds(value: object) -> float | None:
    if value is None:
        return None
    if (not isinstance(value, int | float) or isinstance(value, bool)
            or not 30 <= value <= 7200):
        raise Refused("args.seconds: the time to sit down, 30 to 7,200 seconds (the service's: "
                      "call_minutes at the call)", FLOOR)
    return float(value)


def _yes_no(value: object) -> bool:
    if not isinstance(value, bool):
        raise Refused("args.accept: true (he moves) or false (he stays)", MUST_MOVE)
    return value


PlayerName = Annotated[str, BeforeValidator(_name)]
Initials = Annotated[str | None, BeforeValidator(_initials)]
Phone = Annotated[str | None, BeforeValidator(_phone)]
Game = Annotated[str, BeforeValidator(_game)]
TableId = Annotated[str, BeforeValidator(_table)]
MaybeTable = Annotated[str | None, BeforeValidator(_maybe_table)]
SeatNumber = Annotated[int | None, BeforeValidator(_seat)]
Seed = Annotated[int | None, BeforeValidator(_seed)]
YesNo = Annotated[bool, BeforeValidator(_yes_no)]
CallSeconds = Annotated[float | None, BeforeValidator(_call_seconds)]
BuyIn = Annotated[int | None, BeforeValidator(_stake(1, (
    "the chips he sits down with, a whole number above 0 (his buy-in: the table is asked to "
    "seat him with them; none: the dealer seats him)")))]
LeavingStack = Annotated[int | None, BeforeValidator(_stake(0, (
    "the chips he leaves with, a whole number from 0 (none: the floor does not count his "
    "stake)")))]
Chips = Annotated[int, BeforeValidator(_chips)]
TableSeat = Annotated[int, BeforeValidator(_table_seat)]


class CommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    command: ClassVar[str] = ""


class OpenTableArgs(CommandArgs):
    command = "open_table"
    table: TableId
    game: Game


class CloseTableArgs(CommandArgs):
    command = "close_table"
    table: TableId


class SignUpArgs(CommandArgs):
    command = "sign_up"
    game: Game
    name: PlayerName
    initials: Initials = None
    phone: Phone = None


class RemoveArgs(CommandArgs):
    command = "remove"
    game: Game
    name: PlayerName


class CallArgs(CommandArgs):
    """The first on ``game``'s list not yet called is called (to ``table``, if named).
    ``seconds``: his time to sit down, the service's (its call_minutes, journaled with the
    call: a restart with another setting, or a replay, keeps what he was told)."""

    command = "call"
    game: Game
    table: MaybeTable = None
    seconds: CallSeconds = None


class SeatArgs(CommandArgs):
    """A called player (or, with nobody waiting for the game, one who walked in) sits down.
    ``stack``: his buy-in; the table is asked to seat him with it (at_tables.py)."""

    command = "seat"
    table: TableId
    name: PlayerName
    seat: SeatNumber = None
    stack: BuyIn = None


class LeaveArgs(CommandArgs):
    """He leaves his table. ``stack``: the stake he ends his play with (CG "Table Stake": above
    the game's minimum buy-in, not back today with less)."""

    command = "leave"
    table: TableId
    name: PlayerName
    stack: LeavingStack = None  # (0: he leaves broke, which the Table Stake rule allows)


class MustMoveArgs(CommandArgs):
    """``table`` becomes a must-move table feeding ``main``. ``seed``: the draw's, when the
    order is drawn (the service gives one and journals it, so a replay draws the same)."""

    command = "must_move"
    table: TableId
    main: TableId
    seed: Seed = None


class EndMustMoveArgs(CommandArgs):
    command = "end_must_move"
    table: TableId


class AnswerArgs(CommandArgs):
    """The player asked for the main table's open seat says yes or no."""

    command = "answer"
    table: TableId
    name: PlayerName
    accept: YesNo


class RequestChangeArgs(CommandArgs):
    command = "request_change"
    name: PlayerName
    table: TableId


class ApproveChangeArgs(CommandArgs):
    command = "approve_change"
    name: PlayerName


class CancelChangeArgs(CommandArgs):
    """Withdrawn by the player, or refused by the floor (CG "Tischwechsel": its decision)."""

    command = "cancel_change"
    name: PlayerName


class TickArgs(CommandArgs):
    """The service's: time has passed (``now``, the command's time, is all it needs)."""

    command = "tick"


# What the tables' states say, the service's own commands too (at_tables.py `observed`)


class AtTableArgs(CommandArgs):
    """The table shows ``name`` at ``seat``: he reached it (or changed seats there)."""

    command = "at_table"
    table: TableId
    name: PlayerName
    seat: TableSeat


class LeftSeatArgs(CommandArgs):
    """A seat the table showed ``name`` at is empty: he left the table. ``stack``: what the
    table showed him with just before, between hands (the stake he ended play with)."""

    command = "left_seat"
    table: TableId
    name: PlayerName
    stack: Chips | None = None


class CarriesArgs(CommandArgs):
    """A mover's stack as his old table shows it between hands: what he brings; or the stake a
    player leaving without one named ends play with (CG "Table Stake")."""

    command = "carries"
    name: PlayerName
    stack: Chips


class GoneArgs(CommandArgs):
    """The table the floor took ``name`` off shows him there no more."""

    command = "gone"
    table: TableId
    name: PlayerName


ARGS: dict[str, type[CommandArgs]] = {model.command: model for model in (
    OpenTableArgs, CloseTableArgs, SignUpArgs, RemoveArgs, CallArgs, SeatArgs, LeaveArgs,
    MustMoveArgs, EndMustMoveArgs, AnswerArgs, RequestChangeArgs, ApproveChangeArgs,
    CancelChangeArgs, TickArgs, AtTableArgs, LeftSeatArgs, CarriesArgs, GoneArgs)}
COMMANDS = frozenset(ARGS)
# The service's own: time passing, and what the tables' states say
SERVICE_COMMANDS = frozenset({"tick", "at_table", "left_seat", "carries", "gone"})
FLOOR_COMMANDS = COMMANDS - SERVICE_COMMANDS


def parse(name: str, args: dict[str, Any]) -> CommandArgs:
    """The command's arguments, or `Refused` saying what is wrong with them."""
    model = ARGS.get(name)
    if model is None:
        raise Refused(f"unknown cash command {name!r}; the cash floor knows: "
                      f"{', '.join(sorted(FLOOR_COMMANDS))}", FLOOR)
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
                       FLOOR)
    first = errors[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, Refused):
        return cause
    where = ".".join(map(str, first["loc"])) or "args"
    if first["type"] == "missing":
        return Refused(f"{name} needs args.{where}; nothing was done", FLOOR)
    return Refused(f"{name}: args.{where}: {first['msg']}", FLOOR)


__all__ = ["ARGS", "COMMANDS", "FLOOR_COMMANDS", "SERVICE_COMMANDS", "AnswerArgs",
           "ApproveChangeArgs", "AtTableArgs", "CallArgs", "CancelChangeArgs", "CarriesArgs",
           "CloseTableArgs", "CommandArgs", "EndMustMoveArgs", "GoneArgs", "LeaveArgs",
           "LeftSeatArgs", "MustMoveArgs", "OpenTableArgs", "RemoveArgs", "RequestChangeArgs",
           "SeatArgs", "SignUpArgs", "TickArgs", "parse"]
