"""The service: write-ahead journal, recovery, a SIGKILL at random points, garbage input, random
event streams (hypothesis), and a simulated table through the real drivers."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.records import HandRecord
from controller.engine.table_play import Level
from controller.events import BadEvent, parse_event
from controller.history.replay_events import replay_events
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PublicEvent, TableState, hand_id
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from tests.drivers.chip_helpers import CHIP_UIDS, Table, chips_config
from tests.session.helpers import (
    HOLE,
    card,
    chips,
    command,
    deal,
    declare,
    key,
    level,
    played_session,
    seat,
    shuffle,
    three_players,
)


def reference_records(lines: list[str]) -> list[str]:
    """Every record of an uninterrupted replay: the last hand too, which the table's clean stop
    seals (RULES H3: no next hand will)."""
    return [r.model_dump_json() for r in replay_events(lines)]


def test_journal_recovery_restores_the_same_hand_stacks_and_pending_action(tmp_path: Path) -> None:
    events = [*three_players(), shuffle(), *deal(HOLE), declare(1, "raise", 300),
              declare(2, "call")]
    sink = MemorySink()
    service = TableService(SessionConfig(), Journal(tmp_path / "j.db"), sink)
    for raw in events:
        service.process(parse_event(raw))
    before = service.session.state()
    assert before.actor == 3
    service.journal.close()  # no orderly stop: as if the power went
    again = TableService(SessionConfig(), Journal(tmp_path / "j.db"), MemorySink())
    assert again.session.state() == before
    assert again.session.table.hand.hole == service.session.table.hand.hole  # type: ignore[union-attr]


def test_a_shuffle_press_without_a_time_gets_the_tables_before_it_is_journaled(
        tmp_path: Path) -> None:
    """Typed at a console, a press has no ts; the hand's start (in its record and its id) is
    the table's time of arrival, kept in the journal: a restart gives the same id, and a new
    journal counting hands from 1 again gives a new one (the recorder would drop a repeat)."""
    ids = []
    for run in ("first", "second"):
        sink = MemorySink()
        service = TableService(SessionConfig(), Journal(tmp_path / f"{run}.db"), sink,
                               clock=lambda run=run: 1_795_000_000.0 + len(run))
        for raw in [*three_players(), {"type": "shuffle"}, *deal(HOLE), declare(1, "fold"),
                    declare(2, "fold"), {"type": "shuffle"}]:
            service.process(parse_event(raw))
        (record,) = sink.records
        assert record.started == 1_795_000_000.0 + len(run)
        ids.append(hand_id("1", record.hand, record.started))
        service.journal.close()
        again = TableService(SessionConfig(), Journal(tmp_path / f"{run}.db"), MemorySink())
        assert again.session.pending_record is None  # sealed by the second press, as before
        assert again.journal.records()[0].started == record.started
    assert ids[0] != ids[1]


def test_journal_keeps_the_current_hand_and_the_last_ten(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db", keep_hands=10)
    service = TableService(SessionConfig(), journal, MemorySink())
    for raw in three_players():
        service.process(parse_event(raw))
    for _ in range(25):
        service.process(parse_event(shuffle()))
        for _turn in (1, 2, 3):
            if service.session.state().actor is not None:
                service.process(parse_event(declare(service.session.state().actor or 0, "fold")))
    snapshots = journal._db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
    assert snapshots == 11  # the current hand's press and the ten before
    assert len(journal.records()) == 24
    restarted = TableService(SessionConfig(), Journal(tmp_path / "j.db"), MemorySink())
    assert restarted.session.table.stacks() == service.session.table.stacks()


def test_garbage_lines_are_rejected_logged_and_change_nothing(tmp_path: Path) -> None:
    sink = MemorySink()
    service = TableService(SessionConfig(), Journal(tmp_path / "j.db"), sink)
    for raw in three_players():
        service.process(parse_event(raw))
    before = service.session.state()
    for line in ("", "{", "null", '{"type":"card","zone":"seat:1","card":"Zz"}',
                 '{"type":"declare","seat":99,"action":"call"}', "\x00\xff" * 10,
                 '{"type":"command","name":"void","args":[]}'):
        assert service.process_line(line) is None
    assert service.session.state() == before
    rejected = service.journal._db.execute("SELECT COUNT(*) FROM rejected").fetchone()[0]
    assert rejected == 7 and all(e.kind == "refused" for e in sink.events[-7:])


def _start_table(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "table", "--config", str(config),
         "--stdin-events"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        cwd=Path(__file__).resolve().parents[2],
    )


def _journaled(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def test_sigkill_at_random_points_yields_the_records_of_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    """The service is killed (SIGKILL) four times at random points and restarted; the script
    continues from the first event the journal does not hold. The sealed records must equal
    those of an uninterrupted run, each exactly once."""
    lines = [json.dumps(e) for e in played_session(8)]
    expected = reference_records(lines)
    assert len(expected) >= 6 and any(json.loads(r)["status"] == "misdeal" for r in expected)
    config = tmp_path / "table.toml"
    config.write_text('[table]\njournal = "j.db"\noutput = "out"\n')
    db = tmp_path / "j.db"
    rng = random.Random(os.getpid())
    kill_points = sorted(rng.sample(range(5, len(lines) - 5), 4))
    sent = 0
    for kill_at in [*kill_points, len(lines)]:
        process = _start_table(config)
        assert process.stdin is not None
        sent = _journaled(db)
        while sent < kill_at:
            process.stdin.write(lines[sent] + "\n")
            process.stdin.flush()
            sent += 1
            if rng.random() < 0.3:
                time.sleep(0.002)
        if kill_at == len(lines):
            process.stdin.close()
            assert process.wait(timeout=60) == 0
        else:
            time.sleep(rng.random() * 0.05)
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
            assert process.returncode == -signal.SIGKILL
    assert _journaled(db) == len(lines) + 1  # and the clean stop's `close`
    journal = Journal(db)
    got = [r.model_dump_json() for r in journal.records()]
    assert got == expected
    delivered = (tmp_path / "out" / "records.jsonl").read_text().splitlines()
    assert {json.loads(r)["hand"] for r in delivered} == {json.loads(r)["hand"] for r in expected}


EVENT_DICTS = st.one_of(
    st.builds(lambda s: seat(s, f"p{s}", 5_000), st.integers(1, 6)),
    st.builds(lambda s: seat(s, None), st.integers(1, 6)),
    st.just(shuffle()),
    st.builds(lambda z, r, s: card(z, r + s),
              st.sampled_from(["seat:1", "seat:2", "seat:3", "seat:4", "board", "muck", "burn"]),
              st.sampled_from("23456789TJQKA"), st.sampled_from("cdhs")),
    st.builds(lambda s, a, n: declare(s, a, n), st.integers(1, 6),
              st.sampled_from(["fold", "check", "call", "bet", "raise", "allin"]),
              st.one_of(st.none(), st.integers(1, 12_000))),
    st.builds(key, st.sampled_from(["confirm", "undo", "floor"])),
    st.builds(lambda n, a: command(n, **a),
              st.sampled_from(["void", "misdeal", "kill", "move_button", "award", "correct",
                               "show", "hold", "release", "absent", "present", "time",
                               "penalty", "nonsense"]),
              st.fixed_dictionaries({}, optional={
                  "seat": st.integers(0, 11), "pot": st.integers(0, 3),
                  "hands": st.integers(-1, 3), "orbits": st.integers(0, 2),
                  "seats": st.lists(st.integers(1, 6), max_size=3),
                  "action": st.sampled_from(["fold", "call", "raise", "dance"]),
                  "amount": st.integers(-5, 9_000)})),
    st.builds(lambda n: level(n, 25 * n, 50 * n), st.integers(1, 5)),
    st.builds(lambda z, c: chips(z, *c), st.sampled_from(["seat:1", "seat:2", "pot"]),
              st.lists(st.sampled_from([25, 100, 500]), max_size=4)),
    st.builds(lambda t: {"type": "tick", "now": t}, st.floats(0, 200)),
)


STREAM = st.lists(st.one_of(EVENT_DICTS.map(json.dumps), st.text(max_size=20)), max_size=60)


@settings(max_examples=int(os.environ.get("SESSION_EXAMPLES", "150")))
@given(STREAM)
def test_random_event_streams_never_crash_and_conserve_chips(lines: list[str]) -> None:
    session = TableSession()
    for raw in [*three_players(), shuffle()]:  # most streams then play into a running hand
        session.handle(parse_event(raw))
    expected = 30_000
    for line in lines:
        try:
            event = parse_event(line)
        except BadEvent:
            continue
        step = session.handle(event)
        total = session.chips_on_table()
        # Chips only change when players sit down or leave (or are eliminated with none):
        # they bring their chips and take the stack they have when they go (a queued change:
        # after the hand's payout), as the seat events say.
        arrived = sum(e.data["stack"] for e in step.events
                      if e.kind == "seat" and "sits down with" in e.text)
        left = sum(e.data["stack"] for e in step.events
                   if e.kind == "seat" and "stack" in e.data and "leaves" in e.text)
        expected += arrived - left
        assert total == expected, (event, step)


@pytest.mark.long(18)
@pytest.mark.parametrize("readers", ["pt1", "chips"])
def test_simulated_table_plays_hands_through_the_real_drivers(tmp_path: Path,
                                                              readers: str) -> None:
    """Shuffle press on mock GPIO, cards as PT1 frames on a pty, or read by MFRC522 modules
    and chips by PN5180 modules simulated at the chip level on their SPI buses (the reader
    chips of docs/hardware.md), folds to the muck antenna,
    checks on the confirm key, every bet, call and raise as chip tags pushed into a betting
    zone (nothing typed in; the dealer confirms only where the rules leave a doubt):
    hands run from the press to the payout, the sweeps match the pots, and no hole card that
    was not tabled reaches the public events or state. At six seats: these hands have raises,
    calls with an oversized chip and showdowns enough for every check below, in half the time
    of ten (the README's ten-seat table is tests/table/test_first_hour.py's)."""
    hands = 3 if readers == "pt1" else 2  # the chips at chip level: slower, the same path
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "9"\nseats = 6\njournal = "j.db"\noutput = "out"\n')
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "table", "--config", str(config), "--simulate",
         "--hands", str(hands), "--seed", "7", "--sim-readers", readers],
        capture_output=True, text=True, timeout=180, cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "out"
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in events]
    assert kinds.count("hand_started") == hands and "payout" in kinds
    assert "refused" not in kinds, [e["text"] for e in events if e["kind"] == "refused"]
    assert "alert" not in kinds, [e["text"] for e in events if e["kind"] == "alert"]
    with sqlite3.connect(tmp_path / "j.db") as db:
        journaled = [json.loads(line)["type"] for (line,) in db.execute("SELECT line FROM events")]
    assert "declare" not in journaled and journaled.count("chips") > 10
    bets = [e for e in events if e["kind"] == "action" and e["data"].get("action") in
            ("call", "betorraise")]
    assert any(e["data"]["action"] == "betorraise" for e in bets) and len(bets) > 5
    waits = [e for e in events if e["kind"] == "wait"]
    assert all(e["rule"] == "PVB 44(1)" for e in waits)  # the oversized chips, nothing else
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    # the last sealed by the clean stop (H3)
    assert [r["hand"] for r in records] == list(range(1, hands + 1))
    for record in records:
        shown = {a["seat"] for a in record["actions"] if a["action"] == "show"}
        assert sum(record["finishing_stacks"].values()) == sum(
            record["starting_stacks"].values())
        public = json.dumps([e for e in events if e["hand"] == record["hand"]])
        for seat_no, hole in record["hole_cards"].items():
            if int(seat_no) not in shown:
                assert hole[:2] not in public and hole[2:] not in public


TICKS = """SELECT COUNT(*) FROM events WHERE line LIKE '%"tick"%'"""


def test_c1_the_service_feeds_time_while_a_clock_runs_and_a_restart_keeps_it(
    tmp_path: Path,
) -> None:
    """RULES C1 through the running service: ticks come only while a clock runs, they are
    journaled, the hand is dead when the minute is over, a restart tells the same story."""
    now = [1000.0]

    def clock() -> float:
        now[0] += 1.0  # a second per loop turn: the minute passes in a blink
        return now[0]

    sink = MemorySink()
    journal = Journal(tmp_path / "j.db")
    service = TableService(SessionConfig(), journal, sink, clock=clock, tick_seconds=0.001)
    for raw in [*three_players(), shuffle(), *deal(HOLE)]:
        service.process(parse_event(raw))
    assert not journal._db.execute(TICKS).fetchone()[0]
    with service:
        service.submit(parse_event(command("time", seat=1)))
        state = sink.wait_state(lambda s: s.actor == 2, timeout=10)
    assert state.clock is None
    counted = [e.data["remaining"] for e in sink.events if e.kind == "clock" and
               "remaining" in e.data]
    assert counted == list(range(10, 0, -1))
    assert any(e.rule == "PVB 21(4)" and "dead" in e.text for e in sink.events)
    with sqlite3.connect(tmp_path / "j.db") as db:
        ticks = db.execute(TICKS).fetchone()[0]
    assert 60 <= ticks <= 70  # only while the clock ran
    restarted = TableService(SessionConfig(), Journal(tmp_path / "j.db"), MemorySink())
    assert restarted.session.state() == service.session.state()


def test_c1_a_restart_in_the_middle_of_a_time_call_keeps_counting(tmp_path: Path) -> None:
    service = TableService(SessionConfig(), Journal(tmp_path / "j.db"), MemorySink())
    for raw in [*three_players(), shuffle(), *deal(HOLE), command("time", seat=1),
                {"type": "tick", "now": 1000.0}, {"type": "tick", "now": 1030.2}]:
        service.process(parse_event(raw))
    service.journal.close()  # the power goes
    again = TableService(SessionConfig(), Journal(tmp_path / "j.db"), MemorySink())
    clock = again.session.state().clock
    assert clock is not None and clock.seat == 1 and clock.remaining == 30
    again.process(parse_event({"type": "tick", "now": 1061.0}))  # the minute is over
    assert again.session.state().clock is None and again.session.state().actor == 2


class OrderSink(MemorySink):
    """Notes the order of what one step published."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def state(self, state: TableState) -> None:
        self.calls.append("state")
        super().state(state)

    def event(self, event: PublicEvent) -> None:
        self.calls.append("event")
        super().event(event)

    def record(self, record: HandRecord) -> None:
        self.calls.append("record")
        super().record(record)


def test_the_new_state_goes_out_before_the_steps_events_and_records(tmp_path: Path) -> None:
    """Every screen waits for the state; events and records (fsyncs of their own for the durable
    ones) follow it, so they never delay it (bench/mqtt.py)."""
    sink = OrderSink()
    service = TableService(SessionConfig(), Journal(tmp_path / "j.db"), sink)
    steps: list[list[str]] = []
    for raw in played_session(2, seed=3, players=4):
        sink.calls.clear()
        service.process(parse_event(raw))
        steps.append(list(sink.calls))
    with_state = [calls for calls in steps if "state" in calls]
    assert with_state and all(calls[0] == "state" for calls in with_state)
    sealing = [calls for calls in steps if "record" in calls]
    assert sealing, "the session sealed no hand"
    assert all(calls[0] == "state" and calls[-1] == "record" and "event" in calls
               for calls in sealing)
    service.close()


def test_a_restart_that_missed_the_sweep_reads_the_empty_zones_and_the_hand_goes_on(
    tmp_path: Path,
) -> None:
    """The table died after the preflop betting and before its empty zones were journaled; the
    dealer swept the bets into the pot while it was down. A zone is reported only when it
    changes, so the restarted table used to wait for that sweep for ever (a technician's kills
    with chip readers: 2 of 5 stalled) and misread the next bet against the chips it still
    believed in the zones. The reader, PN5180 modules simulated on their SPI bus, now reports
    every chip zone once as it opens: the zones read empty, the pot full, and the flop's bet in
    chips is applied."""
    config = SessionConfig(profile="pvb-2020", level=Level(sb=300, bb=600))
    service = TableService(config, Journal(tmp_path / "j.db"), MemorySink())
    for raw in [*three_players(), shuffle(), chips("seat:2", 300), chips("seat:3", 600),
                *deal(HOLE), chips("seat:1", 500, 100), chips("seat:2", 500, 100),
                key("confirm")]:
        service.process(parse_event(raw))
    assert service.session.state().stage == "dealing"  # the preflop round is over
    service.journal.close()  # the power went; the dealer sweeps 1,800 into the pot meanwhile

    again = TableService(config, Journal(tmp_path / "j.db"), MemorySink())
    table = Table(chips_config(settle=0.4), placed={11: CHIP_UIDS[:18]}, also=again.process)
    try:
        table.run(2.0)  # the zones' reports as the reader opens
        for raw in [card("burn", "3s"), card("board", "2c"), card("board", "7d"),
                    card("board", "9h")]:
            again.process(parse_event(raw))
        state = again.session.state()
        assert state.street == "flop" and state.actor == 2, state
        table.sim.field.place_many(2, CHIP_UIDS[20:30])  # a bet of 1,000
        table.run(2.0)
    finally:
        table.close()
    hand = again.session.table.hand
    assert hand is not None
    seats = again.session.table.positions
    assert seats is not None
    last = hand.log[-1]
    assert (seats.dealt[last.player or 0], last.kind, last.amount) == (2, "bet", 1000), last
    assert again.session.state().actor == 3
