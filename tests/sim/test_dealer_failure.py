"""`pokertable table --simulate --hands N` plays N hands or exits 1 saying why not (README): a
dealer that fails on its own bug (once, a zone typo's KeyError in its thread) is a failure the
run reports, not a thread's traceback and an exit status of 0."""

from __future__ import annotations

import logging
import random
import threading

import pytest

from controller.session import SessionConfig, TableSession
from controller.sim.dealer import SimulatedDealer
from controller.sim.soak import DirectHands


class _BrokenDealer(SimulatedDealer):
    def play_hand(self) -> None:
        raise KeyError("pott")  # (what a zone no table has gave, before table.toml was checked)


def test_a_dealer_that_fails_sets_its_failure_and_stops_the_run(
        caplog: pytest.LogCaptureFixture) -> None:
    session = TableSession(SessionConfig(table_id="1"))
    dealer = _BrokenDealer(DirectHands(session, lambda event: None), None, 6, random.Random(1))
    stop = threading.Event()
    with caplog.at_level(logging.ERROR, logger="controller.sim.dealer"):
        dealer.play(1, stop)
    assert dealer.failure == "the simulated dealer failed (KeyError: 'pott')"
    assert dealer.played == 0 and stop.is_set()  # the table stops: the runner exits 1
    assert "the simulated dealer failed" in caplog.text
