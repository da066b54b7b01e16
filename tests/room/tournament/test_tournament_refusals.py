"""Refused tournament commands in the log: one line each, a flood counted in one line
(controller/room/refusals.py). The lines themselves on a real broker:
tests/room/tournament/test_tournament_service.py."""

from __future__ import annotations

import logging

import pytest

from controller.room.refusals import PER_WINDOW, WINDOW_SECONDS, RefusalLog

log = logging.getLogger("tests.refusals")


def test_a_flood_of_refusals_is_a_few_lines_and_a_count(caplog: pytest.LogCaptureFixture
                                                         ) -> None:
    caplog.set_level(logging.WARNING, logger="tests.refusals")
    now = [0.0]
    refusals = RefusalLog(log, "tournament", clock=lambda: now[0])
    for k in range(500):
        refusals.refused("register", f"id-{k}", "args.name: no name was given", "PVB 13")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == PER_WINDOW
    assert lines[0] == ("tournament: command 'register' (id 'id-0') refused: args.name: no "
                        "name was given (PVB 13)")
    now[0] += WINDOW_SECONDS
    refusals.flush()
    assert caplog.records[-1].getMessage().startswith(
        f"tournament: {500 - PER_WINDOW} more commands refused in 10 s were not logged")
    refusals.refused("draw", None, "the draw was made already", "PVB 08a(1)")
    assert caplog.records[-1].getMessage() == ("tournament: command 'draw' (id 'none') "
                                               "refused: the draw was made already "
                                               "(PVB 08a(1))")
    assert len(caplog.records) == PER_WINDOW + 2
