"""The session's core: its state, snapshots and replay, the entry point ``handle`` and the helpers
the parts share. The parts are components (controller/session/parts.py): `TableSession` makes
them, each with its own state, and they see this core through the narrow views they declare.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING, Any, Self

from controller.engine.hand import Hand, Stage
from controller.engine.profiles import RuleProfile, load_profile
from controller.engine.records import HandRecord, Irregularity
from controller.engine.table_play import Table
from controller.errors import RuleViolation
from controller.events import (
    ChipsEvent,
    DeclareEvent,
    KeyEvent,
    ShuffleEvent,
    TableEvent,
)
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

if TYPE_CHECKING:
    from controller.session.actions import BettingActions
    from controller.session.cards import CardReading
    from controller.session.cash import CashGame
    from controller.session.chips import ChipZones
    from controller.session.floor_commands import FloorCommands
    from controller.session.hold_commands import HoldCommands
    from controller.session.parts import Part
    from controller.session.shot_clock import ShotClock
    from controller.session.stacks import StackCommands
    from controller.session.table_stakes import TableStakes
    from controller.session.time_calls import TimeCalls
    from controller.session.view import PublicView


class SessionBase:
    """The core every part of the session shares: the engine's table, the hand's track and
    story, the seats' presence, snapshots and replay, the entry point and the helpers. Not
    thread-safe: one loop owns it."""

    # The parts, each with its own state (controller/session/parts.py); `TableSession` makes
    # them from the snapshot, with itself as their core.
    shots: ShotClock
    time_calls: TimeCalls
    stacks: StackCommands
    stakes: TableStakes
    cash: CashGame
    table_holds: HoldCommands
    floor: FloorCommands
    view: PublicView
    cards: CardReading
    chips: ChipZones
    actions: BettingActions

    def __init__(self, config: SessionConfig | None = None,
                 snapshot: SessionSnapshot | None = None) -> None:
        self.config = config or SessionConfig()
        self.profile: RuleProfile = load_profile(self.config.profile)
        if snapshot is None:
            table = Table(table_id=self.config.table_id, profile=self.profile,
                          level=self.config.level, seats=self.config.seats,
                          straddles=self.config.straddles)
            snapshot = SessionSnapshot(table=table.snapshot())
        self._load(snapshot)

    # ---------------------------------------------------------------- snapshots and replay

    def _load(self, snapshot: SessionSnapshot) -> None:
        self.table = Table.from_snapshot(snapshot.table, table_id=self.config.table_id,
                                         profile=self.profile, seats=self.config.seats,
                                         straddles=self.config.straddles)
        self.queued_seats = list(snapshot.queued_seats)
        self.pending_record = snapshot.pending_record
        self.absent = set(snapshot.absent)
        self.devices = dict(snapshot.devices)
        self.command_ids = list(snapshot.command_ids)
        self.counted = dict(snapshot.counted)
        self.track: HandTrack | None = None
        self.snapshot = snapshot
        self.events: list[TableEvent] = []  # accepted since the snapshot: the hand's story
        self._out: list[PublicEvent] = []
        self._sealed: list[HandRecord] = []
        self._make_parts(snapshot)

    def _make_parts(self, snapshot: SessionSnapshot) -> None:
        """The parts, each with its own state from ``snapshot``, bound to this core."""
        raise NotImplementedError

    def _parts(self) -> list[Part]:
        """The parts, each with its share of the snapshot."""
        raise NotImplementedError

    def _bind_parts(self) -> None:
        """After `_adopt`: the parts taken from the other session answer to this one."""
        raise NotImplementedError

    @property
    def penalties(self) -> dict[str, int]:
        """Player id -> penalty hands still to serve (`TimeCalls`)."""
        return self.time_calls.penalties

    def _make_snapshot(self) -> SessionSnapshot:
        fields: dict[str, Any] = {}
        for part in self._parts():
            fields.update(part.snapshot_fields())
        return SessionSnapshot(
            table=self.table.snapshot(), queued_seats=list(self.queued_seats),
            pending_record=self.pending_record, absent=sorted(self.absent),
            devices=dict(self.devices),
            command_ids=list(self.command_ids), counted=dict(self.counted), **fields,
        )

    def checkpoint(self, event: TableEvent) -> SessionSnapshot | None:
        """The snapshot the journal stores with ``event``: at every shuffle press between hands,
        taken before the press is applied (not for a press a hold will refuse: it changes
        nothing, so the last hand stays in the story)."""
        if isinstance(event, ShuffleEvent) and self._between_hands() \
                and self.table_holds.may_shuffle:
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
        """Take the state of ``other`` (a replay of this hand's story): its parts too, bound to
        this core from now on."""
        out, sealed = self._out, self._sealed
        self.__dict__.update(other.__dict__)
        self._out, self._sealed = out, sealed
        self._bind_parts()

    def _retell(self, events: list[TableEvent], strict_until: int | None = None) -> None:
        """The hand's story told again as ``events`` (an undo, a floor's correction): this
        session takes the replay's state, or refuses (raises) as `_replayed` does."""
        self._adopt(self._replayed(events, strict_until))

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

    def _seal_pending(self) -> HandRecord | None:
        """The last hand's record sealed now (no next shuffle will seal it): the record."""
        record = self.pending_record
        if record is not None:
            self._sealed.append(record)
            self.pending_record = None
        return record

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
    # `TableSession` implements this (it applies the event through the parts).

    def _dispatch(self, event: TableEvent) -> bool:
        """Returns whether the event changed anything (and belongs to the hand's story)."""
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
