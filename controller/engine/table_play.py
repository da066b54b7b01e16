"""A table across hands: seats, the button, blinds and levels, one `Hand` at a time.

`Table.apply(operation)` is the only way in. Operations are pydantic models
(`controller.engine.operations`); the table is a pure function of the operations applied to it,
so replaying its ``log`` into a fresh table rebuilds the same state (crash recovery and undo rely
on this). Where the button and the blinds go and who is dealt in is
`controller.engine.positions`; this module holds the seats, starts each hand, passes its actions
on and keeps the hand-to-hand bookkeeping (stacks paid, eliminations, records, snapshots).

(Named `table_play`, not `table`: `controller/table/` is the table service on its Pi.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from controller.engine import positions as seating
from controller.engine.cards import parse_card, parse_cards
from controller.engine.hand import VARIANT_NAMES, Hand, Stage
from controller.engine.hand_setup import HandSetup, PlayerSetup
from controller.engine.operations import (
    MAX_SEATS,
    OPERATION,
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    DrawForButton,
    DrawHoleCard,
    Fold,
    KillHand,
    Leave,
    Level,
    MoveButton,
    Muck,
    Operation,
    PostBigBlind,
    RunTwice,
    SetLevel,
    SetStack,
    Settle,
    Show,
    SitDown,
    StartHand,
    Straddle,
    VoidHand,
)
from controller.engine.positions import Positions
from controller.engine.profiles import RuleProfile, load_profile
from controller.engine.records import Blinds, HandRecord, Irregularity, Status, build_record
from controller.engine.straddles import (
    RULE as STRADDLE_RULE,
)
from controller.engine.straddles import (
    Decision,
    Posted,
    StraddleKind,
    StraddleRefused,
    decide,
)
from controller.errors import ConfigError, HandStateError, RuleViolation

__all__ = [  # the operations and positions live in their modules; importers find them here too
    "MAX_SEATS", "OPERATION", "BetOrRaise", "Call", "Check", "DealBoard", "DealHole",
    "DrawForButton", "DrawHoleCard", "Fold", "KillHand", "Leave", "Level", "MoveButton", "Muck",
    "Operation", "Positions", "PostBigBlind", "RunTwice", "SeatState", "SetLevel", "SetStack",
    "Settle", "Show", "SitDown", "StartHand", "Straddle", "Table", "TableSnapshot", "VoidHand",
    "rebuild",
]


class SeatState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str
    stack: int
    # Sat down since the last hand began: for the next hand alone he is a newcomer (B4, PVB
    # 27(1)); one hand later he is a player of the table, dealt in or not (APSA 3.1.2.5).
    new: bool = True
    # CG Blinds: he changed seats two or more occupied seats clockwise away from the button and
    # posts a live big blind in his first hand dealt in here (`PostBigBlind`)
    posts: bool = Field(default=False, exclude_if=lambda v: not v)


class TableSnapshot(BaseModel):
    """Everything a table carries from one hand to the next."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seats: dict[int, SeatState]
    positions: Positions | None
    redeal_positions: Positions | None
    draw_winner: int | None
    forced_button: int | None
    hand_number: int
    level: Level
    pending_level: Level | None
    eliminated: list[tuple[int, str]]
    blinds_positions: Positions | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="Where the next hand's blinds move on from, when not the last hand's: the "
        "last hand before a bomb pot or a flip (CG Spielvarianten: they post no blinds)")



class Table:
    """Seats and button across hands; the current `Hand`; the records of finished hands."""

    def __init__(
        self, *, table_id: str = "1", profile: RuleProfile | None = None,
        level: Level | None = None, seats: int = MAX_SEATS,
        straddles: Sequence[StraddleKind] = (),
    ) -> None:
        self.table_id = table_id
        self.profile = profile or load_profile()
        unknown = [k for k in straddles if k not in self.profile.straddles]
        if unknown:
            raise ConfigError(f"straddles {', '.join(unknown)}: the rule profile "
                              f"{self.profile.name} has no such straddle (CG Straddle)")
        self.straddles: tuple[StraddleKind, ...] = tuple(straddles)  # the table opened with
        self.hand_straddles: list[Posted] = []  # posted in the hand in play (or the last)
        self.seat_count = seats
        self.level = level or Level(sb=50, bb=100)
        self.pending_level: Level | None = None
        self.seats: dict[int, SeatState] = {}
        self.positions: Positions | None = None  # of the current or last hand
        # of the last hand that posted blinds: B2 moves on from it (a bomb pot or a flip
        # posts none, CG Spielvarianten)
        self.blinds_positions: Positions | None = None
        self._redeal_positions: Positions | None = None  # after a void hand
        self.draw_winner: int | None = None
        self.forced_button: int | None = None  # set by the floor (PVB 29(2))
        self.hand: Hand | None = None
        self.hand_number = 0
        self.hand_level = self.level
        self.records: list[HandRecord] = []
        self.eliminated: list[tuple[int, str]] = []  # (hand number, player)
        self.log: list[BaseModel] = []

    # ---------------------------------------------------------------- entry point

    def apply(self, operation: BaseModel | dict[str, object]) -> HandRecord | None:
        """Apply one operation; returns the hand record when it finishes a hand. A refused
        operation raises a `RuleViolation` and changes nothing."""
        op = operation if isinstance(operation, BaseModel) else OPERATION.validate_python(
            operation
        )
        handler = _HANDLERS.get(type(op))
        if handler is None:  # not an operation (a dict was validated into one above)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute "
                                 f"'_op_{getattr(op, 'op', type(op).__name__)}'")
        record = handler(self, op)
        self.log.append(op)
        return record

    # ---------------------------------------------------------------- between hands

    def _between_hands(self, what: str) -> None:
        if self.hand is not None and self.hand.stage is not Stage.OVER:
            raise HandStateError(f"{what} waits until the hand is over", "PVB 14(1)")

    def _op_sit_down(self, op: SitDown) -> None:
        self._between_hands("seating a player")
        if op.seat > self.seat_count:
            raise RuleViolation(f"seat {op.seat} does not exist at this table", "PVB 09")
        if op.seat in self.seats:
            raise RuleViolation(f"seat {op.seat} is taken by {self.seats[op.seat].player}",
                                "PVB 09")
        self.seats[op.seat] = SeatState(player=op.player, stack=op.stack)

    def _op_leave(self, op: Leave) -> None:
        self._between_hands("a player leaving")
        if op.seat not in self.seats:
            raise RuleViolation(f"seat {op.seat} is empty", "PVB 09")
        del self.seats[op.seat]

    def _op_set_stack(self, op: SetStack) -> None:
        self._between_hands("a stack change")
        if op.seat not in self.seats:
            raise RuleViolation(f"seat {op.seat} is empty", "PVB 09")
        self.seats[op.seat].stack = op.stack

    def _op_post_big_blind(self, op: PostBigBlind) -> None:
        self._between_hands("a blind owed")
        if op.seat not in self.seats:
            raise RuleViolation(f"seat {op.seat} is empty", "PVB 09")
        self.seats[op.seat].posts = True

    def _op_set_level(self, op: SetLevel) -> None:
        self.pending_level = op.level  # H2: from the next shuffle, never mid-hand

    def _op_draw_for_button(self, op: DrawForButton) -> None:
        if self.positions is not None:
            raise HandStateError("the button is drawn only before the first hand", "PVB 26b")
        cards = {seat: parse_card(text) for seat, text in op.cards.items()}
        unknown = set(cards) - set(self.seats)
        if unknown or len(set(cards.values())) != len(cards):
            raise RuleViolation("each seated player draws exactly one distinct card", "PVB 26b")
        # Card codes grow with rank, then suit clubs < diamonds < hearts < spades (APSA 5.2).
        self.draw_winner = max(cards, key=lambda seat: cards[seat])


    # ---------------------------------------------------------------- positions (positions.py)

    next_positions = seating.next_positions
    sitting_out = seating.sitting_out

    # ---------------------------------------------------------------- a hand

    def _op_start_hand(self, op: StartHand) -> None:
        self._between_hands("a new hand")
        variant = op.variant
        if variant is not None:
            name = VARIANT_NAMES[variant]
            if not op.amount:
                raise RuleViolation(f"a {name}: every player puts in the agreed amount: how "
                                    "much?", "CG Spielvarianten")
            if self.blinds_positions is None and self._redeal_positions is None:
                # (the CG is silent: a variant hand keeps the button where the next hand has
                # it, which needs a hand before it to move on from)
                raise RuleViolation(f"a {name} is dealt after a regular hand: the button and "
                                    "blinds are laid out by one first", "CG Spielvarianten")
        if self.pending_level is not None:
            self.level = self.pending_level
            self.pending_level = None
        positions = self.next_positions()
        level = self.level
        players = []
        posted: list[int] = []
        for k, seat in enumerate(positions.dealt):
            state = self.seats[seat]
            ante = level.ante + (level.bb_ante if seat == positions.bb else 0)
            blind = level.bb if seat == positions.bb else (
                level.sb if seat == positions.sb and positions.sb_live else 0
            )
            if state.posts and not blind and len(positions.dealt) > 2:
                # CG Blinds: a seat change away from the button: the big blind, live. On a
                # blind's seat, or heads-up (the blinds reach every seat at once), that
                # blind is the one he owes (the CG is silent; common practice).
                blind = level.bb
                posted.append(k)
            if variant is not None:  # CG Spielvarianten: the agreed amount, no blinds
                ante, blind = op.amount, 0
            players.append(PlayerSetup(label=f"seat {seat}", stack=state.stack, ante=ante,
                                       blind=blind))
        unit = level.smallest_chip if self.profile.odd_chip_unit == "smallest-chip" else max(
            1, level.sb
        )
        setup = HandSetup(
            game=self.profile.game, betting=self.profile.betting, players=players,
            min_bet=level.bb, big_blind=level.bb,
            dead_antes=level.ante == 0 and variant is None, odd_chip_unit=unit,
            showdown_fallback=self.profile.showdown_fallback, variant=variant,
            boards=op.boards, run_twice_min_pot=self.profile.run_it_twice_min_pot,
            posted=() if variant is not None else tuple(posted),
        )
        self.hand = Hand(setup)
        self.hand_number += 1
        self.hand_level = level
        self.positions = positions
        self.hand_straddles = []
        if variant is None:
            self.blinds_positions = positions
        elif self._redeal_positions is not None and self.blinds_positions is None:
            self.blinds_positions = self._redeal_positions  # (a void hand dealt again)
        self._redeal_positions = None
        if variant is None:  # a bomb pot keeps the floor's button for the hand after it
            self.forced_button = None
        for state in self.seats.values():  # dealt in or sitting out: newcomers no more
            state.new = False
        self._after_hand_step()

    def _index(self, seat: int) -> int:
        self._current()
        assert self.positions is not None
        if seat not in self.positions.dealt:
            raise RuleViolation(f"seat {seat} is not dealt in this hand", "PVB 30(2)")
        return self.positions.dealt.index(seat)

    def _current(self) -> Hand:
        if self.hand is None or self.hand.stage is Stage.OVER:
            raise HandStateError("no hand is running: press the shuffle button", "PVB 14(3)")
        return self.hand

    def _op_deal_hole(self, op: DealHole) -> HandRecord | None:
        self._current().deal_hole(self._index(op.seat), parse_cards(op.cards))
        return None

    def _op_deal_board(self, op: DealBoard) -> HandRecord | None:
        cards = [c for c in parse_cards(op.cards) if c is not None]
        self._current().deal_board(cards)
        return self._after_hand_step()

    def _op_fold(self, op: Fold) -> HandRecord | None:
        self._current().fold(self._index(op.seat), op.forfeit)
        return self._after_hand_step()

    def _op_check(self, op: Check) -> HandRecord | None:
        self._current().check(self._index(op.seat))
        return self._after_hand_step()

    def _op_call(self, op: Call) -> HandRecord | None:
        self._current().call(self._index(op.seat))
        return self._after_hand_step()

    def _op_bet_or_raise(self, op: BetOrRaise) -> HandRecord | None:
        self._current().bet_or_raise_to(self._index(op.seat), op.to)
        return self._after_hand_step()

    def _op_show(self, op: Show) -> None:
        hand = self._current()
        i = self._index(op.seat)
        cards = parse_cards(op.cards) if op.cards else list(hand.hole[i])
        hand.show(i, cards)

    def _op_muck(self, op: Muck) -> None:
        self._current().muck(self._index(op.seat))

    def _op_settle(self, op: Settle) -> HandRecord | None:
        hand = self._current()
        awards = {k: [self._index(seat) for seat in seats] for k, seats in op.awards.items()}
        hand.settle(awards)
        return self._after_hand_step()

    def _op_draw_hole_card(self, op: DrawHoleCard) -> None:
        (drawn,) = parse_cards(op.drawn)
        self._current().draw_hole_card(self._index(op.seat), parse_cards(op.keeps), drawn)

    def _op_kill_hand(self, op: KillHand) -> HandRecord | None:
        self._current().kill(self._index(op.seat))
        return self._after_hand_step()

    def _op_straddle(self, op: Straddle) -> None:
        """CG Straddle: a blind posted before the cards; the hand is laid out again with it
        (nothing but the forced bets has happened)."""
        hand = self._current()
        assert self.positions is not None
        p = self.positions
        if any(hand.hole) or any(a.kind not in ("ante", "blind") for a in hand.log):
            raise RuleViolation(f"seat {op.seat}: a straddle is posted before the cards, as "
                                "the blinds are", STRADDLE_RULE)
        if hand.variant is not None or self.profile.betting == "split-limit":
            what = "a bomb pot or a flip" if hand.variant else "a split-limit game"
            raise RuleViolation(f"seat {op.seat}: no straddle in {what}", STRADDLE_RULE)
        index = self._index(op.seat)
        setup = hand.setup
        assert isinstance(setup, HandSetup)  # a table's hands are set up validated
        if index in setup.posted:  # (the CG is silent: a blind does not straddle)
            raise RuleViolation(f"seat {op.seat} posts the big blind this hand (CG Blinds: a "
                                "seat change): the blinds do not straddle", STRADDLE_RULE)
        blinds = [s for s in (p.sb if p.sb_live else None, p.bb) if s is not None]
        try:
            decision: Decision = decide(
                allowed=self.straddles, dealt=p.dealt, button=p.button, blinds=blinds,
                big_blind=self.hand_level.bb, posted=self.hand_straddles, seat=op.seat,
                amount=op.amount,
                stack=setup.players[index].stack - setup.players[index].ante)
        except StraddleRefused as exc:
            raise RuleViolation(str(exc), STRADDLE_RULE) from None
        gone = {s.seat for s in decision.replaces}
        players = [
            player.model_copy(update={"blind": op.amount}) if k == index else
            player.model_copy(update={"blind": 0}) if p.dealt[k] in gone else player
            for k, player in enumerate(setup.players)
        ]
        self.hand = Hand(setup.model_copy(update={"players": players}))
        self.hand_straddles = [s for s in self.hand_straddles if s.seat not in gone] + [
            Posted(op.seat, op.amount, decision.kind)]

    def _op_run_twice(self, op: RunTwice) -> None:
        self._current().run_twice(op.pots)

    def _op_move_button(self, op: MoveButton) -> None:
        self._between_hands("moving the button")
        if not seating.in_play(self, op.seat):
            raise RuleViolation(f"seat {op.seat} has no player with chips for the button",
                                "PVB 29(2)")
        # The next hand is laid out as a first hand from this button (RULES B1 with a given seat).
        self.positions = None
        self.blinds_positions = None
        self._redeal_positions = None
        self.draw_winner = None
        self.forced_button = op.seat

    def _op_void_hand(self, op: VoidHand) -> HandRecord:
        hand = self._current()
        assert self.positions is not None
        record = self._record(
            hand, op.status, [Irregularity(rule=op.rule, text=op.reason)] if op.reason else []
        )
        # Every chip goes back (PVB 33); the same button deals again.
        for k, seat in enumerate(self.positions.dealt):
            self.seats[seat].stack = hand.starting_stacks[k]
        record = record.model_copy(update={"finishing_stacks": dict(record.starting_stacks)})
        hand.stage = Stage.OVER
        self._redeal_positions = self.positions
        self.records.append(record)
        return record

    def _after_hand_step(self) -> HandRecord | None:
        """When the hand just ended, pay the stacks, note eliminations and keep the record."""
        hand = self.hand
        if hand is None or hand.stage is not Stage.OVER:
            return None
        assert self.positions is not None
        for k, seat in enumerate(self.positions.dealt):
            self.seats[seat].stack = hand.stacks[k]
            if hand.variant is None:  # the blinds were posted: what a seat change owed too
                self.seats[seat].posts = False
        record = self._record(hand)
        self.records.append(record)
        for seat in self.positions.dealt:
            if self.seats[seat].stack == 0:
                self.eliminated.append((self.hand_number, self.seats[seat].player))
                del self.seats[seat]
        return record

    def _record(
        self, hand: Hand, status: Status = "complete",
        irregularities: list[Irregularity] | None = None,
    ) -> HandRecord:
        assert self.positions is not None
        p = self.positions
        level = self.hand_level
        names = {seat: self.seats[seat].player for seat in p.dealt}
        return build_record(
            hand, table=self.table_id, number=self.hand_number, level=level.level,
            blinds=Blinds(sb=level.sb, bb=level.bb, ante=level.ante, bb_ante=level.bb_ante),
            button=p.button, sb=p.sb if p.sb_live else None, bb=p.bb, seats=list(p.dealt),
            players=names, status=status, irregularities=irregularities,
            seat_count=self.seat_count,
            straddles={s.seat: s.amount for s in self.hand_straddles},
            posts={p.dealt[k]: hand.setup.players[k].blind for k in hand.setup.posted},
            cash=self.profile.cash,
        )

    # ---------------------------------------------------------------- snapshots

    def snapshot(self) -> TableSnapshot:
        """The table between hands, for a journal checkpoint (crash recovery without replaying
        the whole day)."""
        self._between_hands("a snapshot")
        return TableSnapshot(
            seats={seat: state.model_copy() for seat, state in self.seats.items()},
            positions=self.positions, redeal_positions=self._redeal_positions,
            draw_winner=self.draw_winner, forced_button=self.forced_button,
            hand_number=self.hand_number, level=self.level, pending_level=self.pending_level,
            eliminated=list(self.eliminated),
            blinds_positions=None if self.blinds_positions == self.positions else (
                self.blinds_positions),
        )

    @classmethod
    def from_snapshot(
        cls, snapshot: TableSnapshot, *, table_id: str = "1", profile: RuleProfile | None = None,
        seats: int = MAX_SEATS, straddles: Sequence[StraddleKind] = (),
    ) -> Table:
        table = cls(table_id=table_id, profile=profile, level=snapshot.level, seats=seats,
                    straddles=straddles)
        table.seats = {seat: state.model_copy() for seat, state in snapshot.seats.items()}
        table.positions = snapshot.positions
        table.blinds_positions = snapshot.blinds_positions or snapshot.positions
        table._redeal_positions = snapshot.redeal_positions
        table.draw_winner = snapshot.draw_winner
        table.forced_button = snapshot.forced_button
        table.hand_number = snapshot.hand_number
        table.hand_level = snapshot.level
        table.pending_level = snapshot.pending_level
        table.eliminated = list(snapshot.eliminated)
        return table

    # ---------------------------------------------------------------- queries

    def stacks(self) -> dict[int, int]:
        return {seat: state.stack for seat, state in sorted(self.seats.items())}

    def seat_of(self, index: int) -> int:
        assert self.positions is not None
        return self.positions.dealt[index]

    def actor_seat(self) -> int | None:
        hand = self.hand
        if hand is None or hand.actor is None:
            return None
        return self.seat_of(hand.actor)


# Each operation's handler, by its type (every member of `Operation`): made once, not for every
# operation applied (a dict of 22 bound methods each time; issue 37).
_HANDLERS: dict[type[BaseModel], Callable[[Table, Any], HandRecord | None]] = {
    SitDown: Table._op_sit_down, Leave: Table._op_leave, SetStack: Table._op_set_stack,
    PostBigBlind: Table._op_post_big_blind, SetLevel: Table._op_set_level,
    DrawForButton: Table._op_draw_for_button, StartHand: Table._op_start_hand,
    DealHole: Table._op_deal_hole, DealBoard: Table._op_deal_board, Fold: Table._op_fold,
    Check: Table._op_check, Call: Table._op_call, BetOrRaise: Table._op_bet_or_raise,
    Show: Table._op_show, Muck: Table._op_muck, Settle: Table._op_settle,
    DrawHoleCard: Table._op_draw_hole_card, KillHand: Table._op_kill_hand,
    Straddle: Table._op_straddle, RunTwice: Table._op_run_twice,
    MoveButton: Table._op_move_button, VoidHand: Table._op_void_hand,
}


def rebuild(operations: list[BaseModel], **table_args: object) -> Table:
    """A fresh table with ``operations`` applied again: the same state, deterministically."""
    table = Table(**table_args)  # type: ignore[arg-type]
    for op in operations:
        table.apply(op)
    return table
