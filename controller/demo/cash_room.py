"""`pokertable room --cash`: the room's simulated tables as cash tables under the casino's
cash-game rules (the CG), no clock, the cash floor (controller/room/cash) seating the players.

The odd tables deal no-limit hold'em, the even ones pot-limit Omaha, each its own game with its
own waiting list ("NLH 50/100", "PLO 50/100"), blinds fixed; each table opened with straddles
(CG "Straddle"). The simulated dealers straddle now and then, ask for a bomb pot, a flip or a
double board now and then (CG "Spielvarianten") and run it twice after an all-in when the players
agree (CG "Run It Twice"): controller/sim/cash.py. With four tables or more, table 3 is a
must-move table for table 1 (CG "Must Move").

The demo's floor (`CashDirector`) plays the people: players sign up for the lists; the floor
calls the first when a seat is open and seats him with his buy-in once he comes; a busted player
goes home, and now and then one leaves with his chips; a must-move player asked for the main
table's seat says yes. Everything goes through the cash floor's commands, as the floor page
sends them; the cash floor asks the tables to seat and unseat the players, and learns from their
states who sits where.
"""

from __future__ import annotations

import itertools
import logging
import random
import threading
from pathlib import Path
from typing import Literal, TextIO

from controller.mqtt.local_broker import LocalBroker
from controller.room.cash.ledger import CashSettings, TableSpec
from controller.room.cash.service import CashService
from controller.room.cash.store import CashStore
from controller.room.cash.view import CashState
from controller.room.floor.server import FloorServer
from controller.sim.soak import cash_profile

log = logging.getLogger(__name__)

SEATS = 6
SB, BB = 50, 100
BUY_IN = 5_000  # 50 big blinds: all-ins (and so runs twice) come now and then
GAMES = {"NT": f"NLH {SB}/{BB}", "PO": f"PLO {SB}/{BB}"}
FIRST_AT_TABLE = 4  # seated at the start, the others' seats open for the lists
WAITING = 2  # each list is kept this long: someone always waits
COMES_AFTER = 2.0  # seconds between the floor's call and the player sitting down
LEAVES_EVERY = 8  # about every this many hands at a table, a player goes home with his chips
STRADDLES = [["live", "button", "mississippi"], ["live"], ["button"], ["mississippi"]]
NAMES = ["Ada", "Bruno", "Clara", "Dario", "Elif", "Felix", "Gina", "Henri", "Iris", "Jonas",
         "Katya", "Leon", "Maja", "Nico", "Olivia", "Pavel", "Quinn", "Rita", "Samir", "Theo",
         "Ulla", "Viktor", "Wanda", "Xaver", "Yasmin", "Zeno"]


def game_of(table: int) -> Literal["NT", "PO"]:
    return "NT" if table % 2 else "PO"


def table_config(broker: LocalBroker, directory: Path, table: int) -> Path:
    """The cash table's ``table.toml``: the broker's (its login), the CG's profile for its game
    (first button on seat 1: the simulated dealer draws no cards for it), the straddles it
    opened with and its fixed blinds."""
    config = broker.table_config(directory, table, seats=SEATS)
    game = game_of(table)
    (directory / "cash.toml").write_text(cash_profile(game), encoding="utf-8")
    straddles = ", ".join(f'"{kind}"' for kind in STRADDLES[(table - 1) % len(STRADDLES)])
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace(
        "[table]\n", f'[table]\nprofile = "cash.toml"\nstraddles = [{straddles}]\n'
        f"level = {{ level = 1, sb = {SB}, bb = {BB}, smallest_chip = {SB} }}\n", 1),
        encoding="utf-8")
    return config


def settings(tables: int) -> CashSettings:
    return CashSettings(games=[GAMES["NT"], GAMES["PO"]],
                        tables=[TableSpec(table=str(n), seats=SEATS)
                                for n in range(1, tables + 1)],
                        call_seconds=120)


def start_cash(broker: LocalBroker, tables: int, work: Path) -> tuple[CashService, CashStore]:
    store = CashStore(work / "cash.db")
    service = CashService(broker.address(), broker.login("cash"), settings(tables),
                          store).start()
    service.connected.wait(5)
    return service, store


class CashDirector:
    """The demo's floor and its players, through the cash floor's commands (see the module)."""

    def __init__(self, server: FloorServer, service: CashService, tables: int, out: TextIO,
                 seed: int = 1) -> None:
        self.server, self.service, self.tables, self.out = server, service, tables, out
        self.rng = random.Random(seed)
        self.names = (f"{name}" if k == 0 else f"{name} {k + 1}"
                      for k in itertools.count() for name in NAMES)
        self.called_at: dict[str, float] = {}
        self.left_at: dict[str, int] = {}  # table -> the hand after which someone last left
        self.clock = 0.0

    def send(self, command: str, /, **args: object) -> bool:
        reply = self.server.send("cash", command, dict(args), by="floor:demo")
        if reply.status != "ok":
            log.info("demo floor: %s %s refused: %s", command, args, reply.reason)
        return reply.status == "ok"

    def open_room(self) -> None:
        """The tables open, the first players sign up and sit down from the lists."""
        for n in range(1, self.tables + 1):
            self.send("open_table", table=str(n), game=GAMES[game_of(n)])
        if self.tables >= 4:
            self.send("must_move", table="3", main="1")
        for n in range(1, self.tables + 1):
            game = GAMES[game_of(n)]
            for _ in range(FIRST_AT_TABLE):
                name = next(self.names)
                self.send("sign_up", game=game, name=name)
                if self.send("call", game=game, table=str(n)):
                    self.send("seat", table=str(n), name=name, stack=BUY_IN)
        for game in GAMES.values():
            for _ in range(WAITING):
                self.send("sign_up", game=game, name=next(self.names))

    def run(self, stop: threading.Event) -> None:
        try:
            self.open_room()
            while not stop.wait(1.0):
                self.clock += 1.0
                self.step()
        except Exception:  # the demo's floor must never take the room down with it
            log.exception("demo floor: stopped")

    def step(self) -> None:
        state = self.service.state()
        self._goers(state)
        self._offers(state)
        self._arrivals(state)
        self._calls(state)
        for line in state.games:
            for _ in range(WAITING - (line.waiting - line.called)):
                self.send("sign_up", game=line.game, name=next(self.names))

    def _goers(self, state: CashState) -> None:
        """A busted player goes home; now and then one leaves with his chips (between hands:
        the cash floor asks the table to let him go)."""
        seen = self.service.tables
        for line in state.tables:
            table = seen.get(line.table)
            if table is None or table.stage not in ("waiting", "over"):
                continue
            at = {v.player: v.stack for v in table.seats.values()}
            for player in line.players:
                if player.at_table and at.get(player.name) == 0:
                    self.send("leave", table=line.table, name=player.name)
            last = self.left_at.setdefault(line.table, table.hand)
            if (table.hand - last >= LEAVES_EVERY and len(line.players) > 2
                    and self.rng.random() < 0.5):
                self.left_at[line.table] = table.hand
                goer = self.rng.choice([p for p in line.players if p.at_table] or [None])
                if goer is not None:
                    self.send("leave", table=line.table, name=goer.name)

    def _offers(self, state: CashState) -> None:
        for offer in state.offers:  # a must-move player takes the main table's seat
            self.send("answer", table=offer.main, name=offer.asking, accept=True)

    def _arrivals(self, state: CashState) -> None:
        """A called player comes to the table a moment later and sits down with his buy-in."""
        for line in state.games:
            for entry in line.entries:
                if entry.called is None or entry.table is None:
                    continue
                called = self.called_at.setdefault(entry.name, self.clock)
                if self.clock - called >= COMES_AFTER:
                    self.called_at.pop(entry.name, None)
                    self.send("seat", table=entry.table, name=entry.name, stack=BUY_IN)

    def _calls(self, state: CashState) -> None:
        """An open seat: the floor calls the next on its game's list to that table (a main
        table's seats go down its must-move order instead)."""
        promised = {e.table for g in state.games for e in g.entries if e.called is not None}
        offered = {o.main for o in state.offers}
        for line in state.tables:
            if (line.game is None or line.seats_open <= 0 or line.must_move
                    or line.table in offered or line.table in promised):
                continue
            self.send("call", game=line.game, table=line.table)


def seats_text(state: CashState) -> str:
    """One line of who sits where, for the console."""
    return "; ".join(f"table {t.table} ({t.game}): " + ", ".join(
        p.name + ("" if p.at_table else " (coming)") for p in t.players)
        for t in state.tables if t.game is not None)


__all__ = ["BUY_IN", "GAMES", "SEATS", "CashDirector", "game_of", "seats_text", "settings",
           "start_cash", "table_config"]
