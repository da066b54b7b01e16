"""What the session is made of: its configuration, the snapshot the journal keeps between hands,
the outcome of a step, and what the antennas told it about the hand running.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.engine.hand import Hand
from controller.engine.records import HandRecord, Irregularity
from controller.engine.straddles import StraddleKind
from controller.engine.table_play import Level, TableSnapshot
from controller.errors import RuleViolation
from controller.events import DeclareEvent, SeatEvent
from controller.session.chip_reading import Announced, Doubt
from controller.session.colour_up import ColourUp
from controller.session.outputs import NextVariant, PublicEvent
from controller.session.shot_settings import ShotBank, ShotClockConfig, ShotHand
from controller.session.table_holds import TableHolds, kind_of

BETTING_KINDS = frozenset({"fold", "check", "call", "bet", "raise"})
AGGRESSIVE_KINDS = frozenset({"call", "bet", "raise"})


def voluntary_actions(hand: Hand) -> int:
    """How many betting actions the hand has seen (the blinds and antes are none)."""
    return sum(1 for a in hand.log if a.kind in BETTING_KINDS)


class Refused(RuleViolation):
    """An event the session does not accept; it changed nothing."""


class BuyIn(BaseModel):
    """CG "Buy-in", CG "Limits": the least a player sits down with at a cash table, and the most
    (none: no maximum). Set before play, for the table (changed only with the floor)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: int = Field(ge=1, le=10**11, description="The minimum buy-in (chips)")
    max: int | None = Field(default=None, ge=1, le=10**11, description="The maximum buy-in "
                            "(chips); none: no maximum (CG Limits: a maximum can be set)")

    @model_validator(mode="after")
    def _ordered(self) -> BuyIn:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"buy_in: the maximum ({self.max:,}) is less than the minimum "
                             f"({self.min:,})")
        return self


class SessionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table_id: str = "1"
    profile: str = Field(default="pvb-2020", description="Rule profile name or TOML path")
    seats: int = Field(default=10, ge=2, le=10)
    level: Level = Field(default_factory=lambda: Level(sb=50, bb=100))
    check_burns: bool = Field(
        default=False, description="PVB 35(2): expect a burn card before each street (needs a "
        "burn or muck antenna)"
    )
    straddles: list[StraddleKind] = Field(
        default_factory=list, exclude_if=lambda v: not v,
        description="CG Straddle: the straddles this table opened with (live, button, "
        "mississippi; each one the rule profile knows); none: no straddles. Read from the "
        "chips put out before the cards")
    buy_in: BuyIn | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="CG Buy-in: a cash table's minimum and maximum buy-in; a sit-down or a "
        "top-up outside them is refused. None: no limits (a tournament's table)")
    shot_clock: ShotClockConfig | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="The table's shot clock (docs/shot-clock.md); none: no shot clock")


class SessionSnapshot(BaseModel):
    """The session between hands: the journal's checkpoint at every shuffle press."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: TableSnapshot
    holds: TableHolds = Field(default_factory=TableHolds)
    queued_seats: list[SeatEvent] = Field(default_factory=list)
    pending_record: HandRecord | None = None
    absent: list[int] = Field(default_factory=list)
    devices: dict[str, str] = Field(default_factory=dict)
    draw: dict[int, str] = Field(default_factory=dict)
    penalties: dict[str, int] = Field(default_factory=dict, description="Player id -> hands "
                                      "still to serve (PVB 69(12)); they follow the player")
    command_ids: list[str] = Field(default_factory=list, description="The ids of the latest "
                                   "remote commands applied: each acts at most once")
    counted: dict[int, bool] = Field(default_factory=dict, exclude_if=lambda v: not v,
                                     description="Seat -> whether the chips of the player who "
                                     "sat there were read on its zone (absent when none sat "
                                     "since: a journal reads as it did before the count)")
    colour_up: ColourUp | None = Field(default=None, exclude_if=lambda v: v is None,
                                       description="The last colour-up (RULES T5): its race "
                                       "is open until the next hand begins")
    stack_refs: list[str] = Field(default_factory=list, exclude_if=lambda v: not v,
                                  description="The refs of the latest stack changes and "
                                  "colour-ups made (`stack`, `colour_up`): each is made once")
    next_variant: NextVariant | None = Field(default=None, exclude_if=lambda v: v is None,
                                             description="CG Spielvarianten: the variant the "
                                             "next hand is dealt as")
    shot_banks: dict[str, ShotBank] = Field(default_factory=dict, exclude_if=lambda v: not v,
                                            description="Shot clock: player id -> his time "
                                            "extensions left (docs/shot-clock.md)")

    @model_validator(mode="before")
    @classmethod
    def _one_hold(cls, data: Any) -> Any:
        """A journal written before the holds were kept by source: one hold, a release for
        one hand, and its round."""
        if not isinstance(data, dict) or not {"hold", "hold_after_next", "round_next"} & set(data):
            return data
        data = dict(data)
        hold, after, number = (data.pop(k, None) for k in ("hold", "hold_after_next",
                                                           "round_next"))
        reasons = {kind_of(hold): hold} if hold else {}
        released = (number or 1) if after else None
        data["holds"] = TableHolds(reasons=reasons, released_round=released)
        return data


# How many remote command ids a table remembers: far more than any redelivery can reach back.
COMMAND_IDS_KEPT = 500
# How many refs of stack changes a table remembers and shows: a tournament's add-ons of a break.
STACK_REFS_KEPT = 200


# The floor's commands (`command` events; over MQTT ``table/<id>/cmd/<name>``).
FLOOR_COMMANDS = frozenset({
    "void", "misdeal", "kill", "move_button", "award", "correct", "show", "hold", "release",
    "absent", "present", "note", "time", "penalty", "close", "draw", "unseat", "stack",
    "colour_up", "variant", "run_twice",
})


@dataclass
class Step:
    """What one event did: accepted or refused, what to publish, which records were sealed."""

    accepted: bool
    events: list[PublicEvent] = field(default_factory=list)
    sealed: list[HandRecord] = field(default_factory=list)
    changed: bool = True  # False: the event changed nothing (a re-read, a card lifted)
    error: str | None = None  # an event the session could not apply: the traceback, for the log


@dataclass
class Held:
    """An action out of turn (RULES R7): applied when the turn comes if the action to the seat
    did not change in between (no bet or raise), otherwise returned (PVB 37(3)(4))."""

    chips: list[int] | None
    declare: DeclareEvent | None
    bet_level: int
    raises: int


@dataclass
class TimeCall:
    """A clock on a seat (RULES C1, C2): started by the first tick after the call."""

    seat: int
    seconds: int
    rule: str
    started: float | None = None
    remaining: int | None = None


@dataclass
class HandTrack:
    """What the antennas told us about the current hand."""

    started: float | None
    wanted: int  # hole cards per seat (2 hold'em, 4 Omaha)
    dealt: tuple[int, ...]
    zone_of: dict[str, str] = field(default_factory=dict)  # card -> where it was seen
    uid_of: dict[str, str] = field(default_factory=dict)
    seat_cards: dict[int, list[str]] = field(default_factory=dict)
    hole_reads: int = 0
    board_buffer: list[str] = field(default_factory=list)
    burns: int = 0  # since the last street
    preset_burn: bool = False  # an extra card became the next burn card (PVB 34, 35(1))
    zone_chips: dict[int, int] = field(default_factory=dict)
    # Betting zones (RULES R2-R9): what each zone holds, the chips the last accounting saw, and
    # the chips in it that are no part of a bet (change not yet given, unswept earlier rounds).
    zone: dict[int, list[int]] = field(default_factory=dict)
    base: dict[int, list[int]] = field(default_factory=dict)
    extra: dict[int, int] = field(default_factory=dict)
    stale: dict[int, int] = field(default_factory=dict)  # earlier rounds' bets not yet swept
    street: int = 0
    doubt: tuple[int, Doubt] | None = None  # waiting for the dealer's confirm or a declare
    announced: dict[int, Announced] = field(default_factory=dict)  # "raise", chips to follow
    held: dict[int, Held] = field(default_factory=dict)  # out of turn, until the turn comes
    pot_zone: int | None = None
    pot_difference: int | None = None
    pot_alerted: set[int] = field(default_factory=set)  # differences told: each one once a hand
    owed: dict[int, int] = field(default_factory=dict)  # a bet's chips still to come (R8)
    # Chips taken out of the betting zones, already told (PVB 36(3)): this round's per seat
    # (repaid if the seat's zone holds its whole bet again), and earlier rounds' (in the pot).
    taken_back: dict[int, int] = field(default_factory=dict)
    taken_back_swept: int = 0
    clock: TimeCall | None = None
    penalized: list[int] = field(default_factory=list)
    irregularities: list[Irregularity] = field(default_factory=list)
    posting_alerts: dict[int, Irregularity] = field(default_factory=dict)
    pending_folds: set[int] = field(default_factory=set)
    awards: dict[int, list[int]] = field(default_factory=dict)
    deal_checked: bool = False
    at_seat_done: bool = False
    showdown_told: bool = False
    face_up_told: bool = False
    order_alerted: bool = False
    settle_at: int | None = None  # index in the hand's events of the event that settled it
    floor_called: bool = False
    draw_from: int | None = None  # PVB 30(6): the seat whose extra card the floor is drawing
    variant: NextVariant | None = None  # CG Spielvarianten: what this hand is dealt as
    burn_cards: list[str] = field(default_factory=list)  # every burn card, in order
    run_one_burns: int | None = None  # run it twice: how many of them were burned for run 1
    reshuffled_used: set[str] = field(default_factory=set)  # run 1's burns dealt in run 2
    stake_alerted: set[int] = field(default_factory=set)  # CG Table Stake: told once a hand
    shot: ShotHand = field(default_factory=ShotHand)  # the shot clock (docs/shot-clock.md)
