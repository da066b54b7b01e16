"""The cash floor's service for its tests: its settings, the floor's side, the service running."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import decode
from controller.room.cash.ledger import CashSettings, TableSpec
from controller.room.cash.service import CashService
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashState
from tests.venue import ServiceFloor, address, login
from tests.waiting import wait_until

NLH, PLO = "NLH 2/5", "PLO 5/5"
SETTINGS = CashSettings(games=[NLH, PLO], tables=[TableSpec(table=t, seats=6)
                                                  for t in ("1", "2", "3")], call_seconds=60)


class Floor(ServiceFloor):
    """The floor's side: cash commands and their replies, the retained state and contacts."""

    def __init__(self, broker: LocalBroker) -> None:
        super().__init__(broker, "cash", ("state", "contacts", "status"))

    def state(self, test: Any = lambda s: True, timeout: float = 10.0) -> CashState:
        """The latest retained state, once it passes ``test``."""
        def latest() -> CashState | None:
            states = self.client.on("state")
            return decode(CashState, states[-1].payload) if states else None
        assert wait_until(lambda: (s := latest()) is not None and bool(test(s)), timeout), \
            latest()
        found = latest()
        assert found is not None
        return found

    def waiting(self, game: str, state: CashState) -> list[str]:
        return next([e.name for e in g.entries] for g in state.games if g.game == game)


class Room:
    """The service of a test and its store (made again when it restarts)."""

    def __init__(self, broker: LocalBroker, path: Path, now: Any = time.time,
                 settings: CashSettings = SETTINGS) -> None:
        self.broker, self.path, self.now, self.settings = broker, path, now, settings
        self.store = CashStore(path)
        self.service = self._start()

    def _start(self) -> CashService:
        service = CashService(address(self.broker), login(self.broker, "cash"), self.settings,
                              self.store, now=self.now).start()
        assert service.connected.wait(5)
        return service

    def restart(self, settings: CashSettings | None = None) -> None:
        """Stopped and started again on the same store (with ``settings``: cash.toml
        changed in between)."""
        self.close()
        self.settings = settings or self.settings
        self.store = CashStore(self.path)
        self.service = self._start()

    def close(self) -> None:
        self.service.close()
        self.store.close()
