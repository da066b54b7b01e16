"""Table events: the one vocabulary of docs/design.md, as pydantic models.

Drivers, simulators, the journal and ``replay-events`` all speak it: one JSON object per line with
a ``type`` and an optional ``ts`` in seconds. `parse_event` turns a line into a model or raises a
`BadEvent` that says what is wrong; it never raises anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from controller.errors import PokertableError, first_error

CardZone = Annotated[str, Field(pattern=r"^(seat:([1-9]|10)|board|muck|burn)$")]
ChipZone = Annotated[str, Field(pattern=r"^(seat:([1-9]|10)|pot)$")]
# The same zones listed, for a reader's configuration to name them (tests/test_events.py holds
# the lists to the patterns)
SEAT_ZONES = tuple(f"seat:{seat}" for seat in range(1, 11))
ZONES = {"cards": (*SEAT_ZONES, "board", "muck", "burn"), "chips": (*SEAT_ZONES, "pot")}
CardText = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$")]
Uid = Annotated[str, Field(pattern=r"^[0-9A-F]{8,20}$")]

# What the engine can hold, checked at the boundary so that nothing journaled can fail later
# (one bad event must never brick a table). Amounts are chips; a tournament's largest stack is
# far below this. Times are seconds since the epoch (or since a script's start): finite, not
# negative, before the year 2100.
MAX_CHIPS = 10**11
MAX_SECONDS = 4_102_444_800.0
Chips = Annotated[int, Field(ge=0, le=MAX_CHIPS)]
Seconds = Annotated[float, Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False)]
# A player's id or name as a badge or the floor gives it: printable, 1 to 40 characters.
PlayerName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40,
                                              pattern=r"^[^\x00-\x1f\x7f]+$")]
# A remote command's id (the floor's or the clock's): the table acts on it once.
CommandId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[\x21-\x7e]+$")]


class BadEvent(PokertableError, ValueError):
    """A line that is not a valid table event."""


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ts: Seconds | None = Field(default=None, description="Seconds (the sender's clock)")
    command_id: CommandId | None = Field(
        default=None, description="Set when a remote command asked for it: applied at most once")


class SeatEvent(_Event):
    type: Literal["seat"] = "seat"
    seat: int = Field(ge=1, le=10)
    player: PlayerName | None = Field(default=None,
                                      description="Player id; null or absent: vacated")
    stack: Chips = 0
    arrival: Literal["moved", "broken-table"] | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="A cash table (CG Blinds, CG Table Stake): a player the floor moved here, or "
        "one from a broken table, brings his whole stake and no blind; none: he buys in")


class ShuffleEvent(_Event):
    type: Literal["shuffle"] = "shuffle"


class CardEvent(_Event):
    type: Literal["card"] = "card"
    zone: CardZone
    card: CardText
    uid: Uid | None = None


class ChipsEvent(_Event):
    type: Literal["chips"] = "chips"
    zone: ChipZone
    chips: list[Annotated[int, Field(gt=0, le=MAX_CHIPS)]] = Field(
        max_length=1000, description="Denominations of the chips the zone settled on")
    uids: list[Uid] | None = Field(default=None, max_length=1000)


class GoneEvent(_Event):
    type: Literal["gone"] = "gone"
    zone: CardZone
    card: CardText


class ForeignEvent(_Event):
    """A tag that is in no registered deck or chip set (RULES I4)."""

    type: Literal["foreign"] = "foreign"
    zone: Annotated[str, Field(pattern=r"^(seat:([1-9]|10)|board|muck|burn|pot)$")]
    uid: Uid
    reads: Literal["cards", "chips"] = Field(
        default="cards", description="Which kind of reader saw it: a card or a chip antenna"
    )


class KeyEvent(_Event):
    type: Literal["key"] = "key"
    key: Literal["confirm", "undo", "floor"]


class DeclareEvent(_Event):
    type: Literal["declare"] = "declare"
    seat: int = Field(ge=1, le=10)
    action: Literal["fold", "check", "call", "bet", "raise", "allin"]
    amount: int | None = Field(default=None, gt=0, le=MAX_CHIPS)


class LevelEvent(_Event):
    type: Literal["level"] = "level"
    level: int = Field(ge=1, le=1000)
    sb: Chips
    bb: int = Field(gt=0, le=MAX_CHIPS)
    ante: Chips = 0
    bb_ante: Chips = 0
    smallest_chip: int | None = Field(
        default=None, gt=0, le=MAX_CHIPS, description="The smallest chip still in play after a "
        "colour-up (RULES S2, T5): split pots pay in it; absent: unchanged")

    @model_validator(mode="after")
    def _small_blind_not_above_big(self) -> LevelEvent:
        if self.sb > self.bb:
            raise ValueError(f"the small blind ({self.sb}) is more than the big blind ({self.bb})")
        return self


class CommandEvent(_Event):
    type: Literal["command"] = "command"
    name: str = Field(pattern=r"^[a-z_]{1,32}$")
    args: dict[str, Any] = Field(default_factory=dict, max_length=20)
    by: str | None = Field(default=None, max_length=80,
                           description="Who decided: journaled with the decision")


class TickEvent(_Event):
    type: Literal["tick"] = "tick"
    now: Seconds


class HealthEvent(_Event):
    """A device's state: ok, reconnecting, offline; with its counters."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["health"] = "health"
    device: str = Field(min_length=1, max_length=64)
    status: Literal["ok", "reconnecting", "offline", "noisy"]


TableEvent = Annotated[
    SeatEvent | ShuffleEvent | CardEvent | ChipsEvent | GoneEvent | ForeignEvent | KeyEvent
    | DeclareEvent | LevelEvent | CommandEvent | TickEvent | HealthEvent,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[TableEvent] = TypeAdapter(TableEvent)


Emit = Callable[[TableEvent], None]  # how drivers hand over events (thread-safe on the receiver)


def parse_event(line: str | bytes | dict[str, Any]) -> TableEvent:
    """One event from a JSON line (or a dict); `BadEvent` with the reason otherwise."""
    try:
        if isinstance(line, dict):
            return _ADAPTER.validate_python(line)
        return _ADAPTER.validate_json(line)
    except ValidationError as exc:
        raise BadEvent(f"not a table event: {first_error(exc, 'event')}") from None


def dump_event(event: BaseModel) -> str:
    """The event as one JSON line (no trailing newline), fields that are unset left out."""
    return event.model_dump_json(exclude_none=True)
