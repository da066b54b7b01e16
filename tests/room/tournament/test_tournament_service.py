"""The tournament service on a real Mosquitto with real tables (each a `TableService` with its
`TableLink`, in this process) and the real clock: commands answered with their correlation data,
ids applied once, retained commands ignored; the draw seated at the tables; two players out in
one hand with equal stacks sharing their place; a table broken and its players seated
elsewhere between hands; two players out in one hand-for-hand round at different tables placed
once the round ended everywhere (PVB 64b(3)); the service restarted, and killed outright as a
process, in the middle of it all; the final standings written as CSV and JSON."""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.tournament.ledger import Settings
from controller.room.tournament.service import TournamentService
from controller.room.tournament.store import TournamentStore
from controller.session import SessionConfig
from tests.mqtt.helpers import LinkedTable, a_whole_tick, linked_table
from tests.room.service_process import kill, run_service
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_service_helpers import (
    SETTINGS,
    STRUCTURE,
    Floor,
    Room,
    counts,
    feeder,
    knock_out,
    players,
    shuffle,
    start_service,
    state_of,
)
from tests.venue import address, login
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def room(broker: LocalBroker, tmp_path: Path, settings: Settings = SETTINGS, *,
         clock: bool = False) -> Iterator[tuple[Room, Floor, dict[str, LinkedTable]]]:
    with contextlib.ExitStack() as stack:
        tables = {t.table: stack.enter_context(linked_table(
            broker, tmp_path / f"t{t.table}", table=t.table,
            config=SessionConfig(table_id=t.table, seats=t.seats))) for t in settings.tables}
        running = Room(*start_service(broker, tmp_path, settings))
        stack.callback(running.close)
        floor = Floor(broker, clock=clock)
        stack.callback(floor.client.close)
        yield running, floor, tables


def fold(table: LinkedTable) -> None:
    assert shuffle(table), table.memory.last.waiting_for
    hands.fold_around(feeder(table), state_of(table))


def test_commands_answered_with_their_correlation_data_once_and_never_retained(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="controller.room.tournament.service")
    with room(broker, tmp_path) as (running, floor, _tables):
        service = running.service
        first = floor.command("register", command_id="reg-1", name="ana", club="Asse")
        assert first.status == "ok" and first.table == "tournament"
        again = floor.command("register", command_id="reg-1", name="ana", club="Asse")
        assert again.status == "ok" and "already applied" in (again.reason or "")
        other = floor.command("draw", command_id="reg-1")
        assert other.status == "error" and "already used for 'register'" in (other.reason or "")
        duplicate = floor.command("register", name="ANA")
        assert duplicate.status == "error" and duplicate.rule == "PVB 13"
        assert "ana is registered already" in (duplicate.reason or "")
        too_few = floor.command("draw")
        assert too_few.status == "error" and "a tournament needs two" in (too_few.reason or "")
        unknown = floor.command("explode")
        assert unknown.status == "error" and "unknown tournament command" in (
            unknown.reason or "")
        for payload, says in ((b"[" * 100_000, "nested"), (b"\xff\xfe", "not UTF-8"),
                              (b'{"v": 1, "args": {}}', "id")):
            bad = floor.send("register", payload)
            assert bad is not None and bad.status == "error" and says in (bad.reason or ""), bad
        # A command published retained is ignored (and cleared again)
        # (the service answers in order: once the next command is answered, the retained one
        # would have been)
        retained = floor.publish("register", json.dumps({"v": 1, "id": "ret-1", "args": {
            "name": "ghost"}}).encode(), retain=True)
        assert floor.command("explode").status == "error"
        assert not floor.replied(retained)
        floor.client.publish(floor.topics.service("tournament", "cmd/register"), b"",
                             retain=True)
        state = floor.state()
        assert wait_until(lambda: floor.state().players == 1)
        assert [s.player for s in state.seats] == ["ana"] and state.status == "registration"
        assert service.store.said("reg-1") is not None
        # Each refusal is one log line: the command, its id and the reason with the rule
        refusals = [r.getMessage() for r in caplog.records if "refused:" in r.getMessage()]
        assert len(refusals) == 8, refusals  # (two of them "explode")
        assert any(line.startswith("tournament: command 'register' (id '") and
                   "ana is registered already" in line and line.endswith("(PVB 13)")
                   for line in refusals), refusals
        assert any("'draw' (id 'reg-1') refused: command id reg-1 was already used" in line
                   for line in refusals), refusals
        audit = service.store.commands()
        assert [(c["name"], c["by"]) for c in audit] == [("register", "floor:anna")]


def test_the_draw_a_shared_place_a_broken_table_and_a_restart(broker: LocalBroker,
                                                              tmp_path: Path) -> None:
    with room(broker, tmp_path) as (running, floor, tables):
        for k in range(9):
            assert floor.command("register", name=f"p{k}",
                                 club=["Asse", "Bluff", None][k % 3]).status == "ok"
        drawn = floor.command("draw", seed=7)
        assert drawn.status == "ok" and "9 players at 3 tables" in (drawn.reason or "")
        # The draw reaches the tables as seat commands; they wait until everyone sits
        assert wait_until(lambda: counts(tables) == {"1": 3, "2": 3, "3": 3})
        assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()))
        assert wait_until(lambda: floor.state().players_left == 9)
        # Two players out in table 1's first hand with 5,000 each: they share 8th (PVB 64b(2))
        one = tables["1"]
        losers = sorted(players(one))[:2]
        out = {players(one)[s] for s in losers}
        knock_out(one, losers)
        assert wait_until(lambda: {(s.player, s.place, s.last) for s in floor.state().standings
                                   if s.place} == {(p, 8, 9) for p in out})
        # 7 players fit at two tables of four: table 3 breaks between hands (PVB 10)
        assert wait_until(lambda: counts(tables) == {"1": 4, "2": 3, "3": 0}, 15), counts(tables)
        # The tournament's state may reach this copy of it after the tables' own states.
        assert wait_until(lambda: {m.reason for m in floor.state().moves
                                   if m.status in ("seated", "done")} >= {"break"})
        state = floor.state()
        assert [t.status for t in state.tables] == ["open", "open", "broken"]
        assert state.chips is not None and state.chips.difference == 0
        # The service is stopped and started again: the same eliminations, moves and seed,
        # nothing done twice (the tables' retained states only confirm where everyone sits)
        assert wait_until(lambda: not any(m.status in ("leaving", "arriving")
                                          for m in running.service.core.ledger.moves))
        before = running.service.core.ledger.model_copy(deep=True)
        running.restart(broker, tmp_path, SETTINGS)
        after = running.service.core.ledger
        assert [o.id for o in after.outs] == [o.id for o in before.outs]
        assert [(m.id, m.player, m.to) for m in after.moves] == [
            (m.id, m.player, m.to) for m in before.moves]
        assert (after.seed, after.entries, after.broken) == (before.seed, before.entries,
                                                             before.broken)
        fold(tables["2"])
        assert wait_until(lambda: floor.state().players_left == 7)
        assert counts(tables) == {"1": 4, "2": 3, "3": 0}
        assert len([m for m in running.service.core.ledger.moves if m.reason == "break"]) == 3


def test_a_table_in_a_hand_is_not_asked_again_and_again_to_seat_a_newcomer(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Table 1 breaks while table 2 is in a hand: table 2 queues the newcomer's seat for the
    end of its hand. Neither side logs a refusal while the hand lasts (the tournament asking
    every few tenths of a second here), and he sits when it is over."""
    caplog.set_level(logging.INFO)
    settings = SETTINGS.model_copy(update={"tables": SETTINGS.tables[:2],
                                           "break_order": ["1", "2"]})
    with contextlib.ExitStack() as stack:
        tables = {t.table: stack.enter_context(linked_table(
            broker, tmp_path / f"t{t.table}", table=t.table,
            config=SessionConfig(table_id=t.table, seats=t.seats))) for t in settings.tables}
        store = TournamentStore(tmp_path / "tournament.db")
        stack.callback(store.close)
        service = TournamentService(address(broker), login(broker, "tournament"), settings,
                                    store, retry_seconds=0.2).start()
        stack.callback(service.close)
        assert service.connected.wait(5)
        floor = Floor(broker)
        stack.callback(floor.client.close)
        for k in range(6):
            assert floor.command("register", name=f"n{k}").status == "ok"
        assert floor.command("draw", seed=5).status == "ok"
        assert wait_until(lambda: counts(tables) == {"1": 3, "2": 3})
        assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()))
        one, two = tables["1"], tables["2"]
        assert shuffle(two)  # table 2 in a hand
        seated = players(one)
        losers = sorted(seated)[:2]
        # (the one left: the tournament may move him on before this test looks again)
        moving = next(p for seat, p in seated.items() if seat not in losers)
        knock_out(one, losers)
        assert wait_until(lambda: any(m.player == moving and m.status == "arriving"
                                      for m in service.core.ledger.moves), 10)
        # The hand at table 2 goes on past the tournament's retry time (0.2 s here), and a
        # whole tick of the tournament's after that: what it would ask again, it has asked.
        assert a_whole_tick(service.loop, after=time.monotonic() + 0.2)
        hands.fold_around(feeder(two), state_of(two))
        assert wait_until(lambda: moving in players(two).values() and counts(tables)["1"] == 0)
        assert wait_until(lambda: all(m.status not in ("leaving", "arriving")
                                      for m in service.core.ledger.moves))
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert refusals == []


def tournament_config(broker: LocalBroker, tmp_path: Path) -> Path:
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"tournament":
                                       broker.credentials["tournament"].model_dump()}))
    structure = tmp_path / "structure.toml"
    structure.write_text('name = "killed"\nchips = [25]\nlate_registration_ends = 1\n'
                         '[[levels]]\nsb = 25\nbb = 50\nminutes = 60\n'
                         '[entry]\nstack = 5000\nbuy_in = 10\n'
                         '[prizes]\n[[prizes.payouts]]\npercent = [100]\n')
    config = tmp_path / "tournament.toml"
    config.write_text('[tournament]\nname = "killed"\nstructure = "structure.toml"\nseats = 4\n'
                      'tables = ["1", "2"]\n\n'
                      f'[mqtt]\nport = {broker.port}\nvenue = "{broker.plan.venue}"\n'
                      'credentials = "credentials.json"\n')
    return config


def test_pokertable_tournament_killed_mid_tournament_comes_back_with_everything(
        broker: LocalBroker, tmp_path: Path) -> None:
    """The service as systemd runs it, killed outright (SIGKILL) after the draw and again after
    an elimination: each start resumes from its journal, and the tournament plays to its
    winner; the standings are written as CSV and JSON."""
    config = tournament_config(broker, tmp_path)
    floor = Floor(broker)

    with contextlib.ExitStack() as stack:
        tables = {n: stack.enter_context(linked_table(
            broker, tmp_path / f"t{n}", table=n, config=SessionConfig(table_id=n, seats=4)))
            for n in ("1", "2")}
        stack.callback(floor.client.close)
        process = run_service(floor, "tournament", config)
        try:
            for k in range(5):
                assert floor.command("register", name=f"k{k}").status == "ok"
            assert floor.command("draw", seed=3).status == "ok"
            kill(process)
            process = run_service(floor, "tournament", config)
            assert wait_until(lambda: counts(tables) == {"1": 3, "2": 2}, 15), counts(tables)
            assert wait_until(lambda: floor.state().players == 5)
            while floor.state().players_left > 1:
                busiest = max(tables, key=lambda n: counts(tables)[n])
                table = tables[busiest]
                if counts(tables)[busiest] < 2 or table.memory.last.holds:
                    assert wait_until(lambda: not any(t.memory.last.holds for t in
                                                      tables.values()))
                    continue
                left = floor.state().players_left
                seats = table.memory.last.seats
                knock_out(table, [min(seats, key=lambda s: (seats[s].stack, s))])
                assert wait_until(partial(lambda n: floor.state().players_left == n, left - 1))
                if left == 4:
                    kill(process)
                    process = run_service(floor, "tournament", config)
                assert wait_until(lambda: not any(
                    m.status in ("leaving", "arriving") for m in floor.state().moves), 15)
            for table in tables.values():
                table.feed([{"type": "command", "name": "close", "by": "floor"}])
                table.settle()
            assert wait_until(lambda: floor.state().status == "finished", 15)
            state = floor.state()
            assert [s.place for s in state.standings] == [1, 2, 3, 4, 5]
            assert state.standings[0].prize == 50 and state.chips is not None
            assert state.chips.difference == 0
            standings = tmp_path / "standings"
            assert wait_until(lambda: (standings / "standings.json").exists())
            document = json.loads((standings / "standings.json").read_text())
            assert [r["place"] for r in document["standings"]] == [1, 2, 3, 4, 5]
            assert (standings / "standings.csv").read_text().startswith("place,last,player")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(20)
    assert process.returncode == 0


def test_pvb_64b_3_two_out_in_one_hand_for_hand_round_at_different_tables(
        broker: LocalBroker, tmp_path: Path) -> None:
    """With the real clock: hand-for-hand at two tables, one player out at each in the same
    round, the one with more chips at the start of his hand out first. Neither is placed until
    the round has ended at both tables (their hands sealed); then the bigger stack is 7th and the
    smaller 8th, whatever the order they went out in."""
    long_levels = STRUCTURE.model_copy(update={"levels": [
        STRUCTURE.levels[0].model_copy(update={"minutes": 600})] * 2})
    settings = SETTINGS.model_copy(update={"structure": long_levels,
                                           "tables": SETTINGS.tables[:2]})
    clock_store = ClockStore(tmp_path / "clock.db")
    clock = ClockService(address(broker), login(broker, "clock"), long_levels,
                         clock_store).start()
    try:
        with room(broker, tmp_path, settings, clock=True) as (_running, floor, tables):
            for k in range(8):
                assert floor.command("register", name=f"h{k}").status == "ok"
            assert floor.command("draw", seed=11).status == "ok"
            assert wait_until(lambda: counts(tables) == {"1": 4, "2": 4})
            assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()))
            one, two = tables["1"], tables["2"]
            fold(one)  # the blinds: at table 1 now 4,975 and 5,025; at table 2 all 5,000
            assert floor.clock.command("start").status == "ok"
            assert floor.clock.command("hand_for_hand", on=True).status == "ok"
            assert wait_until(lambda: all(t.memory.last.released_round for t in (one, two)))
            # (the round the tables were released for: this test's copy of the clock's state
            # may not have come yet)
            number = one.memory.last.released_round
            assert number is not None and two.memory.last.released_round == number
            # The round: at table 2 a player who began it with 5,000 goes out first, then at
            # table 1 the one who began it with 4,975
            rich = min(players(two))
            rich_name = players(two)[rich]
            knock_out(two, [rich])
            poor = next(s for s, v in one.memory.last.seats.items() if v.stack == 4_975)
            poor_name = players(one)[poor]
            knock_out(one, [poor])
            expected = {rich_name: (7, 8, True), poor_name: (7, 8, True)}
            assert wait_until(lambda: {s.player: (s.place, s.last, s.pending)
                                       for s in floor.state().standings if s.place} == expected)
            # The next round: each table's first shuffle seals the round's hand
            assert wait_until(lambda: floor.clock_state().round == number + 1, 15)
            assert shuffle(one) and shuffle(two)
            assert wait_until(lambda: {s.player: s.place for s in floor.state().standings
                                       if s.place} == {rich_name: 7, poor_name: 8})
    finally:
        clock.close()
        clock_store.close()


@pytest.mark.parametrize(("text", "says"), [
    ('[tournament]\nname = "x"\nstructure = "none.toml"\ntables = ["1"]\n\n[mqtt]\n'
     'venue = "hall"\ncredentials = "c.json"\n', "none.toml"),
    ('[tournament]\nname = "x"\nstructure = "s.toml"\ntables = ["1", "1"]\n\n[mqtt]\n'
     'venue = "hall"\ncredentials = "c.json"\n', "table '1' is listed twice"),
    ('[tournament]\nname = "x"\nstructure = "s.toml"\ntables = ["1"]\nbalancing = "tda"\n\n'
     '[mqtt]\nvenue = "hall"\ncredentials = "c.json"\n', "tournament.balancing"),
    ('[tournament]\nname = "x"\nstructure = "s.toml"\ntables = ["1"]\nseats = 7\n\n'
     '[mqtt]\nvenue = "hall"\ncredentials = "c.json"\n', "no start stack for tables of 7"),
])
def test_a_configuration_mistake_is_one_line(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "s.toml").write_text('name = "s"\nchips = [25]\n[[levels]]\nsb = 25\nbb = 50\n'
                                     'minutes = 10\n[entry]\nstacks = { 9 = 10000 }\n')
    config = tmp_path / "tournament.toml"
    config.write_text(text)
    for extra in ([], ["--check"]):
        done = subprocess.run([sys.executable, "-m", "controller.cli", "tournament", "--config",
                               str(config), *extra], cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 2, done
        assert done.stderr.strip().count("\n") == 0 and says in done.stderr, done.stderr


def test_pokertable_tournament_tells_systemd_ready_pings_and_stopping(
        broker: LocalBroker, tmp_path: Path) -> None:
    """As systemd runs it (Type=notify, WatchdogSec): READY=1 once it serves, watchdog pings
    while its ticker moves, STOPPING=1 on SIGTERM, exit 0."""
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify")
    sock.bind(path)
    sock.settimeout(0.2)
    config = tournament_config(broker, tmp_path)
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000", "PATH": "/usr/bin:/bin"}
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "tournament",
                                "--config", str(config)], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said: list[str] = []
    try:
        # Until READY=1 and four pings (a second of them when all is well; a start under a whole
        # suite's load with CPU hogs beside it took longer than the 8 s this once allowed)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and said.count("WATCHDOG=1") < 4:
            with contextlib.suppress(TimeoutError):
                said.append(sock.recv(4096).decode())
        assert said and said[0].startswith("READY=1"), said
        assert said.count("WATCHDOG=1") >= 4, said
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
        with contextlib.suppress(TimeoutError):  # what it said before it stopped, to the last
            while not any(s.startswith("STOPPING=1") for s in said):
                said.append(sock.recv(4096).decode())
        sock.close()
    assert process.returncode == 0, stderr[-2000:]
    assert any(s.startswith("STOPPING=1") for s in said), said


def test_rules_t3_restarted_it_waits_for_every_tables_retained_state_before_deciding(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Mosquitto gives the retained states back in the order the tables first published them:
    tables started 3, 2, 1, a restarted tournament hears table 3 first. Three players each at
    three tables of four do not fit at two (PVB 10): nothing breaks, before or after."""
    caplog.set_level(logging.INFO, logger="controller.room.tournament.service")
    with contextlib.ExitStack() as stack:
        tables: dict[str, LinkedTable] = {}
        for t in ("3", "2", "1"):
            tables[t] = stack.enter_context(linked_table(
                broker, tmp_path / f"t{t}", table=t, config=SessionConfig(table_id=t, seats=4)))
        running = Room(*start_service(broker, tmp_path, SETTINGS))
        stack.callback(running.close)
        floor = Floor(broker)
        stack.callback(floor.client.close)
        for k in range(9):
            assert floor.command("register", name=f"p{k}").status == "ok"
        assert floor.command("draw", seed=7).status == "ok"
        assert wait_until(lambda: counts(tables) == {"3": 3, "2": 3, "1": 3})
        assert wait_until(lambda: not any(m.status in ("leaving", "arriving")
                                          for m in running.service.core.ledger.moves))
        seated = {t: players(table) for t, table in tables.items()}
        running.restart(broker, tmp_path, SETTINGS, retry_seconds=0.2)
        core = running.service.core
        assert wait_until(lambda: floor.state().waiting_for == [] and all(
            core.tables.get(t) and core.tables[t].state for t in tables))
        # A retry's time (0.2 s here) and a whole tick after it: a wrong decision, or a wrong
        # one asked again, would have been taken by then (in the ledger before it goes out).
        assert a_whole_tick(running.service.loop, after=time.monotonic() + 0.2)
        assert not [m for m in core.ledger.moves if m.status in ("leaving", "arriving")]
        assert core.ledger.broken == [] and {t: players(table) for t, table in
                                             tables.items()} == seated
        assert core.ledger.alerts == []
        assert not [r for r in caplog.records if "refused" in r.getMessage()]


def test_eliminations_while_the_tournament_is_down_are_placed_when_it_is_back(
        broker: LocalBroker, tmp_path: Path) -> None:
    """The service stopped; at table 1 a player goes out and the next hand seals the record,
    both while it is away. Its persistent session has the broker keep the elimination and the
    record (QoS 1) until it is back: the player is placed, with the table's time of the bust
    (PVB 64b; "nothing is lost"). Before, a clean session lost both: a player 'in' at no seat."""
    with room(broker, tmp_path) as (running, floor, tables):
        for k in range(6):
            assert floor.command("register", name=f"p{k}").status == "ok"
        assert floor.command("draw", seed=3).status == "ok"
        assert wait_until(lambda: sum(counts(tables).values()) == 6)
        assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()))
        busy = next(t for t in tables.values() if len(players(t)) >= 3)
        running.close()
        loser_seat = min(players(busy))
        loser = players(busy)[loser_seat]
        before = time.time()
        knock_out(busy, [loser_seat])
        fold(busy)  # the next shuffle seals the bust's record, still without the tournament
        assert loser not in players(busy).values()
        running.service, running.store = start_service(broker, tmp_path, SETTINGS)
        assert wait_until(lambda: any(s.player == loser and s.place == 6
                                      for s in floor.state().standings)), floor.state()
        out = next(o for o in running.service.core.ledger.outs if o.bust.player == loser)
        assert out.at is not None and before <= out.at < before + 5  # the table's time
        assert floor.state().players_left == 5
