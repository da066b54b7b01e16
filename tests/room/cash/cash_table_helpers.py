"""The cash floor with its tables linked on the broker: the floor's login, what tables show."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import CommandReply, decode
from controller.room.cash.ledger import CashSettings, TableSpec
from controller.room.cash.service import CashService
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashState
from controller.session import SessionConfig
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.room.cash.cash_helpers import Floor as CashFloor
from tests.room.tournament import tournament_helpers as hands
from tests.venue import ServiceFloor, address, login
from tests.waiting import wait_for

NLH = "NLH 2/5"
SEATS = 4
SETTINGS = CashSettings(games=[NLH, "PLO 5/5"],
                        tables=[TableSpec(table=t, seats=SEATS) for t in ("1", "2")],
                        call_seconds=600)


class Floor(CashFloor):
    """The floor's login: the cash floor's topics and the tables' replies."""

    def __init__(self, broker: LocalBroker) -> None:
        ServiceFloor.__init__(self, broker, "cash", ("state", "contacts", "status"),
                              also=("table/+/reply",))

    def table_replies(self, table: str) -> list[CommandReply]:
        return [decode(CommandReply, m.payload) for m in self.client.on("reply")
                if f"/table/{table}/" in m.topic]

    def table_reply(self, table: str, command: str) -> CommandReply:
        """The table's first reply to ``command`` (it may come after the table's state)."""
        wait_for(lambda: any(r.command == command for r in self.table_replies(table)),
                 what=f"table {table}'s reply to {command}")
        return next(r for r in self.table_replies(table) if r.command == command)


@contextlib.contextmanager
def cash_room(broker: LocalBroker, tmp_path: Path, settings: CashSettings = SETTINGS,
              config: Callable[[TableSpec], SessionConfig] | None = None
              ) -> Iterator[tuple[CashService, Floor, dict[str, LinkedTable]]]:
    """The cash floor with ``settings`` and its tables linked, each with ``config`` (by
    default its id and seats alone); the floor's login."""
    def plain(spec: TableSpec) -> SessionConfig:
        return SessionConfig(table_id=spec.table, seats=spec.seats)
    with contextlib.ExitStack() as stack:
        tables = {t.table: stack.enter_context(linked_table(
            broker, tmp_path / f"t{t.table}", table=t.table, config=(config or plain)(t)))
            for t in settings.tables}
        store = CashStore(tmp_path / "cash.db")
        stack.callback(store.close)
        service = CashService(address(broker), login(broker, "cash"), settings, store,
                              retry_seconds=0.5).start()
        stack.callback(service.close)
        assert service.connected.wait(5)
        floor = Floor(broker)
        stack.callback(floor.client.close)
        yield service, floor, tables


def seats(table: LinkedTable) -> dict[int, tuple[str, int]]:
    return {s: (v.player, v.stack) for s, v in table.memory.last.seats.items()}


def sits(table: LinkedTable, name: str) -> tuple[int, int] | None:
    return next(((s, stack) for s, (player, stack) in seats(table).items() if player == name),
                None)


def players(state: CashState, table: str) -> dict[str, tuple[int | None, bool]]:
    line = next(t for t in state.tables if t.table == table)
    return {p.name: (p.seat, p.at_table) for p in line.players}


def own(service: CashService) -> list[tuple[str, dict[str, Any]]]:
    """The cash floor's own commands in its journal (what the tables' states said)."""
    return [(c["name"], c["args"]) for c in service.store.commands() if c["by"] == "cash"]


def hands_feed(table: LinkedTable) -> hands.Feed:
    def feed(raws: list[dict[str, Any]]) -> None:
        table.feed(raws)
        table.settle()
    return feed
