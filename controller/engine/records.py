"""Hand records (docs/design.md "Hand records"): what a finished hand leaves. Their export to PHH
and tracker text is in controller/history/."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.engine.cards import cards_text
from controller.engine.evaluate import category
from controller.engine.hand import GAME_BETTING, STREET_NAMES, Betting, Hand, PotResult, Variant

Status = Literal["complete", "void", "misdeal"]


class ActionRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    street: str
    seat: int | None
    action: str  # ante blind fold check call bet raise return deal_hole deal_board show muck win
    amount: int = 0
    all_in: bool = False
    cards: str = ""
    board: int | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="deal_board and win on a second board or run: its number (2); absent for "
        "the first")
    time_used: float | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="Shot clock: seconds from the action reaching the player to his chips or "
        "cards showing it; absent without a shot clock (docs/shot-clock.md)")
    extensions_used: int | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="Shot clock: the time extensions he used on it")


class BoardPart(BaseModel):
    """A pot's part played on one board: a double board's, or a run's (CG Spielvarianten,
    Run It Twice)."""

    model_config = ConfigDict(frozen=True)

    board: int = Field(ge=1, description="The board or run, from 1")
    amount: int
    winners: list[int]
    shares: dict[int, int]
    winning_hand: str | None = None


class PotRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    amount: int
    eligible: list[int]
    winners: list[int]
    shares: dict[int, int]
    winning_hand: str | None = Field(default=None, description="e.g. 'two pair'; None unshown")
    boards: list[BoardPart] = Field(
        default_factory=list, exclude_if=lambda v: not v,
        description="A pot played on two boards or run twice: each board's part (the odd chip "
        "to the worse position, CG Run It Twice f); absent for a pot played on one board")


class Blinds(BaseModel):
    model_config = ConfigDict(frozen=True)

    sb: int
    bb: int
    ante: int = 0
    bb_ante: int = 0


class Irregularity(BaseModel):
    """Something the table saw or the floor decided, with the rule that applies."""

    model_config = ConfigDict(frozen=True)

    rule: str = Field(description="Rule tag, e.g. 'PVB 30(2)(f)'")
    text: str = Field(description="What happened, in the floor's words")
    seat: int | None = None
    by: str | None = Field(default=None, description="Who decided, for floor decisions")


class HandRecord(BaseModel):
    """One finished hand: sealed at the next shuffle (RULES H3). ``button``, ``sb`` and ``bb``
    are seats (``sb`` None: dead small blind); the amounts are in ``blinds``."""

    model_config = ConfigDict(frozen=True)

    table: str
    hand: int
    game: Literal["NT", "PO"]
    betting: Betting | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="CG Limits: the betting kind where it is not the game's own (NT no-limit, "
        "PO pot-limit): split-limit for fixed-limit hold'em or Omaha; absent otherwise")
    level: int
    blinds: Blinds
    button: int
    sb: int | None
    bb: int
    started: float | None = Field(default=None, description="ts of the shuffle press")
    players: dict[int, str]
    starting_stacks: dict[int, int]
    hole_cards: dict[int, str]
    board: str
    actions: list[ActionRecord]
    pots: list[PotRecord]
    finishing_stacks: dict[int, int]
    irregularities: list[Irregularity] = Field(default_factory=list)
    status: Status = "complete"
    # (absent when 1: a record split in single chips reads as it did before the unit was kept,
    # the stored records and their tests byte for byte)
    odd_chip_unit: int = Field(default=1, gt=0, exclude_if=lambda v: v == 1,
                               description="The chip split pots were shared in (RULES S2); "
                               "absent for single chips, as in records from before it was kept")
    hand_for_hand_round: int | None = Field(
        default=None, ge=1, exclude_if=lambda v: v is None,
        description="The clock's hand-for-hand round the hand was dealt in; absent outside "
        "hand-for-hand. Every hand of one round counts as one hand for placing (PVB 64b(3))")
    seat_count: int | None = Field(
        default=None, ge=2, le=10, exclude_if=lambda v: v is None,
        description="The seats the table has (its size, not the players dealt in); absent in "
        "records from before it was kept")
    straddles: dict[int, int] = Field(
        default_factory=dict, exclude_if=lambda v: not v,
        description="CG Straddle: seat -> straddle posted (blinds: in the actions as 'blind'); "
        "absent without straddles")
    posts: dict[int, int] = Field(
        default_factory=dict, exclude_if=lambda v: not v,
        description="CG Blinds: seat -> a live big blind posted out of position (a seat change "
        "two or more seats away from the button; in the actions as 'blind'); absent without")
    variant: Variant | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="CG Spielvarianten: bomb-pot or flip (every player's agreed amount is his "
        "'ante' in the actions; no blinds); absent for a regular hand")
    boards: list[str] = Field(
        default_factory=list, exclude_if=lambda v: not v,
        description="Every board when there are more than one: a double board's two (CG "
        "Spielvarianten), or both runs of run it twice (CG Run It Twice; ``board`` is the "
        "first); absent for one board")
    double_board: bool = Field(default=False, exclude_if=lambda v: not v,
                               description="CG Spielvarianten: two boards from the start")
    cash: bool = Field(
        default=False, exclude_if=lambda v: not v,
        description="A cash game's hand (the table's rule profile is a cash game's, CG): kept "
        "apart from tournaments' (`pokertable hands --game`), exported in the formats' cash "
        "form; absent for a tournament's")
    run_twice: list[int] = Field(
        default_factory=list, exclude_if=lambda v: not v,
        description="CG Run It Twice: the pots (from 1) run twice; absent when none was")

    def tabled(self) -> set[int]:
        """Seats whose cards were shown: the only hole cards that are ever public (PVB 56)."""
        return {a.seat for a in self.actions if a.action == "show" and a.seat is not None}

    def public(self) -> HandRecord:
        """The record without a single hole card that was not tabled (docs/design.md "Secrets")."""
        shown = self.tabled()
        actions = [
            a.model_copy(update={"cards": ""})
            if a.action == "deal_hole" and a.seat not in shown else a
            for a in self.actions
        ]
        return self.model_copy(update={
            "hole_cards": {s: c for s, c in self.hole_cards.items() if s in shown},
            "actions": actions,
        })


def build_record(
    hand: Hand,
    *,
    table: str,
    number: int,
    level: int,
    blinds: Blinds,
    button: int,
    sb: int | None,
    bb: int,
    seats: list[int],
    players: dict[int, str],
    status: Status = "complete",
    irregularities: list[Irregularity] | None = None,
    seat_count: int | None = None,
    straddles: dict[int, int] | None = None,
    cash: bool = False,
    posts: dict[int, int] | None = None,
) -> HandRecord:
    """The record of ``hand``, whose player ``k`` sits in ``seats[k]``; ``seat_count`` is the
    table's size; ``straddles`` seat -> the straddle posted (CG Straddle); ``posts`` seat -> a
    big blind posted out of position (CG Blinds); ``cash``: a cash game's hand."""
    actions = [
        ActionRecord(
            street=STREET_NAMES[a.street],
            seat=None if a.player is None else seats[a.player],
            action=a.kind,
            amount=a.amount,
            all_in=a.all_in,
            cards=cards_text(a.cards),
            board=a.board + 1 if a.board else None,
        )
        for a in hand.log
    ]
    pots = [_pot(r, seats) for r in hand.results]
    boards = hand.boards
    return HandRecord(
        table=table, hand=number, game=hand.game, level=level, blinds=blinds, button=button,
        betting=None if hand.betting == GAME_BETTING[hand.game] else hand.betting,
        sb=sb, bb=bb,
        players={s: players[s] for s in seats},
        starting_stacks={s: hand.starting_stacks[k] for k, s in enumerate(seats)},
        hole_cards={s: cards_text(hand.hole[k]) for k, s in enumerate(seats) if hand.hole[k]},
        board=cards_text(hand.board),
        actions=actions,
        pots=pots,
        finishing_stacks={s: hand.stacks[k] for k, s in enumerate(seats)},
        irregularities=irregularities or [],
        status=status,
        odd_chip_unit=hand.setup.odd_chip_unit,
        seat_count=seat_count,
        straddles=straddles or {},
        posts=posts or {},
        variant=hand.variant,
        boards=[cards_text(b) for b in boards.cards] if len(boards.cards) > 1 else [],
        double_board=boards.starting > 1,
        run_twice=sorted(k + 1 for k in boards.pot_runs),
        cash=cash,
    )


def _pot(r: PotResult, seats: list[int]) -> PotRecord:
    return PotRecord(
        amount=r.amount,
        eligible=[seats[i] for i in r.eligible],
        winners=[seats[i] for i in r.winners],
        shares={seats[i]: chips for i, chips in r.shares},
        winning_hand=None if r.strength is None else category(r.strength),
        boards=[BoardPart(board=part.board + 1, amount=part.amount,
                          winners=[seats[i] for i in part.winners],
                          shares={seats[i]: chips for i, chips in part.shares},
                          winning_hand=None if part.strength is None else category(part.strength))
                for part in r.parts],
    )
