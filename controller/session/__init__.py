"""The table session: table events in, engine operations, public events and hand records out.

This is the table's brain between the drivers and the engine, and it is as pure as the engine: no
clock, no I/O, no threads. ``handle(event)`` returns what to publish. The service around it owns
the journal and the outputs; replaying the same events into a fresh session gives the same
state, which is how the table survives a power cut and how undo and floor corrections work (they
edit the hand's events and replay them from the snapshot taken at the shuffle).

Rules implemented here name their tags (docs/rules.md): H1-H5 the hand's life, I1-I5 what the
antennas reveal about the deal, S3-S7 the showdown, R7 the binding fold out of turn, C1-C2 time,
T4 penalties.

The session is a small core holding its parts as components (`parts` says how; issue 38):
`base` the core (the engine's table, the hand's track and story, snapshots and replay,
``handle``) and `table_session` the hand's life on it (the shuffle, the seats, the showdown),
which makes the parts and routes each event to them. Each part keeps its own state and sees the
core through a narrow Protocol it declares: `cards` (the antennas' reads), `chips` (the betting
and pot zones), `actions` (declarations, the confirm key, every action in turn),
`floor_commands` (the dealer's keys and the floor's decisions), `hold_commands` (the holds on
the next shuffle), `time_calls` (time called, penalties), `shot_clock`, `stacks` (stack changes
and the colour-up), `table_stakes` and `cash` (a cash table's stakes, straddles, variants, run
it twice), `view` (the public state). Values: `model` (configuration, snapshot, step, the
hand's track), `outputs`, `chip_reading`, `colour_up`, `table_holds`, `shot_settings`, `words`.
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
