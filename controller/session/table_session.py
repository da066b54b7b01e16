"""The hand at the table: its life from the shuffle to the sealed record, and the showdown, on
the session's core (`base`). The session holds its parts as components, made here from the
snapshot with this session as their core (`parts`): the cards the antennas read (`cards`), the
chips and actions (`chips`, `actions`), the floor's commands and holds (`floor_commands`,
`hold_commands`), time calls and penalties (`time_calls`), the shot clock (`shot_clock`),
stacks and the colour-up (`stacks`), a cash table's stakes and additions (`table_stakes`,
`cash`) and the public view (`view`).
"""

from __future__ import annotations

from typing import Literal

from controller.engine.hand import HOLE_CARDS, Stage
from controller.engine.records import HandRecord
from controller.engine.table_play import (
    Fold,
    Leave,
    Level,
    Muck,
    SetLevel,
    Settle,
    Show,
    SitDown,
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
from controller.session.actions import BettingActions
from controller.session.base import SessionBase
from controller.session.cards import CardReading
from controller.session.cash import CashGame
from controller.session.chips import ChipZones
from controller.session.floor_commands import FloorCommands, FloorHandler
from controller.session.hold_commands import HoldCommands
from controller.session.model import HandTrack, Refused, SessionSnapshot
from controller.session.outputs import Leds, TableState
from controller.session.parts import Part
from controller.session.shot_clock import ShotClock
from controller.session.stacks import StackCommands
from controller.session.table_stakes import TableStakes
from controller.session.time_calls import TimeCalls
from controller.session.view import PublicView
from controller.session.words import blinds_text, card_text_list, spaced


class TableSession(SessionBase):
    """One table, from its first seat event on: the hand's life and its showdown here; the
    cards, chips, actions, the floor, the clocks, the stakes and the public view in their own
    parts, each an attribute of the session. Not thread-safe: one loop owns it."""

    def _floor_handlers(self) -> dict[str, FloorHandler]:
        floor = self.floor
        return {"void": floor.cmd_void, "misdeal": floor.cmd_misdeal, "kill": floor.cmd_kill,
                "move_button": floor.cmd_move_button, "award": floor.cmd_award,
                "correct": floor.cmd_correct, "show": floor.cmd_show, "note": floor.cmd_note,
                "absent": floor.cmd_absent, "present": floor.cmd_present,
                "close": floor.cmd_close, "draw": floor.cmd_draw, "unseat": floor.cmd_unseat,
                "hold": self.table_holds.cmd_hold, "release": self.table_holds.cmd_release,
                "time": self.time_calls.cmd_time, "penalty": self.time_calls.cmd_penalty,
                "stack": self.stacks.cmd_stack, "colour_up": self.stacks.cmd_colour_up,
                "variant": self.cash.cmd_variant, "run_twice": self.cash.cmd_run_twice}

    # ---------------------------------------------------------------- the parts

    def _make_parts(self, snapshot: SessionSnapshot) -> None:
        self.shots = ShotClock(self, snapshot)
        self.time_calls = TimeCalls(self, snapshot)
        self.stacks = StackCommands(self, snapshot)
        self.stakes = TableStakes(self)
        self.cash = CashGame(self, snapshot)
        self.table_holds = HoldCommands(self, snapshot)
        self.floor = FloorCommands(self)
        self.view = PublicView(self)
        self.cards = CardReading(self, snapshot)
        self.chips = ChipZones(self)
        self.actions = BettingActions(self)

    def _parts(self) -> list[Part]:
        return [self.shots, self.time_calls, self.stacks, self.stakes, self.cash,
                self.table_holds, self.floor, self.view, self.cards, self.chips,
                self.actions]

    def _bind_parts(self) -> None:
        self.shots.core = self
        self.time_calls.core = self
        self.stacks.core = self
        self.stakes.core = self
        self.cash.core = self
        self.table_holds.core = self
        self.floor.core = self
        self.view.core = self
        self.cards.core = self
        self.chips.core = self
        self.actions.core = self

    # ---------------------------------------------------------------- what the service asks

    def state(self) -> TableState:
        """The public state: no hole card that was not tabled (`PublicView.state`)."""
        return self.view.state()

    def leds(self) -> Leds:
        """The dealer panel's LEDs (`PublicView.leds`)."""
        return self.view.leds()

    def chips_on_table(self) -> int:
        """Every chip at the table (`PublicView.chips_on_table`)."""
        return self.view.chips_on_table()

    def wants_ticks(self) -> bool:
        """Whether a time call's clock runs: the service then feeds ``tick`` events
        (`TimeCalls.wants_ticks`)."""
        return self.time_calls.wants_ticks()

    def shot_clock_due(self) -> float | None:
        """When the service must send a tick for the shot clock (`ShotClock.due`)."""
        return self.shots.due()

    def _dispatch(self, event: TableEvent) -> bool:
        """Returns whether the event changed anything (and belongs to the hand's story)."""
        before = self.shots.before(event)  # the shot clock: what ran out by the event's time
        changed = self._dispatch_event(event)
        return self.shots.after(changed) or changed or before

    def _dispatch_event(self, event: TableEvent) -> bool:
        match event:
            case ShuffleEvent():
                return self._shuffle(event)
            case SeatEvent():
                return self._seat(event)
            case LevelEvent():
                return self._level(event)
            case CardEvent():
                return self.cards.card(event)
            case GoneEvent():
                return False  # presence alone decides nothing
            case TickEvent():
                return self.time_calls.tick(event)
            case ForeignEvent():
                return self.cards.foreign(event)
            case ChipsEvent():
                return self.chips.read(event)
            case KeyEvent():
                return self.floor.key(event)
            case DeclareEvent():
                return self.actions.declare(event)
            case CommandEvent():
                return self.floor.command(event)
            case HealthEvent():
                return self._health(event)
        raise Refused(f"unknown event {event!r}", "docs/events.md")  # pragma: no cover


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
        refusal = self.table_holds.refusal()
        if refusal is not None:  # refused before anything moves: the last hand stays shown
            raise Refused(*refusal)
        self.stacks.close_colour_up()  # the race's readings end with the break (RULES T5)
        # Checkpoint first, whatever comes of the press: the journal stores the same snapshot
        # with it, so a restarted table and this one tell the same story.
        self.snapshot = self._make_snapshot()
        self.events = []
        self.track = None
        self._apply_queued_seats()
        table = self.table
        table.next_positions()  # raises when fewer than two players can play
        if self.pending_record is not None:  # H3: the next hand seals the last one
            self._sealed.append(self.pending_record)
            self.pending_record = None
        level_before = table.level
        start, variant = self.cash.next_hand()
        table.apply(start)
        self.table_holds.dealt()  # hand-for-hand: this hand, then wait (PVB 35a)
        p = table.positions
        assert p is not None and table.hand is not None
        self.track = HandTrack(started=event.ts, wanted=HOLE_CARDS[table.hand.game],
                               dealt=p.dealt, variant=variant)
        level = table.level
        if level != level_before:
            self._say("level", f"level {level.level} applies from this hand: "
                      f"{blinds_text(level)}", rule="PVB 14(1)")
        sb = f"small blind seat {p.sb}" if p.sb_live else "dead small blind"
        self._say("hand_started", f"hand {table.hand_number}: button seat {p.button}, {sb}, "
                  f"big blind seat {p.bb}; {blinds_text(level)}", rule="PVB 14(3)",
                  button=p.button, sb=p.sb if p.sb_live else None, bb=p.bb,
                  dealt=list(p.dealt), level=level.level)
        if variant is not None:
            self.cash.say_variant(variant)
        self.stakes.new_hand()  # an absent player's blinds (CG Blinds)
        for seat, rule in table.sitting_out().items():
            player = table.seats[seat].player
            why = ("a newcomer between the button and the small blind is dealt in from the "
                   "next hand") if rule == "PVB 10(1)" else (
                "the void hand is dealt again to its seats; they are dealt in from the next hand")
            self._say("seat", f"seat {seat}: {player} sits out this hand ({rule}): {why}",
                      rule=rule, seat=seat, player=player, sits_out=True)
        if self.time_calls.penalties:
            self.time_calls.serve()
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
        self.stakes.sit_down(event)  # CG Buy-in, CG Limits
        if not self._between_hands():
            # Judge the change against the seats as they will be after the queued ones.
            view = self.table.seats.get(event.seat)
            sitting = view.player if view is not None else None
            waiting = False
            for queued in self.queued_seats:
                if queued.seat == event.seat:
                    sitting, waiting = queued.player, True
            if event.player is not None and sitting == event.player:
                return self._seated_already(event, "sits down after this hand, as asked "
                                            "already" if waiting else "sits there already")
            if event.player is not None and sitting is not None:
                raise Refused(f"seat {event.seat} is taken", "PVB 09")
            if event.player is None and sitting is None:
                raise Refused(f"seat {event.seat} is already empty", "PVB 09")
            self.queued_seats.append(event)
            what = f"{event.player} sits down" if event.player else "the player leaves"
            self._say("seat", f"seat {event.seat}: {what} after this hand", seat=event.seat)
            return True
        current = self.table.seats.get(event.seat)
        if event.player is not None and current is not None and current.player == event.player:
            return self._seated_already(event, "sits there already")
        self._seat_now(event)
        return True

    def _seated_already(self, event: SeatEvent, words: str) -> bool:
        """The same seat asked again for the same player (a requester that has not yet seen
        it in the state, a command sent twice): said, not refused; nothing changes."""
        self._say("seat", f"seat {event.seat}: {event.player} {words}; nothing changes",
                  seat=event.seat)
        return False

    def _seat_now(self, event: SeatEvent, words: str | None = None) -> None:
        table = self.table
        current = table.seats.get(event.seat)
        if event.player is None:
            if current is None:
                raise Refused(f"seat {event.seat} is already empty", "PVB 09")
            table.apply(Leave(seat=event.seat))
            self.stakes.left_seat(event.seat, current, moved=words is not None)
            self.absent.discard(event.seat)
            self.counted.pop(event.seat, None)
            owed = self.time_calls.leaves(current.player)
            follows = f" with {owed} penalty hand(s) to serve: they follow the player " \
                f"(PVB 69(13))" if owed else ""
            said = words or f"{current.player} leaves the table"
            self._say("seat", f"seat {event.seat}: {said}{follows}", seat=event.seat,
                      penalty=owed, stack=current.stack, player=current.player)
            return
        if current is not None:
            raise Refused(f"seat {event.seat} is taken by {current.player}", "PVB 09")
        self.stakes.before_seating(event)  # a seat change keeps the stake (CG Table Stake)
        table.apply(SitDown(seat=event.seat, player=event.player, stack=event.stack))
        self.counted[event.seat] = False  # until his chips are read on the seat's zone
        self._say("seat", f"seat {event.seat}: {event.player} sits down with {event.stack:,}",
                  seat=event.seat, player=event.player, stack=event.stack)
        self.cash.told_of_straddles(event)
        self.stakes.seated(event)  # the blind he brings (CG Blinds)

    def _level(self, event: LevelEvent) -> bool:
        level = Level(level=event.level, sb=event.sb, bb=event.bb, ante=event.ante,
                      bb_ante=event.bb_ante,
                      smallest_chip=event.smallest_chip or self.table.level.smallest_chip)
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

    def _end_void(self, status: Literal["void", "misdeal"], rule: str) -> None:
        assert self.track is not None
        # A void hand is dealt again: it served nothing
        self.time_calls.served_nothing([self.table.seats[s].player for s in self.track.penalized])
        self.table.apply(VoidHand(status=status, rule=rule))
        self.cash.deal_again(self.track.variant)  # the same hand is dealt again
        record = self.table.records[-1]
        self._finish(record)

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
                if self.chips.held_in_turn(hand, actor):
                    return  # the action ran its own _after_step
                continue
            if actor is None or actor not in track.pending_folds:
                break
            track.pending_folds.discard(actor)
            track.held.pop(actor, None)
            table.apply(Fold(seat=actor))
            self._say("action", f"seat {actor} folds (folded out of turn)", rule="PVB 37(5)",
                      seat=actor)
        self.chips.round_over()
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
            self.chips.pot_alert()
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
        played = self.table_holds.hand_round  # RULES T2, PVB 64b(3)
        track.settle_at = len(self.events)
        for irregularity in track.posting_alerts.values():
            if irregularity not in track.irregularities:
                track.irregularities.append(irregularity)
        record = record.model_copy(update={
            "irregularities": list(record.irregularities) + track.irregularities,
            "started": track.started,
            "hand_for_hand_round": played,
        })
        record = self.shots.record(record)  # each action's time (docs/shot-clock.md)
        self.pending_record = record
        if record.status == "complete":
            for k, pot in enumerate(record.pots):
                self._say("payout", f"pot {k + 1} ({pot.amount:,}): {_payout_words(record, k)}",
                          rule="PVB 63", pot=k + 1, amount=pot.amount, shares=pot.shares,
                          winning_hand=pot.winning_hand)
        else:
            self._say("hand_over", f"hand {record.hand} is {record.status}: every bet goes back, "
                      "the same button deals again; press shuffle for the next hand",
                      rule="PVB 30" if record.status == "misdeal" else "PVB 33",
                      status=record.status)
        # Everyone out in this hand, with the chips each began it with: the tournament places
        # them by those (PVB 64b(1)(2)) from any one of these events.
        seat_of = {player: seat for seat, player in record.players.items()}
        kept = self.stakes.busted(record)  # a cash player keeps his seat (CG Table Stake)
        busted = {player: record.starting_stacks.get(seat_of.get(player, 0), 0)
                  for number, player in self.table.eliminated
                  if number == record.hand and player not in kept}
        for player, stack in busted.items():
            in_round = "" if played is None else (
                f" (hand-for-hand round {played}: the same hand for placing as "
                "every elimination of that round)")
            self._say("elimination", f"{player} is eliminated in hand {record.hand} with "
                      f"{stack:,} chips at its start{in_round}", rule="PVB 64b", player=player,
                      hand=record.hand, round=played, stack=stack, busted=busted,
                      started=track.started)
        leaving = {e.seat for e in self.queued_seats if e.player is None}
        arriving = [e.player for e in self.queued_seats if e.player is not None]
        with_chips = [s.player for n, s in self.table.seats.items()
                      if s.stack > 0 and n not in leaving] + arriving
        # (at a cash table a player with no chips keeps his seat and may buy some: a next
        # hand may come, and seal this one)
        buying = [s.player for n, s in self.table.seats.items()
                  if s.player in kept and n not in leaving]
        if len(with_chips) + len(buying) < 2 and record.status == "complete":
            # The last hand of the tournament (or of this table): no next shuffle can begin a
            # hand, so none will seal it (RULES H3); it is sealed now.
            self._sealed.append(record)
            self.pending_record = None
            winner = f"{with_chips[0]} has every chip" if with_chips else "no chips are left"
            self._say("hand_over", f"hand {record.hand} is over and sealed: {winner}, no further "
                      "hand can be dealt", rule="PVB 64(1)", status=record.status)
        elif record.status == "complete":  # (a misdeal or void said so above: once, for the
            # floor raises an alert for each hand end that says misdeal or void)
            self._say("hand_over", f"hand {record.hand} is over: press shuffle for the next "
                      "hand", status=record.status)
        self._apply_queued_seats()


def _payout_words(record: HandRecord, k: int) -> str:
    """'seat 3 1,200 with a flush'; a pot played on two boards board by board (CG
    Spielvarianten, Run It Twice): 'board 1: seat 3 600 with a flush; board 2: ...'."""
    pot = record.pots[k]
    parts = [(None, pot.shares, pot.winning_hand)] if not pot.boards else [
        (part.board, part.shares, part.winning_hand) for part in pot.boards]
    words = []
    for board, shares, winning in parts:
        paid = ", ".join(f"seat {s} {chips:,}" for s, chips in shares.items())
        what = ("run" if record.run_twice else "board") if board is not None else ""
        head = f"{what} {board}: " if board is not None else ""
        words.append(f"{head}{paid}{f' with {winning}' if winning else ''}")
    return "; ".join(words)
