"""The session's core: its state, snapshots and replay, the entry point ``handle`` and the helpers
the parts share. The parts (`hand`, `floor`, `clock`, `view`) add their handlers.
"""

from __future__ import annotations

import traceback
from typing import Any, Literal, Self

from controller.engine.hand import Hand, Stage
from controller.engine.profiles import RuleProfile, load_profile
from controller.engine.records import HandRecord, Irregularity
from controller.engine.table_play import BetOrRaise, Call, Check, Fold, Table
from controller.errors import RuleViolation
from controller.events import DeclareEvent, SeatEvent, ShuffleEvent, TableEvent
from controller.session.model import (
    AGGRESSIVE_KINDS,
    BETTING_KINDS,
    COMMAND_IDS_KEPT,
    HandTrack,
    Refused,
    SessionConfig,
    SessionSnapshot,
    Step,
)
from controller.session.outputs import EventKind, PublicEvent
from controller.session.table_holds import TableHolds


class SessionBase:
    """What every part of the session shares: its state, snapshots and replay, the entry point
    and the helpers. Not thread-safe: one loop owns it."""

    def __init__(self, config: SessionConfig | None = None,
                 snapshot: SessionSnapshot | None = None) -> None:
        self.config = config or SessionConfig()
        self.profile: RuleProfile = load_profile(self.config.profile)
        if snapshot is None:
            self.table = Table(table_id=self.config.table_id, profile=self.profile,
                               level=self.config.level, seats=self.config.seats,
                               straddles=self.config.straddles)
            snapshot = self._make_snapshot()
        self._load(snapshot)

    # ---------------------------------------------------------------- snapshots and replay

    def _load(self, snapshot: SessionSnapshot) -> None:
        self.table = Table.from_snapshot(snapshot.table, table_id=self.config.table_id,
                                         profile=self.profile, seats=self.config.seats,
                                         straddles=self.config.straddles)
        self.holds = snapshot.holds
        # The hand-for-hand round of the hand now played (or last played, between hands)
        self.hand_round: int | None = None
        self.queued_seats = list(snapshot.queued_seats)
        self.pending_record = snapshot.pending_record
        self.absent = set(snapshot.absent)
        self.devices = dict(snapshot.devices)
        self.draw = dict(snapshot.draw)
        self.penalties = dict(snapshot.penalties)
        self.command_ids = list(snapshot.command_ids)
        self.counted = dict(snapshot.counted)
        self.colour_up = snapshot.colour_up
        self.stack_refs = list(snapshot.stack_refs)
        self.next_variant = snapshot.next_variant
        self.track: HandTrack | None = None
        self.snapshot = snapshot
        self.events: list[TableEvent] = []  # accepted since the snapshot: the hand's story
        self._out: list[PublicEvent] = []
        self._sealed: list[HandRecord] = []

    def _make_snapshot(self) -> SessionSnapshot:
        return SessionSnapshot(
            table=self.table.snapshot(), holds=getattr(self, "holds", TableHolds()),
            queued_seats=list(getattr(self, "queued_seats", [])),
            pending_record=getattr(self, "pending_record", None),
            absent=sorted(getattr(self, "absent", set())),
            devices=dict(getattr(self, "devices", {})), draw=dict(getattr(self, "draw", {})),
            penalties=dict(getattr(self, "penalties", {})),
            command_ids=list(getattr(self, "command_ids", [])),
            counted=dict(getattr(self, "counted", {})),
            colour_up=getattr(self, "colour_up", None),
            stack_refs=list(getattr(self, "stack_refs", [])),
            next_variant=getattr(self, "next_variant", None),
        )

    def checkpoint(self, event: TableEvent) -> SessionSnapshot | None:
        """The snapshot the journal stores with ``event``: at every shuffle press between hands,
        taken before the press is applied (not for a press a hold will refuse: it changes
        nothing, so the last hand stays in the story)."""
        if isinstance(event, ShuffleEvent) and self._between_hands() and self.holds.may_shuffle:
            return self._make_snapshot()
        return None

    def _replayed(self, events: list[TableEvent], strict_until: int | None = None
                  ) -> Self:
        """A fresh session from this hand's snapshot with ``events`` applied; refuses (raises)
        if any of them (before ``strict_until``) is no longer accepted."""
        fresh = type(self)(self.config, self.snapshot)
        for k, event in enumerate(events):
            if not fresh._dispatch_accepting(event) and (
                strict_until is None or k < strict_until
            ):
                raise Refused("the correction makes a later action of this hand illegal",
                              "PVB 64(1)")
        return fresh

    def _adopt(self, other: SessionBase) -> None:
        out, sealed = self._out, self._sealed
        self.__dict__.update(other.__dict__)
        self._out, self._sealed = out, sealed

    def _dispatch_accepting(self, event: TableEvent) -> bool:
        try:
            changed = self._dispatch(event)
        except Exception:  # a refusal, or an event the session cannot apply: not accepted
            return False
        if changed:
            self.events.append(event)
        self._remember_command(event)
        return True

    def _remember_command(self, event: TableEvent) -> None:
        if event.command_id is not None:
            self.command_ids.append(event.command_id)
            del self.command_ids[:-COMMAND_IDS_KEPT]

    # ---------------------------------------------------------------- entry point

    def handle(self, event: TableEvent) -> Step:
        """Apply one event. A refused event changes nothing and says why; so does an event the
        session cannot apply (a second wall behind the event models: never half-applied)."""
        self._out, self._sealed = [], []
        if event.command_id is not None and event.command_id in self.command_ids:
            # A command delivered again (a retry, a broker's redelivery): answered, not redone.
            return Step(True, [self._event("decision", f"command {event.command_id} was "
                                           "already applied: nothing done again")], [],
                        changed=False)
        try:
            changed = self._dispatch(event)
        except RuleViolation as exc:
            # A refusal changes nothing: whatever the handler touched before it found the
            # problem is put back by replaying the hand's story from its snapshot.
            self.restore_story()
            refusal = self._event("refused", exc.reason, rule=exc.rule,
                                  seat=getattr(event, "seat", None))
            return Step(False, [refusal], [])
        except Exception as exc:
            self.restore_story()
            refusal = self._event(
                "refused", f"the table could not apply this {event.type} event "
                f"({type(exc).__name__}): nothing changed; call the floor")
            return Step(False, [refusal], [], error=traceback.format_exc())
        if changed:
            self.events.append(event)
        self._remember_command(event)
        return Step(True, self._out, self._sealed, changed=changed or bool(self._out))

    def restore_story(self) -> None:
        """Rebuild the state from the snapshot and the accepted events of this hand (after a
        refusal, or after an unexpected error in the service)."""
        fresh = type(self)(self.config, self.snapshot)
        for event in list(self.events):
            fresh._dispatch_accepting(event)
        self._adopt(fresh)

    # ---------------------------------------------------------------- the hand's steps
    # TableSession and its parts implement these; the other parts call them.

    def _dispatch(self, event: TableEvent) -> bool:
        """Returns whether the event changed anything (and belongs to the hand's story)."""
        raise NotImplementedError

    def _after_step(self) -> None:
        """After any change: binding folds, showdown, settling, the end of the hand."""
        raise NotImplementedError

    def _end_void(self, status: Literal["void", "misdeal"], rule: str) -> None:
        """End the hand without a winner: the cards are dealt again."""
        raise NotImplementedError

    def _confirm(self) -> bool:
        """The dealer's confirm key."""
        raise NotImplementedError

    def _show(self, seat: int) -> bool:
        """``seat`` tables its cards at the showdown."""
        raise NotImplementedError

    def _seat_now(self, event: SeatEvent, words: str | None = None) -> None:
        """A player sits down or leaves, between hands (``words``: what the leaving says)."""
        raise NotImplementedError

    def _race_reading(self, seat: int, total: int) -> bool:
        """Between hands, a racing seat's stack read on its zone (RULES T5)."""
        raise NotImplementedError

    def _close_colour_up(self) -> None:
        """The next hand begins: the colour-up's race is over."""
        raise NotImplementedError

    def _betting(self, op: Fold | Check | Call | BetOrRaise, seat: int, words: str,
                 rule: str | None = None) -> None:
        """A betting action in turn (the cards' fold, the chips' bet, a declaration)."""
        raise NotImplementedError

    def _declare(self, event: DeclareEvent) -> bool:
        """A declaration entered by the dealer (or held out of turn and now standing)."""
        raise NotImplementedError

    def _check_deal(self) -> None:
        """RULES I1 and H4, once a hand: every seat holds its cards, the blinds were posted."""
        raise NotImplementedError

    def _run_twice_key(self) -> bool:
        """The confirm key while the cards are due: every player agreed to run it twice."""
        raise NotImplementedError

    def _run_twice_offer(self) -> str:
        """While the cards are due: the words offering run it twice, when it can be run."""
        raise NotImplementedError

    def _cash_view(self, live: bool) -> dict[str, Any]:
        """The cash game's part of the public state (`TableState`'s CG fields)."""
        raise NotImplementedError

    def _rebuy_refusal(self, seat: int, player: str, amount: int) -> tuple[str, str] | None:
        """A cash player with no chips buying ``amount``: why not (words, rule), or None."""
        raise NotImplementedError

    def _straddle_chips(self, hand: Hand, seat: int, index: int, new: list[int]) -> bool:
        """Chips put out before the cards at a table with straddles (CG Straddle): whether
        they were taken as a straddle or told to be none."""
        raise NotImplementedError

    # ---------------------------------------------------------------- helpers

    def _event(self, kind: EventKind, text: str, *, rule: str | None = None,
               seat: int | None = None, **data: Any) -> PublicEvent:
        occupant = self.table.seats.get(seat) if seat is not None else None
        if occupant is not None and "player" not in data:  # the floor reads names, not seats
            data["player"] = occupant.player
        return PublicEvent(kind=kind, text=text, hand=self.table.hand_number, seat=seat,
                           rule=rule, data=data)

    def _say(self, kind: EventKind, text: str, *, rule: str | None = None,
             seat: int | None = None, **data: Any) -> None:
        self._out.append(self._event(kind, text, rule=rule, seat=seat, **data))

    def _irregular(self, rule: str, text: str, seat: int | None = None,
                   by: str | None = None, kind: EventKind = "alert") -> None:
        assert self.track is not None
        self.track.irregularities.append(Irregularity(rule=rule, text=text, seat=seat, by=by))
        self._say(kind, text, rule=rule, seat=seat)

    def _hand(self) -> Hand | None:
        """The hand in progress, or None between hands."""
        hand = self.table.hand
        if hand is None or hand.stage is Stage.OVER or self.track is None:
            return None
        return hand

    def _between_hands(self) -> bool:
        return self._hand() is None

    def _seat_index(self, seat: int) -> int | None:
        p = self.table.positions
        if p is None or seat not in p.dealt:
            return None
        return p.dealt.index(seat)

    def _substantial(self) -> bool:
        """RULES I2 (PVB 31): two consecutive actions at least one of which is a bet, raise or
        call, or any three actions."""
        hand = self.table.hand
        if hand is None:
            return False
        kinds = [a.kind for a in hand.log if a.kind in BETTING_KINDS]
        if len(kinds) >= 3:
            return True
        return len(kinds) == 2 and bool(AGGRESSIVE_KINDS & set(kinds))

    def _seat_arg(self, args: dict[str, Any], name: str) -> int:
        seat = args.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= 10:
            raise Refused(f"{name}: which seat? (args.seat, 1 to 10)", "DFO")
        return seat

    def _contenders(self, hand: Hand) -> list[int]:
        assert self.track is not None
        return [self.table.seat_of(i) for i in hand.showdown_order()
                if self.table.seat_of(i) not in self.track.pending_folds]

    def _next_to_show(self) -> int | None:
        hand = self.table.hand
        assert hand is not None
        for seat in self._contenders(hand):
            index = self._seat_index(seat)
            assert index is not None
            if not hand.shown[index]:
                return seat
        return None
