"""What travels over MQTT: one pydantic model per payload, with the schema version ``v``.

Senders build these models and receivers validate with `decode`, so a payload that does not
match (another schema version, a missing field, a public record carrying a hidden hole card) is
refused at both ends. docs/mqtt.md documents every model against the topic tree.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from controller.engine.records import HandRecord
from controller.errors import PokertableError, first_error
from controller.events import CommandId
from controller.inputs.json_input import BadJson, loads_bounded
from controller.session.outputs import PublicEvent, TableState

SCHEMA_VERSION = 1


class BadMessage(PokertableError, ValueError):
    """A payload that is not valid JSON for its topic's model."""


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = Field(default=1, description="Schema version of the payload (SCHEMA_VERSION)")


class StatusMessage(Message):
    """``table/<id>/status``, retained; ``offline`` is also the table's Last Will."""

    table: str
    status: Literal["online", "offline"]


class ServiceStatus(Message):
    """``<service>/status`` (the recorder's; the clock's and the floor's to come), retained;
    ``offline`` is also the service's Last Will. Tables resend what the recorder has not
    confirmed when it comes online."""

    service: Literal["recorder", "clock", "floor", "tournament"]
    status: Literal["online", "offline"]


class StateMessage(Message):
    """``table/<id>/state``, retained: the public table state (never a hidden hole card)."""

    table: str
    seq: int = Field(ge=1, description="Counts the states this controller run published")
    sent: float = Field(description="Wall time of publication, seconds")
    state: TableState
    clock_offset: float | None = Field(default=None, description="The clock's time minus the "
                                       "table's, as the time sync estimates it (seconds)")
    clock_rtt: float | None = Field(default=None, description="The round trip of the sample "
                                    "that estimate comes from (seconds)")
    level_ends_at: float | None = Field(default=None, description="The clock's instant the "
                                        "level ends, as the table last heard it")
    level_remaining: float | None = Field(default=None, description="Seconds left in the "
                                          "level when this was sent, on the clock's time (the "
                                          "time left when the clock is paused)")


class EventMessage(Message):
    """``table/<id>/event``: a public event. Irregularities and eliminations carry an ``id`` and
    come through the outbox (at least once: receivers drop an id they have seen)."""

    table: str
    id: str | None = Field(default=None, description="table:hand:start:n for durable events")
    sent: float
    event: PublicEvent


class RecordMessage(Message):
    """``table/<id>/record``: a finished hand, public part: only tabled hole cards."""

    id: str = Field(description="table:hand:start, the same for every delivery of the hand")
    table: str
    hand: int
    sent: float
    record: HandRecord

    @model_validator(mode="after")
    def _only_tabled_cards(self) -> RecordMessage:
        if self.record != self.record.public():
            raise ValueError("a public record carries a hole card that was not tabled")
        return self


class SecureRecordMessage(Message):
    """``table/<id>/secure/record``: the full record, for the recorder, after the hand."""

    id: str
    table: str
    hand: int
    sent: float
    record: HandRecord


class KeptMessage(Message):
    """``table/<id>/ack``, from the recorder alone to that table alone: these ids (full records,
    durable events) are stored; the table may let them go from its outbox."""

    table: str
    ids: list[str] = Field(min_length=1, max_length=1000)


class CommandRequest(Message):
    """``table/<id>/cmd/<name>``: a command; the MQTT v5 correlation data and ``id`` come back
    on ``table/<id>/reply``. The ``id`` is the command's identity: the table acts on a given id
    at most once, so a command delivered again is answered again without acting twice."""

    args: dict[str, Any] = Field(default_factory=dict)
    by: str | None = Field(default=None, max_length=80, description="Who decided (the floor)")
    id: CommandId = Field(description="Unique per command (a UUID): applied at most once, "
                          "echoed in the reply")


class CommandReply(Message):
    """``table/<id>/reply``: the answer to one command."""

    table: str
    command: str
    id: str | None = None
    status: Literal["ok", "error"]
    reason: str | None = Field(default=None, description="Why it was refused, or what it did")
    rule: str | None = None


class ClockState(Message):
    """``clock/state``, retained: the tournament clock's level (applies from the next hand)."""

    name: str | None = Field(default=None, description="The structure's (the tournament's) name")
    level: int = Field(ge=1)
    sb: int = Field(ge=0)
    bb: int = Field(gt=0)
    ante: int = Field(default=0, ge=0)
    bb_ante: int = Field(default=0, ge=0)
    smallest_chip: int | None = Field(default=None, gt=0, description="The smallest chip in "
                                      "play after a colour-up (split pots pay in it)")
    running: bool = True
    remaining: float | None = Field(default=None, description="Seconds left in the level")
    status: Literal["not_started", "running", "paused", "on_break", "finished"] | None = None
    ends_at: float | None = Field(default=None, description="The clock's time the level (or "
                                  "break) ends, while it runs: screens count down to it")
    on_break: bool = False
    next_level: int | None = None
    next_sb: int | None = Field(default=None, ge=0, description="The next level's small blind")
    next_bb: int | None = Field(default=None, ge=0)
    next_ante: int | None = Field(default=None, ge=0)
    next_bb_ante: int | None = Field(default=None, ge=0)
    colour_up: list[int] = Field(default_factory=list, description="On a break: the chips that "
                                 "colour up at it and leave play (RULES T5)")
    next_break_at: float | None = Field(default=None, description="The clock's time the next "
                                        "break begins, while the clock runs")
    hand_for_hand: bool = False
    round: int = Field(default=0, description="Hand-for-hand: the round being played")
    waiting: list[str] = Field(default_factory=list, description="Hand-for-hand: the tables "
                               "the round still waits for")
    playing: list[str] = Field(default_factory=list, description="Hand-for-hand: the tables "
                               "released for one hand of this round")
    heard: dict[str, float] = Field(default_factory=dict, description="The clock's time it last "
                                    "heard each table, as of this state")
    silent: list[str] = Field(default_factory=list, description="Online tables the clock has "
                              "not heard for answer_seconds (their heard time is exact)")
    late: list[str] = Field(default_factory=list, description="Hand-for-hand: tables the round "
                            "waits for that do not answer (offline, silent, or not showing what "
                            "the clock asked within answer_seconds); release_table lets the "
                            "round go on without one")
    answer_seconds: float | None = None


class TimeRequest(Message):
    """``table/<id>/time``: a table asks the clock for its time (NTP-style): ``t0`` is the
    table's own clock when it sent this."""

    t0: float


class TimeReply(Message):
    """``clock/time/<id>``: the clock's answer: ``received`` and ``sent`` in the clock's time.
    With the table's ``t0`` and its own time on arrival (t3): offset = ((received - t0) +
    (sent - t3)) / 2, round trip = (t3 - t0) - (sent - received)."""

    table: str
    t0: float
    received: float
    sent: float


class ClockTime(Message):
    """``clock/time``: the clock's wall time, for the tables' time sync."""

    now: float


class ChipLeader(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str
    stack: int = Field(ge=0)
    table: str | None = None


class Payout(BaseModel):
    """What one place pays (shared places: each player's share, the same for each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    place: int = Field(ge=1)
    amount: int = Field(ge=0)


class TournamentState(Message):
    """``tournament/state``, retained: the tournament as the room's screens show it (the TV
    clock reads these fields; the tournament service may say more in fields of its own)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str
    entries: int = Field(ge=0, description="Entries so far, re-entries counted")
    players_left: int = Field(ge=0)
    average_stack: int | None = Field(default=None, ge=0)
    chip_leader: ChipLeader | None = None
    prize_pool: int = Field(default=0, ge=0)
    currency: str = "EUR"
    payouts: list[Payout] = Field(default_factory=list)
    winner: str | None = Field(default=None, description="The player who has every chip: the "
                               "tournament is over (the clock pauses, the TV names him)")


M = TypeVar("M", bound=Message)


def decode(model: type[M], payload: bytes | bytearray | str) -> M:
    """The payload as ``model``, or `BadMessage` saying what is wrong (never anything else)."""
    try:
        data = loads_bounded(payload)
    except BadJson as exc:
        raise BadMessage(f"not a valid {model.__name__}: {exc}") from None
    if not isinstance(data, dict) or "v" not in data:  # a sender must say its schema version
        raise BadMessage(f"not a valid {model.__name__}: no schema version \"v\"")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadMessage(f"not a valid {model.__name__}: {first_error(exc, 'payload')}") from None


def encode(message: Message) -> bytes:
    return message.model_dump_json().encode()


def schemas() -> dict[str, dict[str, Any]]:
    """JSON Schema of every payload (docs/mqtt.md is checked against these names)."""
    return {m.__name__: m.model_json_schema() for m in PAYLOADS}


PAYLOADS: tuple[type[Message], ...] = (
    StatusMessage, StateMessage, EventMessage, RecordMessage, SecureRecordMessage, KeptMessage,
    ServiceStatus, CommandRequest, CommandReply, ClockState, ClockTime, TimeRequest, TimeReply,
    TournamentState,
)

__all__ = [
    "PAYLOADS",
    "SCHEMA_VERSION",
    "BadMessage",
    "ChipLeader",
    "ClockState",
    "ClockTime",
    "CommandReply",
    "CommandRequest",
    "EventMessage",
    "KeptMessage",
    "Message",
    "Payout",
    "RecordMessage",
    "SecureRecordMessage",
    "ServiceStatus",
    "StateMessage",
    "StatusMessage",
    "TournamentState",
    "decode",
    "encode",
    "schemas",
]
