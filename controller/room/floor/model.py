"""The room as the floor sees it: every table's public state and this hand's story, the clock,
the open alerts. Fed with what the ``floor`` login receives (never a ``secure/`` topic, so
never an unrevealed hole card); no I/O, no threads: the web server's one loop owns it.

Each ``take_*`` method returns the updates to push to the browsers, already in their final
shape, so that one message is built once and sent to every screen.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.messages import ClockState, EventMessage, StateMessage
from controller.session.outputs import PublicEvent, TableState

STORY_KEPT = 200  # events of the hand in play a table screen shows (a long hand has ~60)

# What makes an alert (RULES: the floor is called for irregularities, DFO): the table's durable
# alerts, a misdeal or void, a time call, a table or reader that went offline.
AlertKind = Literal["irregularity", "misdeal", "time", "offline", "reader", "floor", "round"]


class Alert(BaseModel):
    """Something the floor must see; it stays on the list until a floor login acknowledges it."""

    model_config = ConfigDict(frozen=True)

    id: str
    table: str
    hand: int
    kind: AlertKind
    text: str
    rule: str | None = None
    at: float = Field(description="Server time it was raised")
    acknowledged_by: str | None = None
    acknowledged_at: float | None = None


class TableView(BaseModel):
    """One table's card on the room screen and its table screen (without the story)."""

    model_config = ConfigDict(frozen=True)

    table: str
    online: bool | None = Field(default=None, description="None: never heard of since start")
    since: float | None = Field(default=None, description="When it went on- or offline")
    state: TableState | None = None
    seq: int = 0
    sent: float | None = Field(default=None, description="When the table sent its latest "
                               "state (its own wall time)")
    clock_offset: float | None = None
    clock_rtt: float | None = None
    actor_since: float | None = Field(default=None, description="Server time the seat to act "
                                      "got the action")
    attention: list[str] = Field(default_factory=list, description="Why the floor is needed, "
                                 "most urgent first; empty when all is well")


class RoomUpdate(BaseModel):
    """One push to the browsers: ``kind`` names what changed."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["table", "event", "clock", "alert", "broker"]
    table: TableView | None = None
    event: PublicEvent | None = None
    event_table: str | None = None
    clock: ClockState | None = None
    clock_online: bool | None = None
    alert: Alert | None = None
    broker: bool | None = None
    broker_problem: str | None = None  # with ``broker``: what is wrong, as the log said it


class RoomSnapshot(BaseModel):
    """Everything a screen needs when it (re)connects."""

    tables: list[TableView]
    stories: dict[str, list[PublicEvent]]
    clock: ClockState | None
    clock_online: bool | None
    alerts: list[Alert]
    broker: bool
    broker_problem: str | None
    recorder: bool | None


class Room:
    def __init__(self) -> None:
        self.tables: dict[str, TableView] = {}
        self.stories: dict[str, list[PublicEvent]] = {}
        self.clock: ClockState | None = None
        self.clock_online: bool | None = None  # None: the clock never said
        self.alerts: dict[str, Alert] = {}  # the open ones
        self.closed: set[str] = set()  # acknowledged before a restart: never raised again
        self.broker = False
        self.broker_problem: str | None = None
        self.recorder: bool | None = None
        self._turn: dict[str, tuple[int, int | None]] = {}  # table -> (hand, actor)

    # ---------------------------------------------------------------- from the broker

    def take_status(self, table: str, online: bool, now: float) -> list[RoomUpdate]:
        view = self._view(table)
        if view.online == online:
            return []
        updates = []
        if not online and view.online is not None:
            alert = Alert(id=f"{table}:offline:{now:.3f}", table=table,
                          hand=view.state.hand if view.state else 0, kind="offline",
                          text=f"table {table} is offline", at=now)
            updates += self._raise(alert)
        view = view.model_copy(update={"online": online, "since": now})
        return [self._set(view), *updates]

    def take_state(self, message: StateMessage, now: float) -> list[RoomUpdate]:
        state = message.state
        table = message.table
        view = self._view(table)
        turn = (state.hand, state.actor)
        actor_since = view.actor_since
        if self._turn.get(table) != turn:
            self._turn[table] = turn
            actor_since = now if state.actor is not None else None
        if view.state is not None and state.hand != view.state.hand:
            self.stories[table] = []  # a new hand: a new story (the events follow)
        updates: list[RoomUpdate] = []
        before = view.state.devices if view.state else {}
        for device, status in state.devices.items():
            if status != "ok" and before.get(device) != status:
                updates += self._raise(Alert(
                    id=f"{table}:device:{device}:{now:.3f}", table=table, hand=state.hand,
                    kind="reader", text=f"table {table}: {device} {status}", at=now))
        view = view.model_copy(update={
            "state": state, "seq": message.seq, "sent": message.sent,
            "clock_offset": message.clock_offset, "clock_rtt": message.clock_rtt,
            "actor_since": actor_since,
            "online": True if view.online is None else view.online})
        return [self._set(view), *updates]

    def take_event(self, message: EventMessage, now: float) -> list[RoomUpdate]:
        event = message.event
        table = message.table
        story = self.stories.setdefault(table, [])
        if event.kind == "hand_started":
            story.clear()
        story.append(event)
        del story[:-STORY_KEPT]
        updates = [RoomUpdate(kind="event", event=event, event_table=table)]
        alert = _alert_of(table, message, now)
        if alert is not None:
            updates += self._raise(alert)
        return updates

    def take_clock(self, clock: ClockState, now: float) -> list[RoomUpdate]:
        """The clock's state; a table it names late holds a hand-for-hand round without
        answering (PVB 35a): an alert, once a round, and the reason on the table's card."""
        was_late = set(self.clock.late) if self.clock is not None else set()
        self.clock = clock
        updates = [RoomUpdate(kind="clock", clock=clock, clock_online=self.clock_online)]
        waits = _round_words(clock)
        for table in clock.late:
            view = self.tables.get(table)
            updates += self._raise(Alert(
                id=f"{table}:round:{clock.round}:{'round' if clock.playing else 'before'}",
                table=table, kind="round", rule="PVB 35a",
                hand=view.state.hand if view and view.state else 0, at=now,
                text=f"table {table} does not answer: {waits} waits for it; let the round go "
                     f"on without it from its card"))
        for table in was_late ^ set(clock.late):  # its card says so, or no longer
            updates += self._refresh(table)
        return updates

    def take_clock_status(self, online: bool, now: float) -> list[RoomUpdate]:
        """The clock's own status (its Last Will when it dies): the screens still count down
        to the end instant it published, but no level will change at the tables."""
        was = self.clock_online
        if was == online:
            return []
        self.clock_online = online
        updates = [RoomUpdate(kind="clock", clock=self.clock, clock_online=online)]
        if not online and was is not None:
            updates += self._raise(Alert(
                id=f"clock:offline:{now:.3f}", table="clock", hand=0, kind="offline", at=now,
                text="the tournament clock is offline: levels and breaks do not change at the "
                     "tables until it is back"))
        return updates

    def take_recorder_status(self, online: bool, now: float) -> list[RoomUpdate]:
        """The recorder away: nothing is lost (each table keeps its records until the recorder
        says it has them), but the floor should know the hands wait."""
        was, self.recorder = self.recorder, online
        if online or was is not True:  # only a recorder seen online and now gone
            return []
        return self._raise(Alert(
            id=f"recorder:offline:{now:.3f}", table="recorder", hand=0, kind="offline", at=now,
            text="the recorder is offline: the tables keep every hand until it is back"))

    def take_broker(self, connected: bool) -> list[RoomUpdate]:
        self.broker = connected
        return [RoomUpdate(kind="broker", broker=connected, broker_problem=self.broker_problem)]

    def take_broker_problem(self, text: str | None) -> list[RoomUpdate]:
        """What the floor server's own broker connection lacks (None: nothing)."""
        self.broker_problem = text
        return [RoomUpdate(kind="broker", broker=self.broker, broker_problem=text)]

    def restore_alerts(self, alerts: list[Alert], closed: set[str]) -> None:
        """What a restart found in the floor's journal: the open alerts, and the ids of those
        acknowledged (a table may send a durable alert again after a reconnect)."""
        self.alerts = {a.id: a for a in alerts}
        self.closed = set(closed)

    def acknowledge(self, alert_id: str, by: str, now: float) -> list[RoomUpdate]:
        alert = self.alerts.get(alert_id)
        if alert is None or alert.acknowledged_by is not None:
            return []
        done = alert.model_copy(update={"acknowledged_by": by, "acknowledged_at": now})
        del self.alerts[alert_id]  # only its id stays in memory: a room runs for months
        self.closed.add(alert_id)
        return [RoomUpdate(kind="alert", alert=done), *self._refresh(alert.table)]

    # ---------------------------------------------------------------- for the screens

    def snapshot(self) -> RoomSnapshot:
        return RoomSnapshot(tables=self.ordered(), stories=dict(self.stories), clock=self.clock,
                            clock_online=self.clock_online, alerts=self.open_alerts(),
                            broker=self.broker, broker_problem=self.broker_problem,
                            recorder=self.recorder)

    def ordered(self) -> list[TableView]:
        """Tables needing the floor first (the most reasons first), then by number."""
        return sorted(self.tables.values(),
                      key=lambda v: (not v.attention, -len(v.attention), _number(v.table)))

    def open_alerts(self) -> list[Alert]:
        return sorted(self.alerts.values(), key=lambda a: a.at)

    # ---------------------------------------------------------------- inside

    def _view(self, table: str) -> TableView:
        return self.tables.get(table) or TableView(table=table)

    def _set(self, view: TableView) -> RoomUpdate:
        view = view.model_copy(update={"attention": self._attention(view)})
        self.tables[view.table] = view
        return RoomUpdate(kind="table", table=view)

    def _raise(self, alert: Alert) -> list[RoomUpdate]:
        if alert.id in self.alerts or alert.id in self.closed:
            return []  # the same durable alert again (a resend after a reconnect)
        self.alerts[alert.id] = alert
        return [RoomUpdate(kind="alert", alert=alert), *self._refresh(alert.table)]

    def _refresh(self, table: str) -> list[RoomUpdate]:
        view = self.tables.get(table)
        return [] if view is None else [self._set(view)]

    def _attention(self, view: TableView) -> list[str]:
        reasons = []
        if view.online is False:
            reasons.append("offline")
        if self.clock is not None and view.table in self.clock.late:
            reasons.append(f"holds {_round_words(self.clock)} up, not answering")
        state = view.state
        if state is not None:
            if state.floor_called:
                reasons.append("floor called")
            if state.alerts:
                reasons.append(state.alerts[-1])
            if state.clock is not None:
                reasons.append(f"time called on seat {state.clock.seat}")
            reasons += [f"{d} {s}" for d, s in state.devices.items() if s != "ok"]
        open_alerts = sum(1 for a in self.alerts.values() if a.table == view.table)
        if open_alerts:
            reasons.append(f"{open_alerts} open alert{'s' if open_alerts > 1 else ''}")
        return reasons


def _alert_of(table: str, message: EventMessage, now: float) -> Alert | None:
    event = message.event
    key = message.id or f"{table}:{event.hand}:{event.kind}:{message.sent:.3f}"
    if event.kind == "alert":
        kind: AlertKind = "floor" if event.rule == "DFO" else "irregularity"
    elif event.kind == "hand_over" and event.data.get("status") in ("misdeal", "void"):
        kind = "misdeal"
    elif event.kind == "clock" and event.text.startswith("time on seat"):
        kind = "time"
    else:
        return None
    return Alert(id=key, table=table, hand=event.hand, kind=kind, rule=event.rule,
                 text=f"table {table}: {event.text}", at=now)


def _round_words(clock: ClockState) -> str:
    """Before its first round, hand-for-hand waits for the hands in play (none released)."""
    return f"hand-for-hand round {clock.round}" if clock.playing else "hand-for-hand"


def _number(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (1 << 30, table)


__all__ = ["Alert", "Room", "RoomSnapshot", "RoomUpdate", "TableView"]
