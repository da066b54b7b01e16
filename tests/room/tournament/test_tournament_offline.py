"""The tournament's rules offline, as the director (or anyone checking us) runs them:
`pokertable tournament balance | standings | payouts` read files and print JSON lines; a bad
file is one line naming it, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.engine.records import HandRecord
from controller.session import SessionConfig, TableSession
from tests.room.tournament.tournament_helpers import bust, fold_around
from tests.session.helpers import Run, command, seat, shuffle

ROOT = Path(__file__).resolve().parents[3]


def pokertable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "tournament", *args],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


def lines(done: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_balance_prints_the_break_the_moves_and_the_hold_in_order(tmp_path: Path) -> None:
    seating = {"seats": 9, "break_order": ["3", "2", "1"], "tables": [
        {"table": "1", "button": 4, "big_blind": 6,
         "players": {str(s): f"p{s:02d}" for s in range(1, 10)}},
        {"table": "2", "button": 2, "big_blind": 4,
         "players": {str(s): f"q{s:02d}" for s in range(1, 6)}},
        # (table 3's button and big blind went out in the hand just played)
        {"table": "3", "button": 1, "big_blind": 3, "players": {"2": "r02"}, "out": [1, 3]}]}
    path = tmp_path / "seating.json"
    path.write_text(json.dumps(seating))
    out = lines(pokertable("balance", "--seating", str(path), "--balancing", "apsa-2010"))
    # 15 players fit at two tables of nine: table 3 breaks; its player goes to table 2 (5),
    # then table 1 (9) gives its next big blind to table 2 (6 -> 7 and 8).
    assert out[0] == {"break": "3"}
    assert out[1]["move"] == "r02" and out[1]["to"]["table"] == "2"  # type: ignore[index]
    assert out[2] == {"move": "p07", "from": {"table": "1", "seat": 7},
                      "to": {"table": "2", "seat": 6 if out[1]["to"]["seat"] != 6 else 7},  # type: ignore[index]
                      "rule": "APSA 3.1.2.4"}
    assert out[-1] == {"hold": "2"} and len(out) == 4
    pvb = lines(pokertable("balance", "--seating", str(path)))
    assert pvb[2]["rule"] == "PVB 09(1)"


def played_records() -> list[HandRecord]:
    """Two tables' hands, as the tables seal them: at table 1 two players out in one hand with
    different stacks (ben 150, cem 300); at table 2 two with equal stacks (eve, fay: 500 each);
    then hand-for-hand round 7 at both, one out at each (gus began with 700, hal with 900)."""
    one = Run(TableSession(SessionConfig(table_id="1", seats=9)))
    two = Run(TableSession(SessionConfig(table_id="2", seats=9)))
    one.feed([seat(1, "ana", 10_000), seat(2, "ben", 150), seat(3, "cem", 300),
              seat(4, "gus", 700)], shuffle(ts=10.0))
    bust(one.feed, one.session.state, 1, [2, 3])
    two.feed([seat(1, "dan", 10_000), seat(2, "eve", 500), seat(3, "fay", 500),
              seat(4, "hal", 900)], shuffle(ts=20.0))
    bust(two.feed, two.session.state, 1, [2, 3])
    for run, loser, ts in ((one, 4, 30.0), (two, 4, 31.0)):
        run.feed(command("hold", reason="hand-for-hand"),
                 command("release", by="clock", one_hand=True, round=7), shuffle(ts=ts))
        bust(run.feed, run.session.state, 1, [loser])
        run.feed(command("close"))
    return one.sealed + two.sealed


def test_standings_from_two_tables_records(tmp_path: Path) -> None:
    records = played_records()
    assert [r.hand_for_hand_round for r in records] == [None, 7, None, 7]
    one, two = tmp_path / "table-1.jsonl", tmp_path / "table-2.jsonl"
    one.write_text("".join(r.model_dump_json() + "\n" for r in records[:2]))
    # The recorder's copy of table 2: the MQTT payloads, each record under "record"
    two.write_text("".join(json.dumps({"v": 1, "id": f"2:{r.hand}", "table": "2", "hand": r.hand,
                                       "sent": 0, "record": json.loads(r.model_dump_json())})
                           + "\n" for r in records[2:]))
    out = lines(pokertable("standings", "--entries", "8", str(one), str(two)))
    assert out == [
        {"place": 8, "player": "ben", "shared_with": []},
        {"place": 7, "player": "cem", "shared_with": []},
        {"place": 5, "player": "eve", "shared_with": ["fay"]},
        {"place": 5, "player": "fay", "shared_with": ["eve"]},
        {"place": 4, "player": "gus", "shared_with": []},   # round 7: hal began with more
        {"place": 3, "player": "hal", "shared_with": []},
    ]


def test_standings_check_the_entries_against_the_players_in_the_records(tmp_path: Path
                                                                        ) -> None:
    """--entries counts every player who took part: the records of two tables show eight, so
    seven entries is a mistake (one line, exit 2), as is a count the records eliminate
    entirely; more entries than the records show is the final table's records alone."""
    path = tmp_path / "records.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in played_records()))
    done = pokertable("standings", "--entries", "7", str(path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "pokertable tournament standings: --entries 7: the records show 8 players; --entries "
        "counts every player who took part"], done.stderr
    more = lines(pokertable("standings", "--entries", "20", str(path)))
    assert [(line["place"], line["player"]) for line in more][:2] == [(20, "ben"), (19, "cem")]
    from controller.errors import ConfigError
    from controller.room.tournament.offline import standings_lines
    first = played_records()[0]  # a record spoilt: everyone at the table ends with nothing
    spoilt = first.model_copy(update={"finishing_stacks": dict.fromkeys(first.players, 0)})
    with pytest.raises(ConfigError, match="eliminate 4 players, and one is left"):
        standings_lines(4, [spoilt])


def test_payouts_for_n_entries() -> None:
    out = lines(pokertable("payouts", "--structure", "deploy/structures/turbo.toml",
                           "--entries", "27"))
    assert out == [{"place": 1, "prize": 675, "currency": "EUR"},
                   {"place": 2, "prize": 405, "currency": "EUR"},
                   {"place": 3, "prize": 270, "currency": "EUR"}]
    assert sum(int(line["prize"]) for line in out) == 27 * 50  # type: ignore[call-overload]


@pytest.mark.parametrize(("args", "says"), [
    (["balance", "--seating", "missing.json"], "missing.json: cannot read it"),
    (["balance", "--seating", "{bad}"], "not JSON"),
    (["balance", "--seating", "{seat9}"],
     "file: table 1, players: seat 9 does not exist (seats 1 to 8)"),
    (["standings", "--entries", "4", "{record}"], "line 1: not a hand record: hand: missing"),
    (["standings", "--entries", "0", "{record}"], "must be at least 1"),
    (["payouts", "--structure", "{notoml}", "--entries", "5"], "not valid TOML"),
    ([], "give --config tournament.toml, or one of: balance, standings, payouts"),
])
def test_a_bad_file_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    files = {"{bad}": "{not json", "{seat9}": json.dumps(
        {"seats": 8, "tables": [{"table": "1", "players": {"9": "x"}}]}),
        "{record}": json.dumps({"table": "1"}) + "\n" + "[1, 2]\n", "{notoml}": "name = "}
    argv = []
    for arg in args:
        if arg in files:
            path = tmp_path / "file"
            path.write_text(files[arg])
            arg = str(path)
        argv.append(arg)
    done = pokertable(*argv)
    assert done.returncode == 2, done
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_the_folding_helper_plays_a_hand() -> None:
    run = Run(TableSession(SessionConfig(table_id="1", seats=9)))
    run.feed([seat(1, "a"), seat(5, "b"), seat(9, "c")], shuffle(ts=1.0))
    fold_around(run.feed, run.session.state)
    assert run.session.pending_record is not None


def test_standings_name_the_winner_when_one_player_is_left() -> None:
    """The records of the last hand leave one player with every chip: first place is printed
    too (it used to stop at second)."""
    from controller.room.tournament.offline import standings_lines
    first = played_records()[0]
    seats = sorted(first.players)
    total = sum(first.starting_stacks.values())
    final = first.model_copy(update={"finishing_stacks": {
        s: (total if s == seats[0] else 0) for s in seats}})
    out = standings_lines(len(seats), [final])
    assert out[-1] == {"place": 1, "player": first.players[seats[0]], "shared_with": []}
    assert sorted(line["place"] for line in out)[0] == 1 and len(out) == len(seats)


def test_standings_a_player_who_plays_on_after_his_bust_is_not_out() -> None:
    """The floor took back ben's bust (or he entered again) and seated him with chips: the
    records show him out in hand 1 and playing hand 2. He is not out, as the service says;
    a bust taken back without a later hand the records cannot know, and the error says so."""
    from controller.errors import ConfigError
    from controller.room.tournament.offline import standings_lines
    run = Run(TableSession(SessionConfig(table_id="1", seats=9)))
    run.feed([seat(1, "ana", 10_000), seat(2, "ben", 150), seat(3, "cem", 300)],
             shuffle(ts=10.0))
    bust(run.feed, run.session.state, 1, [2])
    run.feed([seat(2, "ben", 200)], shuffle(ts=20.0))  # seated again: the bust taken back
    bust(run.feed, run.session.state, 1, [3])
    run.feed(command("close"))
    assert [r.players for r in run.sealed][1] == {1: "ana", 2: "ben", 3: "cem"}
    assert standings_lines(3, run.sealed) == [{"place": 3, "player": "cem", "shared_with": []}]
    with pytest.raises(ConfigError) as refused:
        last = run.sealed[1]  # everyone ends the last hand with nothing: a spoilt count
        standings_lines(3, [last.model_copy(update={"finishing_stacks": dict.fromkeys(
            last.players, 0)})])
    assert "a bust the floor took back is in the tournament's journal, not in the hands" in \
        str(refused.value)
