"""The room as the floor sees it: every table's public state and this hand's story, the clock,
the tournament, the open alerts. Fed with what the ``floor`` login receives (never a
``secure/`` topic, so never an unrevealed hole card); no I/O, no threads: the web server's one
loop owns it, and passes the time in (`tick` once a second).

Each ``take_*`` method returns the updates to push to the browsers, already in their final
shape, so that one message is built once and sent to every screen.

A `Room` is one venue's. A floor following several venues (a league's host) keeps a room per
venue (`league.League`): each room is then named (``venue``), and stamps its name on its
tables, alerts and updates, so that two venues' table 1 never meet.

What a table's card says (its attention reasons, a stalled player, its figures) is worked out in
table_card.py, the shapes pushed to the screens are in views.py; their names are importable from
here as before.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from controller.mqtt.messages import ClockState, EventMessage, StateMessage, TournamentState
from controller.room.floor.alerts import (
    RANK,
    TODO_BRIDGE,
    TODO_CASH,
    TODO_CLOCK,
    TODO_OFFLINE,
    TODO_READER,
    TODO_RECORDER,
    TODO_ROUND,
    TODO_STALLED,
    Alert,
    Reason,
    event_alert,
    tournament_alert,
    tournament_alert_id,
    tournament_alerts,
    worst,
)
from controller.room.floor.table_card import (
    STALL_ALL_IN_SECONDS,
    STALL_SECONDS,
    alert_device,
    attention_reasons,
    card_figures,
    idle,
    out_of_play,
    play_stops,
    round_words,
    stall_limit,
    table_number,
    upgrading,
)
from controller.room.floor.views import RoomSnapshot, RoomUpdate, TableView, VenueView
from controller.session.outputs import PublicEvent

STORY_KEPT = 200  # events of the hand in play a table screen shows (a long hand has ~60)
# A table restarting for its upgrade (its last state holds "upgrade", RULES H1) is offline for
# seconds, as planned: an alert only if it has not come back within this.
UPGRADE_SECONDS = 90.0


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
        self.cash_floor: bool | None = None  # the cash service's status (None: never heard)
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
        if not online and view.online is not None and not upgrading(view) and \
                not idle(self.tournament, view):
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
            alert_device(a), "ok") == "ok")
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

    def take_clock(self, clock: ClockState | None, now: float) -> list[RoomUpdate]:
        """The clock's state; a table it names late holds a hand-for-hand round without
        answering (PVB 35a): an alert, once a round, and the reason on the table's card.
        None: its retained state was cleared (the room has no clock any more: a tournament
        over, a cash night); the screens stop showing its last level."""
        self._now = max(self._now, now)
        if clock is None:
            self.clock = None
            return [RoomUpdate(kind="clock", clock=None, clock_online=self.clock_online,
                               venue=self.venue)]
        was = self.clock
        was_late = set(was.late) if was is not None else set()
        if play_stops(clock) and (was is None or not play_stops(was)):
            self._play_since = None
        elif not play_stops(clock) and was is not None and play_stops(was):
            self._play_since = now  # a pause or a break is nobody's slow play
        self.clock = clock
        updates = [RoomUpdate(kind="clock", clock=clock, clock_online=self.clock_online,
                              venue=self.venue)]
        waits = round_words(clock)
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
            if out_of_play(self.tournament, view) != view.out_of_play or attention_reasons(
                    view, self.alerts, self.clock, self.tournament) != view.attention:
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

    def take_cash_status(self, online: bool, now: float) -> list[RoomUpdate]:
        """The cash service away: the waiting lists and calls on the pages stop where they
        were, and no call runs out or is made until it is back (it keeps them in its store)."""
        was, self.cash_floor = self.cash_floor, online
        if online:
            return self._pass("cash", now, lambda a: a.kind == "offline")
        if was is not True:  # only a cash floor seen online and now gone
            return []
        return self._raise(Alert(
            id=f"cash:offline:{now:.3f}", table="cash", hand=0, kind="offline", at=now,
            severity="urgent", todo=TODO_CASH,
            text="the cash floor is offline: the waiting lists on the pages may be out of date "
                 "and no player can be called or seated from them until it is back"))

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
            if view.online is False and upgrading(view) and view.since is not None and \
                    now - view.since >= UPGRADE_SECONDS:
                updates += self._offline(view, view.since, "the table has not come back from "
                                         f"its upgrade for {UPGRADE_SECONDS:.0f} s")
        return updates

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
        return sorted(self.tables.values(), key=lambda v: table_number(v.table))

    def needing(self) -> list[TableView]:
        """The tables needing the floor, worst first (the attention strip)."""
        return sorted((v for v in self.tables.values() if v.attention),
                      key=lambda v: (-RANK[v.severity or "notice"], -len(v.attention),
                                     table_number(v.table)))

    def open_alerts(self) -> list[Alert]:
        """Newest first."""
        return sorted(self.alerts.values(), key=lambda a: a.at, reverse=True)

    # ---------------------------------------------------------------- inside

    def _view(self, table: str) -> TableView:
        return self.tables.get(table) or TableView(table=table, venue=self.venue)

    def _set(self, view: TableView) -> RoomUpdate:
        attention = attention_reasons(view, self.alerts, self.clock, self.tournament)
        out = out_of_play(self.tournament, view)
        figures = card_figures(view.state, self._starts.get(view.table), self._now)
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
        limit = stall_limit(view, self.clock, self._floor_turn.get(table))
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



__all__ = ["STALL_ALL_IN_SECONDS", "STALL_SECONDS", "Alert", "Reason", "Room", "RoomSnapshot",
           "RoomUpdate", "TableView", "VenueView"]
