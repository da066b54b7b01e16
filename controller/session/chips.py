"""Chips at the table: what the betting zones and the pot zone hold, read as bets (RULES R2,
R5-R9), held out of turn (R7), swept into the pot and counted (APSA 5.4.25).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.hand import VARIANT_NAMES, Hand, Stage, Street
from controller.engine.records import Irregularity
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
)
from controller.events import (
    ChipsEvent,
)
from controller.session.chip_reading import (
    Bet,
    Doubt,
    NoBet,
    Reading,
    Situation,
    added_chips,
    chips_text,
    read_motion,
)
from controller.session.model import Held, voluntary_actions
from controller.session.parts import Core, Speaks

if TYPE_CHECKING:
    from controller.session.actions import BettingActions
    from controller.session.cash import CashGame
    from controller.session.stacks import StackCommands
    from controller.session.table_stakes import TableStakes


class ChipCore(Core, Protocol):
    """What the chip zones read and call of the core beyond every part's view: whose chips
    were counted, the parts a reading may belong to (a cash table's stake, the colour-up's
    race, a straddle), and the betting actions a reading becomes."""

    @property
    def counted(self) -> dict[int, bool]: ...

    @property
    def stakes(self) -> TableStakes: ...

    @property
    def stacks(self) -> StackCommands: ...

    @property
    def cash(self) -> CashGame: ...

    @property
    def actions(self) -> BettingActions: ...


class ChipZones(Speaks):
    """The betting zones and the pot zone: a settled zone is a reading (RULES R2-R9), never
    refused; it becomes a bet, a wait for the dealer, or an alert. It keeps no state of its
    own: what each zone holds is the hand's (`HandTrack`), replayed with it."""

    core: ChipCore

    def __init__(self, core: ChipCore) -> None:
        self.core = core

    def snapshot_fields(self) -> dict[str, Any]:
        return {}

    def read(self, event: ChipsEvent) -> bool:
        """A betting zone (or the pot zone) settled (RULES R9: one motion). Chips are readings,
        never refused: what they mean becomes an action, a wait for the dealer, or an alert."""
        track = self.core.track
        hand = self.core._hand()
        if hand is None and event.zone != "pot":
            return self._count(event)
        if track is None or hand is None:
            return False
        if event.zone == "pot":
            track.pot_zone = sum(event.chips)
            self._check_pot()
            if hand.stage is Stage.SHOWDOWN and track.showdown_told:
                self.pot_alert()  # the last round's bets reached the pot after the showdown
            return True
        seat = int(event.zone[5:])
        new = sorted(event.chips, reverse=True)
        before = track.zone.get(seat, [])
        if new == before:
            return False
        track.zone[seat] = new
        track.zone_chips[seat] = sum(new)
        added = sum(new) - sum(before)
        if seat in track.owed and 0 < added <= track.owed[seat]:  # what was owed, put in
            track.owed[seat] -= added
            if track.owed[seat] <= 0:
                del track.owed[seat]
        if seat in track.stale:  # sweeping: the earlier rounds' chips leave for the pot
            track.stale[seat] = min(track.stale[seat], sum(new))
            if not track.stale[seat]:
                del track.stale[seat]
                self._check_pot()
        index = self.core._seat_index(seat)
        if index is None:
            if new:
                self._say("alert", f"chips in seat {seat}'s betting zone, but seat {seat} is not "
                          "in this hand", rule="PVB 36", seat=seat)
            return True
        self.core.stakes.in_hand(hand, seat, index, before, new)  # CG Table Stake
        if self.core.cash.straddle_chips(hand, seat, index, new) or \
                self._posting(hand, seat, index, new):
            return True
        if self.core.table.actor_seat() == seat and seat not in track.held:
            return self._motion_in_turn(hand, seat, index, before, new)
        self._zone_moved(hand, seat, index, before, new)
        return True

    def _posting(self, hand: Hand, seat: int, index: int, new: list[int]) -> bool:
        """RULES H4: before the first action, a seat that owes blinds or antes posts them; an
        amount that differs is an alert (recorded if still wrong at the first action). The seat
        first to act posts too when its first motion is exactly what it owes (its ante, and its
        blind heads-up): less than any call; anything else from it is its action."""
        track = self.core.track
        assert track is not None
        # A round that closed at once (everyone all in on what they posted) still sees each
        # seat post, once; the chips leaving after that are the dealer's sweep.
        closed = track.street != 0 or hand.stage is not Stage.BETTING
        if voluntary_actions(hand) or (closed and (seat in track.base or not new)):
            return False
        owed = sum(a.amount for a in hand.log if a.player == index and a.kind in ("ante", "blind"))
        if not owed:
            return False
        total = sum(new)
        if self.core.table.actor_seat() == seat and (total != owed or seat in track.base):
            return False  # owed is its blind and ante: less than any call, never an action
        self.account(seat, index)
        if total == owed:
            track.posting_alerts.pop(seat, None)
            return True
        what = "in blinds and antes" if hand.variant is None else \
            f"for the {VARIANT_NAMES[hand.variant]} (CG Spielvarianten)"
        text = f"seat {seat} put {total:,} in the betting zone but owes {owed:,} {what}"
        track.posting_alerts[seat] = Irregularity(rule="APSA 5.4.1", text=text, seat=seat)
        self._say("alert", text, rule="APSA 5.4.1", seat=seat)
        return True

    def account(self, seat: int, index: int) -> None:
        """The zone as it is now is what the seat's bet is made of: chips beyond the bet are
        change due to the player (or, after the round, bets still to be swept)."""
        track = self.core.track
        hand = self.core.table.hand
        assert track is not None and hand is not None
        zone = track.zone.get(seat, [])
        track.base[seat] = list(zone)
        track.extra[seat] = max(0, sum(zone) - hand.bets[index] - self._ante_held(seat))

    def _count(self, event: ChipsEvent) -> bool:
        """Between hands, a racer's stack after a colour-up's chip race (`StackCommands`), or
        a newly seated player's stack laid on his seat's zone: when the chips read are his
        stack, it is counted (DFO §2(2)(3): the start stack checked at the seat;
        PVB 09: a moved player's chips at his new seat). A partial reading (the chips still
        being laid down) says nothing."""
        seat = int(event.zone[5:])
        total = sum(event.chips)
        tracked = self.core.stakes.reading(seat, total)  # a cash table's count (CG Table Stake)
        state = self.core.table.seats.get(seat)
        # a racer's stack after the chip race (RULES T5)
        if self.core.stacks.race_reading(seat, total):
            return True
        if self.core.counted.get(seat) is not False or state is None or state.stack == 0:
            return tracked  # (a cash player with no chips: nothing to count, CG Table Stake)
        if total != state.stack:
            return tracked
        self.core.counted[seat] = True
        self._say("seat", f"seat {seat}: {state.player}'s {total:,} chips are counted at this "
                  "seat", rule="DFO §2(3)", seat=seat, player=state.player, stack=total)
        return True

    def _chips_left(self, seat: int, new: list[int], committed: int) -> None:
        """Chips left the zone: change given and unswept bets are the ones that go first."""
        track = self.core.track
        assert track is not None
        track.extra[seat] = min(track.extra.get(seat, 0),
                                max(0, sum(new) - committed - self._ante_held(seat)))

    def face(self, seat: int, chips: list[int] | None = None) -> int:
        """The seat's bet as the zone shows it: its chips less those that are no part of it
        (change due, bets of a round not yet swept, and its ante, which stays for the pot)."""
        track = self.core.track
        assert track is not None
        zone = track.zone.get(seat, []) if chips is None else chips
        return sum(zone) - track.extra.get(seat, 0) - self._ante_held(seat)

    def _ante_held(self, seat: int) -> int:
        """The ante the seat posted, which lies in its zone beside its bet until the first
        round's bets are swept: change comes out of the chips beyond the ante (too much change
        taken from the ante is chips taken back, PVB 36(3))."""
        track = self.core.track
        hand = self.core.table.hand
        index = self.core._seat_index(seat)
        if track is None or hand is None or index is None or track.street != 0:
            return 0
        return sum(a.amount for a in hand.log if a.player == index and a.kind == "ante")

    def situation(self, hand: Hand, index: int) -> Situation:
        options = hand.options()
        assert options is not None and options.player == index
        return Situation(
            committed=hand.bets[index], stack=hand.stacks[index], current_bet=hand.current_bet,
            target=hand.target(index), min_raise_to=options.min_raise_to,
            max_raise_to=options.max_raise_to, min_bet=self.core.table.hand_level.bb,
            preflop=hand.street is Street.PREFLOP,
            same_colour_full_raise=self.core.profile.same_colour_chips_full_raise,
        )

    def _motion_in_turn(self, hand: Hand, seat: int, index: int, before: list[int],
                        new: list[int]) -> bool:
        track = self.core.track
        assert track is not None
        if sum(new) < sum(before):
            self._chips_left(seat, new, hand.bets[index])
        doubt = track.doubt[1] if track.doubt and track.doubt[0] == seat else None
        if doubt is not None and doubt.short and doubt.default is not None:
            if self.face(seat, new) >= doubt.default.to:  # R8: completed, never a raise
                self.apply_bet(seat, index, doubt.default)
            return True
        if doubt is not None and not (doubt.short or doubt.more):
            # The bet is what settled first (R9); what came after is a second motion.
            if sum(new) > sum(before):
                extra = chips_text(added_chips(before, new))
                self._irregular("PVB 49", f"seat {seat} added {extra} after the bet settled: a "
                                "string bet, those chips go back (APSA 5.4.31)", seat=seat)
            else:
                self._say("alert", f"seat {seat} took chips back: chips put in stay in",
                          rule="PVB 36(3)", seat=seat)
            return True
        reading = read_motion(self.situation(hand, index), track.base.get(seat, []), new,
                              self.face(seat, new), track.announced.get(seat))
        self.take_reading(seat, index, reading)
        return True

    def take_reading(self, seat: int, index: int, reading: Reading) -> None:
        track = self.core.track
        assert track is not None
        match reading:
            case NoBet():
                return
            case Doubt():
                if track.doubt == (seat, reading):
                    return
                track.doubt = (seat, reading)
                self._say("wait", f"seat {seat}: {reading.question}", rule=reading.rule,
                          seat=seat)
            case Bet():
                self.apply_bet(seat, index, reading)

    def apply_bet(self, seat: int, index: int, bet: Bet) -> None:
        hand = self.core.table.hand
        track = self.core.track
        assert hand is not None and track is not None
        # CG Table Stake: the odd remainder goes back
        bet = self.core.stakes.divisible(hand, seat, bet)
        face = self.face(seat)
        op: Check | Call | BetOrRaise
        match bet.action:
            case "check":
                op, words = Check(seat=seat), "checks"
            case "call":
                op, words = Call(seat=seat), f"calls {hand.to_call(index):,}"
            case "raise":
                word = "bets" if hand.current_bet == 0 else "raises to"
                op, words = BetOrRaise(seat=seat, to=bet.to), f"{word} {bet.to:,}"
            case "allin":
                op, _, words = self.allin(hand, seat, index)
        if isinstance(op, BetOrRaise):
            committed = op.to
        else:
            committed = hand.bets[index] + (hand.to_call(index) if isinstance(op, Call) else 0)
        tail = ""
        if face > committed:
            tail = f"; {face - committed:,} back to the player"
        elif face < committed:
            tail = f"; {committed - face:,} more to put in"
            track.owed[seat] = committed - face
        self._repaid(seat, committed, face)
        reason = f" ({bet.reason}{tail})" if bet.reason or tail else ""
        self.core.actions.betting(op, seat, f"{words}{reason}", rule=bet.rule or None)

    def _zone_moved(self, hand: Hand, seat: int, index: int, before: list[int],
                    new: list[int]) -> None:
        """A zone changed while its seat was not the one to act: change being made, a bet being
        completed, chips out of turn (R7: held), chips after the bet (R9: back), chips taken
        back (PVB 36(3))."""
        track = self.core.track
        assert track is not None
        committed = hand.bets[index]
        grew = sum(new) > sum(before)
        face_before = self.face(seat, before)
        if not grew:
            self._chips_left(seat, new, committed)
        face = self.face(seat, new)
        if seat in track.held:
            if not grew:
                self._say("alert", f"seat {seat} took back chips put in out of turn: they stay "
                          "until the turn comes", rule="PVB 37(3)", seat=seat)
            else:
                self._irregular("PVB 40(3)", f"seat {seat} added chips to an action out of turn: "
                                "a string bet, the extra chips go back", seat=seat)
            return
        if grew and face > committed and face_before >= committed:
            live = not hand.folded[index] and not hand.all_in[index]
            if live and hand.still_to_act(index):
                track.held[seat] = Held(chips=new, declare=None, bet_level=hand.current_bet,
                                        raises=self.raises(hand))
                actor = self.core.table.actor_seat()
                self._say("action", f"seat {seat} put in {chips_text(added_chips(before, new))} "
                          f"out of turn (seat {actor} is to act): held; it stands if the action "
                          f"to seat {seat} does not change",
                          rule="PVB 37(3)", seat=seat)
                return
            what = "after folding" if hand.folded[index] else "after the bet settled"
            self._irregular("PVB 49", f"seat {seat} added {chips_text(added_chips(before, new))} "
                            f"{what}: those chips go back (APSA 5.4.31)", seat=seat)
        elif face < committed and face < face_before:
            # The pot will lack them too: the floor is told once, here (APSA 5.4.25 counts on it).
            track.taken_back[seat] = track.taken_back.get(seat, 0) + (
                min(face_before, committed) - face)
            self._say("alert", f"seat {seat} took {face_before - face:,} back out of the betting "
                      "zone: chips put in stay in", rule="PVB 36(3)", seat=seat)
        track.base[seat] = list(new)
        if grew:
            track.extra[seat] = max(0, sum(new) - committed - self._ante_held(seat))
            self._repaid(seat, committed, face)

    def _repaid(self, seat: int, committed: int, face: int) -> None:
        """Chips taken back (told once) are what the pot will lack, unless the seat's zone
        holds its whole bet again before the sweep (its next chips made up for them)."""
        track = self.core.track
        assert track is not None
        if seat in track.taken_back:
            track.taken_back[seat] = min(track.taken_back[seat], max(0, committed - face))
            if not track.taken_back[seat]:
                del track.taken_back[seat]

    @staticmethod
    def raises(hand: Hand) -> int:
        return sum(1 for a in hand.log if a.kind in ("bet", "raise"))

    def held_in_turn(self, hand: Hand, seat: int) -> bool:
        """R7: the out-of-turn action of the seat now to act stands if nobody bet or raised
        since (a check, call or fold changes nothing), otherwise it goes back (PVB 37(3)(4))."""
        track = self.core.track
        assert track is not None
        held = track.held.pop(seat)
        index = self.core._seat_index(seat)
        assert index is not None
        if hand.current_bet != held.bet_level or self.raises(hand) != held.raises:
            what = "its chips go back" if held.chips is not None else "the declaration lapses"
            self._say("action", f"seat {seat}: the action changed since seat {seat} acted out of "
                      f"turn ({hand.current_bet:,} to match now): {what}; seat {seat} has every "
                      "option", rule="PVB 37(4)", seat=seat)
            if held.chips is not None:
                track.base[seat] = list(track.zone.get(seat, []))
                track.extra[seat] = max(0, sum(track.base[seat]) - hand.bets[index]
                                        - self._ante_held(seat))
            return False
        self._say("action", f"seat {seat}'s action out of turn stands: the action to seat {seat} "
                  "did not change", rule="PVB 37(3)", seat=seat)
        if held.declare is not None:
            self.core.actions.declare(held.declare)
            return True
        assert held.chips is not None
        reading = read_motion(self.situation(hand, index), track.base.get(seat, []),
                              held.chips, self.face(seat, held.chips), None)
        self.take_reading(seat, index, reading)
        return isinstance(reading, Bet)

    def round_over(self) -> None:
        """A betting round ended: the zones' chips are bets of a finished round, to be swept
        into the pot; anything held out of turn lapses."""
        track = self.core.track
        hand = self.core.table.hand
        assert track is not None and hand is not None
        if hand.street == track.street and hand.stage is Stage.BETTING:
            return
        closed = hand.street  # the street whose betting round just ended
        track.street = hand.street if hand.stage is Stage.BETTING else hand.street + 1
        self._uncalled_returned(hand, closed)
        for seat, owed in track.owed.items():
            untold = owed - track.taken_back.get(seat, 0)  # chips it took back: told already
            if hand.stage is Stage.OVER and untold > 0:  # no pot count follows: told now
                self._irregular("APSA 5.4.30", f"seat {seat} never put in the {untold:,} still "
                                "owed on its bet: count the pot", seat=seat)
        track.owed.clear()  # (otherwise the pot count tells the difference, APSA 5.4.25)
        track.taken_back_swept += sum(track.taken_back.values())  # the pot lacks them for good
        track.taken_back.clear()
        for seat in list(track.held):
            del track.held[seat]
            self._say("action", f"the betting round ended: what seat {seat} did out of turn "
                      "goes back", rule="PVB 37(4)", seat=seat)
        track.doubt = None
        track.announced.clear()
        for seat, chips in track.zone.items():
            track.base[seat] = list(chips)
            track.extra[seat] = sum(chips)
            if chips:
                track.stale[seat] = sum(chips)

    def _uncalled_returned(self, hand: Hand, street: Street) -> None:
        """The part of a bet that nobody called goes back to its player (PVB 60(3)). The pot
        gets only the called part. So chips the seat's bet lacks (taken back, PVB 36(3), or
        still owed on a raise or a short call completed for it, PVB 42(4), APSA 5.4.30) come
        out of what goes back first: the dealer pushes the called part into the pot and
        returns what is left. Only what the returned part cannot cover is still missing from
        the pot (APSA 5.4.25)."""
        track = self.core.track
        assert track is not None
        positions = self.core.table.positions
        if positions is None or not (track.owed or track.taken_back):
            return
        for act in hand.log:
            if act.kind != "return" or act.street != street or act.player is None:
                continue
            seat = positions.dealt[act.player]
            for debts in (track.owed, track.taken_back):
                if seat in debts:
                    debts[seat] -= act.amount
                    if debts[seat] <= 0:
                        del debts[seat]

    def _check_pot(self) -> None:
        """Sweeping: once every finished round's bets left the betting zones, the pot zone must
        hold what the engine's pots hold. A difference is published when the dealer moves on
        (the next round's first action, or the showdown)."""
        track = self.core.track
        hand = self.core.table.hand
        assert track is not None and hand is not None
        if track.pot_zone is None or track.stale or track.street == 0:
            return
        collected = (hand.pot_total() - sum(hand.bets) - track.taken_back_swept
                     - sum(track.taken_back.values()))
        track.pot_difference = track.pot_zone - collected or None

    def pot_alert(self) -> None:
        track = self.core.track
        hand = self.core.table.hand
        assert track is not None and hand is not None
        difference = track.pot_difference
        # One alert for one difference: it stays the same street after street until counted.
        if difference is None or difference in track.pot_alerted or track.pot_zone is None:
            return
        track.pot_alerted.add(difference)
        collected = track.pot_zone - difference
        more = "more" if difference > 0 else "less"
        self._irregular("APSA 5.4.25", f"the pot zone holds {track.pot_zone:,}, the pots make "
                        f"{collected:,}: {abs(difference):,} {more}; count the pot")

    @staticmethod
    def allin(hand: Hand, seat: int, index: int) -> tuple[BetOrRaise | Call, int, str]:
        """All-in: a bet or raise of everything when the rules allow one, else a call."""
        everything = hand.bets[index] + hand.stacks[index]
        if everything > hand.current_bet and hand.can("bet_or_raise_to", index, everything):
            return BetOrRaise(seat=seat, to=everything), seat, f"is all-in for {everything:,}"
        return Call(seat=seat), seat, "calls all-in"
