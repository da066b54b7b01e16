"""The tournament service on the test broker: its settings, the floor's side, its tables' hands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, TournamentState, decode
from controller.room.clock.structure import Structure
from controller.room.tournament.ledger import Settings, TableSpec
from controller.room.tournament.service import TournamentService
from controller.room.tournament.store import TournamentStore
from controller.room.tournament.view import PublishedState
from tests.mqtt.helpers import LinkedTable
from tests.room.tournament import tournament_helpers as hands
from tests.venue import ServiceFloor, address, login

STRUCTURE = Structure.model_validate({
    "name": "service", "chips": [25, 100], "late_registration_ends": 1,
    "levels": [{"sb": 25, "bb": 50, "minutes": 60}, {"sb": 50, "bb": 100, "minutes": 60}],
    "entry": {"stack": 5_000, "buy_in": 10},
    "prizes": {"payouts": [{"percent": [60, 40]}]}})
SETTINGS = Settings(name="service test", structure=STRUCTURE, seats=4,
                    tables=[TableSpec(table=t, seats=4) for t in ("1", "2", "3")])


class Floor(ServiceFloor):
    """The floor's side: tournament commands and replies, the tournament's retained state."""

    def __init__(self, broker: LocalBroker, *, clock: bool = False,
                 also: tuple[str, ...] = ()) -> None:
        """``clock``: the clock's commands and state too (``self.clock``), over the one
        connection the floor's login may have."""
        super().__init__(broker, "tournament",
                         also=(*also, *(("clock/reply", "clock/state") if clock else ())))
        self.clock = self.sharing("clock")

    def clock_state(self) -> ClockState:
        assert self.client.wait(lambda _: bool(self.clock.on("state")))
        return decode(ClockState, self.clock.on("state")[-1].payload)

    def state(self) -> PublishedState:
        assert self.client.wait(lambda _: bool(self.on("state")))
        payload = self.on("state")[-1].payload
        decode(TournamentState, payload)  # what every screen reads: the base contract holds
        return PublishedState.model_validate_json(payload)


class Room:
    """The tournament service of a test and its store (replaced when it restarts)."""

    def __init__(self, service: TournamentService, store: TournamentStore) -> None:
        self.service, self.store = service, store

    def restart(self, broker: LocalBroker, tmp_path: Path, settings: Settings,
                **kw: Any) -> None:
        self.close()
        self.service, self.store = start_service(broker, tmp_path, settings, **kw)

    def close(self) -> None:
        self.service.close()
        self.store.close()


def start_service(broker: LocalBroker, tmp_path: Path, settings: Settings = SETTINGS,
                  **kw: Any) -> tuple[TournamentService, TournamentStore]:
    """``kw``: the service's own keywords (``retry_seconds``)."""
    store = TournamentStore(tmp_path / "tournament.db")
    service = TournamentService(address(broker), login(broker, "tournament"), settings, store,
                                export=tmp_path / "standings", **kw).start()
    assert service.connected.wait(5)
    return service, store


def players(table: LinkedTable) -> dict[int, str]:
    return {s: v.player for s, v in table.memory.last.seats.items()}


def counts(tables: dict[str, LinkedTable]) -> dict[str, int]:
    return {name: len(t.memory.last.seats) for name, t in tables.items()}


def feeder(table: LinkedTable) -> hands.Feed:
    def feed(raws: list[dict[str, Any]]) -> None:
        table.feed(raws)
        table.settle()
    return feed


def state_of(table: LinkedTable) -> hands.State:
    return lambda: table.memory.last


def shuffle(table: LinkedTable) -> bool:
    before = table.memory.last.hand
    feeder(table)([{"type": "shuffle"}])
    return table.memory.last.hand > before


def knock_out(table: LinkedTable, losers: list[int]) -> None:
    """A hand at ``table``: ``losers`` all-in against the biggest other stack, who wins."""
    assert shuffle(table), table.memory.last.waiting_for
    state = table.memory.last
    dealt = [s for s, v in state.seats.items() if v.in_hand]
    winner = max((s for s in dealt if s not in losers),
                 key=lambda s: state.seats[s].stack + state.seats[s].bet)
    hands.bust(feeder(table), state_of(table), winner, losers)
