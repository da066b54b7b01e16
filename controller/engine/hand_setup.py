"""The hand's vocabulary: games and betting kinds, streets and stages, the set-up of a hand, its
log entries and the options of the player to act. `controller.engine.hand` re-exports all of it.

Betting kinds (CG "Limits": "Vor Spielbeginn wird die Art des Limits festgelegt: Split Limit /
Pot Limit / No Limit"): the game code names the cards (NT hold'em, two hole cards; PO Omaha,
four) and the betting its name says (no-limit, pot-limit); ``betting`` sets another kind.
Split limit (fixed limit) bets the small bet before and on the flop and the big bet on the turn
and river (APSA 5.2: the small bet is the big blind, the big bet twice that), a bet and at most
three raises a round, uncapped once only two players are left before the third raise
(CG "Raise").

Hand variants (CG "Spielvarianten"): in a bomb pot every player puts in the agreed amount and the
flop comes without a betting round, the hand going on normally after it; in a flip the whole
board comes without any betting; a double board deals two boards and shares each pot between
them. Straddles (CG "Straddle") are blinds: the preflop order and the minimum raise follow the
largest one (`controller.engine.straddles` says who may post one).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

Game = Literal["NT", "PO"]
HOLE_CARDS: dict[str, int] = {"NT": 2, "PO": 4}

Betting = Literal["no-limit", "pot-limit", "split-limit"]
GAME_BETTING: dict[str, Betting] = {"NT": "no-limit", "PO": "pot-limit"}
SPLIT_LIMIT_RAISES = 3  # CG "Raise": "pro Setzrunde drei Erhöhungen"

# CG "Spielvarianten": a bomb pot skips the preflop betting, a flip every betting round.
Variant = Literal["bomb-pot", "flip"]
VARIANT_NAMES: dict[str, str] = {"bomb-pot": "bomb pot", "flip": "flip"}


def betting_of(game: str, betting: Betting | None) -> Betting:
    """The betting kind a hand is dealt with: ``betting`` when set, else the game's own."""
    return betting if betting is not None else GAME_BETTING[game]


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3


BOARD_CARDS = {Street.FLOP: 3, Street.TURN: 1, Street.RIVER: 1}
STREET_NAMES = {Street.PREFLOP: "preflop", Street.FLOP: "flop", Street.TURN: "turn",
                Street.RIVER: "river"}


class Stage(Enum):
    BETTING = "betting"  # a player is to act
    DEALING = "dealing"  # the betting round is over; the next street's cards are due
    SHOWDOWN = "showdown"  # board complete, betting over: cards are shown, then `settle`
    OVER = "over"  # every pot has been awarded


class PlayerSetup(BaseModel):
    """One player dealt into the hand, with the forced bets he owes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(description="How the dealer names him: 'seat 3', or 'p2' in a PHH file")
    stack: int = Field(gt=0, description="Chips before the forced bets")
    ante: int = Field(default=0, ge=0)
    blind: int = Field(default=0, ge=0, description="Small blind, big blind or straddle owed")


class HandSetup(BaseModel):
    """Everything a hand needs before the first card: players in action order and the stakes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Game = "NT"
    betting: Betting | None = Field(
        default=None,
        description="CG Limits: no-limit, pot-limit or split-limit; None: the game's own "
        "(NT no-limit, PO pot-limit)",
    )
    players: list[PlayerSetup] = Field(min_length=2, max_length=10)
    min_bet: int = Field(gt=0, description="The big blind: the smallest bet (PVB 42(2)); in "
                         "split limit the small bet, preflop and on the flop (APSA 5.2)")
    big_bet: int | None = Field(
        default=None, gt=0,
        description="Split limit only: the bet on the turn and river; twice min_bet when "
        "unset (APSA 5.2)",
    )
    big_blind: int | None = Field(
        default=None, ge=0,
        description="The bet everyone must match preflop even when the big blind is short "
        "(RULES R4); defaults to the largest blind owed",
    )
    dead_antes: bool = Field(
        default=True,
        description="Antes are dead money in the main pot (big-blind ante). If false, each ante "
        "counts as that player's contribution, so a player all-in on his ante only wins his "
        "share (S1). A lone ante is always dead money.",
    )
    odd_chip_unit: int = Field(default=1, gt=0, description="Smallest chip in play (PVB 62)")
    showdown_fallback: Literal["left-of-button", "last-aggressor"] = "left-of-button"
    variant: Variant | None = Field(
        default=None,
        description="CG Spielvarianten: bomb-pot (the flop comes without preflop betting) or "
        "flip (the whole board without betting); each player's agreed amount is his ante, "
        "his own contribution (dead_antes false)",
    )
    boards: int = Field(default=1, ge=1, le=2, description="CG Spielvarianten: 2 for a double "
                        "board, each pot shared equally between the boards")
    run_twice_min_pot: int | None = Field(
        default=None, ge=0,
        description="CG Run It Twice c: the smallest pot that may be run twice; None: the "
        "table does not run it twice",
    )

    @model_validator(mode="after")
    def _consistent(self) -> HandSetup:
        labels = [p.label for p in self.players]
        if len(set(labels)) != len(labels):
            raise ValueError("player labels must be unique")
        if self.big_bet is not None and self.kind != "split-limit":
            raise ValueError("big_bet is for split limit only (CG Limits)")
        if self.variant is not None and (any(p.blind for p in self.players)
                                         or self.dead_antes):
            raise ValueError("a bomb pot or a flip has no blinds: every player's agreed amount "
                             "is his own ante (CG Spielvarianten)")
        return self

    @property
    def kind(self) -> Betting:
        """The betting kind this hand is dealt with (CG Limits)."""
        return betting_of(self.game, self.betting)

    def limit_bet(self, street: Street) -> int:
        """Split limit: the one size of a bet or raise on ``street`` (CG Limits, APSA 5.2)."""
        if street <= Street.FLOP:
            return self.min_bet
        return self.big_bet if self.big_bet is not None else 2 * self.min_bet


class Act(NamedTuple):
    """One entry of the hand's log. ``amount``: chips put in, or the total for bet/raise."""

    street: Street
    player: int | None  # None for the dealer's own operations (board cards)
    # ante blind fold check call bet raise return deal_hole deal_board show muck win runs
    kind: str
    amount: int = 0
    cards: tuple[int | None, ...] = ()
    all_in: bool = False
    board: int = 0  # deal_board and win: the board (or run) it is of, from 0


@dataclass(frozen=True, slots=True)
class Options:
    """What the player to act may do: the dealer console and simulated players read this. In
    split limit ``min_raise_to`` and ``max_raise_to`` are the same: the one legal size."""

    player: int
    to_call: int  # 0: he may check
    min_raise_to: int | None  # None: he may not bet or raise
    max_raise_to: int | None


@dataclass(frozen=True, slots=True)
class BoardShare:
    """A pot's part played on one board (a double board, or a run of run it twice)."""

    board: int  # from 0
    amount: int
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips)
    strength: int | None


@dataclass(frozen=True, slots=True)
class PotResult:
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips)
    strength: int | None  # of the winning hand, None when uncontested
    parts: tuple[BoardShare, ...] = ()  # by board, when the pot was played on more than one
