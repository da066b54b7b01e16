"""The secure-delay broadcast feed's server side (docs/broadcast.md): what it may show, and when.

Hole cards never travel live. The feed is made of SEALED hands only: when a table's public
record reaches the floor (the hand is over and sealed, RULES H3), the feed reads the full record
from the recorder's store (``[floor] records``: the one place the floor reads a card nobody
tabled), times each of its actions by the public events the floor heard while it was played
(`broadcast_view.action_times`: never earlier than the action), and keeps the hand's steps.
A step leaves the server once the feed's clock has passed its action's time plus the table's
delay (``[broadcast] delay_minutes``, 30 by default; none at a closed-door table, whose hands
show once sealed). The delay is kept here, on the server: a page, or a leaked link, never holds
anything younger.

Each open stream (`broadcast_pages.py`) runs its own little scheduler: every ``tick`` (real
seconds), or at once when woken (a hand became known, the feature table changed), it reads the
feed's clock (injectable: the tests turn it by hand), sends every step now due that it has not
sent, then a ``clock`` push saying up to when: a step not sent before a clock push of time T
was not due at T. Steps are built (equities included) off the web loop, once per hand, and only
for a table somebody watches.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import multiprocessing
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from controller.engine.records import HandRecord
from controller.history.query import HandQuery as RecordQuery
from controller.mqtt.messages import EventMessage
from controller.room.floor.broadcast_view import FeedStep, Heard, action_times, build_steps, heard
from controller.room.floor.config import BroadcastSection
from controller.room.floor.hub import Hub, Screen
from controller.room.floor.sealed_records import HandReader
from controller.room.recorder.store import StoreUnavailable
from controller.session.outputs import hand_id

log = logging.getLogger(__name__)

TICK = 1.0  # real seconds between a stream's looks at the clock
# After the public record, the recorder keeps the full one a moment later: looked for then
RECORDER_LAG = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
HANDS_HEARD = 3  # hands per table whose public events are kept until their record comes
EVENTS_HEARD = 2000  # ... at most, per hand (a hand says a few dozen)

Cursor = tuple[tuple[float, int], int]  # (the hand's key, the step) a stream has sent last


@dataclass(eq=False)
class SealedHand:
    key: tuple[float, int]  # (its start, its number): the order of a table's hands
    record: HandRecord
    times: list[float]
    steps: list[FeedStep] | None = None
    building: asyncio.Future[list[FeedStep]] | None = field(default=None, repr=False)


class StepBuilder:
    """`build_steps` in a process of its own (one, started when first needed): a hand's
    pre-flop equities are Monte Carlo runs of a third of a second each, pure Python, and on a
    thread of the floor's they would hold the interpreter's lock that long, delaying every push
    to the room's screens behind it (bench/broadcast_equity.py measures it). Where no process
    can be started, a thread of this one does it."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False

    async def build(self, record: HandRecord, times: list[float]) -> list[FeedStep]:
        if not self._broken:
            try:
                if self._pool is None:
                    # spawn: a fresh interpreter, not a fork of the server's threads and sockets
                    self._pool = ProcessPoolExecutor(
                        1, mp_context=multiprocessing.get_context("spawn"),
                        initializer=_leave_interrupts_to_the_server)
                return await asyncio.get_running_loop().run_in_executor(
                    self._pool, build_steps, record, list(times))
            except (BrokenProcessPool, OSError):
                log.warning("floor: the broadcast's equity worker failed: the equities are "
                            "computed in the server's own process from now on", exc_info=True)
                self._broken = True
                self.close()
        return await asyncio.to_thread(build_steps, record, times)

    @property
    def worker(self) -> int | None:
        """The worker's process id (once started), for the tests."""
        processes = getattr(self._pool, "_processes", None) or {}
        return next(iter(processes), None)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _leave_interrupts_to_the_server() -> None:
    """In the worker: Ctrl-C in a terminal reaches the whole process group, and the worker
    died of it with a traceback (`make demo`) while the server was still stopping cleanly.
    The server stops its worker itself (`StepBuilder.close`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class BroadcastFeed:
    """One floor's broadcast: the public events heard per hand, the sealed hands within the
    delay, the feature table, and the streams open (each a hub screen: the server's limits and
    its stop apply to them)."""

    def __init__(self, hub: Hub, records: HandReader | None, settings: BroadcastSection, *,
                 now: Callable[[], float] | None = None, tick: float = TICK) -> None:
        self.hub = hub
        self.records = records
        self.settings = settings
        self.now: Callable[[], float] = now or hub.clock_now
        self.tick = tick
        self.feature = self._kept_feature()
        self.venue = hub.venues[0]
        self.streams: set[Screen] = set()
        self._heard: dict[str, dict[int, list[Heard]]] = {}
        self._hands: dict[str, list[SealedHand]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.builder = StepBuilder()
        hub.on_event.append(self._event)
        hub.on_hand.append(self._sealed)

    # ------------------------------------------------------------ from the hub (its loop)

    def _event(self, venue: str, message: EventMessage) -> None:
        event = message.event
        if venue != self.venue or event.hand < 1:
            return
        hands = self._heard.setdefault(message.table, {})
        if event.kind == "hand_started":
            hands[event.hand] = []  # (a misdeal dealt again: only the hand now dealt counts)
        said = hands.setdefault(event.hand, [])
        if len(said) < EVENTS_HEARD:
            said.append(heard(event, self.now()))
        for old in sorted(hands)[:-HANDS_HEARD]:
            del hands[old]

    def heard(self, table: str, hand: int) -> int:
        """How many public events of that hand the feed has timed (for the tests' waits)."""
        return len(self._heard.get(table, {}).get(hand, []))

    def _sealed(self, venue: str, record: HandRecord) -> None:
        if venue != self.venue or self.records is None:
            return
        events = self._heard.get(record.table, {}).pop(record.hand, [])
        if record.status != "complete":
            return  # a void hand or a misdeal: nothing was played to show
        task = asyncio.get_running_loop().create_task(
            self._fetch(record, events, self.now()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _fetch(self, public: HandRecord, events: list[Heard], sealed_at: float) -> None:
        """The hand's full record from the recorder's store, when it has it."""
        wanted = hand_id(public.table, public.hand, public.started)
        query = RecordQuery(table=public.table, hand=public.hand)
        for wait in RECORDER_LAG:
            await asyncio.sleep(wait)
            records = self.records
            if records is None:
                return
            try:
                kept = await asyncio.to_thread(records.hands, query, self.venue)
            except StoreUnavailable:  # (said once by the reader)
                continue
            except Exception:  # the store away: the hand is looked for again, then missed
                log.warning("floor: the broadcast could not read the recorder's store",
                            exc_info=True)
                continue
            full = next((k.record for k in kept if k.id == wanted), None)
            if full is not None:
                self._keep(full, action_times(full, events, sealed_at))
                return
        log.warning("floor: the broadcast never found table %s hand %d in the recorder's "
                    "store: it is not shown", public.table, public.hand)

    def _keep(self, record: HandRecord, times: list[float]) -> None:
        if not record.actions:
            return
        hands = self._hands.setdefault(record.table, [])
        key = (record.started or 0.0, record.hand)
        if any(h.key == key for h in hands):
            return
        bisect.insort(hands, SealedHand(key, record, times), key=lambda h: h.key)
        self._prune(record.table)
        self.wake()

    def _prune(self, table: str) -> None:
        """Hands wholly shown long ago are let go (the latest of them stays: it is on screen)."""
        hands = self._hands[table]
        now, delay = self.now(), self.settings.delay(table)
        done = [k for k, h in enumerate(hands) if h.times[-1] + delay <= now]
        if len(done) > 1:
            del hands[:done[-1]]

    def known(self, table: str) -> list[int]:
        """The hand numbers the feed holds for ``table`` (for the tests' waits)."""
        return [h.record.hand for h in self._hands.get(table, [])]

    # ------------------------------------------------------------ for the streams

    def delay(self, table: str) -> float:
        return self.settings.delay(table)

    def wake(self) -> None:
        """Every stream looks at the clock now."""
        for screen in self.streams:
            with contextlib.suppress(asyncio.QueueFull):
                screen.queue.put_nowait(b"")

    def switch(self, table: str | None) -> None:
        self.feature = table
        self.wake()

    async def choose(self, table: str | None, by: str) -> None:
        """The floor's switch: kept in the floor's store (a restart keeps it), then shown."""
        await asyncio.to_thread(self.hub.store.set_feature, table, self.settings.feature_table,
                                time.time(), by)
        self.switch(table)

    def _kept_feature(self) -> str | None:
        """The floor's last switch, unless floor.toml's feature_table was edited since (the
        newer word wins); else the configured one."""
        kept = self.hub.store.feature()
        configured = self.settings.feature_table
        if kept is None or kept[1] != configured:
            return configured
        return kept[0]

    async def latest(self, table: str, now: float) -> tuple[FeedStep | None, Cursor | None]:
        """The last step due at ``now`` (what the screen shows), and the stream's cursor."""
        delay = self.delay(table)
        for hand in reversed(self._hands.get(table, [])):
            due = bisect.bisect_right(hand.times, now - delay)
            if due:
                steps = await self._steps(hand)
                if not steps:
                    continue
                return steps[due - 1], (hand.key, due - 1)
        return None, None

    async def due(self, table: str, cursor: Cursor | None, now: float
                  ) -> tuple[list[FeedStep], Cursor | None]:
        """The steps due at ``now`` after ``cursor``, in order, and the new cursor."""
        delay = self.delay(table)
        out: list[FeedStep] = []
        for hand in list(self._hands.get(table, [])):
            if cursor is not None and hand.key < cursor[0]:
                continue
            first = cursor[1] + 1 if cursor is not None and hand.key == cursor[0] else 0
            due = bisect.bisect_right(hand.times, now - delay)
            if due <= first:
                if first < len(hand.times):
                    break  # this hand's next step is not due: no later one is
                continue
            steps = await self._steps(hand)
            out += steps[first:due]
            if steps:
                cursor = (hand.key, due - 1)
        return out, cursor

    async def _steps(self, hand: SealedHand) -> list[FeedStep]:
        """The hand's steps, built once (in the equity worker: the equities take a moment)."""
        if hand.steps is None:
            if hand.building is None:
                hand.building = asyncio.ensure_future(
                    self.builder.build(hand.record, hand.times))
            try:
                hand.steps = await asyncio.shield(hand.building)
            except asyncio.CancelledError:
                raise
            except Exception:  # a record we cannot picture: left out, said once
                log.exception("floor: the broadcast could not picture table %s hand %d",
                              hand.record.table, hand.record.hand)
                hand.steps = []
        return hand.steps

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.builder.close()


__all__ = ["BroadcastFeed", "Cursor", "SealedHand"]
