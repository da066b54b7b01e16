"""What can happen at a table, as operations (`Table.apply` takes them; a table session makes
them from its events): seating and stacks between hands, a level announced, the draw for the
button, the shuffle press, each action and card of a hand, and the floor's decisions. Pydantic
models, each named by its ``op``, so that a table's log is plain data a journal keeps and
`rebuild` replays; and the blinds of a level (`Level`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from controller.engine.terms import Variant

MAX_SEATS = 10


class Level(BaseModel):
    """Blinds of one level. ``ante`` is paid by every player; ``bb_ante`` by the big blind alone
    for the whole table (dead money in the main pot)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    level: int = Field(default=1, ge=1)
    sb: int = Field(ge=0)
    bb: int = Field(gt=0)
    ante: int = Field(default=0, ge=0)
    bb_ante: int = Field(default=0, ge=0)
    smallest_chip: int = Field(default=1, gt=0, description="Smallest chip in play (PVB 62)")


class _Op(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SitDown(_Op):
    op: Literal["sit_down"] = "sit_down"
    seat: int = Field(ge=1, le=MAX_SEATS)
    player: str = Field(min_length=1)
    stack: int = Field(gt=0)


class Leave(_Op):
    op: Literal["leave"] = "leave"
    seat: int = Field(ge=1, le=MAX_SEATS)


class SetStack(_Op):
    """A seat's stack changed between hands by the tournament or the floor: chips bought (an
    add-on, a rebuy), a colour-up (RULES T5), a count. Never during a hand (CG "Table Stake":
    the stake grows between hands, never during one)."""

    op: Literal["set_stack"] = "set_stack"
    seat: int = Field(ge=1, le=MAX_SEATS)
    stack: int = Field(gt=0, description="Nobody leaves a tournament by a count (PVB 15b(2))")


class SetLevel(_Op):
    """The clock announced a level: it applies from the next hand (RULES H2)."""

    op: Literal["set_level"] = "set_level"
    level: Level


class DrawForButton(_Op):
    """High-card draw for the first button (RULES B1, PVB 26b): one card per seat."""

    op: Literal["draw_for_button"] = "draw_for_button"
    cards: dict[int, str]


class StartHand(_Op):
    """The shuffle press: seal the last hand, post blinds and antes (RULES H1, H3, H4). A
    variant (CG Spielvarianten): a bomb pot or a flip, where every player puts in ``amount``
    and no blinds are posted; ``boards`` 2 for a double board."""

    op: Literal["start_hand"] = "start_hand"
    variant: Variant | None = None
    amount: int = Field(default=0, ge=0, description="A bomb pot's or flip's agreed amount")
    boards: int = Field(default=1, ge=1, le=2)


class Straddle(_Op):
    """A straddle posted before the cards (CG Straddle): a blind of ``amount``."""

    op: Literal["straddle"] = "straddle"
    seat: int = Field(ge=1, le=MAX_SEATS)
    amount: int = Field(gt=0)


class PostBigBlind(_Op):
    """CG Blinds: the player on ``seat`` changed seats two or more occupied seats clockwise
    away from the button, so he posts a live big blind in his first hand dealt in at the new
    seat, wherever the blinds are (the action starts where it would without it). Between
    hands."""

    op: Literal["post_big_blind"] = "post_big_blind"
    seat: int = Field(ge=1, le=MAX_SEATS)


class RunTwice(_Op):
    """Every player in these pots agreed to run the rest of the board twice (CG Run It
    Twice); ``pots`` are indices from 0 (the main pot)."""

    op: Literal["run_twice"] = "run_twice"
    pots: list[int] = Field(min_length=1)


class DealHole(_Op):
    op: Literal["deal_hole"] = "deal_hole"
    seat: int
    cards: str


class DealBoard(_Op):
    op: Literal["deal_board"] = "deal_board"
    cards: str


class Fold(_Op):
    op: Literal["fold"] = "fold"
    seat: int
    forfeit: int = Field(default=0, ge=0, description="Short-call chips left in the pot (R8)")


class Check(_Op):
    op: Literal["check"] = "check"
    seat: int


class Call(_Op):
    op: Literal["call"] = "call"
    seat: int


class BetOrRaise(_Op):
    op: Literal["bet_or_raise"] = "bet_or_raise"
    seat: int
    to: int = Field(gt=0, description="Total of the bet or raise this round")


class Show(_Op):
    op: Literal["show"] = "show"
    seat: int
    cards: str | None = None


class Muck(_Op):
    op: Literal["muck"] = "muck"
    seat: int


class Settle(_Op):
    """Showdown is over: award the pots. ``awards``: the floor's decisions, pot index (from 0)
    -> winning seats, replacing the evaluation of those pots."""

    op: Literal["settle"] = "settle"
    awards: dict[int, list[int]] = Field(default_factory=dict)


class KillHand(_Op):
    """A dead hand by a floor decision or a binding fold out of turn (PVB 37(5), 23(1))."""

    op: Literal["kill_hand"] = "kill_hand"
    seat: int


class VoidHand(_Op):
    """Void the hand (misdeal, fouled deck): every chip goes back, the button stays (PVB 30, 33)."""

    op: Literal["void_hand"] = "void_hand"
    reason: str = ""
    rule: str = "PVB 33"
    status: Literal["void", "misdeal"] = "void"


class DrawHoleCard(_Op):
    """PVB 30(6): a player was dealt one card too many and it was noticed after substantial
    action: the floor drew ``drawn`` from his cards, which becomes the next burn card; he plays
    with ``keeps``."""

    op: Literal["draw_hole_card"] = "draw_hole_card"
    seat: int = Field(ge=1, le=MAX_SEATS)
    keeps: str
    drawn: str


class MoveButton(_Op):
    """Put the button on ``seat`` for the next hand, blinds following it (PVB 29(2))."""

    op: Literal["move_button"] = "move_button"
    seat: int = Field(ge=1, le=MAX_SEATS)


Operation = Annotated[
    SitDown | Leave | SetStack | SetLevel | DrawForButton | StartHand | DealHole | DealBoard
    | Fold | Check | Call | BetOrRaise | Show | Muck | Settle | KillHand | VoidHand | MoveButton
    | DrawHoleCard | Straddle | RunTwice | PostBigBlind,
    Field(discriminator="op"),
]
OPERATION = TypeAdapter(Operation)
