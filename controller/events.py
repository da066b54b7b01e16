"""Table events: the one vocabulary of DESIGN.md, as pydantic models.

Drivers, simulators, the journal and ``replay-events`` all speak it: one JSON object per line with
a ``type`` and an optional ``ts`` in seconds. `parse_event` turns a line into a model or raises a
`BadEvent` that says what is wrong; it never raises anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from controller.errors import PokertableError, first_error

CardZone = Annotated[str, Field(pattern=r"^(seat:([1-9]|10)|board|muck|burn)$")]
ChipZone = Annotated[str, Field(pattern=r"^(seat:([1-9]|10)|pot)$")]
CardText = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$")]
Uid = Annotated[str, Field(pattern=r"^[0-9A-F]{8,20}$")]


class BadEvent(PokertableError, ValueError):
    """A line that is not a valid table event."""


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ts: float | None = Field(default=None, description="Seconds (the sender's clock)")


class SeatEvent(_Event):
    type: Literal["seat"] = "seat"
    seat: int = Field(ge=1, le=10)
    player: str | None = Field(default=None, description="Player id; null or absent: vacated")
    stack: int = Field(default=0, ge=0)


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
    chips: list[int] = Field(description="Denominations of the chips the zone settled on")
    uids: list[Uid] | None = None


class GoneEvent(_Event):
    type: Literal["gone"] = "gone"
    zone: CardZone
    card: CardText


class ForeignEvent(_Event):
    """A tag that is in no registered deck or chip set (RULES I4)."""

    type: Literal["foreign"] = "foreign"
    zone: str
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
    amount: int | None = Field(default=None, gt=0)


class LevelEvent(_Event):
    type: Literal["level"] = "level"
    level: int = Field(ge=1)
    sb: int = Field(ge=0)
    bb: int = Field(gt=0)
    ante: int = Field(default=0, ge=0)
    bb_ante: int = Field(default=0, ge=0)


class CommandEvent(_Event):
    type: Literal["command"] = "command"
    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    by: str | None = Field(default=None, description="Who decided: journaled with the decision")


class TickEvent(_Event):
    type: Literal["tick"] = "tick"
    now: float


class HealthEvent(_Event):
    """A device's state: ok, reconnecting, offline; with its counters."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["health"] = "health"
    device: str
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
