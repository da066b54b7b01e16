"""`pokertable hands list|show|export` over every source (the recorder's store, a table's journal
and records.jsonl, replay-events output, a journal export), `journal export` and
`replay-events` reading what the table writes. Who sees which hole cards: test_hands_views.py."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import rtoml

from controller.engine.records import HandRecord
from controller.events import TableEvent
from controller.mqtt.messages import SecureRecordMessage
from controller.room.recorder import open_record_store
from controller.session import SessionConfig
from controller.session.outputs import hand_id
from controller.sim import soak as soak_module
from controller.table.journal import Journal
from tests.cli.hands_commands import ids, ids_of, run


def test_every_source_lists_the_same_hands(table: tuple[Path, list[HandRecord]],
                                           tmp_path: Path, store_location: str | Path) -> None:
    """From every source alike; the recorder's store a SQLite file or a PostgreSQL database."""
    directory, records = table
    expected = ids_of(records)
    journal = directory / "journal.db"
    assert Journal(journal, readonly=True).kept()[0] is not None  # older hands were let go
    store = open_record_store(store_location)
    for record in records:
        store.add(SecureRecordMessage(id=hand_id(record.table, record.hand, record.started),
                                      table=record.table, hand=record.hand, sent=0.0,
                                      record=record), 0.0)
    store.close()
    code, exported, _ = run("journal", "export", str(journal))
    assert code == 0
    (tmp_path / "journal-export.jsonl").write_text(exported)
    code, replayed, _ = run("replay-events", str(tmp_path / "journal-export.jsonl"))
    assert code == 0
    (tmp_path / "replayed.jsonl").write_text(replayed)
    # The journal holds the hands since its oldest checkpoint (keep_hands 10): their records,
    # bit for bit; the table's records.jsonl and the recorder hold them all.
    kept = [HandRecord.model_validate_json(line) for line in replayed.splitlines()]
    assert len(kept) >= 11 and kept == records[-len(kept):]
    for source, hands in ((store_location, expected), (journal, expected[-len(kept):]),
                          (directory / "records.jsonl", expected),
                          (tmp_path / "replayed.jsonl", expected[-len(kept):]),
                          (tmp_path / "journal-export.jsonl", expected[-len(kept):])):
        code, listing, err = run("hands", "list", str(source))
        assert (code, err) == (0, ""), source
        assert ids(listing) == hands, source
    # And the filters, on the store and on the journal alike.
    records = records[-len(kept):]
    player = next(iter(records[5].players.values()))
    played = [r for r in records if player in r.players.values()]
    hand = records[6].hand
    for source in (store_location, journal):
        listed = run("hands", "list", str(source), "--player", player)[1]
        assert ids(listed)[-len(played):] == ids_of(played)
        assert ids(run("hands", "list", str(source), "--hand", str(hand))[1]) == \
            ids_of(records[6:7])
        assert ids(run("hands", "list", str(source), "--table", "2")[1]) == []
        since, until = records[3].started, records[9].started
        assert since is not None and until is not None
        listed = run("hands", "list", str(source), "--since", str(since), "--until", str(until),
                     "--limit", "4")[1]
        assert ids(listed) == ids_of(records[3:7])
    code, _, err = run("hands", "show", str(journal), "--hand", "999")
    assert (code, err) == (1, "pokertable hands show: no hand matches\n")
    # A name in other capitals (the README's "anna" for Anna) finds nothing, and says why
    code, _, err = run("hands", "list", str(store_location), "--player", player.swapcase())
    assert code == 1 and "a name is matched exactly, capitals too" in err, err


def test_replay_events_reads_the_journal_and_names_what_it_cannot(
        table: tuple[Path, list[HandRecord]], tmp_path: Path) -> None:
    directory, records = table
    code, out, _ = run("replay-events", str(directory / "journal.db"))
    assert code == 0
    kept = [HandRecord.model_validate_json(line) for line in out.splitlines()]
    assert len(kept) >= 11 and kept == records[-len(kept):]
    public = tmp_path / "events.jsonl"  # what a table's out/events.jsonl holds
    public.write_text('{"kind":"hand_started","text":"hand 1: button seat 1","hand":1}\n')
    code, out, err = run("replay-events", str(public))
    assert (code, out) == (2, "")
    assert "a table's public events (what it told the floor)" in err
    code, out, err = run("replay-events", str(directory / "records.jsonl"))
    assert code == 2 and "holds hand records already" in err


def test_full_records_warn_and_are_written_private(table: tuple[Path, list[HandRecord]],
                                                   tmp_path: Path) -> None:
    directory, records = table
    out = tmp_path / "full.jsonl"
    code, _, err = run("hands", "export", str(directory / "records.jsonl"), "--full",
                       "--out", str(out))
    assert code == 0 and "hold every hole card" in err
    assert out.stat().st_mode & 0o777 == 0o600
    assert [HandRecord.model_validate_json(line) for line in out.read_text().splitlines()] == \
        records
    public = tmp_path / "public.jsonl"
    assert run("hands", "export", str(directory / "records.jsonl"), "--out", str(public))[0] == 0
    assert [HandRecord.model_validate_json(line) for line in public.read_text().splitlines()] \
        == [r.public() for r in records]


def test_phh_and_tracker_text_leave_the_void_hand_out_and_say_so(
        table: tuple[Path, list[HandRecord]]) -> None:
    directory, records = table
    complete = sum(r.status == "complete" for r in records)
    left = len(records) - complete
    for fmt, marker in (("phh", re.compile(r"^\[\d+\]$", re.M)),
                        ("stars", re.compile(r"^PokerStars Hand #", re.M))):
        code, out, err = run("hands", "export", str(directory / "records.jsonl"), "--format",
                             fmt)
        assert code == 0
        assert len(marker.findall(out)) == complete
        assert f"left out {left} hand" in err and "void" in err


def test_show_prints_each_hand_in_full(table: tuple[Path, list[HandRecord]]) -> None:
    directory, records = table
    code, out, _ = run("hands", "show", str(directory / "records.jsonl"), "--hand", "3")
    assert code == 0
    assert HandRecord.model_validate(json.loads(out)) == records[2].public()


def test_a_phh_export_replays_in_pokertable_replay(table: tuple[Path, list[HandRecord]],
                                                   tmp_path: Path) -> None:
    directory, records = table
    out = tmp_path / "table.phhs"
    assert run("hands", "export", str(directory / "records.jsonl"), "--format", "phh",
               "--out", str(out))[0] == 0
    code, replayed, _ = run("replay", str(out))
    assert code == 0
    complete = [r for r in records if r.status == "complete"]
    lines = [json.loads(line) for line in replayed.splitlines()]
    # Each hand named as the file names it (its table's hand number, not its place in the
    # file: the misdeal is left out, so the two differ after it).
    assert [(line["table"], line["hand"]) for line in lines] == [
        (r.table, r.hand) for r in complete]
    assert [r.hand for r in complete] != list(range(1, len(complete) + 1))
    assert [line["finishing_stacks"] for line in lines] == [
        [r.finishing_stacks[s] for s in r.starting_stacks] for r in complete]
    # A .phhs whose hands carry no number: their place in the file.
    anonymous = tmp_path / "anonymous.phhs"
    documents = rtoml.loads(out.read_text())
    for document in documents.values():
        del document["hand"], document["table"]
    anonymous.write_text(rtoml.dumps(documents))
    code, replayed, _ = run("replay", str(anonymous))
    lines = [json.loads(line) for line in replayed.splitlines()]
    assert code == 0 and [line["hand"] for line in lines] == [str(k + 1) for k in
                                                              range(len(complete))]
    assert all("table" not in line for line in lines)


def test_hands_read_json_lines_on_stdin(table: tuple[Path, list[HandRecord]],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    directory, records = table
    monkeypatch.setattr("sys.stdin", io.StringIO((directory / "records.jsonl").read_text()))
    code, listing, _ = run("hands", "list", "-", "--limit", "3")
    assert code == 0 and ids(listing) == ids_of(records[:3])


def test_an_omaha_tables_journal_needs_its_configuration(
        table: tuple[Path, list[HandRecord]], tmp_path: Path) -> None:
    _, records = table
    journal = Journal(tmp_path / "journal.db")
    journal.store_record(records[0].model_copy(update={"game": "PO"}))
    journal.close()
    for command in (("hands", "list"), ("journal", "export"), ("replay-events",)):
        code, out, err = run(*command, str(tmp_path / "journal.db"))
        assert (code, out) == (2, ""), command
        assert "plays pot-limit Omaha: give --config table.toml" in err, command


def test_a_tables_state_json_is_named_with_the_files_that_hold_its_hands(
        tmp_path: Path) -> None:
    """out/state.json (the table's public state now) is not a file of hands: one line naming
    what it is and where the hands are, from `hands` and `replay-events` alike."""
    from controller.session import TableSession
    from controller.table.sinks import FileSink

    FileSink(tmp_path).state(TableSession(SessionConfig(table_id="3")).state())
    state = tmp_path / "state.json"
    for command in (("hands", "list"), ("hands", "export"), ("replay-events",)):
        code, out, err = run(*command, str(state))
        assert (code, out) == (2, ""), command
        assert err.count("\n") == 1, err
        assert "a table's public state" in err, err
        assert "out/records.jsonl" in err and "journal.db" in err, err


def test_a_broken_event_stream_is_said_line_by_line_and_the_rest_read(
        table: tuple[Path, list[HandRecord]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A line that is not a table event (an unknown type, not JSON, an export cut mid-line)
    and an event the session refuses: `hands` says each on stderr as replay-events does,
    naming the file and the line, and lists every hand the rest holds."""
    directory, _ = table
    code, exported, _ = run("journal", "export", str(directory / "journal.db"))
    assert code == 0
    intact = tmp_path / "intact.jsonl"
    intact.write_text(exported)
    lines = exported.splitlines(keepends=True)
    lines[4:4] = ['{"type":"bogus"}\n', "not json\n",
                  '{"type":"command","name":"award","args":{"seat":99},"by":"floor:x"}\n']
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines) + '{"ts": 1.5, "type": "sh')  # cut mid-line
    expected = run("hands", "list", str(intact))[1]
    for command in (("hands", "list"), ("replay-events",)):
        code, out, err = run(*command, str(broken))
        assert code == 0, command
        said = err.splitlines()
        assert said[0].startswith(f"{broken} line 5: not a table event: event: unknown type "
                                  "'bogus'"), said
        assert said[1].startswith(f"{broken} line 6: not a table event: event: Invalid JSON"), \
            said
        assert said[2].startswith(f"{broken} line 7: refused: award: "), said
        assert said[3].startswith(f"{broken} line {len(lines) + 1}: not a table event"), said
        assert len(said) == 4, said
    assert run("hands", "list", str(broken))[1] == expected
    monkeypatch.setattr("sys.stdin", io.StringIO(broken.read_text()))
    code, out, err = run("hands", "list", "-")
    assert (code, out) == (0, expected)
    assert "stdin line 5: not a table event" in err and err.count("\n") == 4


def test_a_selection_with_nothing_to_export_says_why_and_writes_no_file(
        table: tuple[Path, list[HandRecord]], tmp_path: Path) -> None:
    """Only a void hand chosen: PHH and tracker text have nothing to write. One line saying
    which hands were left out and why, exit 1, and no file (an existing one left as it was);
    JSON keeps the void hand."""
    directory, records = table
    void = next(r for r in records if r.status == "void")
    source = str(directory / "records.jsonl")
    out = tmp_path / "x.phh"
    for fmt in ("phh", "stars"):
        code, text, err = run("hands", "export", source, "--hand", str(void.hand), "--format",
                              fmt, "--out", str(out))
        assert (code, text) == (1, ""), fmt
        assert err == ("pokertable hands export: nothing to write: left out 1 hand that has no "
                       "result to import (1 void)\n"), err
        assert not out.exists(), fmt
        code, text, err = run("hands", "show", source, "--hand", str(void.hand), "--format", fmt)
        assert (code, text) == (1, ""), fmt
        assert err == ("pokertable hands show: nothing to write: left out 1 hand that has no "
                       "result to import (1 void)\n"), err
    out.write_text("an earlier export\n")
    code, _, err = run("hands", "export", source, "--hand", str(void.hand), "--format", "phh",
                       "--out", str(out))
    assert code == 1 and out.read_text() == "an earlier export\n"
    code, _, err = run("hands", "export", source, "--hand", "999", "--out", str(out))
    assert (code, err) == (1, "pokertable hands export: no hand matches\n")
    assert out.read_text() == "an earlier export\n"
    code, _, err = run("hands", "export", source, "--hand", str(void.hand), "--out", str(out))
    assert code == 0 and HandRecord.model_validate_json(out.read_text()) == void.public()
    assert not list(tmp_path.glob(".*"))  # no temporary file left beside it


@pytest.fixture(scope="module")
def omaha_stream(tmp_path_factory: pytest.TempPathFactory,
                 monkeypatch_module: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The table events of four hands at a pot-limit Omaha table (the soak's, four hole cards
    each), without a head line: nothing in the stream names its rule profile. And the profile."""
    import random

    from controller.events import dump_event

    events: list[TableEvent] = []
    feed = soak_module.DirectHands.feed

    def keep_event(self: soak_module.DirectHands, event: TableEvent) -> None:
        events.append(event)
        feed(self, event)

    directory = tmp_path_factory.mktemp("omaha")
    monkeypatch_module.setattr(soak_module.DirectHands, "feed", keep_event)
    table = soak_module.SoakTable(4, random.Random(5), soak_module.SoakReport(tables=1), 0.0,
                                  omaha=True, profile_dir=directory)
    table.play(4)
    monkeypatch_module.undo()
    stream = directory / "omaha-events.jsonl"
    stream.write_text("".join(dump_event(e) + "\n" for e in events))
    return stream, directory / "omaha.toml"


def test_an_omaha_stream_replayed_as_holdem_is_said_once_with_the_fix(
        omaha_stream: tuple[Path, Path], tmp_path: Path) -> None:
    stream, profile = omaha_stream
    for command in (("replay-events",), ("hands", "list")):
        code, out, err = run(*command, str(stream))
        assert code == 0 and out, command
        said = [line for line in err.splitlines() if "hole card" in line]
        assert len(said) == 1, (command, err)
        assert said[0].startswith(f"{stream}: hand 1: seat "), said
        assert "pot-limit Omaha" in said[0] and "2 hole cards" in said[0], said
        fix = "--profile" if command[0] == "replay-events" else "--config table.toml"
        assert fix in said[0], said
    code, out, err = run("replay-events", str(stream), "--profile", str(profile))
    assert code == 0 and "hole card" not in err
    records = [HandRecord.model_validate_json(line) for line in out.splitlines()]
    assert {r.game for r in records} == {"PO"}
    assert all(len(cards) == 8 for r in records for cards in r.hole_cards.values())


def test_tournament_goes_with_tracker_text_only(table: tuple[Path, list[HandRecord]]) -> None:
    """--tournament numbers tracker text's tournament; JSON and PHH have no such field: one
    line, exit 2, rather than an option silently ignored."""
    directory, _ = table
    for command in (("export",), ("export", "--format", "phh"), ("show",)):
        code, out, err = run("hands", *command, str(directory / "records.jsonl"),
                             "--tournament", "7")
        assert (code, out) == (2, ""), command
        assert err.count("\n") == 1 and "--tournament" in err and "--format stars" in err, err
    code, out, _ = run("hands", "show", str(directory / "records.jsonl"), "--hand", "3",
                       "--format", "stars", "--tournament", "7")
    assert code == 0 and "Tournament #7, " in out


def keep_at(store_location: str | Path, hands: list[tuple[str, HandRecord]]) -> None:
    store = open_record_store(store_location)
    for venue, record in hands:
        store.add(SecureRecordMessage(id=hand_id(record.table, record.hand, record.started),
                                      table=record.table, hand=record.hand, sent=0.0,
                                      record=record), 0.0, venue)
    store.close()


def test_a_leagues_store_tells_its_venues_apart(table: tuple[Path, list[HandRecord]],
                                                tmp_path: Path,
                                                store_location: str | Path) -> None:
    """Two venues' table 1 played the same hands: the list names each hand's venue, --venue
    picks one, tracker text names the venue in the table (a tracker would merge two tables of
    one name), PHH fills phh-std's `venue`, and JSON lines carry it in a field of their own
    that a reader of records ignores and `hands` reads back."""
    directory, records = table
    played = [r for r in records if r.status == "complete"][:3]
    league = [(venue, r.model_copy(update={"started": (r.started or 0.0) + shift}))
              for venue, shift in (("hall-a", 0.0), ("hall-b", 0.25)) for r in played]
    league.sort(key=lambda kept: kept[1].started or 0.0)  # the order hands come in: by start
    keep_at(store_location, league)
    source = str(store_location)
    listing = run("hands", "list", source)[1].splitlines()
    assert len(listing) == 6
    for venue, record in league:
        assert sum(f"  venue {venue} table {record.table} hand {record.hand}  " in line
                   for line in listing) == 1, (venue, listing)
    code, listing_b, err = run("hands", "list", source, "--venue", "hall-b")
    assert (code, err) == (0, "")
    assert ids(listing_b) == ids_of([r for v, r in league if v == "hall-b"])
    code, out, err = run("hands", "list", source, "--venue", "hall-c")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "no hand of venue 'hall-c'" in err and "hall-a, hall-b" in err, err
    text = run("hands", "export", source, "--format", "stars", "--tournament", "7")[1]
    assert re.findall(r"^Table '([^']*)'", text, re.M) == [
        f"7 {venue} {r.table}" for venue, r in league]
    phh_text = run("hands", "export", source, "--format", "phh")[1]
    phh = rtoml.loads(phh_text)
    assert [hand["venue"] for hand in phh.values()] == [venue for venue, _ in league]
    (tmp_path / "league.phhs").write_text(phh_text)
    replayed = [json.loads(line) for line in
                run("replay", str(tmp_path / "league.phhs"))[1].splitlines()]
    assert [(line["venue"], line["table"], line["hand"]) for line in replayed] == [
        (venue, r.table, r.hand) for venue, r in league]
    exported = run("hands", "export", source)[1].splitlines()
    assert [json.loads(line)["venue"] for line in exported] == [v for v, _ in league]
    assert [HandRecord.model_validate_json(line) for line in exported] == [
        r.public() for _, r in league]
    shown = json.loads(run("hands", "show", source, "--venue", "hall-b", "--limit", "1")[1])
    assert shown["venue"] == "hall-b"
    assert HandRecord.model_validate(shown) == league[1][1].public()
    (tmp_path / "league.jsonl").write_text("\n".join(exported) + "\n")
    code, again, _ = run("hands", "list", str(tmp_path / "league.jsonl"), "--venue", "hall-b")
    assert code == 0 and again == listing_b
    code, out, err = run("hands", "list", str(directory / "journal.db"), "--venue", "hall-a")
    assert (code, out) == (2, "") and "--venue" in err and err.count("\n") == 1


def test_a_one_venue_store_names_no_venue(table: tuple[Path, list[HandRecord]],
                                          store_location: str | Path) -> None:
    """A room's store (or a league's with one venue so far): the output is a room's, as
    before venues were kept."""
    _, records = table
    played = [r for r in records if r.status == "complete"][:2]
    keep_at(store_location, [("hall-a", r) for r in played])
    source = str(store_location)
    assert "venue" not in run("hands", "list", source)[1]
    assert re.findall(r"^Table '([^']*)'", run("hands", "export", source, "--format", "stars",
                                               "--tournament", "7")[1], re.M) == ["7 1", "7 1"]
    assert "venue" not in run("hands", "export", source, "--format", "phh")[1]
    assert "venue" not in run("hands", "export", source)[1]
    assert ids(run("hands", "list", source, "--venue", "hall-a")[1]) == ids_of(played)
