"""A cash room on the pure core: the floor's commands one by one, each a second after the last,
journaled as the service journals them (only what went through), for the rule tests and the
replay properties."""

from __future__ import annotations

from typing import Any

import pytest

from controller.room.cash.core import CashCore, Journaled
from controller.room.cash.ledger import CashSettings, MustMoveOrder, Refused, TableSpec

NLH, PLO, LIMIT = "NLH 2/5", "PLO 5/5", "Limit 5/10"


def room_settings(*, seats: int = 9, tables: int = 5, call_seconds: float = 600,
                  order: MustMoveOrder = "list") -> CashSettings:
    return CashSettings(games=[NLH, PLO, LIMIT],
                        tables=[TableSpec(table=str(k), seats=seats)
                                for k in range(1, tables + 1)],
                        call_seconds=call_seconds, must_move_order=order)


class Floor:
    def __init__(self, settings: CashSettings | None = None, start: float = 1_000.0) -> None:
        self.settings = settings or room_settings()
        self.core = CashCore(self.settings)
        self.now = start
        self.journal: list[Journaled] = []

    def do(self, command: str, /, **args: Any) -> str:
        self.now += 1
        said = self.core.command(command, args, "floor:test", self.now)
        self.journal.append((command, args, "floor:test", self.now))
        return said

    def refused(self, command: str, /, **args: Any) -> Refused:
        before = self.core.ledger.model_dump()
        with pytest.raises(Refused) as caught:
            self.do(command, **args)
        assert self.core.ledger.model_dump() == before  # a refusal changes nothing
        return caught.value

    def tick(self, now: float) -> bool:
        """The service's tick: time passing, journaled when it changed something."""
        self.now = now
        if not self.core.tick(now):
            return False
        self.core.command("tick", {}, "cash", now)
        self.journal.append(("tick", {}, "cash", now))
        return True

    # ------------------------------------------------------------ set-ups

    def table_of(self, table: str, game: str, players: list[str]) -> None:
        """``table`` opened with ``game`` and ``players`` seated (walk-ins: nobody waits)."""
        self.do("open_table", table=table, game=game)
        for name in players:
            self.do("seat", table=table, name=name)

    def from_list(self, game: str, table: str, name: str) -> None:
        self.do("sign_up", game=game, name=name)
        self.do("call", game=game)
        self.do("seat", table=table, name=name)

    # ------------------------------------------------------------ what it shows

    def seated(self, table: str) -> list[str]:
        return [p.name for p in self.core.ledger.table(table).players]

    def waiting(self, game: str) -> list[str]:
        return [e.name for e in self.core.ledger.lists[game]]

    def order(self, main: str) -> list[str]:
        return list(self.core.ledger.must_move.get(main, []))

    def asking(self, main: str) -> str | None:
        offer = self.core.ledger.offer(main)
        return offer.asking if offer is not None else None


def full(table: str, count: int = 9, prefix: str | None = None) -> list[str]:
    return [f"{prefix or 't' + table}-{k}" for k in range(1, count + 1)]


__all__ = ["LIMIT", "NLH", "PLO", "Floor", "full", "room_settings"]
