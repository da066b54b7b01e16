"""Table stakes at a cash table (the CG, "Einsätze" 1-4): the buy-in, chips added only between
hands and never taken off, bets divisible by the small blind, and the blinds of absent, new and
moving players.

- CG "Buy-in", CG "Limits": a player sits down with at least the table's minimum buy-in and, where
  the table set one, at most its maximum; a top-up takes the stake to the maximum at most. A
  player the floor moved here, or one from a broken table, brings his whole stake whatever it is
  (CG "Tischwechsel": the whole table stake), and so does one changing seats at this table.
- CG "Table Stake": the stake grows only between hands and never shrinks but by play. The chip
  readers see the betting zones: between hands, a stack laid on a seat's zone is read once the
  zone is empty again (the count is complete): more than the table knows is a top-up the
  dealer sold (the CG has him change the player's cash at the table), within the maximum; less
  is chips taken off the table, told to the floor. During a hand, a zone holding more than the
  player has in play is chips brought in mid-hand: told, they do not play.
- CG "Table Stake", CG "Unteilbare Jetons": every bet, read or keyed in, divisible by the small
  blind (the ante where there is no small blind; the big blind in a 2/5 game, `bet_unit`); the
  odd remainder goes back to the player, the dealer told.
- CG "Blinds", CG "Am Sitzplatz": an absent player's blinds are taken from his stack (no missed
  blind ever); a new player posts no blind until the blinds reach him; a player moved by the
  floor or from a broken table brings none; one who changes seats two or more occupied seats
  clockwise away from the button posts a live big blind in his first hand at the new seat (the
  engine's `PostBigBlind`: the action starts where it would, and he may check his option).
- A player who lost his last chip is not eliminated (that is a tournament's, PVB 64b): he keeps
  his seat with 0, is dealt out while he has no chips (CG "Am Sitzplatz": a seat gets cards
  only with a valid table stake), and buys chips between hands (CG "Table Stake"): from 0 that
  is a buy-in again, at least the table's minimum (CG "Buy-in": to play he lays at least the
  agreed buy-in before him) and at most its maximum (CG "Limits"). He leaves when the dealer or
  the floor lets him go; the CG sets no time, so the table sets none (CG "Poker Manager": the
  floor's), and tells the dealer at every shuffle that the seat is dealt out.

Only at a table whose rule profile is a cash game's (``cash = true``); the buy-in only where the
table set one (`SessionConfig.buy_in`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.hand import Hand
from controller.engine.records import HandRecord
from controller.engine.table_play import PostBigBlind, SeatState, SetStack
from controller.events import SeatEvent
from controller.session.chip_reading import Bet
from controller.session.model import Refused
from controller.session.parts import Core

if TYPE_CHECKING:
    from controller.session.stacks import StackCommands

STAKE = "CG Table Stake"
BUY_IN = "CG Buy-in"
LIMITS = "CG Limits"
BLINDS = "CG Blinds"
AT_SEAT = "CG Am Sitzplatz"


def bet_unit(sb: int, bb: int, ante: int) -> tuple[int, str]:
    """What divides every cash bet, and its name for the dealer (CG Unteilbare Jetons): the
    small blind, the ante where there is none; "Ausnahme: Im Limit 2/5 müssen alle getätigten
    Einsätze durch das Big Blind teilbar sein": wherever the small blind does not divide the
    big blind (2/5), the big blind."""
    if sb and bb % sb:
        return bb, "the big blind"
    if sb:
        return sb, "the small blind"
    return (ante, "the ante") if ante else (bb, "the big blind")


@dataclass(frozen=True)
class LeftSeat:
    """A player who left a seat of this table since the last hand began (a seat change?)."""

    seat: int
    stack: int


class StakesCore(Core, Protocol):
    """What the table stakes read of the core beyond every part's view: who is away, whose
    chips were counted, and the colour-up (a reading after one is the race's)."""

    @property
    def absent(self) -> set[int]: ...

    @property
    def counted(self) -> dict[int, bool]: ...

    @property
    def stacks(self) -> StackCommands: ...


class TableStakes:
    """The CG's table stakes, read from the seats and the chips."""

    def __init__(self, core: StakesCore) -> None:
        self.core = core
        # Between hands, derived from the events since the snapshot (a replay makes them again):
        # each seat zone's chips, the highest reading of a count laid on an empty zone, and who
        # left a seat (a seat change is leaving one seat and sitting down at another).
        self.zone: dict[int, int] = {}
        self.count: dict[int, int] = {}
        self.left: dict[str, LeftSeat] = {}

    def snapshot_fields(self) -> dict[str, Any]:
        return {}  # (all of it is made again by the replay of the events since the snapshot)

    # ---------------------------------------------------------------- sitting down

    def sit_down(self, event: SeatEvent) -> None:
        """CG Buy-in, CG Limits: a player sitting down buys in within the table's limits,
        refused in the floor's words otherwise, at once (even while a hand is played). Not a
        player the floor moved or one from a broken table (CG Tischwechsel: the whole table
        stake), nor one changing seats here (his stake, checked as he sits down)."""
        limits = self.core.config.buy_in
        if (limits is None or event.player is None or event.arrival is not None
                or event.player in self.left
                or any(s.player == event.player for s in self.core.table.seats.values())):
            return  # (a seat change, or the same request again: nothing new to buy)
        who = f"seat {event.seat}: {event.player}"
        if event.stack < limits.min:
            raise Refused(f"{who} buys in for {event.stack:,}: this table's minimum buy-in is "
                          f"{limits.min:,}", BUY_IN)
        if limits.max is not None and event.stack > limits.max:
            raise Refused(f"{who} buys in for {event.stack:,}: this table's maximum buy-in is "
                          f"{limits.max:,}", LIMITS)

    def before_seating(self, event: SeatEvent) -> None:
        """A seat change (CG Table Stake): he sits down again with the stake he stood up
        with, not a chip more or less."""
        left = self.left.get(event.player or "")
        if left is None or event.stack == left.stack:
            return
        raise Refused(f"seat {event.seat}: {event.player} changes seats from seat {left.seat} "
                      f"with his stake of {left.stack:,}, not {event.stack:,}: chips are never "
                      "taken off the table, and added only between hands (a top-up)", STAKE)

    def seated(self, event: SeatEvent) -> None:
        """Told as he sits down at a cash table: which blind he brings (CG Blinds)."""
        if not self.core.profile.cash or event.player is None:
            return
        left = self.left.pop(event.player, None)
        who = f"seat {event.seat}: {event.player}"
        if left is not None and event.arrival is None:
            self._seat_change(event, left)
        elif event.arrival is not None:
            why = "moved by the floor" if event.arrival == "moved" else "from a broken table"
            self.core._say("seat", f"{who} comes {why} with his whole stake and brings no blind "
                           "(CG Blinds)", rule=BLINDS, seat=event.seat, arrival=event.arrival)
        else:
            # (where he sits between the button and the small blind, the table deals him in
            # from the hand after: the CG is silent on that seat; common practice, PVB 10(1))
            self.core._say("seat", f"{who} posts no blind until the blinds reach him (CG Blinds)",
                           rule=BLINDS, seat=event.seat)

    def _seat_change(self, event: SeatEvent, left: LeftSeat) -> None:
        """CG Blinds: "Entfernt sich ein Spielteilnehmer durch einen Platzwechsel um zwei oder
        mehr (mit aktiven Spielteilnehmern besetzten) Plätze im Uhrzeigersinn vom Button weg,
        muss er das Big Blind bringen." Counted from the last hand's button: the occupied
        seats he passes moving clockwise away from it (a move towards the button, or across
        it, brings his blinds sooner: nothing to bring)."""
        who = f"seat {event.seat}: {event.player}"
        positions = self.core.table.positions
        passed = 0
        if positions is not None:
            n, button = self.core.table.seat_count, positions.button

            def offset(seat: int) -> int:  # clockwise from the button (the button is 0)
                return (seat - button) % n

            old, new = offset(left.seat), offset(event.seat)
            passed = sum(1 for s, state in self.core.table.seats.items()
                         if state.stack > 0 and s != event.seat and old < offset(s) < new)
        if passed < 2:
            self.core._say("seat", f"{who} changes seats from seat {left.seat} with his stake "
                           f"of {left.stack:,}: no blind to bring (not two occupied seats away "
                           "from the button, CG Blinds)", rule=BLINDS, seat=event.seat)
            return
        # "muss er das Big Blind bringen": he must, so he posts it in his first hand here; the
        # CG offers no waiting for the big blind instead (that is common practice elsewhere,
        # not this book's). The post is live ("zählt ... zum Pot") and the table takes it
        # from his chips with the blinds (the engine's `PostBigBlind`).
        table = self.core.table
        table.apply(PostBigBlind(seat=event.seat))
        bb = table.pending_level.bb if table.pending_level else table.level.bb
        self.core._say("seat", f"{who} changes seats from seat {left.seat}, {passed} occupied "
                       "seats clockwise away from the button: he posts the big blind of "
                       f"{bb:,} in his first hand at this seat (CG Blinds: a seat change)",
                       rule=BLINDS, seat=event.seat, posts=bb)

    def left_seat(self, seat: int, state: SeatState, moved: bool) -> None:
        """A player stood up from a seat: if he sits down at another seat of this table before
        the next hand, that is a seat change. Not one the floor moved to another table."""
        if self.core.profile.cash and not moved:
            self.left[state.player] = LeftSeat(seat=seat, stack=state.stack)

    # ---------------------------------------------------------------- no chips left

    def busted(self, record: HandRecord) -> list[str]:
        """The players the hand just over took the last chip from, at a cash table: the
        engine takes them off the table, as a tournament does (PVB 64b); a cash player keeps
        his seat with 0 and may buy chips between hands (CG Table Stake). The engine's ops
        seat a player only with chips, so the session, which knows the table is a cash table,
        puts him back as he is: a player of the table with no chips. Returns those kept."""
        if not self.core.profile.cash or record.status != "complete":
            return []
        seat_of = {player: seat for seat, player in record.players.items()}
        kept: list[str] = []
        seats = dict(self.core.table.seats)
        for number, player in self.core.table.eliminated:
            seat = seat_of.get(player)
            if number != record.hand or seat is None or seat in seats:
                continue
            seats[seat] = SeatState(player=player, stack=0, new=False)
            kept.append(player)
            self.core._say("seat", f"seat {seat}: {player} has no chips left and keeps his seat: "
                           f"dealt out while he has none; {self._rebuy_words()}", rule=STAKE,
                           seat=seat, player=player, stack=0, busted=True)
        self.core.table.seats = dict(sorted(seats.items()))
        return kept

    def _rebuy_words(self) -> str:
        limits = self.core.config.buy_in
        amount = "" if limits is None else f" of at least {limits.min:,}" + (
            f" and at most {limits.max:,}" if limits.max is not None else "")
        return (f"he may buy chips between hands (a buy-in{amount}: {BUY_IN}, {STAKE}) or "
                "leave the table")

    def rebuy_refusal(self, seat: int, player: str, amount: int) -> tuple[str, str] | None:
        """A player with no chips who buys some buys in again (CG Buy-in: "muss, um am Spiel
        teilnehmen zu können, mindestens das vereinbarte Buy-in ... vor sich auf den Tisch
        legen"): at least the table's minimum, at most its maximum (CG Limits)."""
        limits = self.core.config.buy_in
        who = f"seat {seat}: {player}"
        if limits is None:
            return None
        if amount < limits.min:
            return (f"{who} has no chips and buys in again for {amount:,}: this table's minimum "
                    f"buy-in is {limits.min:,}", BUY_IN)
        if limits.max is not None and amount > limits.max:
            return (f"{who} has no chips and buys in again for {amount:,}: this table's maximum "
                    f"buy-in is {limits.max:,}", LIMITS)
        return None

    # ---------------------------------------------------------------- hands

    def new_hand(self) -> None:
        """A hand begins: the between-hands readings are over; at a cash table the dealer is
        told to take an absent player's blinds from his stack (CG Blinds, CG Am Sitzplatz:
        every active table stake posts them, so there is never a missed blind)."""
        self.zone.clear()
        self.count.clear()
        self.left.clear()
        hand = self.core.table.hand
        if not self.core.profile.cash or hand is None:
            return
        for seat, state in sorted(self.core.table.seats.items()):
            if state.stack == 0:
                self.core._say("seat", f"seat {seat}: {state.player} has no chips and is dealt "
                               f"out of this hand ({AT_SEAT}: a seat gets cards with a valid "
                               f"table stake only); {self._rebuy_words()}", rule=AT_SEAT,
                               seat=seat, player=state.player, stack=0)
        posted = hand.setup.posted
        for act in hand.log:
            if act.kind != "blind" or act.player is None:
                continue
            seat = self.core.table.seat_of(act.player)
            if act.player in posted:
                self.core._say("action", f"seat {seat} posts the big blind (CG Blinds: a seat "
                               "change)", rule=BLINDS, seat=seat, amount=act.amount)
            if seat in self.core.absent:
                self.core._say("action", f"seat {seat} is away: the dealer takes the blind of "
                               f"{act.amount:,} from the stack into the betting zone (CG Blinds: "
                               "no missed blinds)", rule=BLINDS, seat=seat)

    def in_hand(self, hand: Hand, seat: int, index: int, before: list[int],
                new: list[int]) -> None:
        """CG Table Stake: during a hand a zone holding more than the player has in play is
        chips brought to the table mid-hand; they do not play (told once a hand)."""
        track = self.core.track
        if not self.core.profile.cash or track is None or sum(new) <= sum(before) \
                or seat in track.stake_alerted:
            return
        # What he brought to this hand: his stack now and all he put in (the zone holds part of
        # it: this round's bet, earlier rounds' not yet swept, change due to him)
        brought = hand.contributions[index] + hand.stacks[index]
        if sum(new) <= brought:
            return
        track.stake_alerted.add(seat)
        self.core._irregular(STAKE, f"seat {seat}'s betting zone holds {sum(new):,}, more than the "
                             f"{brought:,} he brought to this hand: chips are added between hands "
                             "only, never during a hand; the extra chips do not play", seat=seat)

    def divisible(self, hand: Hand, seat: int, bet: Bet) -> Bet:
        """CG Table Stake, CG Unteilbare Jetons: "Alle getätigten Einsätze müssen durch das
        Ante bzw. Small Blind teilbar sein ... Eine eventuell entstandene Spitze erhält der
        Spielteilnehmer zurück": a bet or raise to an amount the small blind does not divide
        is one to the amount below that it does; the rest goes back. Not an all-in (the whole
        stake plays: the CG is silent, common practice) nor a call (it matches the bet).
        Where that would fall below the smallest raise (after an odd all-in) it stands."""
        if bet.action != "raise":
            return bet
        rounded = self.divisible_to(hand, bet.to)
        if rounded is None:
            return bet
        to, why = rounded
        # (the reading's rule stays the action's: the CG's is named in the words)
        return Bet(bet.action, to, bet.rule or STAKE, f"{bet.reason}; {why}" if bet.reason
                   else why)

    def divisible_to(self, hand: Hand, to: int) -> tuple[int, str] | None:
        """A cash bet or raise to ``to`` (read from the chips or declared) that its unit does
        not divide: the amount below that it does and the dealer's words; None if it stands."""
        if not self.core.profile.cash:
            return None
        level = self.core.table.hand_level
        unit, name = bet_unit(level.sb, level.bb, level.ante)
        rest = to % unit if unit > 1 else 0
        options = hand.options()
        if not rest or options is None or options.min_raise_to is None \
                or to - rest < options.min_raise_to:
            return None
        return to - rest, (f"{to:,} is no multiple of {name} ({unit:,}): {to - rest:,}, the "
                           f"odd {rest:,} goes back (CG Table Stake)")

    # ---------------------------------------------------------------- between hands

    def reading(self, seat: int, total: int) -> bool:
        """Between hands at a cash table: chips laid on an empty seat zone are a count of the
        player's stack, read when the zone is empty again (its highest reading: chips laid
        down in several motions). Chips left from the hand are no count. True: the reading
        belongs to the story (a replay must see it)."""
        if not self.core.profile.cash or self.core.stacks.colour_up is not None:
            return False
        track = self.core.track
        before = self.zone.get(seat)
        if before is None:
            before = sum(track.zone.get(seat, [])) if track is not None else 0
        self.zone[seat] = total
        if total:
            if not before or seat in self.count:
                self.count[seat] = max(total, self.count.get(seat, 0))
            return True
        counted = self.count.pop(seat, None)
        state = self.core.table.seats.get(seat)
        if counted is None or state is None or counted == state.stack:
            return True
        who = f"seat {seat}: {state.player}"
        if state.stack == 0:
            return self._rebuy_read(seat, state, counted)
        if counted < state.stack:
            self.core._say("alert", f"{who}'s stack reads {counted:,}, {state.stack - counted:,} "
                           f"less than the {state.stack:,} in play: chips are never taken off the "
                           "table (CG Table Stake); count the stack", rule=STAKE, seat=seat,
                           stack=state.stack, read=counted)
            return True
        added = counted - state.stack
        limits = self.core.config.buy_in
        if limits is not None and limits.max is not None and counted > limits.max:
            self.core._say("alert", f"{who}'s stack reads {counted:,}, {added:,} more than the "
                           f"{state.stack:,} in play: a top-up to {counted:,} is above this "
                           f"table's maximum buy-in of {limits.max:,} (CG Limits); the {added:,} "
                           "go back", rule=LIMITS, seat=seat, stack=state.stack, read=counted)
            return True
        self.core.table.apply(SetStack(seat=seat, stack=counted))
        self.core.counted[seat] = True
        self.core._say("decision", f"{who} adds {added:,} between hands (a top-up read on the "
                       f"zone): {counted:,} (CG Table Stake)", rule=STAKE, seat=seat,
                       player=state.player, stack=counted, was=state.stack)
        return True

    def _rebuy_read(self, seat: int, state: SeatState, counted: int) -> bool:
        """Chips laid on the zone of a seat with none: the dealer sold him a new buy-in."""
        refusal = self.rebuy_refusal(seat, state.player, counted)
        if refusal is not None:
            self.core._say("alert", f"{refusal[0]}: the chips go back, he stays dealt out",
                           rule=refusal[1], seat=seat, stack=0, read=counted)
            return True
        self.core.table.apply(SetStack(seat=seat, stack=counted))
        self.core.counted[seat] = True
        self.core._say("decision", f"seat {seat}: {state.player} buys in again for "
                       f"{counted:,} between hands (read on the zone; {BUY_IN}, {STAKE}): dealt "
                       "in from the next hand", rule=STAKE, seat=seat, player=state.player,
                       stack=counted, was=0)
        return True


__all__ = ["TableStakes"]
