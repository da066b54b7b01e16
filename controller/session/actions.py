"""Betting actions: what the dealer declares and confirms, applied in turn with the rules'
checks; the chips' readings (`chips`) end here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.hand import STREET_NAMES, Hand, Stage
from controller.engine.table_play import (
    BetOrRaise,
    Call,
    Check,
    Fold,
    Muck,
)
from controller.events import (
    DeclareEvent,
)
from controller.session.chip_reading import (
    Announced,
    Doubt,
    read_motion,
)
from controller.session.model import Held, Refused, voluntary_actions
from controller.session.parts import Core, Speaks

if TYPE_CHECKING:
    from controller.session.cash import CashGame
    from controller.session.chips import ChipZones
    from controller.session.table_stakes import TableStakes


class ActionCore(Core, Protocol):
    """What the betting actions read and call of the core beyond every part's view: the chip
    zones (an action's chips), the table stakes (a bet's unit), the cash game (run it twice
    by the confirm key), and the hand's steps after an action (the showdown's next show)."""

    @property
    def chips(self) -> ChipZones: ...

    @property
    def stakes(self) -> TableStakes: ...

    @property
    def cash(self) -> CashGame: ...

    def _after_step(self) -> None: ...

    def _next_to_show(self) -> int | None: ...

    def _show(self, seat: int) -> bool: ...


class BettingActions(Speaks):
    """Declarations, the confirm key and every betting action in turn; the deal is checked at
    the first one (RULES I1, H4). It keeps no state of its own: the hand's (`HandTrack`, the
    engine's hand) is replayed with it."""

    core: ActionCore

    def __init__(self, core: ActionCore) -> None:
        self.core = core

    def snapshot_fields(self) -> dict[str, Any]:
        return {}

    def declare(self, event: DeclareEvent) -> bool:
        hand = self.core._hand()
        if hand is None:
            raise Refused(f"seat {event.seat} declared {event.action}, but no hand is running",
                          "PVB 14(3)")
        seat = event.seat
        index = self.core._seat_index(seat)
        if index is None:
            raise Refused(f"seat {seat} is not dealt in this hand", "PVB 30(2)")
        actor = self.core.table.actor_seat()
        if event.action == "fold" and hand.stage is Stage.SHOWDOWN and not hand.mucked[index]:
            self.core.table.apply(Muck(seat=seat))
            self._say("muck", f"seat {seat} mucks: the hand gives up its claim to the pot",
                      rule="PVB 56", seat=seat)
            self.core._after_step()
            return True
        if event.action == "fold" and actor != seat and not hand.folded[index]:
            assert self.core.track is not None
            self.core.track.pending_folds.add(seat)
            self._say("action", f"seat {seat} folded out of turn: binding, applied in turn",
                      rule="PVB 37(5)", seat=seat)
            self.core._after_step()
            return True
        if hand.stage is not Stage.BETTING:
            raise Refused(f"seat {seat} declared {event.action}, but the "
                          f"{STREET_NAMES[hand.street]} betting is over", "PVB 36")
        track = self.core.track
        assert track is not None
        if actor != seat:
            if hand.folded[index] or hand.all_in[index] or not hand.still_to_act(index):
                raise Refused(f"seat {seat} declared {event.action}, but seat {seat} has no "
                              f"action to come (seat {actor} is to act)", "PVB 36")
            if event.action in ("bet", "raise") and event.amount is None:
                raise Refused(f"seat {seat} {event.action}s out of turn: say how much",
                              "PVB 36(2)")
            track.held[seat] = Held(chips=None, declare=event, bet_level=hand.current_bet,
                                    raises=self.core.chips.raises(hand))
            self._say("action", f"seat {seat} declared {event.action} out of turn (seat {actor} "
                      f"is to act): held; it stands if the action to seat {seat} does not "
                      "change", rule="PVB 37(3)", seat=seat)
            return True
        doubt = track.doubt[1] if track.doubt and track.doubt[0] == seat else None
        if doubt is not None and doubt.short and self._would_raise(hand, index, event):
            # R8: a call made short because a raise was missed is completed or folded; the
            # player may not raise now (CG "Einsätze"; APSA 5.4.30).
            raise Refused(f"seat {seat} called short ({hand.to_call(index):,} still to call): "
                          "complete the call or fold; no raise", "APSA 5.4.30")
        match event.action:
            case "fold":
                forfeit = 0
                if doubt is not None and doubt.short:  # R8: the short call's chips stay in
                    forfeit = max(0, self.core.chips.face(seat) - hand.bets[index])
                words = "folds" if not forfeit else \
                    f"folds; the {forfeit:,} put in stay in the pot (APSA 5.4.30)"
                self.betting(Fold(seat=seat, forfeit=forfeit), seat, words)
            case "check":
                self.betting(Check(seat=seat), seat, "checks")
            case "call":
                self.betting(Call(seat=seat), seat, f"calls {hand.to_call(index):,}")
            case "bet" | "raise":
                if event.amount is None:
                    return self._announce(hand, seat, index, event.action)
                word = "bets" if hand.current_bet == 0 else "raises to"
                to, why = event.amount, ""
                # CG Table Stake: the odd rest goes back
                rounded = self.core.stakes.divisible_to(hand, to)
                if rounded is not None:
                    to, why = rounded[0], f"; {rounded[1]}"
                self.betting(BetOrRaise(seat=seat, to=to), seat, f"{word} {to:,}{why}")
            case "allin":
                self.betting(*self.core.chips.allin(hand, seat, index))
        return True

    @staticmethod
    def _would_raise(hand: Hand, index: int, event: DeclareEvent) -> bool:
        if event.action in ("bet", "raise"):
            return True
        return event.action == "allin" and hand.bets[index] + hand.stacks[index] > (
            hand.current_bet)

    def _announce(self, hand: Hand, seat: int, index: int, action: Announced) -> bool:
        """"Raise" said without an amount: the chips give it (PVB 41(1)(b)(c), 44(5)). With
        chips already in the zone, they are read again as an announced raise."""
        track = self.core.track
        assert track is not None
        if not hand.can("bet_or_raise_to", index, hand.bets[index] + hand.stacks[index]):
            raise Refused(f"seat {seat} cannot {action}: call or fold", "PVB 42(6)")
        track.announced[seat] = action
        if self.core.chips.face(seat) > hand.bets[index]:
            reading = read_motion(self.core.chips.situation(hand, index), track.base.get(seat, []),
                                  track.zone.get(seat, []), self.core.chips.face(seat), action)
            if not isinstance(reading, Doubt) or reading.more:
                track.doubt = None
            self.core.chips.take_reading(seat, index, reading)
            return True
        track.doubt = None
        self._say("wait", f"seat {seat} announces a {action}: the chips give the amount",
                  rule="PVB 41(1)", seat=seat)
        return True

    def betting(self, op: Fold | Check | Call | BetOrRaise, seat: int, words: str,
                 rule: str | None = None) -> None:
        """A betting action in turn. Before the first one, RULES I1 and H4 are checked."""
        hand = self.core.table.hand
        track = self.core.track
        assert hand is not None and track is not None
        index = self.core._seat_index(seat)
        assert index is not None
        # Verify first: a refused action must not even raise the deal's alerts.
        amount = 0
        if isinstance(op, BetOrRaise):
            hand.verify_bet_or_raise_to(index, op.to)
            amount = op.to - hand.bets[index]
        elif isinstance(op, Call):
            hand.verify_call(index)
            amount = hand.to_call(index)
        elif isinstance(op, Check):
            hand.verify_check(index)
        else:
            hand.verify_fold(index, op.forfeit)
            amount = op.forfeit
        if not voluntary_actions(hand):
            self.check_deal()
        self.core.chips.pot_alert()
        self.core.table.apply(op)
        if track.doubt is not None and track.doubt[0] == seat:
            track.doubt = None
        track.announced.pop(seat, None)
        if track.clock is not None and track.clock.seat == seat:
            self._say("clock", f"seat {seat} acted in time", seat=seat, rule=track.clock.rule)
            track.clock = None
        self.core.chips.account(seat, index)
        all_in = " (all-in)" if hand.all_in[index] else ""
        self._say("action", f"seat {seat} {words}{all_in}", seat=seat, rule=rule,
                  action=type(op).__name__.lower(), amount=amount)
        self.core._after_step()

    def check_deal(self) -> None:
        """RULES I1 at the first action: every seat dealt in holds its cards; H4 the blinds in
        the betting zones match what was posted."""
        track = self.core.track
        assert track is not None
        if track.deal_checked:
            return
        track.deal_checked = True
        for irregularity in track.posting_alerts.values():
            track.irregularities.append(irregularity)
        if track.zone_chips:
            hand = self.core.table.hand
            assert hand is not None
            for k, seat in enumerate(track.dealt):
                owed = sum(a.amount for a in hand.log
                           if a.player == k and a.kind in ("ante", "blind"))
                if owed and seat not in track.zone_chips:
                    self._irregular("APSA 5.4.1", f"seat {seat} owes {owed:,} in blinds and "
                                    "antes, but nothing was seen in the betting zone", seat=seat)
        if not track.hole_reads:
            return  # no seat antennas at this table: nothing to check
        for seat in track.dealt:
            got = len(track.seat_cards.get(seat, []))
            if got == 0:
                self._irregular("PVB 30(2)(f)", f"seat {seat} is dealt in but has no cards: "
                                "misdeal, unless substantial action has taken place (PVB 30(5))",
                                seat=seat)
            elif got < track.wanted:
                self._irregular("PVB 30(2)(g)", f"seat {seat} has {got} of {track.wanted} cards: "
                                "misdeal, unless substantial action has taken place (PVB 30(5))",
                                seat=seat)

    def confirm(self) -> bool:
        hand = self.core._hand()
        if hand is None:
            raise Refused("confirm pressed, but no hand is running", "PVB 14(3)")
        if hand.stage is Stage.BETTING:
            seat = self.core.table.actor_seat()
            assert seat is not None
            index = self.core._seat_index(seat)
            assert index is not None
            track = self.core.track
            assert track is not None
            if track.doubt is not None and track.doubt[0] == seat:
                doubt = track.doubt[1]
                if doubt.default is None:
                    raise Refused(f"seat {seat}: {doubt.question}; declare what it is",
                                  doubt.rule)
                self.core.chips.apply_bet(seat, index, doubt.default)
                return True
            if seat in track.announced:
                raise Refused(f"seat {seat} announced a {track.announced[seat]}: put the chips "
                              "in, or declare the amount", "PVB 41(2)")
            if hand.to_call(index):
                raise Refused(f"seat {seat} cannot check: {hand.to_call(index):,} to call",
                              "PVB 36")
            self.betting(Check(seat=seat), seat, "checks")
            return True
        if hand.stage is Stage.SHOWDOWN:
            seat = self.core._next_to_show()
            if seat is None:
                raise Refused("every hand at showdown has been shown or mucked", "PVB 55")
            return self.core._show(seat)
        if hand.run_twice_refusal(list(range(len(hand.pots())))) is None:
            return self.core.cash.run_twice_key()  # CG Run It Twice: every player agreed
        raise Refused(f"confirm pressed, but the {STREET_NAMES[hand.street]} cards are due",
                      "PVB 36")
