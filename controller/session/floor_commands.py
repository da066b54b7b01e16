"""The dealer's keys and the floor's decisions (``command`` events; over MQTT
``table/<id>/cmd/<name>``). Each names the rule it applies; a refusal says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

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
from controller.session.model import BETTING_KINDS, FLOOR_COMMANDS, Refused
from controller.session.parts import Core

if TYPE_CHECKING:
    from controller.engine.records import HandRecord
    from controller.events import TableEvent
    from controller.session.actions import BettingActions

FloorHandler = Callable[[dict[str, Any], str, CommandEvent], bool]


class FloorCore(Core, Protocol):
    """What the dealer's keys and the floor's commands read and change of the core beyond
    every part's view: the hand's story (retold for an undo or a correction), its steps (a
    void hand, a show, a seat left), the seats away and those changing after the hand, the
    record not yet sealed, and the handlers of every part's commands."""

    @property
    def events(self) -> list[TableEvent]: ...

    @property
    def absent(self) -> set[int]: ...

    @property
    def queued_seats(self) -> list[SeatEvent]: ...

    @property
    def pending_record(self) -> HandRecord | None: ...

    def _floor_handlers(self) -> dict[str, FloorHandler]: ...

    def _retell(self, events: list[TableEvent], strict_until: int | None = None) -> None: ...

    def _acting_event(self, seat: int) -> int | None: ...

    def _seal_pending(self) -> HandRecord | None: ...

    @property
    def actions(self) -> BettingActions: ...

    def _after_step(self) -> None: ...

    def _end_void(self, status: Literal["void", "misdeal"], rule: str) -> None: ...

    def _show(self, seat: int) -> bool: ...

    def _seat_now(self, event: SeatEvent, words: str | None = None) -> None: ...

    def _substantial(self) -> bool: ...


class FloorCommands:
    """The dealer's keys (confirm, undo, call the floor) and the floor's commands. It keeps no
    state of its own: every command changes the hand (its track, the engine's table) or the
    seats through the core."""

    def __init__(self, core: FloorCore) -> None:
        self.core = core

    def snapshot_fields(self) -> dict[str, Any]:
        return {}

    # ---------------------------------------------------------------- keys and the floor

    def key(self, event: KeyEvent) -> bool:
        if event.key == "confirm":
            return self.core.actions.confirm()
        if event.key == "undo":
            self._undo()
            return False  # the edit replaced the hand's story; the key itself is not part of it
        if self.core.track is not None:
            self.core.track.floor_called = True
        self.core._say("alert", "the dealer calls the floor", rule="DFO")
        return True

    def _undo(self) -> None:
        """Take back the last action entered by the dealer (declare or confirm) when nothing but
        presence and chip readings came after it. An action the chips made is not the dealer's
        to take back: the floor corrects it (``correct``)."""
        hand = self.core._hand()
        actor_before = None
        if hand is not None and hand.log:
            last = hand.log[-1]
            if last.kind in BETTING_KINDS and last.player is not None:
                actor_before = self.core.table.seat_of(last.player)
        if actor_before is not None:
            k = self.core._acting_event(actor_before)
            if k is not None and isinstance(self.core.events[k], ChipsEvent):
                raise Refused(f"seat {actor_before}'s chips made the last action: the floor "
                              "corrects it (correct)", "PVB 64(1)")
        for k in range(len(self.core.events) - 1, -1, -1):
            event = self.core.events[k]
            if isinstance(event, DeclareEvent) or (
                isinstance(event, KeyEvent) and event.key == "confirm"
            ):
                break
            if not isinstance(event, ChipsEvent | HealthEvent):
                raise Refused("undo takes back only the last action, and something happened "
                              "after it: call the floor", "PVB 36")
        else:
            raise Refused("nothing to undo in this hand", "PVB 36")
        self.core._retell(self.core.events[:k] + self.core.events[k + 1:])
        self.core._say("decision", "the last action was taken back (undo)", rule="PVB 36")

    def command(self, event: CommandEvent) -> bool:
        by = event.by or "floor"
        args = event.args
        name = event.name
        if name not in FLOOR_COMMANDS:
            raise Refused(f"unknown floor command {name!r}", "DFO")
        return self.core._floor_handlers()[name](args, by, event)

    def _decision(self, rule: str, text: str, by: str, seat: int | None = None) -> None:
        self.core._irregular(rule, f"{text} (floor decision by {by})", seat=seat, by=by,
                             kind="decision")

    def cmd_void(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        if self.core._hand() is None:
            raise Refused("no hand is running to void", "PVB 33")
        reason = str(args.get("reason", "")) or "hand declared void"
        self._decision("PVB 33", reason, by)
        self.core._end_void("void", "PVB 33")
        return True

    def cmd_misdeal(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        if self.core._hand() is None:
            raise Refused("no hand is running to call a misdeal on", "PVB 30")
        if self.core._substantial():
            raise Refused("substantial action has taken place: no misdeal, the hand plays on",
                          "PVB 30(5), 31")
        reason = str(args.get("reason", "")) or "misdeal"
        self._decision("PVB 30", reason, by)
        self.core._end_void("misdeal", "PVB 30")
        return True

    def cmd_kill(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self.core._seat_arg(args, "kill")
        hand = self.core._hand()
        index = self.core._seat_index(seat)
        if hand is None or index is None or hand.folded[index]:
            raise Refused(f"seat {seat} has no live hand to kill", "PVB 39")
        self.core.table.apply(KillHand(seat=seat))
        reason = str(args.get("reason", "")) or "hand killed"
        self._decision("PVB 39", f"seat {seat}: {reason}", by, seat=seat)
        self.core._after_step()
        return True

    def cmd_move_button(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self.core._seat_arg(args, "move_button")
        if seat not in self.core.table.seats:
            raise Refused(f"seat {seat} has no player for the button", "PVB 29(2)")
        if self.core._hand() is not None:
            if self.core._substantial():
                raise Refused("the button was wrong, but substantial action has taken place: "
                              "play on, the button moves on normally", "PVB 29(1)")
            self._decision("PVB 29(2)", f"wrong button: the hand is void, the button goes to "
                           f"seat {seat}", by, seat=seat)
            self.core._end_void("void", "PVB 29(2)")
        self.core.table.apply(MoveButton(seat=seat))
        self.core._say("decision", f"the button goes to seat {seat} for the next hand",
                       rule="PVB 29(2)", seat=seat)
        return True

    def cmd_award(self, args: dict[str, Any], by: str, event: CommandEvent) -> bool:
        pot = args.get("pot", 1)
        seats = args.get("seats")
        if not isinstance(pot, int) or pot < 1 or not isinstance(seats, list) or not seats or \
                not all(isinstance(s, int) for s in seats):
            raise Refused("award: args.pot (1 = main pot) and args.seats (winners) please",
                          "PVB 63")
        hand = self.core.table.hand
        track = self.core.track
        if hand is None or track is None:
            raise Refused("no hand to award a pot in", "PVB 63")
        if hand.stage is Stage.SHOWDOWN:
            track.awards[pot - 1] = sorted(seats)
            self._decision("PVB 63", f"pot {pot} goes to seat(s) "
                           f"{', '.join(map(str, seats))}", by)
            self.core._after_step()
            return True
        if hand.stage is not Stage.OVER or track.settle_at is None:
            raise Refused("pots are awarded at showdown", "PVB 63")
        if len(hand.live) == 1:
            raise Refused("the pot was won uncontested: there is nothing to award", "PVB 56(2)")
        # H3: until the next shuffle the record can be corrected: replay the hand with the
        # award in place just before the event that settled it.
        at = track.settle_at
        # The award settles the hand at once; what settled it before (a show) is dropped.
        story = self.core.events
        self.core._retell([*story[:at], event, *story[at:]], strict_until=at + 1)
        self.core._say("decision", f"pot {pot} awarded again by {by}: the payout changes",
                       rule="PVB 63")
        return False  # the replay already placed the command in the story

    def cmd_correct(self, args: dict[str, Any], by: str, event: CommandEvent) -> bool:
        seat = self.core._seat_arg(args, "correct")
        action = args.get("action")
        amount = args.get("amount")
        try:
            replacement = DeclareEvent(seat=seat, action=action, amount=amount)
        except ValueError:
            raise Refused("correct: args.action is fold, check, call, bet, raise or allin, with "
                          "args.amount for a bet or raise", "PVB 64(1)") from None
        if self.core.track is None:
            raise Refused("no hand to correct", "PVB 64(1)")
        k = self.core._acting_event(seat)
        if k is None:
            raise Refused(f"seat {seat} has no action in this hand to correct", "PVB 64(1)")
        note = CommandEvent(name="note", args={"text": f"seat {seat}'s action corrected to "
                                               f"{action}", "rule": "PVB 64(1)"}, by=by)
        if isinstance(self.core.events[k], ChipsEvent):
            # The chips stay where they are; the player's word came first (PVB 50(3)), so the
            # chips now complete the corrected action (change back, or more to put in).
            story = [*self.core.events[:k], replacement, note, *self.core.events[k:]]
        else:
            story = [*self.core.events[:k], replacement, note, *self.core.events[k + 1:]]
        self.core._retell(story)
        self.core._say("decision", f"seat {seat}'s action corrected to {action} by {by}",
                       rule="PVB 64(1)", seat=seat)
        return False

    def cmd_note(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        if self.core.track is None:
            raise Refused("notes go into a hand's record: no hand to note", "DFO")
        self._decision(str(args.get("rule", "DFO")), str(args.get("text", "note")), by)
        return True

    def cmd_show(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self.core._seat_arg(args, "show")
        hand = self.core._hand()
        if hand is None or not (hand.stage is Stage.SHOWDOWN or hand.all_in_showdown()):
            raise Refused(f"seat {seat} cannot show while the betting is open", "PVB 55")
        return self.core._show(seat)

    def cmd_draw(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """PVB 30(6): a player with one card too many, noticed after substantial action (PVB
        30(5)): the floor draws one of his cards, which becomes the next burn card, and the hand
        plays on. The card the floor then puts on the burn (or muck) antenna is that card."""
        seat = self.core._seat_arg(args, "draw")
        hand = self.core._hand()
        track = self.core.track
        if hand is None or track is None:
            raise Refused("no hand is running", "PVB 30(6)")
        if len(track.seat_cards.get(seat, [])) <= track.wanted:
            raise Refused(f"seat {seat} holds no extra card to draw", "PVB 30(6)")
        if not self.core._substantial():
            raise Refused(f"seat {seat} holds {track.wanted + 1} cards before substantial "
                          "action: that is a misdeal (PVB 30(5)); use misdeal", "PVB 30(6)")
        track.draw_from = seat
        self._decision("PVB 30(6)", f"seat {seat} holds {track.wanted + 1} cards: the floor "
                       "draws one, which becomes the next burn card; put it on the burn "
                       "antenna", by, seat=seat)
        return True

    def cmd_close(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """The table plays no further hand (closed for the day, broken up, or the service
        stopping): the last hand is sealed now, since no next shuffle will seal it (RULES H3:
        the right to dispute ends when the next hand begins, and none will)."""
        if not self.core._between_hands():
            if args.get("stopping"):  # the service stopping mid-hand: the hand goes on after
                return False          # the restart, nothing to close (and nothing wrong)
            raise Refused("the table closes between hands: finish, void or kill this hand "
                          "first", "PVB 64(1)")
        if self.core.pending_record is None:
            return False  # nothing open: every hand is sealed already
        record = self.core._seal_pending()
        assert record is not None
        self.core._say("hand_over", f"the table is closed ({by}): hand {record.hand} is sealed, "
                       "no further dispute", rule="PVB 64(1)")
        return True

    def cmd_unseat(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """The tournament moves a player to another table (balancing, a broken table: PVB 09,
        10): between hands only, never queued behind a hand (the stack he takes with him is
        the one the table shows now), and only the player named (the seat may have changed
        hands meanwhile)."""
        seat = self.core._seat_arg(args, "unseat")
        player = args.get("player")
        current = self.core.table.seats.get(seat)
        if current is None or current.player != player:
            sits = f"{current.player} sits there" if current else "it is empty"
            raise Refused(f"unseat: seat {seat} is not {player}'s ({sits})", "PVB 09")
        if not self.core._between_hands():
            raise Refused(f"seat {seat}: {player} moves between hands; this hand is in play",
                          "PVB 09")
        if any(q.seat == seat for q in self.core.queued_seats):
            raise Refused(f"seat {seat} has a change waiting for the end of the hand", "PVB 09")
        where = str(args.get("reason", ""))[:120] or "another table"
        stack = current.stack
        self.core._seat_now(SeatEvent(seat=seat, player=None), words=f"{player} leaves for {where} "
                            f"with {stack:,}")
        return True

    def cmd_absent(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self.core._seat_arg(args, "absent")
        if seat not in self.core.table.seats:
            raise Refused(f"seat {seat} is empty", "PVB 23")
        self.core.absent.add(seat)
        self.core._say("seat", f"seat {seat} is away from the table", rule="PVB 23(1)", seat=seat)
        return True

    def cmd_present(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        seat = self.core._seat_arg(args, "present")
        if seat not in self.core.absent:
            return False
        self.core.absent.discard(seat)
        self.core._say("seat", f"seat {seat} is back at the table", seat=seat)
        return True
