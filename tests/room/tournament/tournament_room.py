"""A room in memory for the tournament's tests: the pure `TournamentCore` with a real
`TableSession` per table (the same session the tables run), wired as the service wires them over
MQTT: the core's requests become table commands, the tables' states, elimination events and
sealed records go back to the core. Time is a number; the draw's random source is seeded; a
restart builds a new core from the ledger as the store would give it back, and hands it the
tables' retained states again."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from controller.events import CommandEvent, LevelEvent, SeatEvent, TableEvent, parse_event
from controller.mqtt.messages import ClockState
from controller.room.clock.structure import Structure
from controller.room.tournament.core import TournamentCore
from controller.room.tournament.ledger import Ledger, Settings, TableSpec
from controller.room.tournament.seating import Ask
from controller.session import SessionConfig, Step, TableSession
from controller.session.outputs import TableState
from tests.room.tournament import tournament_helpers as hands
from tests.session.helpers import chips, command, shuffle

SMALL = Structure.model_validate({
    "name": "small", "chips": [25, 100, 500], "late_registration_ends": 2,
    "levels": [{"sb": 50, "bb": 100, "minutes": 20}, {"sb": 100, "bb": 200, "minutes": 20},
               {"sb": 200, "bb": 400, "minutes": 20}],
    "entry": {"stack": 5_000, "reentry": True, "buy_in": 20, "currency": "EUR"},
    "prizes": {"unit": 5, "payouts": [{"up_to": 10, "percent": [65, 35]},
                                      {"percent": [50, 30, 20]}]}})


# Breaks that colour up (RULES T5), an add-on at the break that ends late registration and
# rebuys until then: not in a PVB tournament (PVB 20(1)), as a structure may offer them.
BREAKS = Structure.model_validate({
    "name": "breaks", "chips": [25, 100, 500], "late_registration_ends": 2,
    "levels": [{"sb": 50, "bb": 100, "minutes": 20}, {"sb": 100, "bb": 200, "minutes": 20},
               {"sb": 500, "bb": 1000, "minutes": 20}, {"sb": 1000, "bb": 2000, "minutes": 20}],
    "breaks": [{"after_level": 1, "minutes": 10, "colour_up": [25]},
               {"after_level": 2, "minutes": 10, "colour_up": [100]}],
    "entry": {"stack": 5_000, "reentry": True, "buy_in": 20, "currency": "EUR",
              "add_on": {"chips": 5_000, "price": 10},
              "rebuy": {"chips": 5_000, "price": 20, "at_most": 2}},
    "prizes": {"unit": 5, "payouts": [{"up_to": 10, "percent": [65, 35]},
                                      {"percent": [50, 30, 20]}]}})


def settings(tables: int = 3, seats: int = 6, structure: Structure = SMALL,
             **kw: Any) -> Settings:
    return Settings(name="test", structure=structure, seats=seats,
                    tables=[TableSpec(table=str(n), seats=seats) for n in range(1, tables + 1)],
                    **kw)


class SimRoom:
    def __init__(self, config: Settings, seed: int = 1) -> None:
        self.settings = config
        self.seeds = iter(range(seed * 1000, seed * 1000 + 10**6))
        self.now = 1_000.0
        self.core = self._core(None)
        self.tables = {t.table: TableSession(SessionConfig(table_id=t.table, seats=t.seats))
                       for t in config.tables}
        self.events = 0
        self.said: list[str] = []  # what the tables said, for the tests to read
        self.refused: list[str] = []  # requests the tables refused
        for name in self.tables:
            self.publish(name, None)

    def _core(self, ledger: Ledger | None) -> TournamentCore:
        return TournamentCore(self.settings, ledger, random_source=random.Random,
                              new_seed=lambda: next(self.seeds))

    # ---------------------------------------------------------------- the wire

    def publish(self, table: str, step: Step | None) -> None:
        session = self.tables[table]
        self.core.table_state(session.state())
        if step is None:
            return
        for k, event in enumerate(step.events):
            if event.kind == "elimination":
                self.core.elimination(table, f"{table}:{event.hand}:{self.events}.{k}",
                                      event.data, self.now)
            self.said.append(f"{table}: {event.text}")
        self.events += 1
        for record in step.sealed:
            self.core.record(table, record.public(), self.now)

    def handle(self, table: str, event: TableEvent) -> Step:
        step = self.tables[table].handle(event)
        self.publish(table, step)
        return step

    def apply(self, ask: Ask) -> None:
        event: TableEvent
        if ask.command == "seat":
            event = SeatEvent(**ask.args)
        else:
            event = CommandEvent(name=ask.command, args=ask.args, by="tournament")
        step = self.handle(ask.table, event)
        if not step.accepted:
            self.refused.append(f"{ask.table} {ask.command}: {step.events[0].text}")

    def settle(self, rounds: int = 40) -> None:
        """Let the core and the tables talk until nothing more is asked."""
        for _ in range(rounds):
            outcome = self.core.reconcile(self.now)
            self.now += 3.0  # past the retry time: whatever is still wanted goes again
            for ask in outcome.asks:
                self.apply(ask)
            if not outcome.asks and not outcome.save:
                return

    def partly(self, asks: int) -> None:
        """One exchange in which only the first ``asks`` requests reach the tables (the
        service is killed before it sends the rest)."""
        outcome = self.core.reconcile(self.now)
        self.now += 3.0
        for ask in outcome.asks[:asks]:
            self.apply(ask)

    def restart(self, order: list[str] | None = None, clock_last: bool = False,
                with_clock: bool = True) -> None:
        """The service killed and started again: the ledger as stored, the retained states.
        ``order``: the tables' retained states come one by one in this order, the core
        reconciling after each as the service does (and its requests reaching the tables);
        ``clock_last``: the clock's retained state comes after them (else first);
        ``with_clock``: False, it does not come (yet)."""
        stored = Ledger.model_validate_json(self.core.ledger.model_dump_json())
        clock = self.core.clock if with_clock else None
        self.core = self._core(stored)
        if clock is not None and not clock_last:
            self.core.clock_state(clock)
        for name in list(self.tables) if order is None else order:
            self.publish(name, None)
            if order is not None:
                self.partly(10**6)
        if clock is not None and clock_last:
            self.core.clock_state(clock)
            self.partly(10**6)

    # ---------------------------------------------------------------- the floor and the clock

    def command(self, command: str, **args: Any) -> str:
        said = self.core.command(command, args, "floor:test", self.now)
        self.settle()
        return said

    def clock(self, **fields: Any) -> None:
        self.core.clock_state(ClockState.model_validate({"level": 1, "sb": 50, "bb": 100,
                                                         **fields}))
        self.settle()

    def on_break(self, after_level: int) -> None:
        """The clock's break after ``after_level`` (its state names the level that follows);
        the tables hold for it as the clock would have them."""
        structure = self.settings.structure
        brk = structure.break_after(after_level)
        assert brk is not None
        for table in self.tables:
            self.handle(table, parse_event(command("hold", by="clock", kind="break",
                                                   reason="break")))
        self.clock(level=after_level + 1, status="on_break", on_break=True,
                   colour_up=brk.colour_up)

    def play_level(self, level: int) -> None:
        """The clock runs ``level``: the tables are released and take its blinds, in the
        smallest chip then in play, from their next hand (RULES H2, T5)."""
        spec = self.settings.structure.levels[level - 1]
        smallest = self.settings.structure.in_play_after(level - 1)[0]
        for table in self.tables:
            self.handle(table, LevelEvent(level=level, sb=spec.sb, bb=spec.bb,
                                          smallest_chip=smallest))
            self.handle(table, parse_event(command("release", by="clock", kind="break")))
        self.clock(level=level, sb=spec.sb, bb=spec.bb, status="running")

    def race(self, table: str, winners: list[int]) -> None:
        """The dealer lays each racer's stack on his zone after the chip race (RULES T5):
        ``winners`` with the chip they won, the others with what they keep."""
        up = self.state(table).colour_up
        assert up is not None and up.open, table
        for seat, racer in sorted(up.race.items()):
            if not racer.sure:
                total = racer.keeps + (up.unit if seat in winners else 0)
                self.handle(table, parse_event(chips(f"seat:{seat}", total)))
        self.settle()

    def race_right(self, table: str, pick: Any) -> list[int]:
        """A race the dealer runs by the book (APSA 2.1.18): ``pick(options, k)`` chooses
        which racers win; a player whose stack was all leftover may win a chip too, leaving
        one fewer for the others. Returns the winners read."""
        up = self.state(table).colour_up
        assert up is not None
        sure = [s for s, r in up.race.items() if r.sure]
        others = sorted(s for s, r in up.race.items() if not r.sure)
        least = max(0, up.race_chips - len(others))
        sure_winners = pick(list(range(least, min(up.race_chips, len(sure)) + 1)), 1)[0]
        winners = sorted(pick(others, up.race_chips - sure_winners))
        self.race(table, winners)
        return winners

    # ---------------------------------------------------------------- the dealers

    def feeder(self, table: str) -> hands.Feed:
        def feed(raws: list[dict[str, Any]]) -> None:
            for raw in raws:
                self.handle(table, parse_event(raw))
        return feed

    def state(self, table: str) -> TableState:
        return self.tables[table].state()

    def state_of(self, table: str) -> hands.State:
        return lambda: self.state(table)

    def shuffle(self, table: str) -> bool:
        """The dealer presses shuffle: whether a hand began (if not, why is in ``refused``)."""
        before = self.state(table).hand
        step = self.handle(table, parse_event(shuffle(ts=self.now)))
        self.now += 1
        if not step.accepted:
            self.refused.append(f"{table} shuffle: {step.events[0].text}")
        return self.state(table).hand > before

    def fold(self, table: str) -> None:
        """A hand everyone folds to the big blind."""
        assert self.shuffle(table), self.state(table).waiting_for
        hands.fold_around(self.feeder(table), lambda: self.state(table))
        self.settle()

    def bust(self, table: str, winner: int, losers: list[int]) -> None:
        assert self.shuffle(table), self.state(table).waiting_for
        hands.bust(self.feeder(table), lambda: self.state(table), winner, losers)
        self.settle()

    def knock_out(self, *players: str) -> str:
        """One hand at the table of ``players`` (all at one table): they go all-in against the
        biggest stack there, who wins. Returns the table."""
        where = {p: self.seat_of(p) for p in players}
        (table,) = {t for t, _ in where.values()}
        state = self.state(table)
        others = [s for s, v in state.seats.items() if v.player not in players]
        winner = max(others, key=lambda s: (state.seats[s].stack, -s))
        self.bust(table, winner, [seat for _, seat in where.values()])
        return table

    def fold_all(self) -> None:
        """A hand at every table with two players or more."""
        for table, count in self.counts().items():
            if count >= 2 and "seating" not in self.state(table).holds:
                self.fold(table)

    def count(self, table: str) -> None:
        """The dealer lays each newcomer's stack on his zone between hands."""
        for seat, view in self.state(table).seats.items():
            if view.counted is False:
                self.handle(table, parse_event(chips(f"seat:{seat}", view.stack)))
        self.settle()

    def close(self, table: str) -> None:
        self.handle(table, parse_event(command("close")))

    # ---------------------------------------------------------------- reading

    def seated(self) -> dict[str, tuple[str, int]]:
        """Every player at a table: where."""
        out: dict[str, tuple[str, int]] = {}
        for name, session in self.tables.items():
            for seat, view in session.state().seats.items():
                assert view.player not in out, f"{view.player} sits twice"
                out[view.player] = (name, seat)
        return out

    def counts(self) -> dict[str, int]:
        return {n: len(s.state().seats) for n, s in self.tables.items()}

    def chips_at_tables(self) -> int:
        return sum(v.stack for s in self.tables.values() for v in s.state().seats.values())

    def seat_of(self, player: str) -> tuple[str, int]:
        return self.seated()[player]

    def players_at(self, table: str) -> Iterator[tuple[int, str]]:
        for seat, view in sorted(self.state(table).seats.items()):
            yield seat, view.player


def drawn(tables: int = 3, seats: int = 6, players: int = 14, **kw: Any) -> SimRoom:
    """A room of ``players`` registered (clubs in turn) and drawn with seed 42."""
    room = SimRoom(settings(tables=tables, seats=seats, **kw))
    for k in range(players):
        room.command("register", name=f"p{k:02d}", club=["Asse", "Bluff", None][k % 3])
    room.command("draw", seed=42)
    return room


def two_out_at_table_one(balancing: str) -> tuple[SimRoom, list[int]]:
    """Twelve players drawn to two tables of six, balanced by the profile ``balancing``; a hand
    folded at each table twice, then at table 1 two players all-in against its biggest stack,
    who wins: table 1 is two players short, its hand over, the room not yet settled after it.
    The room, and the seats of the two who busted."""
    room = drawn(tables=2, seats=6, players=12, balancing=balancing)
    room.fold_all()
    room.fold_all()
    at_one = dict(room.players_at("1"))
    winner = max(at_one, key=lambda s: room.state("1").seats[s].stack)
    losers = [s for s in at_one if s != winner][:2]
    assert room.shuffle("1")
    hands.bust(room.feeder("1"), room.state_of("1"), winner, losers)
    return room, losers
