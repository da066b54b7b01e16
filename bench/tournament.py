"""The tournament's core with 1,000 players on 100 tables (and, as the reference in the same
run, 100 players on 10): how long it takes, after an elimination, to place it (the standings)
and to decide what follows (the next balancing move or break: `TournamentCore.reconcile`), to
build the retained state, and how much memory the core holds.

The tables are real `TableSession`s for the draw (every player seated by the core's own seat
requests); eliminations are then made by taking a player's chips to his neighbour in the
table's state and telling the core as a table would (its elimination event, its new state), so
that the figures are the core's alone. Target: the standings and the next move together (place
+ decide, p50) under 10 ms at 1,000 players.

    .venv/bin/python bench/tournament.py [--busts 200] [--quick]   (quick: 40 eliminations)
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import statistics
import time
import tracemalloc
from typing import Any

from controller.events import CommandEvent, SeatEvent
from controller.room.clock.structure import Structure
from controller.room.tournament.core import TournamentCore
from controller.room.tournament.ledger import Settings, TableSpec
from controller.session import SessionConfig, TableSession
from controller.session.outputs import SeatView, TableState

STRUCTURE = Structure.model_validate({
    "name": "bench", "chips": [25, 100], "late_registration_ends": 1,
    "levels": [{"sb": 25, "bb": 50, "minutes": 30}],
    "entry": {"stack": 10_000, "buy_in": 100},
    "prizes": {"payouts": [{"percent": [30, 20, 13, 10, 8, 6.5, 5, 4, 3.5]}]}})


def room(players: int, tables: int) -> tuple[TournamentCore, dict[str, TableState]]:
    settings = Settings(name="bench", structure=STRUCTURE, seats=10,
                        tables=[TableSpec(table=str(n), seats=10) for n in range(1, tables + 1)])
    seeds = iter(range(10**9))
    core = TournamentCore(settings, random_source=random.Random, new_seed=lambda: next(seeds))
    sessions = {t.table: TableSession(SessionConfig(table_id=t.table, seats=10))
                for t in settings.tables}
    for session in sessions.values():
        core.table_state(session.state())
    for k in range(players):
        core.command("register", {"name": f"player-{k:04d}"}, "bench", 0.0)
    core.command("draw", {"seed": 1}, "bench", 0.0)
    now = 1.0
    for _ in range(5):  # the seat requests carried out, the holds lifted
        for ask in core.reconcile(now).asks:
            event: Any = SeatEvent(**ask.args) if ask.command == "seat" else CommandEvent(
                name=ask.command, args=ask.args, by="tournament")
            sessions[ask.table].handle(event)
        for session in sessions.values():
            core.table_state(session.state())
        now += 3.0
    return core, {n: s.state() for n, s in sessions.items()}


def eliminate(core: TournamentCore, states: dict[str, TableState], rng: random.Random,
              n: int) -> tuple[float, float, float]:
    """One player out at a random table (his chips to a neighbour), told to the core as the
    table tells it; returns the seconds to place him, to decide what follows, and to build
    the state."""
    table = rng.choice([t for t, s in states.items() if len(s.seats) >= 3])
    state = states[table]
    seats = sorted(state.seats)
    loser, winner = seats[0], seats[1]
    seats_after = dict(state.seats)
    gone = seats_after.pop(loser)
    seats_after[winner] = seats_after[winner].model_copy(
        update={"stack": seats_after[winner].stack + gone.stack})
    after = state.model_copy(update={"seats": seats_after, "hand": state.hand + 1,
                                     "stage": "over", "button": winner, "bb": seats[-1]})
    states[table] = after
    started = time.perf_counter()
    core.table_state(after)
    core.elimination(table, f"{table}:{after.hand}:0:{n}.0",
                     {"player": gone.player, "hand": after.hand, "stack": gone.stack,
                      "busted": {gone.player: gone.stack}}, float(n))
    core.standings()
    placed = time.perf_counter()
    outcome = core.reconcile(float(n))
    decided = time.perf_counter()
    core.state().model_dump_json()
    built = time.perf_counter()
    # The tables carry out what was asked, so that the next round starts settled.
    carry_out(core, states, outcome.asks)
    for _ in range(3):
        carry_out(core, states, core.reconcile(float(n) + 3).asks)
    return placed - started, decided - placed, built - decided


def carry_out(core: TournamentCore, states: dict[str, TableState], asks: list[Any]) -> None:
    """The seats the core asked for, taken and left at once (between hands)."""
    for ask in asks:
        target = states[ask.table]
        seats = dict(target.seats)
        if ask.command == "unseat":
            seats.pop(ask.args["seat"], None)
        elif ask.command == "seat":
            seats[ask.args["seat"]] = SeatView(player=ask.args["player"],
                                               stack=ask.args["stack"])
        states[ask.table] = target.model_copy(update={"seats": seats})
        core.table_state(states[ask.table])


def measure(players: int, tables: int, busts: int) -> dict[str, float]:
    gc.collect()
    tracemalloc.start()
    core, states = room(players, tables)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rng = random.Random(7)
    times: dict[str, list[float]] = {"place": [], "decide": [], "state": []}
    for n in range(busts):
        place, decide, state = eliminate(core, states, rng, n + 10)
        times["place"].append(place)
        times["decide"].append(decide)
        times["state"].append(state)
    moves = len([m for m in core.ledger.moves if m.reason in ("balance", "break")])
    out = {f"{k} p50": statistics.median(v) * 1000 for k, v in times.items()}
    out |= {f"{k} max": max(v) * 1000 for k, v in times.items()}
    out["core MB (peak, traced)"] = peak / 2**20
    out["moves and breaks"] = moves
    out["players left"] = core.state().players_left
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--busts", type=int, default=None, help="default 200")
    parser.add_argument("--quick", action="store_true", help="40 eliminations")
    args = parser.parse_args()
    busts = args.busts or (40 if args.quick else 200)
    small = measure(100, 10, min(busts, 80))
    large = measure(1000, 100, busts)
    print(f"{'':28} {'100 players, 10 tables':>24} {'1,000 players, 100 tables':>26}")
    for key in large:
        print(f"{key:28} {small[key]:>24.2f} {large[key]:>26.2f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'process max RSS MB':28} {rss:>51.1f}")
    both = large["place p50"] + large["decide p50"]
    print(f"place + decide p50 at 1,000 players: {both:.2f} ms (target < 10 ms; at 100 players "
          f"{small['place p50'] + small['decide p50']:.2f} ms)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (2 cores); "
          "p50 is the figure to quote, max depends on the machine's other work")
    print("times in ms: place = the elimination taken and the standings computed; decide = "
          "reconcile (moves, breaks, holds, chip count, requests); state = the retained "
          "tournament/state built and encoded")


if __name__ == "__main__":
    main()
