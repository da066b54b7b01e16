"""The table service: drivers -> table events -> journal -> session -> outputs.

One loop thread owns the session and the journal; driver threads only put events on a queue
(`submit`, the drivers' ``emit``). Each event is journaled (durable) before the session sees it;
after a crash `TableService` replays the journal into the same hand, same stacks, same pending
action. Sealed records go to the sink once the journal holds them, so a restart re-delivers a
record the sink may have missed (at least once; receivers drop duplicates by hand number).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel

from controller.engine.records import HandRecord
from controller.events import (
    BadEvent,
    CommandEvent,
    ShuffleEvent,
    TableEvent,
    TickEvent,
    parse_event,
)
from controller.service.manager import Loop
from controller.session import SessionConfig, Step, TableSession
from controller.session.outputs import DURABLE_KINDS, Leds, PublicEvent, Sink, TableState, hand_id
from controller.table.journal import Journal

log = logging.getLogger(__name__)

_STOP = object()
TICK_SECONDS = 0.5  # while a clock runs; the countdown is called out per whole second

Done = Callable[[Step], None]


@dataclass(frozen=True)
class _Request:
    """An event whose sender waits for the outcome (a command arriving over MQTT)."""

    event: TableEvent
    done: Done


class TableService:
    def __init__(
        self, config: SessionConfig, journal: Journal, sink: Sink,
        leds: Callable[[Leds], None] | None = None, clock: Callable[[], float] = time.time,
        tick_seconds: float = TICK_SECONDS,
    ) -> None:
        self.config = config
        self._tick_seconds = tick_seconds
        self._clock = clock  # wall time: a clock call survives a restart (ticks are journaled)
        self._last_tick = 0.0
        self.journal = journal
        self.sink = sink
        self._leds_out = leds
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._last_state: TableState | None = None
        self._last_leds: Leds | None = None
        # systemd's watchdog: every event of the table goes through this one thread.
        self.loop = Loop(f"table {config.table_id}'s event thread")
        self.session = self._recover()

    # ---------------------------------------------------------------- start-up

    def _recover(self) -> TableSession:
        """The session as the journal left it: latest snapshot, then every event after it."""
        recovery = self.journal.recovery()
        for seq, reason in recovery.skipped:
            log.error("table %s: journal event %d is not a table event any more and is skipped "
                      "(%s)", self.config.table_id, seq, reason)
        session = TableSession(self.config, recovery.snapshot)
        durable: list[PublicEvent] = []
        for seq, event in zip(recovery.seqs, recovery.events, strict=True):
            step = session.handle(event)
            for record in step.sealed:  # sealed before the crash but perhaps not stored
                self.journal.store_record(record)
            durable += [e for e in self._stamped(session, seq, step.events) if e.id]
        if durable:
            self.sink.recovered(durable)
        if recovery.events:
            log.info("table %s: recovered %d events after the last snapshot, hand %d",
                     self.config.table_id, len(recovery.events), session.table.hand_number)
        for record in self.journal.undelivered():
            self._deliver(record)
        self._publish_state(session)
        return session

    # ---------------------------------------------------------------- input (any thread)

    def submit(self, event: TableEvent, done: Done | None = None) -> None:
        """Hand over an event from a driver thread (this is the drivers' ``emit``). ``done``,
        if given, is called in the loop with the outcome once the event is applied."""
        self._queue.put(event if done is None else _Request(event, done))

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until everything submitted so far has been applied (tests, orderly stops)."""
        reached = threading.Event()
        self._queue.put(reached)
        return reached.wait(timeout)

    def submit_line(self, line: str) -> None:
        """Hand over a raw JSON line (a console, a pipe); it is validated in the loop."""
        self._queue.put(line)

    # ---------------------------------------------------------------- the loop

    def start(self) -> TableService:
        self._thread = threading.Thread(target=self._run, name="table-service", daemon=True)
        self._thread.start()
        return self

    def seal_last_hand(self, by: str = "the table service, stopping") -> None:
        """A clean stop: the table deals no further hand here, so the last one is sealed and
        delivered now (the floor's ``close``, journaled like any decision; RULES H3). A hand
        still running stays open, to go on after a restart."""
        if self._thread is None:
            return
        self.submit(CommandEvent(name="close", args={"stopping": True}, by=by))
        self.drain()
        if self.session._hand() is not None:
            log.info("table %s: hand %d is still running: it goes on after the restart",
                     self.config.table_id, self.session.table.hand_number)

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the queued events, then stop the loop."""
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def close(self) -> None:
        self.stop()
        self.journal.close()

    @property
    def last_state(self) -> TableState | None:
        """The state last told to the sinks (any thread: a whole value, replaced at once)."""
        return self._last_state

    def loops(self) -> list[Loop]:
        return [self.loop]

    def __enter__(self) -> TableService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        while True:
            self.loop.beat()
            try:  # while a clock runs the session gets time as events (RULES C1, C2)
                batch = [self._queue.get(timeout=self._tick_seconds if self._ticking() or (
                    self.session.shot_clock_due() is not None) else 1.0)]
            except queue.Empty:
                batch = []
            now = self._clock()
            if self._tick_due(now):
                self._last_tick = now
                batch.append(TickEvent(now=now))
            while len(batch) < 64:  # whatever queued up meanwhile: one fsync for all of it
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if not batch:
                continue  # a quiet second: the watchdog heard the loop move
            stop = _STOP in batch
            try:
                self.process_batch([item for item in batch if item is not _STOP])
            except Exception:  # the table never stops on one bad event
                log.exception("table %s: events could not be processed", self.config.table_id)
            if stop:
                return

    def _ticking(self) -> bool:
        return self.session.wants_ticks()

    def _tick_due(self, now: float) -> bool:
        """A time call counts down in ticks; the shot clock needs one only when a player's
        time or extension ends (docs/shot-clock.md): no idle ticks in the journal."""
        if self._ticking() and abs(now - self._last_tick) >= self._tick_seconds:
            return True
        due = self.session.shot_clock_due()
        return due is not None and now >= due

    def process_batch(self, items: list[object]) -> None:
        """Group commit: the events are journaled together before any of them is applied. A
        shuffle press closes a group, since the snapshot stored with it is the state just
        before it."""
        events: list[TableEvent] = []
        for item in items:
            event = self._parse(item) if isinstance(item, str) else item
            if event is None:
                continue
            assert isinstance(event, BaseModel | _Request | threading.Event)
            if isinstance(event, threading.Event):  # drain(): all before it is applied
                self._apply_group(events)
                events = []
                event.set()
            elif isinstance(event, _Request):  # its sender waits: on its own, answered at once
                self._apply_group(events)
                events = []
                self._answer(event)
            elif isinstance(event, ShuffleEvent):
                self._apply_group(events)
                events = []
                self.process(event)
            else:
                events.append(event)  # type: ignore[arg-type]
        self._apply_group(events)

    def _apply_group(self, events: list[TableEvent]) -> None:
        if not events:
            return
        if len(events) == 1:
            self.process(events[0])
            return
        events = [self._dated(e) for e in events]
        seqs = self.journal.append_many(events)
        for seq, event in zip(seqs, events, strict=True):
            # Each journaled event is applied, whatever happened to the one before it: the live
            # state must stay what the journal says.
            try:
                self._apply(event, seq)
            except Exception:
                log.exception("table %s: event %d (%s) could not be published",
                              self.config.table_id, seq, event.type)

    def _dated(self, event: TableEvent) -> TableEvent:
        """A shuffle press without a time (typed at a console, piped in) gets the table's, before
        it is journaled: the hand's start is in its record and in its id, which must differ
        from every earlier hand's even when a new journal counts hands from 1 again."""
        if isinstance(event, ShuffleEvent) and event.ts is None:
            return event.model_copy(update={"ts": self._clock()})
        if self.config.shot_clock is not None and not isinstance(event, TickEvent):
            # The shot clock counts in the table's own time: every event is dated by it when
            # it is taken (the readers' own times are their monotonic clocks).
            return event.model_copy(update={"ts": self._clock()})
        return event

    def _answer(self, request: _Request) -> None:
        step = self.process(request.event)
        try:
            request.done(step)
        except Exception:
            log.exception("table %s: the answer to a %s could not be sent", self.config.table_id,
                          request.event.type)

    def process_line(self, line: str) -> Step | None:
        event = self._parse(line)
        return None if event is None else self.process(event)

    def _parse(self, line: str) -> TableEvent | None:
        try:
            return parse_event(line)
        except BadEvent as exc:
            log.warning("table %s: rejected input: %s", self.config.table_id, exc)
            self.journal.reject(line, str(exc))
            self.sink.event(PublicEvent(kind="refused", text=str(exc),
                                        hand=self.session.table.hand_number))
            return None

    def process(self, event: TableEvent) -> Step:
        """Journal, apply, publish one event (the loop thread, or a test, calls this)."""
        event = self._dated(event)
        seq = self.journal.append(event, self.session.checkpoint(event))
        return self._apply(event, seq)

    def _apply(self, event: TableEvent, seq: int) -> Step:
        """Apply and publish an event that is already in the journal."""
        session = self.session
        try:
            step = session.handle(event)
        except Exception:
            log.exception("table %s: internal error on a %s event; the hand is rebuilt from its "
                          "journal", self.config.table_id, event.type)
            session.restore_story()
            step = Step(False, [PublicEvent(
                kind="refused", text="internal error: the event was not applied, call the floor",
                hand=session.table.hand_number,
            )])
        if step.error is not None:
            log.error("table %s: a %s event could not be applied and was refused:\n%s",
                      self.config.table_id, event.type, step.error)
        # The new state goes out first: it is what every screen waits for, and the event is
        # already durable in the journal. Then the events, then the records (which cost fsyncs
        # of their own, and which a replay would seal again).
        if step.changed:
            self._publish_state(session)
        for public in self._stamped(session, seq, step.events):
            if public.kind == "refused":
                log.warning("table %s: refused: %s (%s)", self.config.table_id, public.text,
                            public.rule)
            self.sink.event(public)
        for record in step.sealed:
            if self.journal.store_record(record):
                self._deliver(record)
        return step

    @staticmethod
    def _stamped(session: TableSession, seq: int, events: list[PublicEvent]
                 ) -> list[PublicEvent]:
        """Durable events get their id: the hand, and the journal sequence number of the event
        that caused them, so a replay after a crash gives them the same ids."""
        out: list[PublicEvent] = []
        for k, public in enumerate(events):
            if public.kind in DURABLE_KINDS:
                track = session.track
                started = track.started if track is not None else None
                key = hand_id(session.config.table_id, public.hand, started)
                public = public.model_copy(update={"id": f"{key}:{seq}.{k}"})
            out.append(public)
        return out

    def _deliver(self, record: HandRecord) -> None:
        self.sink.record(record)
        self.journal.mark_delivered(record.hand)

    def _publish_state(self, session: TableSession) -> None:
        state = session.state()
        if state != self._last_state:
            self._last_state = state
            self.sink.state(state)
        leds = session.leds()
        if leds != self._last_leds:
            self._last_leds = leds
            if self._leds_out is not None:
                self._leds_out(leds)
