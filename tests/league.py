"""A league on real Mosquittos (the `league` fixture in tests/conftest.py): the league's broker
and two venues' brokers bridged to it (TLS, each bridge its own login), each venue with tables
1 and 2 (docs/league.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from controller.mqtt.local_broker import LocalBroker, LocalLeague

VENUES = ["hall-a", "hall-b"]


@dataclass
class League:
    broker: LocalLeague
    venues: dict[str, LocalBroker]


@contextlib.contextmanager
def running_league() -> Iterator[League]:
    with LocalLeague("league", VENUES) as broker, contextlib.ExitStack() as stack:
        venues = {v: stack.enter_context(LocalBroker(v, tables=2, bridge=broker.bundle(v)))
                  for v in VENUES}
        yield League(broker, venues)
