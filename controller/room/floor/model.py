"""The room as the floor sees it: every table's public state and this hand's story, the clock,
the tournament, the open alerts. Fed with what the ``floor`` login receives (never a
``secure/`` topic, so never an unrevealed hole card); no I/O, no threads: the web server's one
loop owns it, and passes the time in (`tick` once a second).

Each ``take_*`` method returns the updates to push to the browsers, already in their final
shape, so that one message is built once and sent to every screen.

A `Room` is one venue's. A floor following several venues (a league's host) keeps a room per
venue (`league.League`): each room is then named (``venue``), and stamps its name on its
tables, alerts and updates, so that two venues' table 1 never meet.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.messages import ClockState, EventMessage, StateMessage, TournamentState
from controller.room.floor.alerts import (
    RANK,
    TODO_BRIDGE,
    TODO_CLOCK,
    TODO_OFFLINE,
    TODO_READER,
    TODO_RECORDER,
    TODO_ROUND,
    TODO_STALLED,
    Alert,
    Reason,
    Severity,
    event_alert,
    tournament_alert,
    tournament_alert_id,
    tournament_alerts,
    worst,
)
from controller.session.outputs import PublicEvent, TableState

STORY_KEPT = 200  # events of the hand in play a table screen shows (a long hand has ~60)
# RULES C1 (PVB 21(1)): time may be called after a reasonable wait, about a minute, two when
# all-in. A player who has had the action longer is an alert of its own.
STALL_SECONDS = 60.0
STALL_ALL_IN_SECONDS = 120.0
# A table restarting for its upgrade (its last state holds "upgrade", RULES H1) is offline for
# seconds, as planned: an alert only if it has not come back within this.
UPGRADE_SECONDS = 90.0
RATE_WINDOW = 3600.0  # hands per hour: the hands begun within the last hour
RATE_MIN_HANDS = 3  # ... at least this many, for a rate that means something


class TableView(BaseModel):
    """One table's card on the room screen and its table screen (without the story)."""

    model_config = ConfigDict(frozen=True)

    table: str
    venue: str | None = Field(default=None, description="Whose venue, on a floor following "
                              "several; None on a venue's own floor")
    online: bool | None = Field(default=None, description="None: never heard of since start")
    since: float | None = Field(default=None, description="When it went on- or offline")
    state: TableState | None = None
    seq: int = 0
    sent: float | None = Field(default=None, description="When the table sent its latest "
                               "state (its own wall time)")
    clock_offset: float | None = None
    clock_rtt: float | None = None
    actor_since: float | None = Field(default=None, description="The clock's time the seat to "
                                      "act got the action (from the table's state's time)")
    attention: list[Reason] = Field(default_factory=list, description="Why the floor is "
                                    "needed, worst first; empty when all is well")
    severity: Severity | None = Field(default=None, description="The worst of attention")
    stalled: bool = Field(default=False, description="The seat to act has had the action "
                          "longer than the time rules allow (RULES C1)")
    players: int = Field(default=0, description="Seats taken")
    free_seats: int = 0
    average_stack: int | None = Field(default=None, description="The chips at the table "
                                      "(stacks and pots) per player")
    hands_per_hour: float | None = Field(default=None, description="Over the last hour, from "
                                         "at least three hands begun")
    out_of_play: str | None = Field(default=None, description="The tournament broke it "
                                    "(\"broken\") or does not use it (\"not in use\") and its "
                                    "last state seats no one: its card greys, no rate")


class RoomUpdate(BaseModel):
    """One push to the browsers: ``kind`` names what changed."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["table", "event", "clock", "alert", "broker", "tournament"]
    table: TableView | None = None
    event: PublicEvent | None = None
    event_table: str | None = None
    clock: ClockState | None = None
    clock_online: bool | None = None
    alert: Alert | None = None
    broker: bool | None = None
    broker_problem: str | None = None  # with ``broker``: what is wrong, as the log said it
    tournament: TournamentState | None = None  # with ``tournament``: absent once it is gone
    # On a floor following several venues: whose event, clock, tournament or bridge it is
    venue: str | None = None
    bridge: bool | None = None  # with ``broker`` and ``venue``: the venue's link to the league


class VenueView(BaseModel):
    """One venue's own state on a floor following several: its clock, its tournament and its
    link to the league (Mosquitto's bridge status: None while it never said)."""

    model_config = ConfigDict(frozen=True)

    venue: str
    clock: ClockState | None = None
    clock_online: bool | None = None
    tournament: TournamentState | None = None
    bridge: bool | None = None


class RoomSnapshot(BaseModel):
    """Everything a screen needs when it (re)connects."""

    tables: list[TableView]
    stories: dict[str, list[PublicEvent]]
    clock: ClockState | None
    clock_online: bool | None
    tournament: TournamentState | None = None
    alerts: list[Alert]
    broker: bool
    broker_problem: str | None
    recorder: bool | None
    # A floor following several venues: each one's clock, tournament and link (the fields
    # above for one clock are then empty); stories are keyed "venue/table"
    venues: list[VenueView] | None = None


class Room:
    def __init__(self, venue: str | None = None) -> None:
        self.venue = venue  # named on a floor following several venues; None on a venue's own
        self.tables: dict[str, TableView] = {}
        self.stories: dict[str, list[PublicEvent]] = {}
        self.clock: ClockState | None = None
        self.clock_online: bool | None = None  # None: the clock never said
        self.tournament: TournamentState | None = None
        self.alerts: dict[str, Alert] = {}  # the open ones
        self.closed: set[str] = set()  # acknowledged before a restart: never raised again
        self.broker = False
        self.broker_problem: str | None = None
        self.recorder: bool | None = None
        self.bridge: bool | None = None  # the venue's link to the league (a named room's)
        self._turn: dict[str, tuple[int, int | None]] = {}  # table -> (hand, actor)
        # table -> the turn (hand, actor) in which its dealer called the floor: that wait is the
        # floor's, not the player's (RULES C1 counts none of it)
        self._floor_turn: dict[str, tuple[int, int | None]] = {}
        self._starts: dict[str, collections.deque[float]] = {}  # table -> hands begun, when
        self._play_since: float | None = None  # the clock runs again since (after a pause)
        self._now = 0.0  # the latest time the model was given

    # ---------------------------------------------------------------- from the broker

    def take_status(self, table: str, online: bool, now: float) -> list[RoomUpdate]:
        self._now = max(self._now, now)
        view = self._view(table)
        if view.online == online:
            return []
        updates = []
        if not online and view.online is not None and not _upgrading(view) and \
                not self._idle(view):
            updates += self._offline(view, now, "the table is offline")
        if online:  # (after a restart too: the journal's open alert, the table back since)
            updates += self._pass(table, now, lambda a: a.kind == "offline")
        view = view.model_copy(update={"online": online, "since": now})
        # The view last: an alert's refresh shows the card as it was before this change,
        # and a screen keeps the last view it is pushed.
        return [*updates, self._set(view)]

    def take_state(self, message: StateMessage, now: float) -> list[RoomUpdate]:
        self._now = max(self._now, now)
        state = message.state
        table = message.table
        view = self._view(table)
        # When the table sent it, on the clock's time (a retained state after a restart of
        # the floor is as old as it is); its own wall time alone may be minutes wrong.
        sent = now if message.clock_offset is None else min(
            now, message.sent + message.clock_offset)
        turn = (state.hand, state.actor)
        actor_since = view.actor_since
        if self._turn.get(table) != turn:
            self._turn[table] = turn
            actor_since = sent if state.actor is not None else None
        called_before = view.state is not None and view.state.hand == state.hand and \
            view.state.floor_called
        if state.floor_called and not called_before:
            self._floor_turn[table] = turn
        if view.state is not None and state.hand != view.state.hand:
            self.stories[table] = []  # a new hand: a new story (the events follow)
        if view.state is not None and state.hand > view.state.hand:  # a hand begins
            self._starts.setdefault(table, collections.deque(maxlen=200)).append(sent)
        updates: list[RoomUpdate] = []
        before = view.state.devices if view.state else {}
        for device, status in state.devices.items():
            if status != "ok" and before.get(device) != status:
                updates += self._raise(Alert(
                    id=f"{table}:device:{device}:{now:.3f}", table=table, hand=state.hand,
                    kind="reader", text=f"the {device} reader is {status}", todo=TODO_READER,
                    at=now))
        updates += self._pass(table, now, lambda a: a.kind == "reader" and state.devices.get(
            _device(a), "ok") == "ok")
        view = view.model_copy(update={
            "state": state, "seq": message.seq, "sent": message.sent,
            "clock_offset": message.clock_offset, "clock_rtt": message.clock_rtt,
            "actor_since": actor_since,
            "online": True if view.online is None else view.online})
        return [*updates, self._set(view), *self._stall(table, raising=False)]  # view last

    def take_event(self, message: EventMessage, now: float) -> list[RoomUpdate]:
        self._now = max(self._now, now)
        event = message.event
        table = message.table
        story = self.stories.setdefault(table, [])
        if event.kind == "hand_started":
            story.clear()
        story.append(event)
        del story[:-STORY_KEPT]
        updates = [RoomUpdate(kind="event", event=event, event_table=table, venue=self.venue)]
        alert = event_alert(table, message, now)
        if alert is not None:
            updates += self._raise(alert)
        return updates

    def take_clock(self, clock: ClockState, now: float) -> list[RoomUpdate]:
        """The clock's state; a table it names late holds a hand-for-hand round without
        answering (PVB 35a): an alert, once a round, and the reason on the table's card."""
        self._now = max(self._now, now)
        was = self.clock
        was_late = set(was.late) if was is not None else set()
        if _play_stops(clock) and (was is None or not _play_stops(was)):
            self._play_since = None
        elif not _play_stops(clock) and was is not None and _play_stops(was):
            self._play_since = now  # a pause or a break is nobody's slow play
        self.clock = clock
        updates = [RoomUpdate(kind="clock", clock=clock, clock_online=self.clock_online,
                              venue=self.venue)]
        waits = _round_words(clock)
        for table in clock.late:
            view = self.tables.get(table)
            updates += self._raise(Alert(
                id=f"{table}:round:{clock.round}:{'round' if clock.playing else 'before'}",
                table=table, kind="round", rule="PVB 35a", severity="urgent", todo=TODO_ROUND,
                hand=view.state.hand if view and view.state else 0, at=now,
                text=f"it does not answer: {waits} waits for it"))
        for table in was_late ^ set(clock.late):  # its card says so, or no longer
            updates += self._refresh(table)
        for table in list(self.tables):
            updates += self._stall(table, raising=False)
        return updates

    def take_clock_status(self, online: bool, now: float) -> list[RoomUpdate]:
        """The clock's own status (its Last Will when it dies): the screens still count down
        to the end instant it published, but no level will change at the tables."""
        was = self.clock_online
        if was == online:
            return []
        self.clock_online = online
        updates = [RoomUpdate(kind="clock", clock=self.clock, clock_online=online,
                              venue=self.venue)]
        if online:
            updates += self._pass("clock", now, lambda a: a.kind == "offline")
        elif was is not None:
            updates += self._raise(Alert(
                id=f"clock:offline:{now:.3f}", table="clock", hand=0, kind="offline", at=now,
                severity="urgent", todo=TODO_CLOCK,
                text="the tournament clock is offline: levels and breaks do not change at the "
                     "tables until it is back"))
        return updates

    def take_tournament(self, tournament: TournamentState | None) -> list[RoomUpdate]:
        """The tournament's latest state (None: its retained state was cleared), and its alerts
        that are new to the floor: each one open until a floor login acknowledges it, like a
        table's (the floor's journal keeps who did; the tournament keeps saying it, for its
        own page, and an acknowledged one is not raised again)."""
        self.tournament = tournament
        updates = [RoomUpdate(kind="tournament", tournament=tournament, venue=self.venue)]
        for view in list(self.tables.values()):  # a table it broke (or took back) greys
            if self._out_of_play(view) != view.out_of_play or \
                    self._attention(view) != view.attention:
                updates.append(self._set(view))
        raw = (tournament.model_extra or {}).get("alerts") if tournament is not None else None
        prefix = f"{self.venue}/" if self.venue is not None else ""
        for said in tournament_alerts(raw):
            key = prefix + tournament_alert_id(said)
            if key not in self.alerts and key not in self.closed:  # (twice a second: cheap)
                updates += self._raise(tournament_alert(said))
        return updates

    def take_recorder_status(self, online: bool, now: float) -> list[RoomUpdate]:
        """The recorder away: nothing is lost (each table keeps its records until the recorder
        says it has them), but the floor should know the hands wait."""
        was, self.recorder = self.recorder, online
        if online:
            return self._pass("recorder", now, lambda a: a.kind == "offline")
        if was is not True:  # only a recorder seen online and now gone
            return []
        return self._raise(Alert(
            id=f"recorder:offline:{now:.3f}", table="recorder", hand=0, kind="offline", at=now,
            todo=TODO_RECORDER,
            text="the recorder is offline: the tables keep every hand until it is back"))

    def take_bridge(self, online: bool, now: float) -> list[RoomUpdate]:
        """The venue's link to the league (a named room's; Mosquitto's bridge status): while it
        is down, what the floor shows of the venue stops where it was, though its tables play
        on and keep their hands."""
        was, self.bridge = self.bridge, online
        if was == online:
            return []
        updates = [RoomUpdate(kind="broker", venue=self.venue, bridge=online)]
        if online:
            updates += self._pass("bridge", now, lambda a: a.kind == "offline")
        elif was is True:
            updates += self._raise(Alert(
                id=f"bridge:offline:{now:.3f}", table="bridge", hand=0, kind="offline", at=now,
                todo=TODO_BRIDGE,
                text="the venue's link to the league is down: what this floor shows of it "
                     "stops where it was until the link is back"))
        return updates

    def take_broker(self, connected: bool) -> list[RoomUpdate]:
        self.broker = connected
        return [RoomUpdate(kind="broker", broker=connected, broker_problem=self.broker_problem)]

    def take_broker_problem(self, text: str | None) -> list[RoomUpdate]:
        """What the floor server's own broker connection lacks (None: nothing)."""
        self.broker_problem = text
        return [RoomUpdate(kind="broker", broker=self.broker, broker_problem=text)]

    def tick(self, now: float) -> list[RoomUpdate]:
        """The time passes (once a second): players who have waited too long (RULES C1)."""
        self._now = max(self._now, now)
        updates: list[RoomUpdate] = []
        for table in list(self.tables):
            updates += self._stall(table)
            view = self.tables[table]
            if view.online is False and _upgrading(view) and view.since is not None and \
                    now - view.since >= UPGRADE_SECONDS:
                updates += self._offline(view, view.since, "the table has not come back from "
                                         f"its upgrade for {UPGRADE_SECONDS:.0f} s")
        return updates

    def _idle(self, view: TableView) -> bool:
        """Nobody will play there: the tournament broke it (or does not use it) and its last
        state seats no one, or the tournament is over. Switched off, it is no alert."""
        tournament = self.tournament
        if tournament is None or view.state is None:
            return False
        return tournament.winner is not None or self._out_of_play(view) is not None

    def _out_of_play(self, view: TableView) -> str | None:
        """"broken" or "not in use" when the tournament says so of the table and its last
        state seats no one (a broken table's players may not have moved yet)."""
        tournament = self.tournament
        if tournament is None or view.state is None or view.state.seats:
            return None
        lines = (tournament.model_extra or {}).get("tables")
        status = next((line.get("status") for line in lines or [] if isinstance(line, dict)
                       and line.get("table") == view.table), None)
        return status if status in ("broken", "not in use") else None

    def _offline(self, view: TableView, since: float, text: str) -> list[RoomUpdate]:
        """The offline alert, once for each time the table went (its id says when)."""
        return self._raise(Alert(
            id=f"{view.table}:offline:{since:.3f}", table=view.table,
            hand=view.state.hand if view.state else 0, kind="offline", severity="urgent",
            text=text, todo=TODO_OFFLINE, at=self._now))

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
                            clock_online=self.clock_online, tournament=self.tournament,
                            alerts=self.open_alerts(), broker=self.broker,
                            broker_problem=self.broker_problem, recorder=self.recorder)

    def venue_view(self) -> VenueView:
        return VenueView(venue=self.venue or "", clock=self.clock, clock_online=self.clock_online,
                         tournament=self.tournament, bridge=self.bridge)

    def ordered(self) -> list[TableView]:
        """By number, always: a table keeps its place on the room screen whatever happens."""
        return sorted(self.tables.values(), key=lambda v: _number(v.table))

    def needing(self) -> list[TableView]:
        """The tables needing the floor, worst first (the attention strip)."""
        return sorted((v for v in self.tables.values() if v.attention),
                      key=lambda v: (-RANK[v.severity or "notice"], -len(v.attention),
                                     _number(v.table)))

    def open_alerts(self) -> list[Alert]:
        """Newest first."""
        return sorted(self.alerts.values(), key=lambda a: a.at, reverse=True)

    # ---------------------------------------------------------------- inside

    def _view(self, table: str) -> TableView:
        return self.tables.get(table) or TableView(table=table, venue=self.venue)

    def _set(self, view: TableView) -> RoomUpdate:
        attention = self._attention(view)
        out = self._out_of_play(view)
        figures = _figures(view.state, self._starts.get(view.table), self._now)
        if out is not None:
            figures["hands_per_hour"] = None  # its last hands are no rate of its own now
        view = view.model_copy(update={
            "attention": attention, "severity": worst([r.severity for r in attention]),
            "out_of_play": out, **figures})
        self.tables[view.table] = view
        return RoomUpdate(kind="table", table=view)

    def _raise(self, alert: Alert) -> list[RoomUpdate]:
        if self.venue is not None:  # a floor following several venues: ids unique across them
            alert = alert.model_copy(update={"venue": self.venue,
                                             "id": f"{self.venue}/{alert.id}"})
        if alert.id in self.alerts or alert.id in self.closed:
            return []  # the same durable alert again (a resend after a reconnect)
        self.alerts[alert.id] = alert
        return [RoomUpdate(kind="alert", alert=alert), *self._refresh(alert.table)]

    def _pass(self, table: str, now: float, passed: Callable[[Alert], bool]
              ) -> list[RoomUpdate]:
        """What the open alerts of ``table`` that ``passed`` picks said is over (the table
        back online, the reader back): each now a notice, with when, until acknowledged. The
        caller pushes the table's view after (it says "was: ...")."""
        updates = []
        for alert in list(self.alerts.values()):
            if alert.table == table and alert.passed_at is None and passed(alert):
                alert = alert.model_copy(update={"passed_at": now, "severity": "notice"})
                self.alerts[alert.id] = alert
                updates.append(RoomUpdate(kind="alert", alert=alert))
        return updates

    def _refresh(self, table: str) -> list[RoomUpdate]:
        view = self.tables.get(table)
        return [] if view is None else [self._set(view)]

    def _stall(self, table: str, *, raising: bool = True) -> list[RoomUpdate]:
        """RULES C1: the seat to act has waited longer than time may be called after; an
        alert once a turn, and the card says so while it lasts. Only the tick (``raising``)
        says it first: a table's state may come before the clock's that pauses the room."""
        view = self.tables[table]
        limit = self._stall_limit(table, view)
        since = view.actor_since
        if self._play_since is not None and since is not None:
            since = max(since, self._play_since)
        stalled = limit is not None and since is not None and self._now - since >= limit
        if stalled == view.stalled or (stalled and not raising):
            return []
        self.tables[table] = view = view.model_copy(update={"stalled": stalled})
        state = view.state
        if stalled and state is not None and state.actor is not None and since is not None:
            seat = state.actor
            player = state.seats[seat].player if seat in state.seats else f"seat {seat}"
            all_in = limit == STALL_ALL_IN_SECONDS
            raised = self._raise(Alert(
                id=f"{table}:stalled:{state.hand}:{seat}:{view.actor_since:.3f}", table=table,
                hand=state.hand, kind="stalled", rule="PVB 21(1)", at=self._now,
                todo=TODO_STALLED,
                text=f"seat {seat} ({player}) has not acted for more than "
                     f"{'two minutes (all-in)' if all_in else 'a minute'}: time may be called"))
            if raised:
                return raised  # the alert, and the card that says so
        return [self._set(view)]

    def _stall_limit(self, table: str, view: TableView) -> float | None:
        """How long the seat to act may take before time may be called; None when nobody is
        to act, or the wait is none of the player's doing: the table offline, a time call
        already running, the clock paused or on a break, the floor called to the table in this
        turn."""
        state = view.state
        if state is None or view.online is False or state.stage != "betting" or (
                state.actor is None or state.clock is not None):
            return None
        if self.clock is not None and _play_stops(self.clock):
            return None
        if self._floor_turn.get(table) == (state.hand, state.actor):
            return None  # the dealer called the floor in this turn: the floor is there
        seat = state.seats.get(state.actor)
        facing_all_in = any(s.all_in for s in state.seats.values() if s.in_hand) or (
            seat is not None and state.to_call is not None and state.to_call >= seat.stack)
        return STALL_ALL_IN_SECONDS if facing_all_in else STALL_SECONDS

    def _attention(self, view: TableView) -> list[Reason]:
        reasons: list[Reason] = []

        def say(text: str, severity: Severity) -> None:
            reasons.append(Reason(text=text, severity=severity))

        if view.online is False:
            alerted = any(a.table == view.table and a.kind == "offline"
                          for a in self.alerts.values())
            if _upgrading(view) and not alerted:
                say("restarting for its upgrade", "notice")
            elif self._out_of_play(view) is not None and not alerted:
                pass  # its card says it is out of play: switched off, nothing for the floor
            elif self._idle(view) and not alerted:
                say("offline, nobody playing there", "notice")
            else:
                say("offline", "urgent")
        if self.clock is not None and view.table in self.clock.late:
            say(f"holds {_round_words(self.clock)} up, not answering", "urgent")
        state = view.state
        if state is not None:
            if state.floor_called:
                say("the dealer calls the floor", "urgent")
            if state.alerts:
                text = state.alerts[-1]
                say(_headline(text), "urgent" if "fouled deck" in text else "warning")
            if view.stalled and state.actor is not None:
                say(f"seat {state.actor} has not acted: time may be called", "warning")
            if state.clock is not None:
                say(f"time called on seat {state.clock.seat}", "notice")
            shot = state.shot_clock  # the table's own (docs/shot-clock.md): the floor rules
            if shot is not None and shot.out and shot.seat is not None and state.clock is None:
                say(f"seat {shot.seat}: the shot clock ran out, the floor rules on time",
                    "warning")
            for device, status in state.devices.items():
                if status != "ok":
                    say(f"{device} reader {status}", "warning")
        mine = [a for a in self.alerts.values() if a.table == view.table]
        if mine:  # the worst open alert in its own words (the newest of the worst)
            # One whose cause has passed (the table back online, the reader back) waits only
            # for its acknowledgement: a notice, never above what is wrong now.
            def severity(alert: Alert) -> Severity:
                return alert.severity if _still_so(alert, view) else "notice"

            top = max(mine, key=lambda a: (RANK[severity(a)], a.at))
            more = f" (+{len(mine) - 1} more)" if len(mine) > 1 else ""
            headline = _headline(top.text)
            if not _still_so(top, view):
                headline = f"was: {headline}; acknowledge it"
            if headline not in [r.text for r in reasons]:
                say(headline + more, severity(top))
            elif more:
                say(f"{len(mine)} open alerts", severity(top))
        return sorted(reasons, key=lambda r: -RANK[r.severity])


def _upgrading(view: TableView) -> bool:
    """Its last state held the table for its upgrade: it goes offline to restart (H1)."""
    return view.state is not None and "upgrade" in view.state.holds


def _still_so(alert: Alert, view: TableView) -> bool:
    """Whether what an alert says is still the case: an offline table or a reader that is
    not back; every other alert stands until the floor acknowledges it."""
    if alert.passed_at is not None:
        return False
    if alert.kind == "offline":
        return view.online is False
    if alert.kind == "reader" and view.state is not None:
        return view.state.devices.get(_device(alert), "ok") != "ok"
    return True


def _device(alert: Alert) -> str:
    """A reader alert's device, from its id ("table:device:cards:when")."""
    return alert.id.split(":")[2] if alert.id.count(":") >= 3 else ""


def _figures(state: TableState | None, starts: collections.deque[float] | None,
             now: float) -> dict[str, object]:
    """The table's numbers for its card: seats, the average stack, hands per hour."""
    if state is None:
        return {}
    players = len(state.seats)
    chips = sum(s.stack for s in state.seats.values()) + sum(p.amount for p in state.pots)
    rate = None
    if starts:
        recent = [t for t in starts if now - t <= RATE_WINDOW]
        if len(recent) >= RATE_MIN_HANDS and recent[-1] > recent[0]:
            rate = round((len(recent) - 1) * 3600 / (recent[-1] - recent[0]), 1)
    return {"players": players, "free_seats": max(0, state.seat_count - players),
            "average_stack": chips // players if players else None, "hands_per_hour": rate}


def _headline(text: str) -> str:
    """What a room screen's line says of an alert: a fouled deck first (its text begins with
    the card that fouled it)."""
    return "fouled deck: the hand is void" if "fouled deck" in text else text


def _play_stops(clock: ClockState) -> bool:
    """The clock paused or on a break: nobody at the tables is slow meanwhile."""
    return clock.on_break or clock.status in ("paused", "on_break")


def _round_words(clock: ClockState) -> str:
    """Before its first round, hand-for-hand waits for the hands in play (none released)."""
    return f"hand-for-hand round {clock.round}" if clock.playing else "hand-for-hand"


def _number(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (1 << 30, table)


__all__ = ["Alert", "Reason", "Room", "RoomSnapshot", "RoomUpdate", "TableView", "VenueView"]
