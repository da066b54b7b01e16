"""The table session: table events in, engine operations, public events and hand records out.

This is the table's brain between the drivers and the engine, and it is as pure as the engine: no
clock, no I/O, no threads. ``handle(event)`` returns what to publish. The service around it owns
the journal and the outputs; replaying the same events into a fresh session gives the same
state, which is how the table survives a power cut and how undo and floor corrections work (they
edit the hand's events and replay them from the snapshot taken at the shuffle).

Rules implemented here name their tags (docs/rules.md): H1-H5 the hand's life, I1-I5 what the
antennas reveal about the deal, S3-S7 the showdown, R7 the binding fold out of turn, C1-C2 time,
T4 penalties.

The parts: `model` (configuration, snapshot, step, the hand's track), `base` (state, replay,
``handle``), `table_session` (the hand), `floor` (keys and floor decisions), `clock` (time and
penalties), `view` (the public state), `words` (cards and blinds in words).
"""

from controller.session.model import (
    FLOOR_COMMANDS,
    HandTrack,
    Refused,
    SessionConfig,
    SessionSnapshot,
    Step,
)
from controller.session.table_session import TableSession

__all__ = ["FLOOR_COMMANDS", "HandTrack", "Refused", "SessionConfig", "SessionSnapshot", "Step",
           "TableSession"]
