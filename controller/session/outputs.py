"""What a table publishes: public events, the public table state, sealed hand records.

These models are the boundary between the table service and whatever carries its output (the local
files, the MQTT link). Nothing here ever holds a hole card that was not tabled, except
`HandRecord` itself, which only the recorder sink receives (docs/design.md "Secrets").
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.hand import VARIANT_NAMES, Betting, Game, Variant
from controller.engine.records import Blinds, HandRecord, PotRecord
from controller.session.colour_up import ColourUp

EventKind = Literal[
    "hand_started", "action", "street", "show", "muck", "showdown", "payout", "hand_over",
    "alert", "refused", "decision", "level", "seat", "hold", "device", "wait", "clock",
    "elimination",
]


class PublicEvent(BaseModel):
    """One thing that happened at the table, told in the floor's words."""

    model_config = ConfigDict(frozen=True)

    kind: EventKind
    text: str
    hand: int = Field(description="Hand number (0 before the first hand)")
    seat: int | None = None
    rule: str | None = Field(default=None, description="Rule tag, e.g. 'PVB 30(2)(f)'")
    data: dict[str, Any] = Field(default_factory=dict)
    id: str | None = Field(default=None, description="Durable events only (DURABLE_KINDS): "
                           "table:hand:start:journal-seq.n, the same after a restart")


# Irregularities, floor decisions and eliminations must reach the floor even through a broker
# outage or a restart: the outputs keep them durably (the MQTT outbox).
DURABLE_KINDS = frozenset({"alert", "decision", "elimination"})


def hand_id(table: str, hand: int, started: float | None) -> str:
    """The idempotent id of a hand: table, hand number, start of the hand (ms)."""
    start = round(started * 1000) if started is not None else 0
    return f"{table}:{hand}:{start}"


class SeatView(BaseModel):
    model_config = ConfigDict(frozen=True)

    player: str
    stack: int
    bet: int = 0
    in_hand: bool = False
    folded: bool = False
    all_in: bool = False
    cards: int = Field(default=0, description="How many hole cards were read; never which")
    shown: str | None = Field(default=None, description="Tabled cards, the only public ones")
    absent: bool = False
    zone: int = Field(default=0, description="Chips the betting zone reads (face value)")
    penalty: int = Field(default=0, description="Penalty hands still to serve (PVB 69(12))")
    counted: bool | None = Field(default=None, exclude_if=lambda v: v is None,
                                 description="A player who sat down: whether his chips were "
                                 "read at this seat (between hands, on its zone); absent for "
                                 "those who sat before tables counted")
    sits_out: str | None = Field(default=None, exclude_if=lambda v: v is None,
                                 description="A newcomer dealt out of the hand in play: the "
                                 "rule, 'PVB 10(1)' (between the button and the small blind) "
                                 "or 'PVB 33' (a void hand dealt again to its seats); absent "
                                 "otherwise")


class NextVariant(BaseModel):
    """A variant the floor or the dealer asked for the next hand (CG Spielvarianten)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    variant: Variant | None = Field(default=None, description="bomb-pot or flip; None: a "
                                    "regular hand (on two boards)")
    amount: int = Field(default=0, ge=0, description="What every player puts in")
    boards: int = Field(default=1, ge=1, le=2, description="2: a double board")
    by: str = "floor"

    def words(self) -> str:
        """'a bomb pot of 500 on two boards', 'a double board'."""
        if self.variant is None:
            return "a double board"
        two = " on two boards" if self.boards > 1 else ""
        return f"a {VARIANT_NAMES[self.variant]} of {self.amount:,}{two}"


class ClockView(BaseModel):
    """A time call running on a seat (RULES C1, C2)."""

    model_config = ConfigDict(frozen=True)

    seat: int
    seconds: int = Field(description="The length of the call: 60 (PVB 21(4)) or 5 (PVB 56(4))")
    remaining: int | None = Field(description="Whole seconds left; None until the clock runs")
    rule: str


class ShotClockView(BaseModel):
    """The table's shot clock (docs/shot-clock.md): a display counts the seat's time down
    itself, ``remaining`` seconds at ``since`` (the table's time), while ``running``."""

    model_config = ConfigDict(frozen=True)

    seat: int | None = Field(default=None, description="The seat whose clock runs; None: none")
    started: float | None = Field(default=None, description="When the action reached him")
    since: float | None = Field(default=None, description="The instant ``remaining`` is for")
    remaining: float = Field(default=0, description="Seconds left at ``since``")
    running: bool = Field(default=False, description="Counting down; False while his chips "
                          "or words show his action (the dealer confirms it) or once out")
    extension: bool = Field(default=False, description="Counting down a time extension")
    extensions_used: int = Field(default=0, description="Extensions used in this turn")
    out: bool = Field(default=False, description="His time and extensions are gone: the "
                      "floor rules (PVB 21); nothing was folded")
    seconds: int = Field(description="A player's time for each action")
    extension_seconds: int
    extensions: dict[int, int] = Field(default_factory=dict, description="Seat -> time "
                                       "extensions its player has left")


class PotView(BaseModel):
    model_config = ConfigDict(frozen=True)

    amount: int
    eligible: list[int]


class TableState(BaseModel):
    """The public state of a table: what a floor display shows. Retained by receivers."""

    model_config = ConfigDict(frozen=True)

    table: str
    hand: int
    stage: Literal["waiting", "betting", "dealing", "showdown", "over"]
    street: str | None = None
    level: int
    blinds: Blinds
    pending_level: int | None = None
    button: int | None = None
    sb: int | None = None
    bb: int | None = None
    seats: dict[int, SeatView]
    seat_count: int = Field(default=10, ge=1, description="How many seats the table has "
                            "(taken or free)")
    board: str = ""
    pots: list[PotView] = Field(default_factory=list)
    actor: int | None = None
    to_call: int | None = None
    min_raise_to: int | None = None
    max_raise_to: int | None = None
    showdown_order: list[int] = Field(default_factory=list)
    waiting_for: str = Field(description="What the table waits for, in words")
    hold: str | None = Field(default=None, description="Why the next shuffle waits: every "
                             "hold's reason, the break's first")
    holds: dict[str, str] = Field(default_factory=dict, description="Each hold by its source "
                                  "(break, floor, hand_for_hand) with its reason")
    released_round: int | None = Field(default=None, description="Hand-for-hand: released for "
                                       "one hand of this round, not yet begun")
    played_round: int | None = Field(default=None, description="Hand-for-hand: the round of the "
                                     "hand in play, or of the last one played")
    round: int | None = Field(default=None, description="Hand-for-hand: the clock's round of "
                              "the hand in play, or of the one released next (RULES T2)")
    alerts: list[str] = Field(default_factory=list, description="Open irregularities this hand")
    floor_called: bool = False
    clock: ClockView | None = None
    shot_clock: ShotClockView | None = Field(default=None, exclude_if=lambda v: v is None,
                                             description="The table's shot clock; absent "
                                             "where the table has none")
    pot_zone: int | None = Field(default=None, description="Chips the pot zone reads")
    devices: dict[str, str] = Field(default_factory=dict)
    # (both absent until the tournament or the floor changes a stack: a state reads as before)
    colour_up: ColourUp | None = Field(default=None, exclude_if=lambda v: v is None,
                                       description="The last colour-up (RULES T5): the stacks "
                                       "before it, the seats with leftover chips and the race "
                                       "(open until the next hand)")
    stack_refs: list[str] = Field(default_factory=list, exclude_if=lambda v: not v,
                                  description="The refs of the latest stack changes and "
                                  "colour-ups made: a requester sees its change was made")
    # The cash game (CG): each absent where it does not apply, so a tournament's state reads
    # as before.
    straddle_kinds: list[str] = Field(default_factory=list, exclude_if=lambda v: not v,
                                      description="CG Straddle: the straddles the table opened "
                                      "with (a new player is told)")
    straddles: dict[int, int] = Field(default_factory=dict, exclude_if=lambda v: not v,
                                      description="CG Straddle: seat -> straddle posted in the "
                                      "hand in play")
    variant: NextVariant | None = Field(default=None, exclude_if=lambda v: v is None,
                                        description="CG Spielvarianten: what the hand in play "
                                        "is dealt as (a bomb pot, a flip, a double board)")
    next_variant: NextVariant | None = Field(default=None, exclude_if=lambda v: v is None,
                                             description="CG Spielvarianten: what the next "
                                             "hand is dealt as, asked by the floor or dealer")
    boards: list[str] = Field(default_factory=list, exclude_if=lambda v: not v,
                              description="Every board of the hand in play when there are "
                              "more than one (a double board, run it twice); ``board`` is the "
                              "first")
    game: Game | None = Field(default=None, exclude_if=lambda v: v is None,
                              description="A cash table's game: NT hold'em, PO Omaha")
    betting: Betting | None = Field(default=None, exclude_if=lambda v: v is None,
                                    description="CG Limits: a cash table's kind of limit "
                                    "(no-limit, pot-limit, split-limit)")
    run_twice: list[int] = Field(default_factory=list, exclude_if=lambda v: not v,
                                 description="CG Run It Twice: the pots (1: the main pot) "
                                 "run twice in the hand in play or the last one; the others "
                                 "are played on run 1 alone")
    results: list[PotRecord] = Field(default_factory=list, exclude_if=lambda v: not v,
                                     description="A cash table's hand just settled, until the "
                                     "next shuffle: each pot's winners and shares, board by "
                                     "board where it was played on two; never a card")


class Leds(BaseModel):
    """The dealer panel's LEDs, derived from the state."""

    model_config = ConfigDict(frozen=True)

    hand_for_hand: bool = False
    clock: bool = False
    irregularity: bool = False
    shot_clock: Literal["off", "running", "extension", "out"] = Field(
        default="off", description="The shot clock on the seat to act (docs/shot-clock.md)")


class Sink(Protocol):
    """Where a table's output goes. Called from the service loop only, in order."""

    def state(self, state: TableState) -> None: ...

    def event(self, event: PublicEvent) -> None: ...

    def record(self, record: HandRecord) -> None:
        """A sealed hand record, full (all hole cards): for the recorder only."""
        ...

    def recovered(self, events: list[PublicEvent]) -> None:
        """Durable events a restart found in the journal after the last snapshot: the sink
        may not have taken them before the crash (their ids say whether it did)."""
        ...
