"""The broadcast's equities are computed in a worker process, not on the floor's own threads
(bench/broadcast_equity.py: a pre-flop Monte Carlo on a thread held the interpreter's lock and
made the floor's p99 push delay 27 ms instead of 0.2): the steps it builds are exactly those
built in the process, and a worker that dies leaves the feed working in the process."""

from __future__ import annotations

import asyncio
import os
import signal

from controller.engine.records import HandRecord
from controller.room.floor.broadcast import StepBuilder
from controller.room.floor.broadcast_view import build_steps
from tests.session.helpers import played_session, start


def _hands() -> list[HandRecord]:
    return [r for r in start(played_session(hands=4, seed=11, players=6)).records()
            if r.status == "complete"]


def test_the_steps_are_built_in_a_worker_process_as_in_the_floors() -> None:
    hands = _hands()
    # (a hand with a pre-flop equity: the Monte Carlo the worker is for)
    preflop = [h for h in hands if any(s.equity and s.equity.method == "monte-carlo"
                                       for s in build_steps(h, [1.0] * len(h.actions)))]
    assert preflop
    builder = StepBuilder()

    async def run() -> None:
        for hand in preflop:
            times = [float(k) for k in range(len(hand.actions))]
            built = await builder.build(hand, times)
            assert built == build_steps(hand, times)  # the same seeded numbers, every step
        worker = builder.worker
        assert worker is not None and worker != os.getpid()
        # The worker dies (killed, out of memory): the feed builds on in the process
        os.kill(worker, signal.SIGKILL)
        hand = preflop[0]
        times = [1.0] * len(hand.actions)
        assert await builder.build(hand, times) == build_steps(hand, times)
        assert builder.worker is None and builder._broken

    try:
        asyncio.run(run())
    finally:
        builder.close()


def test_ctrl_c_in_the_terminal_leaves_the_worker_to_the_server() -> None:
    """Ctrl-C reaches every process of the terminal's group: the worker died of it with a
    traceback on `make demo`'s console while the floor was still stopping cleanly. It ignores
    it now and keeps building until the server closes it."""
    hand = _hands()[0]
    times = [1.0] * len(hand.actions)
    builder = StepBuilder()

    async def run() -> None:
        assert await builder.build(hand, times) == build_steps(hand, times)
        worker = builder.worker
        assert worker is not None
        os.kill(worker, signal.SIGINT)
        # The next hand is built by the same worker, after the interrupt reached it: a worker
        # that died of it would leave the pool broken and the build in the server's process.
        assert await builder.build(hand, times) == build_steps(hand, times)
        assert not builder._broken and builder.worker == worker

    try:
        asyncio.run(run())
    finally:
        builder.close()
