"""The hand at the table: its life from the shuffle to the sealed record, the cards the
antennas read, the chips in the betting zones, the actions and the showdown.
"""

from __future__ import annotations

from typing import Literal

from controller.chip_reading import (
    Announced,
    Bet,
    Doubt,
    NoBet,
    Reading,
    Situation,
    added_chips,
    chips_text,
    read_motion,
)
from controller.engine.hand import BOARD_CARDS, HOLE_CARDS, STREET_NAMES, Hand, Stage, Street
from controller.engine.records import HandRecord, Irregularity
from controller.engine.table import (
    BetOrRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    DrawForButton,
    Fold,
    KillHand,
    Leave,
    Level,
    Muck,
    SetLevel,
    Settle,
    Show,
    SitDown,
    StartHand,
    VoidHand,
)
from controller.errors import RuleViolation, UnknownCards
from controller.events import (
    CardEvent,
    ChipsEvent,
    CommandEvent,
    DeclareEvent,
    ForeignEvent,
    GoneEvent,
    HealthEvent,
    KeyEvent,
    LevelEvent,
    SeatEvent,
    ShuffleEvent,
    TableEvent,
    TickEvent,
)
from controller.session.clock import TimeAndPenalties
from controller.session.floor import FloorCommands
from controller.session.model import BETTING_KINDS, HandTrack, Held, Refused
from controller.session.view import PublicView
from controller.session.words import blinds_text, card_text_list, spaced


class TableSession(FloorCommands, TimeAndPenalties, PublicView):
    """One table, from its first seat event on: the hand's life, cards, chips, actions and
    showdown here; the floor, the clock and the public view in their own parts. Not
    thread-safe: one loop owns it."""

    def _dispatch(self, event: TableEvent) -> bool:
        """Returns whether the event changed anything (and belongs to the hand's story)."""
        match event:
            case ShuffleEvent():
                return self._shuffle(event)
            case SeatEvent():
                return self._seat(event)
            case LevelEvent():
                return self._level(event)
            case CardEvent():
                return self._card(event)
            case GoneEvent():
                return False  # presence alone decides nothing
            case TickEvent():
                return self._tick(event)
            case ForeignEvent():
                return self._foreign(event)
            case ChipsEvent():
                return self._chips(event)
            case KeyEvent():
                return self._key(event)
            case DeclareEvent():
                return self._declare(event)
            case CommandEvent():
                return self._command(event)
            case HealthEvent():
                return self._health(event)
        raise Refused(f"unknown event {event!r}", "DESIGN")  # pragma: no cover

    # ---------------------------------------------------------------- hand lifecycle

    def settle_as_read(self) -> bool:
        """A showdown the dealer left without a show or muck for every claim (the next shuffle
        was pressed, or a replayed stream ended): the hands the antennas read are taken as
        tabled, cards speak (PVB 53). False if that cannot decide it (unread cards)."""
        hand = self._hand()
        if hand is None or hand.stage is not Stage.SHOWDOWN:
            return hand is None
        for seat in self._contenders(hand):
            index = self._seat_index(seat)
            if index is None or hand.shown[index] or not hand.hole[index]:
                continue
            self.table.apply(Show(seat=seat))
            cards = card_text_list(hand.hole[index])
            self._say("show", f"seat {seat} shows {spaced(cards)} (taken as tabled)",
                      seat=seat, cards=cards, rule="PVB 53")
        self._after_step()
        return self._hand() is None

    def _shuffle(self, event: ShuffleEvent) -> bool:
        hand = self._hand()
        if hand is not None and hand.stage is Stage.SHOWDOWN:
            self.settle_as_read()  # the dealer pushed the pot and moved on
            hand = self._hand()
        if hand is not None:
            actor = self.table.actor_seat()
            waiting = f"seat {actor} is to act" if actor else "it is not finished"
            raise Refused(f"shuffle pressed during hand {self.table.hand_number}: {waiting}; "
                          "finish the hand or call the floor", "PVB 64(1)")
        # Checkpoint first, whatever comes of the press: the journal stores the same snapshot
        # with it, so a restarted table and this one tell the same story.
        self.snapshot = self._make_snapshot()
        self.events = []
        self.track = None
        if self.hold is not None:
            raise Refused(f"hand-for-hand: the table waits for the tournament director before "
                          f"the next hand ({self.hold})", "PVB 35a")
        self._apply_queued_seats()
        table = self.table
        table.next_positions()  # raises when fewer than two players can play
        if self.pending_record is not None:  # H3: the next hand seals the last one
            self._sealed.append(self.pending_record)
            self.pending_record = None
        level_before = table.level
        table.apply(StartHand())
        p = table.positions
        assert p is not None and table.hand is not None
        self.track = HandTrack(started=event.ts, wanted=HOLE_CARDS[table.hand.game],
                               dealt=p.dealt)
        level = table.level
        if level != level_before:
            self._say("level", f"level {level.level} applies from this hand: "
                      f"{blinds_text(level)}", rule="PVB 14(1)")
        sb = f"small blind seat {p.sb}" if p.sb_live else "dead small blind"
        self._say("hand_started", f"hand {table.hand_number}: button seat {p.button}, {sb}, "
                  f"big blind seat {p.bb}; {blinds_text(level)}", rule="PVB 14(3)",
                  button=p.button, sb=p.sb if p.sb_live else None, bb=p.bb,
                  dealt=list(p.dealt), level=level.level)
        if self.penalties:
            self._serve_penalties()
        self._after_step()
        return True

    def _apply_queued_seats(self) -> None:
        queued, self.queued_seats = self.queued_seats, []
        for event in queued:
            try:
                self._seat_now(event)
            except RuleViolation as exc:
                self._say("refused", f"seat {event.seat}: {exc.reason}", rule=exc.rule,
                          seat=event.seat)

    def _seat(self, event: SeatEvent) -> bool:
        if event.seat > self.table.seat_count:
            raise Refused(f"seat {event.seat} does not exist at this table", "PVB 09")
        if event.player is not None and event.stack <= 0:
            raise Refused(f"seat {event.seat}: a player sits down with chips", "PVB 12")
        if not self._between_hands():
            # Judge the change against the seats as they will be after the queued ones.
            occupied = event.seat in self.table.seats
            for queued in self.queued_seats:
                if queued.seat == event.seat:
                    occupied = queued.player is not None
            if event.player is not None and occupied:
                raise Refused(f"seat {event.seat} is taken", "PVB 09")
            if event.player is None and not occupied:
                raise Refused(f"seat {event.seat} is already empty", "PVB 09")
            self.queued_seats.append(event)
            what = f"{event.player} sits down" if event.player else "the player leaves"
            self._say("seat", f"seat {event.seat}: {what} after this hand", seat=event.seat)
            return True
        self._seat_now(event)
        return True

    def _seat_now(self, event: SeatEvent) -> None:
        table = self.table
        current = table.seats.get(event.seat)
        if event.player is None:
            if current is None:
                raise Refused(f"seat {event.seat} is already empty", "PVB 09")
            table.apply(Leave(seat=event.seat))
            self.absent.discard(event.seat)
            owed = self.penalties.pop(current.player, 0)
            follows = f" with {owed} penalty hand(s) to serve: they follow the player " \
                f"(PVB 69(13))" if owed else ""
            self._say("seat", f"seat {event.seat}: {current.player} leaves the table{follows}",
                      seat=event.seat, penalty=owed, stack=current.stack)
            return
        if current is not None:
            raise Refused(f"seat {event.seat} is taken by {current.player}", "PVB 09")
        table.apply(SitDown(seat=event.seat, player=event.player, stack=event.stack))
        self._say("seat", f"seat {event.seat}: {event.player} sits down with {event.stack:,}",
                  seat=event.seat, player=event.player, stack=event.stack)

    def _level(self, event: LevelEvent) -> bool:
        level = Level(level=event.level, sb=event.sb, bb=event.bb, ante=event.ante,
                      bb_ante=event.bb_ante, smallest_chip=self.table.level.smallest_chip)
        self.table.apply(SetLevel(level=level))
        self._say("level", f"level {event.level} ({blinds_text(level)}) from the next hand",
                  rule="PVB 14(2)", level=event.level)
        return True

    def _health(self, event: HealthEvent) -> bool:
        if self.devices.get(event.device) == event.status:
            return False
        self.devices[event.device] = event.status
        self._say("device", f"{event.device}: {event.status}")
        return True

    def _foreign(self, event: ForeignEvent) -> bool:
        if event.reads == "chips":
            self._say("alert", f"a chip no chip set knows in {event.zone}: take it out of play",
                      rule="PVB 33")
            return True
        hand = self._hand()
        if hand is None:
            self._say("alert", f"a card of no registered deck on {event.zone}: take it out of "
                      "the deck", rule="APSA 2.1.14")
            return True
        self._foul(f"a card of no registered deck on {event.zone}")
        return True

    def _foul(self, what: str) -> None:
        """RULES I4: a fouled deck voids the hand; every bet goes back, earlier hands stand."""
        self._irregular("PVB 33", f"{what}: fouled deck, the hand is void and every bet goes "
                        "back (APSA 2.1.14)")
        self._end_void("void", "PVB 33")

    def _end_void(self, status: Literal["void", "misdeal"], rule: str) -> None:
        assert self.track is not None
        for seat in self.track.penalized:  # a void hand is dealt again: it served nothing
            player = self.table.seats[seat].player
            self.penalties[player] = self.penalties.get(player, 0) + 1
        self.table.apply(VoidHand(status=status, rule=rule))
        record = self.table.records[-1]
        self._finish(record)

    # ---------------------------------------------------------------- cards

    def _card(self, event: CardEvent) -> bool:
        track = self.track
        hand = self.table.hand
        if track is None or hand is None:
            return self._card_between_hands(event)
        if hand.stage is Stage.OVER:
            if event.zone == "board":  # the card is never recorded nor shown
                self._say("alert", "no rabbit hunting: the hand is over, the card stays "
                          "unseen", rule="PVB 22")
                return True
            return False
        card, zone = event.card, event.zone
        seen = track.zone_of.get(card)
        if seen is not None:
            if event.uid and card in track.uid_of and track.uid_of[card] != event.uid:
                self._foul(f"the same card twice on {seen} and {zone} (two tags)")
                return True
            if seen == zone:
                return False  # the same card read again
            if zone == "muck":
                return self._to_muck(card, seen)
            if seen in ("muck", "burn"):
                self._foul(f"a card from the {seen} came back on {zone}")
                return True
            self._foul(f"a card seen on {seen} came up again on {zone}")
            return True
        track.zone_of[card] = zone
        if event.uid:
            track.uid_of[card] = event.uid
        if zone.startswith("seat:"):
            return self._hole_card(int(zone[5:]), card)
        if zone == "board":
            return self._board_card(hand, card)
        if zone == "burn":
            track.burns += 1
            return True
        # A card straight from the stub into the muck: a burn card (muck and burn share it).
        track.burns += 1
        return True

    def _card_between_hands(self, event: CardEvent) -> bool:
        if event.zone == "board" and self.pending_record is not None:
            self._say("alert", "no rabbit hunting: the hand is over, the card stays unseen",
                      rule="PVB 22")
            return True
        if (event.zone.startswith("seat:") and self.table.positions is None
                and self.profile.button_start == "high-card"):
            seat = int(event.zone[5:])
            if seat in self.table.seats and seat not in self.draw:
                self.draw[seat] = event.card
                self._say("action", f"seat {seat} draws {event.card} for the button",
                          rule="PVB 26b", seat=seat)
                if set(self.draw) >= set(self.table.seats):
                    self.table.apply(DrawForButton(cards=dict(self.draw)))
                    self.draw = {}
                    winner = self.table.draw_winner
                    self._say("decision", f"seat {winner} wins the draw: the button starts there",
                              rule="PVB 26b", seat=winner)
                return True
        return False

    def _hole_card(self, seat: int, card: str) -> bool:
        track = self.track
        hand = self.table.hand
        assert track is not None and hand is not None
        index = self._seat_index(seat)
        expected_seat = track.dealt[track.hole_reads % len(track.dealt)]
        in_deal = track.hole_reads < track.wanted * len(track.dealt)
        track.hole_reads += 1
        if index is None:
            self._irregular("PVB 30(2)(e)", f"a card went to seat {seat}, which is not dealt in: "
                            "misdeal, unless substantial action has taken place (PVB 30(5))",
                            seat=seat)
            return True
        if track.hole_reads == 1 and seat != expected_seat:
            self._irregular("PVB 30(2)(d)", f"the first card went to seat {seat} instead of "
                            f"seat {expected_seat}: misdeal", seat=seat)
            track.order_alerted = True
        elif in_deal and seat != expected_seat and not track.order_alerted:
            track.order_alerted = True
            self._irregular("PVB 30(2)(h)", f"cards dealt out of order: seat {seat} got a card "
                            f"when seat {expected_seat} was due: misdeal", seat=seat)
        cards = track.seat_cards.setdefault(seat, [])
        cards.append(card)
        if len(cards) > track.wanted:
            self._irregular("PVB 30(6)", f"seat {seat} holds {len(cards)} cards: misdeal before "
                            "substantial action; after it the floor draws one as the next burn "
                            "card", seat=seat)
            return True
        if len(cards) == track.wanted:
            self.table.apply(DealHole(seat=seat, cards="".join(cards)))
            self._say("action", f"seat {seat} has {track.wanted} cards", seat=seat)
        self._check_at_seat()
        return True

    def _check_at_seat(self) -> None:
        """RULES H5: an absent player is dead when the first card (PVB 23(1)) or every card
        (BPS 8, APSA 5.4.2) is dealt; he still posts (H4)."""
        track = self.track
        assert track is not None
        if track.at_seat_done:
            return
        if self.profile.at_seat == "all-cards" and not all(
            len(track.seat_cards.get(s, [])) >= track.wanted for s in track.dealt
        ):
            return
        track.at_seat_done = True
        rule = "PVB 23(1)" if self.profile.at_seat == "first-card" else "APSA 5.4.2"
        for seat in track.dealt:
            if seat in self.absent and self._hand() is not None:
                hand = self.table.hand
                index = self._seat_index(seat)
                if hand is not None and index is not None and not hand.folded[index]:
                    self.table.apply(KillHand(seat=seat))
                    self._irregular(rule, f"seat {seat} was not at the seat when the cards were "
                                    "dealt: the hand is dead, the blinds stay", seat=seat)
                    self._after_step()

    def _board_card(self, hand: Hand, card: str) -> bool:
        track = self.track
        assert track is not None
        if hand.stage is Stage.BETTING or hand.stage is Stage.SHOWDOWN:
            del track.zone_of[card]
            street_acted = any(a.street == hand.street and a.kind in BETTING_KINDS
                               for a in hand.log)
            if hand.stage is Stage.BETTING and hand.street > Street.PREFLOP and not street_acted:
                # PVB 34 (four-card flop) / 35(1): the extra card is the next burn card.
                track.zone_of[card] = "burn"
                track.preset_burn = True
                rule = "PVB 34" if hand.street is Street.FLOP else "PVB 35(1)"
                self._irregular(rule, f"an extra card on the {STREET_NAMES[hand.street]}: it "
                                f"becomes the burn card of the next street")
                return True
            self._irregular("PVB 35(5)", f"a board card came before the "
                            f"{STREET_NAMES[hand.street]} betting finished: it goes back into "
                            "the stub, the betting round is finished, then the card is dealt "
                            "again")
            return True
        street = Street(hand.street + 1)
        if not track.board_buffer and self.config.check_burns:
            burns = track.burns + (1 if track.preset_burn else 0)
            if burns != 1:
                what = "no burn card" if burns == 0 else f"{burns} burn cards"
                self._irregular("PVB 35(2)", f"{what} before the {STREET_NAMES[street]}")
        track.board_buffer.append(card)
        if len(track.board_buffer) < BOARD_CARDS[street]:
            return True
        cards = "".join(track.board_buffer)
        track.board_buffer = []
        track.burns = 0
        track.preset_burn = False
        self.table.apply(DealBoard(cards=cards))
        self._say("street", f"{STREET_NAMES[street]}: {spaced(cards)}", cards=cards,
                  street=STREET_NAMES[street])
        self._after_step()
        return True

    def _to_muck(self, card: str, seen: str) -> bool:
        """A card reaching the muck antenna: a fold, or a muck at showdown."""
        track = self.track
        hand = self.table.hand
        assert track is not None and hand is not None
        track.zone_of[card] = "muck"
        if not seen.startswith("seat:"):
            return True
        seat = int(seen[5:])
        index = self._seat_index(seat)
        if index is None or hand.folded[index] or hand.mucked[index]:
            return True
        if hand.stage is Stage.SHOWDOWN or (hand.all_in_showdown() and hand.shown[index]):
            if hand.shown[index]:
                return True  # tabled, then pushed away: cards speak (PVB 53)
            self.table.apply(Muck(seat=seat))
            self._say("muck", f"seat {seat} mucks: the hand gives up its claim to the pot",
                      rule="PVB 56", seat=seat)
            self._after_step()
            return True
        if hand.stage is Stage.DEALING or self.table.actor_seat() != seat:
            track.pending_folds.add(seat)
            self._say("action", f"seat {seat} folded out of turn: binding, applied in turn",
                      rule="PVB 37(5)", seat=seat)
            self._after_step()
            return True
        self._betting(Fold(seat=seat), seat, "folds")
        return True

    # ---------------------------------------------------------------- chips

    def _chips(self, event: ChipsEvent) -> bool:
        """A betting zone (or the pot zone) settled (RULES R9: one motion). Chips are readings,
        never refused: what they mean becomes an action, a wait for the dealer, or an alert."""
        track = self.track
        hand = self._hand()
        if track is None or hand is None:
            return False
        if event.zone == "pot":
            track.pot_zone = sum(event.chips)
            self._check_pot()
            return True
        seat = int(event.zone[5:])
        new = sorted(event.chips, reverse=True)
        before = track.zone.get(seat, [])
        if new == before:
            return False
        track.zone[seat] = new
        track.zone_chips[seat] = sum(new)
        if seat in track.stale:  # sweeping: the earlier rounds' chips leave for the pot
            track.stale[seat] = min(track.stale[seat], sum(new))
            if not track.stale[seat]:
                del track.stale[seat]
                self._check_pot()
        index = self._seat_index(seat)
        if index is None:
            if new:
                self._say("alert", f"chips in seat {seat}'s betting zone, but seat {seat} is not "
                          "in this hand", rule="PVB 36", seat=seat)
            return True
        if self._posting(hand, seat, index, new):
            return True
        if self.table.actor_seat() == seat and seat not in track.held:
            return self._motion_in_turn(hand, seat, index, before, new)
        self._zone_moved(hand, seat, index, before, new)
        return True

    def _posting(self, hand: Hand, seat: int, index: int, new: list[int]) -> bool:
        """RULES H4: before the first action, a seat that owes blinds or antes posts them; an
        amount that differs is an alert (recorded if still wrong at the first action)."""
        track = self.track
        assert track is not None
        if self._voluntary_actions(hand) or self.table.actor_seat() == seat:
            return False
        owed = sum(a.amount for a in hand.log if a.player == index and a.kind in ("ante", "blind"))
        if not owed:
            return False
        total = sum(new)
        self._account(seat, index)
        if total == owed:
            track.posting_alerts.pop(seat, None)
            return True
        text = (f"seat {seat} put {total:,} in the betting zone but owes {owed:,} in blinds "
                "and antes")
        track.posting_alerts[seat] = Irregularity(rule="APSA 5.4.1", text=text, seat=seat)
        self._say("alert", text, rule="APSA 5.4.1", seat=seat)
        return True

    def _account(self, seat: int, index: int) -> None:
        """The zone as it is now is what the seat's bet is made of: chips beyond the bet are
        change due to the player (or, after the round, bets still to be swept)."""
        track = self.track
        hand = self.table.hand
        assert track is not None and hand is not None
        zone = track.zone.get(seat, [])
        track.base[seat] = list(zone)
        track.extra[seat] = max(0, sum(zone) - hand.bets[index])

    def _chips_left(self, seat: int, new: list[int], committed: int) -> None:
        """Chips left the zone: change given and unswept bets are the ones that go first."""
        track = self.track
        assert track is not None
        track.extra[seat] = min(track.extra.get(seat, 0), max(0, sum(new) - committed))

    def _face(self, seat: int, chips: list[int] | None = None) -> int:
        """The seat's bet as the zone shows it: its chips less those that are no part of it."""
        track = self.track
        assert track is not None
        zone = track.zone.get(seat, []) if chips is None else chips
        return sum(zone) - track.extra.get(seat, 0)

    def _situation(self, hand: Hand, index: int) -> Situation:
        options = hand.options()
        assert options is not None and options.player == index
        return Situation(
            committed=hand.bets[index], stack=hand.stacks[index], current_bet=hand.current_bet,
            target=hand.target(index), min_raise_to=options.min_raise_to,
            max_raise_to=options.max_raise_to, min_bet=self.table.hand_level.bb,
            preflop=hand.street is Street.PREFLOP,
            same_colour_full_raise=self.profile.same_colour_chips_full_raise,
        )

    def _motion_in_turn(self, hand: Hand, seat: int, index: int, before: list[int],
                        new: list[int]) -> bool:
        track = self.track
        assert track is not None
        if sum(new) < sum(before):
            self._chips_left(seat, new, hand.bets[index])
        doubt = track.doubt[1] if track.doubt and track.doubt[0] == seat else None
        if doubt is not None and doubt.short and doubt.default is not None:
            if self._face(seat, new) >= doubt.default.to:  # R8: completed, never a raise
                self._apply_bet(seat, index, doubt.default)
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
        reading = read_motion(self._situation(hand, index), track.base.get(seat, []), new,
                              self._face(seat, new), track.announced.get(seat))
        self._take_reading(seat, index, reading)
        return True

    def _take_reading(self, seat: int, index: int, reading: Reading) -> None:
        track = self.track
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
                self._apply_bet(seat, index, reading)

    def _apply_bet(self, seat: int, index: int, bet: Bet) -> None:
        hand = self.table.hand
        track = self.track
        assert hand is not None and track is not None
        face = self._face(seat)
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
                op, _, words = self._allin(hand, seat, index)
        if isinstance(op, BetOrRaise):
            committed = op.to
        else:
            committed = hand.bets[index] + (hand.to_call(index) if isinstance(op, Call) else 0)
        tail = ""
        if face > committed:
            tail = f"; {face - committed:,} back to the player"
        elif face < committed:
            tail = f"; {committed - face:,} more to put in"
        reason = f" ({bet.reason}{tail})" if bet.reason or tail else ""
        self._betting(op, seat, f"{words}{reason}", rule=bet.rule or None)

    def _zone_moved(self, hand: Hand, seat: int, index: int, before: list[int],
                    new: list[int]) -> None:
        """A zone changed while its seat was not the one to act: change being made, a bet being
        completed, chips out of turn (R7: held), chips after the bet (R9: back), chips taken
        back (PVB 36(3))."""
        track = self.track
        assert track is not None
        committed = hand.bets[index]
        grew = sum(new) > sum(before)
        face_before = self._face(seat, before)
        if not grew:
            self._chips_left(seat, new, committed)
        face = self._face(seat, new)
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
                                        raises=self._raises(hand))
                actor = self.table.actor_seat()
                self._say("action", f"seat {seat} put in {chips_text(added_chips(before, new))} "
                          f"out of turn (seat {actor} is to act): held; it stands if the action "
                          f"to seat {seat} does not change",
                          rule="PVB 37(3)", seat=seat)
                return
            what = "after folding" if hand.folded[index] else "after the bet settled"
            self._irregular("PVB 49", f"seat {seat} added {chips_text(added_chips(before, new))} "
                            f"{what}: those chips go back (APSA 5.4.31)", seat=seat)
        elif face < committed and face < face_before:
            self._say("alert", f"seat {seat} took {face_before - face:,} back out of the betting "
                      "zone: chips put in stay in", rule="PVB 36(3)", seat=seat)
        track.base[seat] = list(new)
        if grew:
            track.extra[seat] = max(0, sum(new) - committed)

    @staticmethod
    def _raises(hand: Hand) -> int:
        return sum(1 for a in hand.log if a.kind in ("bet", "raise"))

    def _held_in_turn(self, hand: Hand, seat: int) -> bool:
        """R7: the out-of-turn action of the seat now to act stands if nobody bet or raised
        since (a check, call or fold changes nothing), otherwise it goes back (PVB 37(3)(4))."""
        track = self.track
        assert track is not None
        held = track.held.pop(seat)
        index = self._seat_index(seat)
        assert index is not None
        if hand.current_bet != held.bet_level or self._raises(hand) != held.raises:
            what = "its chips go back" if held.chips is not None else "the declaration lapses"
            self._say("action", f"seat {seat}: the action changed since seat {seat} acted out of "
                      f"turn ({hand.current_bet:,} to match now): {what}; seat {seat} has every "
                      "option", rule="PVB 37(4)", seat=seat)
            if held.chips is not None:
                track.base[seat] = list(track.zone.get(seat, []))
                track.extra[seat] = max(0, sum(track.base[seat]) - hand.bets[index])
            return False
        self._say("action", f"seat {seat}'s action out of turn stands: the action to seat {seat} "
                  "did not change", rule="PVB 37(3)", seat=seat)
        if held.declare is not None:
            self._declare(held.declare)
            return True
        assert held.chips is not None
        reading = read_motion(self._situation(hand, index), track.base.get(seat, []),
                              held.chips, self._face(seat, held.chips), None)
        self._take_reading(seat, index, reading)
        return isinstance(reading, Bet)

    def _round_over(self) -> None:
        """A betting round ended: the zones' chips are bets of a finished round, to be swept
        into the pot; anything held out of turn lapses."""
        track = self.track
        hand = self.table.hand
        assert track is not None and hand is not None
        if hand.street == track.street and hand.stage is Stage.BETTING:
            return
        track.street = hand.street if hand.stage is Stage.BETTING else hand.street + 1
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

    def _check_pot(self) -> None:
        """Sweeping: once every finished round's bets left the betting zones, the pot zone must
        hold what the engine's pots hold. A difference is published when the dealer moves on
        (the next round's first action, or the showdown)."""
        track = self.track
        hand = self.table.hand
        assert track is not None and hand is not None
        if track.pot_zone is None or track.stale or track.street == 0:
            return
        collected = hand.pot_total() - sum(hand.bets)
        track.pot_difference = track.pot_zone - collected or None

    def _pot_alert(self) -> None:
        track = self.track
        hand = self.table.hand
        assert track is not None and hand is not None
        difference = track.pot_difference
        if difference is None or track.street in track.pot_alerted or track.pot_zone is None:
            return
        track.pot_alerted.add(track.street)
        collected = track.pot_zone - difference
        more = "more" if difference > 0 else "less"
        self._irregular("APSA 5.4.25", f"the pot zone holds {track.pot_zone:,}, the pots make "
                        f"{collected:,}: {abs(difference):,} {more}; count the pot")

    @staticmethod
    def _voluntary_actions(hand: Hand) -> int:
        return sum(1 for a in hand.log if a.kind in BETTING_KINDS)

    # ---------------------------------------------------------------- actions

    def _declare(self, event: DeclareEvent) -> bool:
        hand = self._hand()
        if hand is None:
            raise Refused(f"seat {event.seat} declared {event.action}, but no hand is running",
                          "PVB 14(3)")
        seat = event.seat
        index = self._seat_index(seat)
        if index is None:
            raise Refused(f"seat {seat} is not dealt in this hand", "PVB 30(2)")
        actor = self.table.actor_seat()
        if event.action == "fold" and hand.stage is Stage.SHOWDOWN and not hand.mucked[index]:
            self.table.apply(Muck(seat=seat))
            self._say("muck", f"seat {seat} mucks: the hand gives up its claim to the pot",
                      rule="PVB 56", seat=seat)
            self._after_step()
            return True
        if event.action == "fold" and actor != seat and not hand.folded[index]:
            assert self.track is not None
            self.track.pending_folds.add(seat)
            self._say("action", f"seat {seat} folded out of turn: binding, applied in turn",
                      rule="PVB 37(5)", seat=seat)
            self._after_step()
            return True
        if hand.stage is not Stage.BETTING:
            raise Refused(f"seat {seat} declared {event.action}, but the "
                          f"{STREET_NAMES[hand.street]} betting is over", "PVB 36")
        track = self.track
        assert track is not None
        if actor != seat:
            if hand.folded[index] or hand.all_in[index] or not hand.still_to_act(index):
                raise Refused(f"seat {seat} declared {event.action}, but seat {seat} has no "
                              f"action to come (seat {actor} is to act)", "PVB 36")
            if event.action in ("bet", "raise") and event.amount is None:
                raise Refused(f"seat {seat} {event.action}s out of turn: say how much",
                              "PVB 36(2)")
            track.held[seat] = Held(chips=None, declare=event, bet_level=hand.current_bet,
                                    raises=self._raises(hand))
            self._say("action", f"seat {seat} declared {event.action} out of turn (seat {actor} "
                      f"is to act): held; it stands if the action to seat {seat} does not "
                      "change", rule="PVB 37(3)", seat=seat)
            return True
        doubt = track.doubt[1] if track.doubt and track.doubt[0] == seat else None
        match event.action:
            case "fold":
                forfeit = 0
                if doubt is not None and doubt.short:  # R8: the short call's chips stay in
                    forfeit = max(0, self._face(seat) - hand.bets[index])
                words = "folds" if not forfeit else \
                    f"folds; the {forfeit:,} put in stay in the pot (APSA 5.4.30)"
                self._betting(Fold(seat=seat, forfeit=forfeit), seat, words)
            case "check":
                self._betting(Check(seat=seat), seat, "checks")
            case "call":
                self._betting(Call(seat=seat), seat, f"calls {hand.to_call(index):,}")
            case "bet" | "raise":
                if event.amount is None:
                    return self._announce(hand, seat, index, event.action)
                word = "bets" if hand.current_bet == 0 else "raises to"
                self._betting(BetOrRaise(seat=seat, to=event.amount), seat,
                              f"{word} {event.amount:,}")
            case "allin":
                self._betting(*self._allin(hand, seat, index))
        return True

    @staticmethod
    def _allin(hand: Hand, seat: int, index: int) -> tuple[BetOrRaise | Call, int, str]:
        """All-in: a bet or raise of everything when the rules allow one, else a call."""
        everything = hand.bets[index] + hand.stacks[index]
        if everything > hand.current_bet and hand.can("bet_or_raise_to", index, everything):
            return BetOrRaise(seat=seat, to=everything), seat, f"is all-in for {everything:,}"
        return Call(seat=seat), seat, "calls all-in"

    def _announce(self, hand: Hand, seat: int, index: int, action: Announced) -> bool:
        """"Raise" said without an amount: the chips give it (PVB 41(1)(b)(c), 44(5)). With
        chips already in the zone, they are read again as an announced raise."""
        track = self.track
        assert track is not None
        if not hand.can("bet_or_raise_to", index, hand.bets[index] + hand.stacks[index]):
            raise Refused(f"seat {seat} cannot {action}: call or fold", "PVB 42(6)")
        track.announced[seat] = action
        if self._face(seat) > hand.bets[index]:
            reading = read_motion(self._situation(hand, index), track.base.get(seat, []),
                                  track.zone.get(seat, []), self._face(seat), action)
            if not isinstance(reading, Doubt) or reading.more:
                track.doubt = None
            self._take_reading(seat, index, reading)
            return True
        track.doubt = None
        self._say("wait", f"seat {seat} announces a {action}: the chips give the amount",
                  rule="PVB 41(1)", seat=seat)
        return True

    def _betting(self, op: Fold | Check | Call | BetOrRaise, seat: int, words: str,
                 rule: str | None = None) -> None:
        """A betting action in turn. Before the first one, RULES I1 and H4 are checked."""
        hand = self.table.hand
        track = self.track
        assert hand is not None and track is not None
        index = self._seat_index(seat)
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
        if not self._voluntary_actions(hand):
            self._check_deal()
        self._pot_alert()
        self.table.apply(op)
        if track.doubt is not None and track.doubt[0] == seat:
            track.doubt = None
        track.announced.pop(seat, None)
        if track.clock is not None and track.clock.seat == seat:
            self._say("clock", f"seat {seat} acted in time", seat=seat, rule=track.clock.rule)
            track.clock = None
        self._account(seat, index)
        all_in = " (all-in)" if hand.all_in[index] else ""
        self._say("action", f"seat {seat} {words}{all_in}", seat=seat, rule=rule,
                  action=type(op).__name__.lower(), amount=amount)
        self._after_step()

    def _check_deal(self) -> None:
        """RULES I1 at the first action: every seat dealt in holds its cards; H4 the blinds in
        the betting zones match what was posted."""
        track = self.track
        assert track is not None
        if track.deal_checked:
            return
        track.deal_checked = True
        for irregularity in track.posting_alerts.values():
            track.irregularities.append(irregularity)
        if track.zone_chips:
            hand = self.table.hand
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

    def _confirm(self) -> bool:
        hand = self._hand()
        if hand is None:
            raise Refused("confirm pressed, but no hand is running", "PVB 14(3)")
        if hand.stage is Stage.BETTING:
            seat = self.table.actor_seat()
            assert seat is not None
            index = self._seat_index(seat)
            assert index is not None
            track = self.track
            assert track is not None
            if track.doubt is not None and track.doubt[0] == seat:
                doubt = track.doubt[1]
                if doubt.default is None:
                    raise Refused(f"seat {seat}: {doubt.question}; declare what it is",
                                  doubt.rule)
                self._apply_bet(seat, index, doubt.default)
                return True
            if seat in track.announced:
                raise Refused(f"seat {seat} announced a {track.announced[seat]}: put the chips "
                              "in, or declare the amount", "PVB 41(2)")
            if hand.to_call(index):
                raise Refused(f"seat {seat} cannot check: {hand.to_call(index):,} to call",
                              "PVB 36")
            self._betting(Check(seat=seat), seat, "checks")
            return True
        if hand.stage is Stage.SHOWDOWN:
            seat = self._next_to_show()
            if seat is None:
                raise Refused("every hand at showdown has been shown or mucked", "PVB 55")
            return self._show(seat)
        raise Refused(f"confirm pressed, but the {STREET_NAMES[hand.street]} cards are due",
                      "PVB 36")

    # ---------------------------------------------------------------- showdown

    def _show(self, seat: int) -> bool:
        hand = self.table.hand
        index = self._seat_index(seat)
        if hand is None or index is None:
            raise Refused(f"seat {seat} has no hand to show", "PVB 56")
        if hand.shown[index]:
            return False
        if not hand.hole[index]:
            raise Refused(f"seat {seat}'s cards were never read: the floor awards the pot",
                          "PVB 53")
        self.table.apply(Show(seat=seat))
        cards = card_text_list(hand.hole[index])
        self._say("show", f"seat {seat} shows {spaced(cards)}", seat=seat, cards=cards)
        self._after_step()
        return True

    def _after_step(self) -> None:
        """After any change: apply binding folds in turn (R7), announce showdowns (S3, S4),
        settle when every claim is known (S5), finish the hand."""
        table = self.table
        track = self.track
        hand = table.hand
        if hand is None or track is None:
            return
        while hand.stage is Stage.BETTING:
            actor = table.actor_seat()
            if actor is not None and actor in track.held and actor not in track.pending_folds:
                if self._held_in_turn(hand, actor):
                    return  # the action ran its own _after_step
                continue
            if actor is None or actor not in track.pending_folds:
                break
            track.pending_folds.discard(actor)
            track.held.pop(actor, None)
            table.apply(Fold(seat=actor))
            self._say("action", f"seat {actor} folds (folded out of turn)", rule="PVB 37(5)",
                      seat=actor)
        self._round_over()
        if hand.stage is Stage.OVER:
            if track.settle_at is None:
                self._finish(table.records[-1])
            return
        if hand.all_in_showdown() and not track.face_up_told:
            track.face_up_told = True
            self._say("showdown", "all-in and no more betting: every hand is turned face up",
                      rule="PVB 54")
            for seat in self._contenders(hand):
                index = self._seat_index(seat)
                if index is not None and hand.hole[index] and not hand.shown[index]:
                    table.apply(Show(seat=seat))
                    cards = card_text_list(hand.hole[index])
                    self._say("show", f"seat {seat} shows {spaced(cards)}", seat=seat,
                              cards=cards, rule="PVB 54")
        if hand.stage is not Stage.SHOWDOWN:
            return
        for seat in list(track.pending_folds):
            index = self._seat_index(seat)
            if index is not None and not hand.mucked[index] and not hand.folded[index]:
                table.apply(Muck(seat=seat))
        contenders = self._contenders(hand)
        if not track.showdown_told:
            track.showdown_told = True
            self._pot_alert()
            if len(contenders) > 1:
                self._say("showdown", f"showdown: seat {contenders[0]} shows first",
                          rule="PVB 55", order=contenders)
        unshown = [s for s in contenders if not hand.shown[self._seat_index(s) or 0]]
        every_pot_awarded = set(range(len(hand.pots()))) <= set(track.awards)
        if len(contenders) > 1 and unshown and not every_pot_awarded:
            return
        try:
            table.apply(Settle(awards={k: seats for k, seats in track.awards.items()}))
        except UnknownCards as exc:
            self._say("alert", f"{exc}: the floor awards the pot", rule="PVB 53")
            return
        self._finish(table.records[-1])

    def _finish(self, record: HandRecord) -> None:
        """The hand is over: pay out, keep the record until the next shuffle seals it (H3)."""
        track = self.track
        assert track is not None
        track.settle_at = len(self.events)
        for irregularity in track.posting_alerts.values():
            if irregularity not in track.irregularities:
                track.irregularities.append(irregularity)
        record = record.model_copy(update={
            "irregularities": list(record.irregularities) + track.irregularities,
            "started": track.started,
        })
        self.pending_record = record
        if record.status == "complete":
            for k, pot in enumerate(record.pots):
                shares = ", ".join(f"seat {s} {chips:,}" for s, chips in pot.shares.items())
                hand_name = f" with {pot.winning_hand}" if pot.winning_hand else ""
                self._say("payout", f"pot {k + 1} ({pot.amount:,}): {shares}{hand_name}",
                          rule="PVB 63", pot=k + 1, amount=pot.amount, shares=pot.shares,
                          winning_hand=pot.winning_hand)
        else:
            self._say("hand_over", f"hand {record.hand} is {record.status}: every bet goes back, "
                      "the same button deals again", rule="PVB 30" if record.status ==
                      "misdeal" else "PVB 33", status=record.status)
        for number, player in self.table.eliminated:
            if number == record.hand:
                self._say("elimination", f"{player} is eliminated in hand {number}",
                          rule="PVB 64b", player=player)
        self._say("hand_over", f"hand {record.hand} is over: press shuffle for the next hand",
                  status=record.status)
        self._apply_queued_seats()
