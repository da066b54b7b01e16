"""The dealer's keys and the floor's decisions (``command`` events; over MQTT
``table/<id>/cmd/<name>``). Each names the rule it applies; a refusal says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from controller.engine.hand import Stage
from controller.engine.table_play import KillHand, MoveButton
from controller.events import (
    ChipsEvent,
    CommandEvent,
    DeclareEvent,
    HealthEvent,
    KeyEvent,
    SeatEvent,
)
from controller.session.base import SessionBase
from controller.session.model import BETTING_KINDS, FLOOR_COMMANDS, Refused
from controller.session.table_holds import HAND_FOR_HAND, HOLD_KINDS, HoldKind, TableHolds, kind_of

FloorHandler = Callable[[dict[str, Any], str, CommandEvent], bool]


class FloorCommands(SessionBase):
    """The dealer's keys (confirm, undo, call the floor) and the floor's commands."""

    # ---------------------------------------------------------------- keys and the floor

    def _key(self, event: KeyEvent) -> bool:
        if event.key == "confirm":
            return self._confirm()
        if event.key == "undo":
            self._undo()
            return False  # the edit replaced the hand's story; the key itself is not part of it
        if self.track is not None:
            self.track.floor_called = True
        self._say("alert", "the dealer calls the floor", rule="DFO")
        return True

    def _undo(self) -> None:
        """Take back the last action entered by the dealer (declare or confirm) when nothing but
        presence and chip readings came after it. An action the chips made is not the dealer's
        to take back: the floor corrects it (``correct``)."""
        hand = self._hand()
        actor_before = None
        if hand is not None and hand.log:
            last = hand.log[-1]
            if last.kind in BETTING_KINDS and last.player is not None:
                actor_before = self.table.seat_of(last.player)
        if actor_before is not None:
            k = self._acting_event(actor_before)
            if k is not None and isinstance(self.events[k], ChipsEvent):
                raise Refused(f"seat {actor_before}'s chips made the last action: the floor "
                              "corrects it (correct)", "PVB 64(1)")
        for k in range(len(self.events) - 1, -1, -1):
            event = self.events[k]
            if isinstance(event, DeclareEvent) or (
                isinstance(event, KeyEvent) and event.key == "confirm"
            ):
                break
            if not isinstance(event, ChipsEvent | HealthEvent):
                raise Refused("undo takes back only the last action, and something happened "
                              "after it: call the floor", "PVB 36")
        else:
            raise Refused("nothing to undo in this hand", "PVB 36")
        fresh = self._replayed(self.events[:k] + self.events[k + 1:])
        self._adopt(fresh)
        self._say("decision", "the last action was taken back (undo)", rule="PVB 36")

    def _command(self, event: CommandEvent) -> bool:
        by = event.by or "floor"
        args = event.args
        name = event.name
        if name not in FLOOR_COMMANDS:
            raise Refused(f"unknown floor command {name!r}", "DFO")
        return self._floor_handlers()[name](args, by, event)

    def _floor_handlers(self) -> dict[str, FloorHandler]:
        """Each floor command's handler by name (the table session names them all: they live
        in several of its parts)."""
        raise NotImplementedError


    def _decision(self, rule: str, text: str, by: str, seat: int | None = None) -> None:
        self._irregular(rule, f"{text} (floor decision by {by})", seat=seat, by=by,
                        kind="decision")

    def _cmd_void(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        if self._hand() is None:
            raise Refused("no hand is running to void", "PVB 33")
        reason = str(args.get("reason", "")) or "hand declared void"
        self._decision("PVB 33", reason, by)
        self._end_void("void", "PVB 33")
        return True

    def _cmd_misdeal(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        if self._hand() is None:
            raise Refused("no hand is running to call a misdeal on", "PVB 30")
        if self._substantial():
            raise Refused("substantial action has taken place: no misdeal, the hand plays on",
                          "PVB 30(5), 31")
        reason = str(args.get("reason", "")) or "misdeal"
        self._decision("PVB 30", reason, by)
        self._end_void("misdeal", "PVB 30")
        return True

    def _cmd_kill(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self._seat_arg(args, "kill")
        hand = self._hand()
        index = self._seat_index(seat)
        if hand is None or index is None or hand.folded[index]:
            raise Refused(f"seat {seat} has no live hand to kill", "PVB 39")
        self.table.apply(KillHand(seat=seat))
        reason = str(args.get("reason", "")) or "hand killed"
        self._decision("PVB 39", f"seat {seat}: {reason}", by, seat=seat)
        self._after_step()
        return True

    def _cmd_move_button(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self._seat_arg(args, "move_button")
        if seat not in self.table.seats:
            raise Refused(f"seat {seat} has no player for the button", "PVB 29(2)")
        if self._hand() is not None:
            if self._substantial():
                raise Refused("the button was wrong, but substantial action has taken place: "
                              "play on, the button moves on normally", "PVB 29(1)")
            self._decision("PVB 29(2)", f"wrong button: the hand is void, the button goes to "
                           f"seat {seat}", by, seat=seat)
            self._end_void("void", "PVB 29(2)")
        self.table.apply(MoveButton(seat=seat))
        self._say("decision", f"the button goes to seat {seat} for the next hand",
                  rule="PVB 29(2)", seat=seat)
        return True

    def _cmd_award(self, args: dict[str, Any], by: str, event: CommandEvent) -> bool:
        pot = args.get("pot", 1)
        seats = args.get("seats")
        if not isinstance(pot, int) or pot < 1 or not isinstance(seats, list) or not seats or \
                not all(isinstance(s, int) for s in seats):
            raise Refused("award: args.pot (1 = main pot) and args.seats (winners) please",
                          "PVB 63")
        hand = self.table.hand
        track = self.track
        if hand is None or track is None:
            raise Refused("no hand to award a pot in", "PVB 63")
        if hand.stage is Stage.SHOWDOWN:
            track.awards[pot - 1] = sorted(seats)
            self._decision("PVB 63", f"pot {pot} goes to seat(s) "
                           f"{', '.join(map(str, seats))}", by)
            self._after_step()
            return True
        if hand.stage is not Stage.OVER or track.settle_at is None:
            raise Refused("pots are awarded at showdown", "PVB 63")
        if len(hand.live) == 1:
            raise Refused("the pot was won uncontested: there is nothing to award", "PVB 56(2)")
        # H3: until the next shuffle the record can be corrected: replay the hand with the
        # award in place just before the event that settled it.
        at = track.settle_at
        # The award settles the hand at once; what settled it before (a show) is dropped.
        fresh = self._replayed([*self.events[:at], event, *self.events[at:]], strict_until=at + 1)
        self._adopt(fresh)
        self._say("decision", f"pot {pot} awarded again by {by}: the payout changes",
                  rule="PVB 63")
        return False  # the replay already placed the command in the story

    def _cmd_correct(self, args: dict[str, Any], by: str, event: CommandEvent) -> bool:
        seat = self._seat_arg(args, "correct")
        action = args.get("action")
        amount = args.get("amount")
        try:
            replacement = DeclareEvent(seat=seat, action=action, amount=amount)
        except ValueError:
            raise Refused("correct: args.action is fold, check, call, bet, raise or allin, with "
                          "args.amount for a bet or raise", "PVB 64(1)") from None
        if self.track is None:
            raise Refused("no hand to correct", "PVB 64(1)")
        k = self._acting_event(seat)
        if k is None:
            raise Refused(f"seat {seat} has no action in this hand to correct", "PVB 64(1)")
        note = CommandEvent(name="note", args={"text": f"seat {seat}'s action corrected to "
                                               f"{action}", "rule": "PVB 64(1)"}, by=by)
        if isinstance(self.events[k], ChipsEvent):
            # The chips stay where they are; the player's word came first (PVB 50(3)), so the
            # chips now complete the corrected action (change back, or more to put in).
            story = [*self.events[:k], replacement, note, *self.events[k:]]
        else:
            story = [*self.events[:k], replacement, note, *self.events[k + 1:]]
        fresh = self._replayed(story)
        self._adopt(fresh)
        self._say("decision", f"seat {seat}'s action corrected to {action} by {by}",
                  rule="PVB 64(1)", seat=seat)
        return False

    def _acting_event(self, seat: int) -> int | None:
        """The position in the hand's story of the event that made ``seat``'s last action (a
        declare, a confirm key, or chips in its zone)."""
        probe = type(self)(self.config, self.snapshot)
        found = None
        for k, event in enumerate(self.events):
            hand = probe.table.hand
            before = len(hand.log) if hand is not None else 0
            probe._dispatch_accepting(event)
            hand = probe.table.hand
            index = probe._seat_index(seat)
            own = (isinstance(event, DeclareEvent) and event.seat == seat) or (
                isinstance(event, ChipsEvent) and event.zone == f"seat:{seat}") or (
                isinstance(event, KeyEvent) and event.key == "confirm")
            if hand is None or index is None or not own:
                continue
            if any(a.player == index and a.kind in BETTING_KINDS for a in hand.log[before:]):
                found = k
        return found

    def _cmd_note(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        if self.track is None:
            raise Refused("notes go into a hand's record: no hand to note", "DFO")
        self._decision(str(args.get("rule", "DFO")), str(args.get("text", "note")), by)
        return True

    def _cmd_show(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self._seat_arg(args, "show")
        hand = self._hand()
        if hand is None or not (hand.stage is Stage.SHOWDOWN or hand.all_in_showdown()):
            raise Refused(f"seat {seat} cannot show while the betting is open", "PVB 55")
        return self._show(seat)

    def _cmd_hold(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """A hold on the next shuffle, by its source (``args.kind``: break, hand_for_hand,
        floor; without it, what the reason says). Holds stack; the same hold again changes
        nothing (the clock may ask twice)."""
        reason = str(args.get("reason", ""))[:200]
        kind = _hold_kind(args, reason)
        reason = reason or (HAND_FOR_HAND if kind == "hand_for_hand" else kind)
        holds = self.holds.held(kind, reason)
        if holds is None:
            return False
        self.holds = holds
        if kind == "break":
            self._say("hold", f"after this hand the table waits for the end of the break "
                      f"({reason})", rule="PVB 14")
        elif kind == "floor":
            self._say("hold", f"the floor holds the table after this hand ({reason}, {by})",
                      rule="DFO")
        elif kind == "upgrade":
            self._say("hold", f"after this hand the table waits while its software is "
                      f"upgraded ({reason})", rule="H1")
        elif kind == "seating":
            self._say("hold", f"after this hand the table waits for its new players to take "
                      f"their seats ({reason})", rule="PVB 09(3)")
        else:
            self._say("hold", f"hand-for-hand: after this hand the table waits ({reason})",
                      rule="PVB 35a")
        return True

    def _cmd_release(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """A hold lifted (``args.kind``; without it every hold: the floor's override, which the
        clock puts back where its break or hand-for-hand still applies). ``one_hand`` with
        ``round``: hand-for-hand releases the table for one hand of that round (PVB 35a), once
        a round; a hold still on (a break) keeps it from dealing until it is lifted."""
        if args.get("one_hand") is True:
            number = args.get("round")
            if number is None:  # (a console's release: the round after the last one played)
                number = (self.hand_round or 0) + 1
            if type(number) is not int or number < 1:
                raise Refused("release for one hand: args.round is the hand-for-hand round, "
                              "from 1", "PVB 35a")
            holds = self.holds.released(number, self.hand_round)
            if holds is None:
                return False
            self.holds = holds
            after = f" once the {self.holds.summary()} is over" if holds.reasons else ""
            self._say("hold", f"hand-for-hand round {number}: the table plays one hand{after}, "
                      "then waits again", rule="PVB 35a")
            return True
        kind = _hold_kind(args, None) if "kind" in args else None
        holds = self.holds.lifted(kind)
        if holds is None:
            return False  # nothing to release
        self.holds = holds
        if holds.reasons:
            self._say("hold", f"still held: {holds.summary()}", rule=_rule(holds))
        else:
            self._say("hold", "the table may shuffle the next hand",
                      rule=_rule(TableHolds(reasons={kind: ""})) if kind else "DFO")
        return True

    def _cmd_draw(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """PVB 30(6): a player with one card too many, noticed after substantial action (PVB
        30(5)): the floor draws one of his cards, which becomes the next burn card, and the hand
        plays on. The card the floor then puts on the burn (or muck) antenna is that card."""
        seat = self._seat_arg(args, "draw")
        hand = self._hand()
        track = self.track
        if hand is None or track is None:
            raise Refused("no hand is running", "PVB 30(6)")
        if len(track.seat_cards.get(seat, [])) <= track.wanted:
            raise Refused(f"seat {seat} holds no extra card to draw", "PVB 30(6)")
        if not self._substantial():
            raise Refused(f"seat {seat} holds {track.wanted + 1} cards before substantial "
                          "action: that is a misdeal (PVB 30(5)); use misdeal", "PVB 30(6)")
        track.draw_from = seat
        self._decision("PVB 30(6)", f"seat {seat} holds {track.wanted + 1} cards: the floor "
                       "draws one, which becomes the next burn card; put it on the burn "
                       "antenna", by, seat=seat)
        return True

    def _cmd_close(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """The table plays no further hand (closed for the day, broken up, or the service
        stopping): the last hand is sealed now, since no next shuffle will seal it (RULES H3:
        the right to dispute ends when the next hand begins, and none will)."""
        if not self._between_hands():
            if args.get("stopping"):  # the service stopping mid-hand: the hand goes on after
                return False          # the restart, nothing to close (and nothing wrong)
            raise Refused("the table closes between hands: finish, void or kill this hand "
                          "first", "PVB 64(1)")
        if self.pending_record is None:
            return False  # nothing open: every hand is sealed already
        record = self.pending_record
        self._sealed.append(record)
        self.pending_record = None
        self._say("hand_over", f"the table is closed ({by}): hand {record.hand} is sealed, "
                  "no further dispute", rule="PVB 64(1)")
        return True

    def _cmd_unseat(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """The tournament moves a player to another table (balancing, a broken table: PVB 09,
        10): between hands only, never queued behind a hand (the stack he takes with him is
        the one the table shows now), and only the player named (the seat may have changed
        hands meanwhile)."""
        seat = self._seat_arg(args, "unseat")
        player = args.get("player")
        current = self.table.seats.get(seat)
        if current is None or current.player != player:
            sits = f"{current.player} sits there" if current else "it is empty"
            raise Refused(f"unseat: seat {seat} is not {player}'s ({sits})", "PVB 09")
        if not self._between_hands():
            raise Refused(f"seat {seat}: {player} moves between hands; this hand is in play",
                          "PVB 09")
        if any(q.seat == seat for q in self.queued_seats):
            raise Refused(f"seat {seat} has a change waiting for the end of the hand", "PVB 09")
        where = str(args.get("reason", ""))[:120] or "another table"
        stack = current.stack
        self._seat_now(SeatEvent(seat=seat, player=None), words=f"{player} leaves for {where} "
                       f"with {stack:,}")
        return True

    def _cmd_absent(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self._seat_arg(args, "absent")
        if seat not in self.table.seats:
            raise Refused(f"seat {seat} is empty", "PVB 23")
        self.absent.add(seat)
        self._say("seat", f"seat {seat} is away from the table", rule="PVB 23(1)", seat=seat)
        return True

    def _cmd_present(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self._seat_arg(args, "present")
        if seat not in self.absent:
            return False
        self.absent.discard(seat)
        self._say("seat", f"seat {seat} is back at the table", seat=seat)
        return True


def _hold_kind(args: dict[str, Any], reason: str | None) -> HoldKind:
    kind = args.get("kind")
    if kind is None and reason is not None:
        return kind_of(reason)
    if kind not in HOLD_KINDS:
        raise Refused(f"args.kind is one of {', '.join(HOLD_KINDS)}, not {kind!r}", "DFO")
    assert isinstance(kind, str)
    return cast(HoldKind, kind)


def _rule(holds: TableHolds) -> str:
    first = holds.first()
    kind = first[0] if first else "floor"
    return {"break": "PVB 14", "hand_for_hand": "PVB 35a", "floor": "DFO", "upgrade": "H1",
            "seating": "PVB 09(3)"}[kind]
