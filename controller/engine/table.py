"""A table across hands: seats, the button, blinds and levels, one `Hand` at a time.

`Table.apply(operation)` is the only way in. Operations are pydantic models; the table is a pure
function of the operations applied to it, so replaying its ``log`` into a fresh table rebuilds the
same state (crash recovery and undo rely on this).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from controller.engine.cards import parse_card, parse_cards
from controller.engine.hand import VARIANT_NAMES, Hand, Stage, Variant
from controller.engine.hand_setup import HandSetup, PlayerSetup
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
    | DrawHoleCard | Straddle | RunTwice,
    Field(discriminator="op"),
]
OPERATION = TypeAdapter(Operation)


class Positions(BaseModel):
    model_config = ConfigDict(frozen=True)

    button: int  # a seat; an empty one is a dead button
    sb: int  # the small blind's position; dead when ``sb_live`` is false
    sb_live: bool
    bb: int
    dealt: tuple[int, ...]  # seats dealt in, in action order from left of the button


class SeatState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str
    stack: int
    # Sat down since the last hand began: for the next hand alone he is a newcomer (B4, PVB
    # 27(1)); one hand later he is a player of the table, dealt in or not (APSA 3.1.2.5).
    new: bool = True


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
        handler = getattr(self, f"_op_{op.op}")  # type: ignore[attr-defined]
        record: HandRecord | None = handler(op)
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

    # ---------------------------------------------------------------- positions

    def _clockwise(self, after: int) -> list[int]:
        """Seat numbers clockwise, starting with the seat after ``after``."""
        n = self.seat_count
        return [(after + k - 1) % n + 1 for k in range(1, n + 1)]

    def _in_play(self, seat: int) -> bool:
        state = self.seats.get(seat)
        return state is not None and state.stack > 0

    def _settled(self, seat: int) -> bool:
        """A player with chips who was at the table for the last hand (not a newcomer)."""
        state = self.seats.get(seat)
        return state is not None and state.stack > 0 and not state.new

    def _between(self, seat: int, after: int, before: int) -> bool:
        """Whether ``seat`` lies clockwise strictly after ``after`` and before ``before``."""
        order = self._clockwise(after)
        return order.index(seat) < order.index(before)

    def next_positions(self) -> Positions:
        """Button, blinds and the seats dealt in for the next hand (RULES B1 to B4)."""
        players = [s for s in range(1, self.seat_count + 1) if self._in_play(s)]
        if len(players) < 2:
            raise HandStateError("a hand needs at least two players with chips", "PVB 27")
        redeal = self._redeal_positions
        if redeal is not None and all(self._in_play(s) for s in redeal.dealt):
            # A void hand is dealt again by the same button to the same seats (PVB 30, 33); a
            # player who sat down since waits for it (`sitting_out` says why).
            return redeal
        last = None if redeal is not None else self.blinds_positions
        if last is None:  # B1: seat 1 (PVB 26a) or the high-card draw (PVB 26b)
            start = 1
            if redeal is not None:  # a player left after a void hand: same button, new blinds
                start = redeal.button
            elif self.forced_button is not None:
                start = self.forced_button
            elif self.profile.button_start == "high-card":
                if self.draw_winner is None:
                    raise HandStateError("draw for the button first (high-card draw)", "PVB 26b")
                start = self.draw_winner
            button = next(s for s in self._clockwise(start - 1) if self._in_play(s))
            if len(players) == 2:
                (bb,) = [s for s in players if s != button]
                return self._positions(button, button, True, bb)
            sb = next(s for s in self._clockwise(button) if self._in_play(s))
            bb = next(s for s in self._clockwise(sb) if self._in_play(s))
            return self._positions(button, sb, True, bb)
        # B2: the big blind moves exactly one player clockwise; nobody skips it or pays it twice.
        # A newcomer is a player here: on the seat it reaches he posts it at once (B4).
        bb = next(s for s in self._clockwise(last.bb) if self._in_play(s))
        if len(players) == 2:
            # B3: heads-up the button posts the small blind; the big blind has moved on, so
            # nobody posts it twice in a row (PVB 28(2)).
            (other,) = [s for s in players if s != bb]
            return self._positions(other, other, True, bb)
        # The small blind is the last big blind's seat: live if he is still there to post it.
        sb = last.bb
        sb_live = self._settled(sb)
        button = last.sb
        # The dead button is obligatory, the button stays a second hand where it was, when the
        # last small blind busted (or left: a newcomer on his seat did not post it), after a
        # dead small blind, and when a newcomer arrived on the big blind's position (PVB 27(1);
        # APSA 5.3; BPS 6). A newcomer is one who sat down since the last hand: one who sat
        # out that hand between the button and the small blind arrived before it.
        if self.profile.dead_button == "stays" and (
                not (last.sb_live and self._settled(last.sb)) or self.seats[bb].new):
            button = last.button
        if not self._between(button, bb, sb):
            # The big blind has gone round past the button (the seats after the small blind
            # up to it are empty): it cannot stay, for the small blind and the big blind must
            # follow it in this order. The big blind's order comes first and the button is
            # adapted (APSA 5.3): it moves to the last small blind's seat as B2 moves it, or,
            # where that is the big blind's seat, to the first player before the small blind.
            if self._between(last.sb, bb, sb):
                button = last.sb
            else:
                order = self._clockwise(bb)
                button = [s for s in order[: order.index(sb)] if self._in_play(s)][-1]
        return self._positions(button, sb, sb_live, bb)

    def _positions(self, button: int, sb: int, sb_live: bool, bb: int) -> Positions:
        """Seats dealt in: everyone with chips, except a newcomer sitting between the button
        and the small blind, or on a dead small blind's seat (RULES B4, PVB 10(1)), unless
        that left fewer than two to deal; in action order from left of the button. The big
        blind is always dealt in (he posts it, or is all-in for less: R4)."""
        order = self._clockwise(button)
        waiting = self._waiting_seats(button, sb, sb_live)
        assert bb not in waiting, "the big blind lies between the button and the small blind"
        dealt = tuple(
            s for s in order
            if self._in_play(s) and not (s in waiting and self.seats[s].new)
        )
        if len(dealt) < 2:  # sitting out would leave no hand to play: the new player plays
            dealt = tuple(s for s in order if self._in_play(s))
        return Positions(button=button, sb=sb, sb_live=sb_live, bb=bb, dealt=dealt)

    def _waiting_seats(self, button: int, sb: int, sb_live: bool) -> set[int]:
        """Where a newcomer gets no cards (PVB 10(1); BPS 23; APSA 3.1.2.5): the seats
        clockwise after the button and before the small blind, and the small blind's own seat
        when it is dead (he would play without posting it). Heads-up there are none."""
        if button == sb:
            return set()
        order = self._clockwise(button)
        return set(order[: order.index(sb) + (0 if sb_live else 1)])

    def sitting_out(self) -> dict[int, str]:
        """Players with chips the hand in play (or the last one) did not deal in, each with
        the rule: a newcomer between the button and the small blind (PVB 10(1)), or one who
        sat down after a void hand that is dealt again to its seats (PVB 33). Those who sat
        down since it began are not named: it was not their hand."""
        p = self.positions
        if p is None:
            return {}
        waiting = self._waiting_seats(p.button, p.sb, p.sb_live)
        return {s: "PVB 10(1)" if s in waiting else "PVB 33"
                for s, state in sorted(self.seats.items())
                if s not in p.dealt and state.stack > 0 and not state.new}

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
        for seat in positions.dealt:
            state = self.seats[seat]
            ante = level.ante + (level.bb_ante if seat == positions.bb else 0)
            blind = level.bb if seat == positions.bb else (
                level.sb if seat == positions.sb and positions.sb_live else 0
            )
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
        if not self._in_play(op.seat):
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


def rebuild(operations: list[BaseModel], **table_args: object) -> Table:
    """A fresh table with ``operations`` applied again: the same state, deterministically."""
    table = Table(**table_args)  # type: ignore[arg-type]
    for op in operations:
        table.apply(op)
    return table
