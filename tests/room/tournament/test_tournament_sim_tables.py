"""The tournament with simulated tables (`pokertable table --simulate --tournament`, each in its
own process, its readers on ptys read by the real drivers) on a real Mosquitto, as `make demo`
runs them.

A move ends as it does at a real table: the newcomer sits down, the dealer lays his stack on
the seat's zone, the chip reader reads it and the table counts it (DFO §2(3)); the tournament
then has the move done (PVB 09), and the room's chips add up. The simulated dealer used to lay
nothing: every move of the demo stayed "seated, chips not counted yet".

A table with no hand to deal (every player moved away, the table closed as a broken one is;
one player left) is normal in a tournament: its dealer says so once, calmly, and deals again
when two players with chips sit there. It used to log that it "cannot go on" as a failure. A
colour-up with one racer (a player alone at his table) gives him his chip at once: nothing is
raced (APSA 2.1.18)."""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import StateMessage, decode
from controller.room.clock.structure import Structure
from controller.room.recorder import Recorder, SqliteRecordStore
from controller.room.tournament.ledger import Settings, TableSpec
from controller.room.tournament.view import PublishedState
from tests.room.tournament.tournament_service_helpers import Floor, start_service
from tests.venue import TableFloor as VenueTableFloor
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]
STRUCTURE = Structure.model_validate({
    "name": "sim tables", "chips": [1, 5, 25, 100, 500, 1000, 5000],
    "late_registration_ends": 1, "levels": [{"sb": 50, "bb": 100, "minutes": 60}],
    "entry": {"stack": 20_000, "buy_in": 10}, "prizes": {"payouts": [{"percent": [60, 40]}]}})
SETTINGS = Settings(name="sim tables", structure=STRUCTURE, seats=4,
                    tables=[TableSpec(table=t, seats=4) for t in ("1", "2")])


@contextlib.contextmanager
def sim_tables(broker: LocalBroker, tmp_path: Path, *tables: int) -> Iterator[list[Path]]:
    """Simulated tables the tournament seats (their dealers seat nobody); yields their logs. A
    clean stop of all at once at the end (SIGTERM: each seals its last hand, exit 0)."""
    processes: list[subprocess.Popen[bytes]] = []
    logs = []
    # (the recorder keeps their hands: a table stops once its outbox is empty)
    store = SqliteRecordStore(tmp_path / "records.db")
    recorder = Recorder(broker.address(), broker.login("recorder"), store).start()
    try:
        for table in tables:
            config = broker.table_config(tmp_path / f"table-{table}", table, seats=4)
            logs.append(tmp_path / f"table-{table}.log")
            with logs[-1].open("wb") as err:
                processes.append(subprocess.Popen(
                    [sys.executable, "-m", "controller.cli", "table", "--config", str(config),
                     "--simulate", "--tournament", "--hands", "0", "--seed", str(table)],
                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err))
        yield logs
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process, log in zip(processes, logs, strict=True):
            assert process.wait(30) == 0, log.read_text()[-2000:]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        recorder.close()
        store.close()


def quiet(log: Path) -> str:
    """The table's log, with no failure in it: a table with no hand to deal is no failure."""
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "cannot go on" not in text and " ERROR " not in text and "Traceback" not in text, \
        text[-3000:]
    return text


def tournament(floor: Floor) -> PublishedState | None:
    states = floor.on("state")
    return PublishedState.model_validate_json(states[-1].payload) if states else None


def until(floor: Floor, test: Callable[[PublishedState], bool], timeout: float
          ) -> PublishedState:
    def met(_: object) -> bool:
        state = tournament(floor)
        return state is not None and test(state)
    assert floor.client.wait(met, timeout), tournament(floor)
    state = tournament(floor)
    assert state is not None
    return state


def test_pvb_09_dfo_2_3_a_move_is_done_when_the_simulated_dealer_lays_the_chips(
        broker: LocalBroker, tmp_path: Path) -> None:
    """Four players drawn at table 1; a fifth registers late and opens table 2, and balancing
    sends him one of table 1's (PVB 09, APSA 3.1.2.4). Every newcomer's stack is read at his
    seat, so the draw's seats, the late seat and the balancing move all end done, with the
    stack each took, and the room's chips add up before and after table 2's hands."""
    service, store = start_service(broker, tmp_path, SETTINGS)
    floor = Floor(broker, also=("table/2/state",))  # (one login: one connection)
    watch = floor.client
    try:
        with sim_tables(broker, tmp_path, 1, 2) as (one, two):
            until(floor, lambda t: not t.waiting_for, 30)  # both tables' states are in
            for k in range(1, 5):
                assert floor.command("register", name=f"p{k}").status == "ok"
            assert floor.command("draw", seed=3).status == "ok"
            # The draw's players: each stack laid on its seat's zone and read there
            state = until(floor, lambda t: len(t.moves) == 4
                          and all(m.status == "done" for m in t.moves), 30)
            assert {m.to.table for m in state.moves} == {"1"}
            assert all(line.chips_read for line in state.seats)
            late = floor.command("register", name="p5")
            assert late.status == "ok" and "draws table 2" in (late.reason or ""), late.reason

            def moved(t: PublishedState) -> bool:
                by = {m.reason: m for m in t.moves}
                return {"late", "balance"} <= set(by) and all(
                    by[r].status == "done" for r in ("late", "balance"))
            state = until(floor, moved, 90)
            move = next(m for m in state.moves if m.reason == "balance")
            assert move.source is not None and (move.source.table, move.to.table) == ("1", "2")
            assert move.rule in ("PVB 09(1)", "APSA 3.1.2.4")
            where = {line.player: line for line in state.seats}
            assert where[move.player].table == "2" and where[move.player].chips_read
            assert where[move.player].stack == move.stack  # the stack he took is the one read
            assert [t.players for t in state.tables] == [3, 2]
            assert state.chips is not None and state.chips.in_play == 100_000
            assert state.chips.difference == 0 and state.alerts == []

            # Table 2 deals to its two newcomers; after its hands the chips still add up
            def dealt(_: object) -> bool:
                states = watch.on("table/2/state")
                last = decode(StateMessage, states[-1].payload).state if states else None
                return last is not None and last.hand >= 2 and last.stage in ("over", "waiting")
            assert watch.wait(dealt, 60)

            def ends_at_table_2() -> list[dict[str, int]]:  # its stacks after each hand since
                states = [decode(StateMessage, m.payload).state for m in watch.on("table/2/state")]
                return [{v.player: v.stack for v in s.seats.values()} for s in states
                        if s.hand >= 2 and s.stage in ("over", "waiting")]

            counts: list[PublishedState] = []  # the tournament's count of one of those hands

            def counted() -> bool:
                t = tournament(floor)
                if t is None or t.chips is None or t.chips.counted != 100_000:
                    return False
                at_2 = {line.player: line.stack for line in t.seats if line.table == "2"}
                if at_2 in ends_at_table_2():
                    counts.append(t)
                return bool(counts)
            assert wait_until(counted, 10), tournament(floor)
            state = counts[-1]
            assert state.chips is not None and state.chips.difference == 0
            assert state.alerts == []
        quiet(one)
        quiet(two)
    finally:
        floor.client.close()
        service.close()
        store.close()


class TableFloor(VenueTableFloor):
    """The tournament's side of one table: its commands and its state."""

    def __init__(self, broker: LocalBroker, table: str) -> None:
        super().__init__(broker, table, by="tournament:test")

    def unseat(self, seat: int, player: str) -> None:
        """Between hands only (the table refuses it during one): asked until it is made."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            reply = self.command("unseat", seat=seat, player=player, reason="table broken")
            if reply.status == "ok":
                return
            time.sleep(0.3)
        raise AssertionError(f"seat {seat} was never unseated: {self.state()}")


def said(log: Path, words: str, timeout: float = 10) -> int:
    """How many lines of the table's log say ``words``, once at least one does."""
    counted = 0

    def found() -> bool:
        nonlocal counted
        counted = len(re.findall(re.escape(words), log.read_text(errors="replace")))
        return counted > 0

    wait_until(found, timeout)
    return counted


def test_a_table_broken_and_filled_again_says_it_has_no_hand_to_deal_once_and_deals_again(
        broker: LocalBroker, tmp_path: Path) -> None:
    """Its two players moved away and the table closed, as the tournament breaks a table (PVB
    10): one calm line, no failure. A player seated there later: one line for him alone, and a
    colour-up with him the lone racer makes his chip at once, with no race to run (APSA
    2.1.18). A second player: both read at their seats, and dealt to."""
    floor = TableFloor(broker, "3")
    try:
        with sim_tables(broker, tmp_path, 3) as (log,):
            floor.wait(lambda s: True)
            for seat, player in ((1, "ana"), (3, "ben")):
                assert floor.command("seat", seat=seat, player=player, stack=20_000).status == "ok"
            state = floor.wait(lambda s: s.hand >= 1)
            assert all(v.counted for v in state.seats.values())  # read at their seats
            for seat, view in sorted(floor.wait(lambda s: s.stage in ("over", "waiting"))
                                     .seats.items()):
                floor.unseat(seat, view.player)
            assert floor.command("close", reason="the table is broken (PVB 10)").status == "ok"
            broken = "no hand to deal: nobody sits here any more: the tournament broke the table"
            assert said(log, broken) == 1
            hand = floor.wait(lambda s: True).hand

            assert floor.command("seat", seat=2, player="cem", stack=19_950).status == "ok"
            alone = "no hand to deal: only cem (seat 2) has chips: one player left"
            assert said(log, alone) == 1
            made = floor.command("colour_up", chips=[1, 5, 25], unit=100, ref="colour-up:2")
            assert made.status == "ok", made.reason
            state = floor.wait(lambda s: s.colour_up is not None)
            assert state.colour_up is not None and not state.colour_up.contested
            assert state.seats[2].stack == 20_000  # his 50, rounded up: his chip
            # (said once, nothing more while nothing else changes: the lines the table says
            # next, when dora sits down, come after any repeat would have; the log is read
            # through to its end when the table has stopped)

            assert floor.command("seat", seat=4, player="dora", stack=10_000).status == "ok"
            state = floor.wait(lambda s: s.hand > hand, 30)
            assert {v.player for v in state.seats.values()} == {"cem", "dora"}
            assert all(v.counted for v in state.seats.values())
            assert said(log, "seats 2, 4 have chips: the dealer deals again") == 1
        text = quiet(log)
        assert "chip race for" not in text  # nothing was raced
        # Each once, calmly (and before the first players, or with one of the two left while
        # the other's move took more than a moment, if they did)
        lines = [line for line in text.splitlines() if "no hand to deal" in line]
        assert all(" INFO " in line for line in lines), lines
        assert [broken in line for line in lines].count(True) == 1
        assert [alone in line for line in lines].count(True) == 1
    finally:
        floor.client.close()
