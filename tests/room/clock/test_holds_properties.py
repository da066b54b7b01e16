"""The room's holds over random sequences of events (Hypothesis stateful testing): breaks
starting and ending inside hand-for-hand rounds, hand-for-hand switched on and off inside
breaks, pauses inside either, the clock restarted inside either, tables joining, leaving and
freezing inside either, every message delivered in any order the broker allows. The
invariants (`tests/room/clock/holds_machine.py`): no hand dealt during a break; every released table
deals exactly one hand a round; no table held without a reason its state names; the clock
never waits for a table that is not held; and the room goes on when everything is back.

`make test` runs a few hundred sequences; HOLDS_EXAMPLES=5000 a nightly-sized run."""

from __future__ import annotations

import pytest

from tests.room.clock.holds_machine import HoldsMachine

TestTheRoomsHolds = pytest.mark.long(30)(HoldsMachine.TestCase)
