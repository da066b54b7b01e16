"""No event can poison a table: what the engine cannot hold is refused at the boundary,
an event the session cannot apply is refused and never half-applied, a restart always comes back
to the same state, and every line is either applied or refused, none lost."""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.events import BadEvent, parse_event
from controller.session import SessionConfig
from controller.session.actions import BettingActions
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from tests.session.helpers import HOLE, deal, declare, seat, shuffle, three_players

ROOT = Path(__file__).resolve().parents[2]


def service_at(path: Path, sink: MemorySink | None = None) -> TableService:
    return TableService(SessionConfig(), Journal(path, keep_hands=10_000), sink or MemorySink())


def counts(path: Path) -> tuple[int, int]:
    """(events journaled, lines rejected before they were events)."""
    with sqlite3.connect(path) as db:
        events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        rejected = db.execute("SELECT COUNT(*) FROM rejected").fetchone()[0]
    return int(events), int(rejected)


@pytest.mark.parametrize("player", ["", "   ", "\x00", "a" * 41, "tab\there"])
def test_a_seat_without_a_usable_name_is_refused_at_the_boundary(player: str) -> None:
    with pytest.raises(BadEvent, match=r"seat\.player"):
        parse_event({"type": "seat", "seat": 4, "player": player, "stack": 5_000})


@pytest.mark.parametrize("ts", ["NaN", "Infinity", "-Infinity", "1e400", "-1", "1e12"])
def test_a_shuffle_at_an_impossible_time_is_refused_at_the_boundary(ts: str) -> None:
    with pytest.raises(BadEvent, match=r"shuffle\.ts"):
        parse_event('{"type":"shuffle","ts":' + ts + "}")


@pytest.mark.parametrize("line", [
    '{"type":"seat","seat":1,"player":"a","stack":100000000000000000000}',
    '{"type":"declare","seat":1,"action":"raise","amount":100000000000000000000}',
    '{"type":"chips","zone":"seat:1","chips":[0]}',
    '{"type":"level","level":3,"sb":200,"bb":100}',
    '{"type":"tick","now":NaN}',
    '{"type":"command","name":"VOID"}',
    '{"type":"foreign","zone":"anywhere","uid":"0A0B0C0D"}',
])
def test_amounts_and_names_the_engine_cannot_hold_are_refused(line: str) -> None:
    with pytest.raises(BadEvent):
        parse_event(line)


def test_an_empty_name_in_the_middle_of_a_hand_bricks_nothing(tmp_path: Path) -> None:
    """The old failure: a seat with an empty name, queued during a hand, failed when the hand
    ended; every later event failed and the table could not restart."""
    journal = tmp_path / "j.db"
    service = service_at(journal)
    for raw in [*three_players(), shuffle(), *deal(HOLE)]:
        service.process(parse_event(raw))
    assert service.process_line(json.dumps(seat(4, "", 5_000))) is None  # refused, journaled
    for raw in [declare(1, "fold"), declare(2, "fold")]:
        assert service.process(parse_event(raw)).accepted
    assert service.session.pending_record is not None  # the hand ended
    assert service.process(parse_event(shuffle())).accepted  # and the next one starts
    before = service.session.state()
    service.journal.close()  # no orderly stop
    again = service_at(journal)
    assert again.session.state() == before


def test_impossible_times_in_a_batch_lose_nothing_else(tmp_path: Path) -> None:
    """The old failure: a NaN time made the loop drop the rest of its batch (neither journaled
    nor refused), and the live state no longer matched the journal."""
    journal = tmp_path / "j.db"
    service = service_at(journal)
    lines = [json.dumps(raw) for raw in three_players()]
    lines += ['{"type":"shuffle","ts":NaN}', '{"type":"shuffle","ts":Infinity}',
              '{"type":"shuffle","ts":1e400}', json.dumps(shuffle(ts=5.0))]
    lines += [json.dumps(raw) for raw in deal(HOLE)]
    service.process_batch(list(lines))
    assert counts(journal) == (len(lines) - 3, 3)
    assert service.session.table.hand_number == 1
    before = service.session.state()
    service.journal.close()
    assert service_at(journal).session.state() == before


def test_an_event_the_session_cannot_apply_is_refused_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """The second wall: a fault inside the session (injected here, since the boundary lets no
    known one through) is refused with the floor's words, logged with its traceback, and
    replays the same way after a restart."""
    journal = tmp_path / "j.db"
    service = service_at(journal)
    for raw in [*three_players(), shuffle(), *deal(HOLE)]:
        service.process(parse_event(raw))
    before = service.session.state()

    def broken(self: BettingActions, *args: Any) -> bool:
        raise ZeroDivisionError("a fault inside the session")

    monkeypatch.setattr(BettingActions, "declare", broken)  # the session's betting part
    with caplog.at_level(logging.ERROR):
        step = service.process(parse_event(declare(1, "call")))
    assert not step.accepted
    assert "could not apply this declare event" in step.events[0].text
    assert "ZeroDivisionError" in caplog.text
    assert service.session.state() == before
    again = service_at(journal)  # the journaled event is refused again, nothing else breaks
    assert again.session.state() == before
    monkeypatch.undo()
    assert again.process(parse_event(declare(1, "call"))).accepted


def test_a_journal_line_an_older_version_accepted_is_skipped_on_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    journal = tmp_path / "j.db"
    service = service_at(journal)
    for raw in three_players():
        service.process(parse_event(raw))
    before = service.session.state()
    service.journal.close()
    with sqlite3.connect(journal) as db:  # as the old version journaled it
        db.execute("INSERT INTO events (line) VALUES (?)",
                   ('{"type":"seat","seat":4,"player":"","stack":5000}',))
    with caplog.at_level(logging.ERROR):
        again = service_at(journal)
    assert again.session.state() == before
    assert "is skipped" in caplog.text


def test_replay_events_reports_poison_lines_and_goes_on(tmp_path: Path) -> None:
    stream = tmp_path / "events.jsonl"
    lines = [json.dumps(raw) for raw in three_players()]
    lines += [json.dumps(seat(4, "", 5_000)), '{"type":"shuffle","ts":NaN}',
              json.dumps(shuffle()), json.dumps(declare(1, "fold")),
              json.dumps(declare(2, "fold")), json.dumps(shuffle())]
    stream.write_text("\n".join(lines) + "\n")
    done = subprocess.run([sys.executable, "-m", "controller.cli", "replay-events", str(stream)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "line 4:" in done.stderr and "line 5:" in done.stderr
    assert json.loads(done.stdout.splitlines()[0])["hand"] == 1


# ------------------------------------------------------------------ the property

EXTREME_INTS = st.sampled_from([-(2**63), -1, 0, 1, 7, 10, 11, 2**31, 2**63, 10**12, 10**30])
EXTREME_FLOATS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 0.5]),
                           st.floats(0, 100))
EXTREME_TEXT = st.one_of(st.sampled_from(["", " ", "\x00", "\u202e", "a" * 200, "p1", "seat:1"]),
                         st.text(max_size=8))
ANY_VALUE = st.one_of(EXTREME_INTS, EXTREME_FLOATS, EXTREME_TEXT, st.none(), st.booleans(),
                      st.lists(EXTREME_INTS, max_size=3))
FIELDS = ["seat", "player", "stack", "zone", "card", "uid", "chips", "key", "action", "amount",
          "level", "sb", "bb", "ante", "bb_ante", "name", "args", "by", "now", "ts", "device",
          "status", "reads", "command_id"]
TYPES = ["seat", "shuffle", "card", "chips", "gone", "foreign", "key", "declare", "level",
         "command", "tick", "health", "nonsense"]


def _line(kind: str, fields: dict[str, Any]) -> str:
    try:
        return json.dumps({"type": kind, **fields}, allow_nan=True)
    except (TypeError, ValueError):
        return "{"


ARBITRARY = st.builds(_line, st.sampled_from(TYPES),
                      st.dictionaries(st.sampled_from(FIELDS), ANY_VALUE, max_size=5))
PLAUSIBLE = st.one_of(
    st.just(json.dumps(shuffle())),
    st.builds(lambda t: _line("shuffle", {"ts": t}), EXTREME_FLOATS),
    st.builds(lambda s: json.dumps(declare(s, "fold")), st.integers(1, 3)),  # hands end too
    st.builds(lambda s, a, n: json.dumps(declare(s, a, n)), st.integers(1, 4),
              st.sampled_from(["fold", "check", "call", "raise", "allin"]),
              st.one_of(st.none(), EXTREME_INTS.filter(lambda n: 0 < n < 10**11))),
    st.builds(lambda s, p, n: json.dumps(seat(s, p, n)), st.integers(1, 10),
              st.one_of(st.none(), EXTREME_TEXT), st.integers(0, 10**6)),
)
LINES = st.lists(st.one_of(ARBITRARY, PLAUSIBLE), min_size=1, max_size=30)


@settings(max_examples=int(os.environ.get("POISON_EXAMPLES", "40")),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(LINES, st.integers(0, 30))
def test_any_input_is_applied_or_refused_and_a_restart_comes_back_the_same(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], kill_after: int,
) -> None:
    journal = tmp_path_factory.mktemp("poison") / "j.db"
    service = service_at(journal)
    service.process_batch([json.dumps(raw) for raw in [*three_players(), shuffle()]])
    fed = 4
    cut = min(kill_after, len(lines))
    service.process_batch(list(lines[:cut]))  # the loop's own path, a batch at a time
    fed += cut
    service.journal.close()  # killed: no orderly stop
    service = service_at(journal)
    for line in lines[cut:]:
        service.process_batch([line])
    fed += len(lines) - cut
    events, rejected = counts(journal)
    assert events + rejected == fed  # every line applied or refused, none lost
    before = service.session.state()
    service.journal.close()
    assert service_at(journal).session.state() == before
