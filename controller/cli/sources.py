"""Where hands are kept, read as one stream of hand records: the recorder's store (records.db), a
table's journal (journal.db, replayed through the session as a restarted table replays it), a
table's records.jsonl or `replay-events` output (JSON lines of records), and a table-event
stream (`journal export`, a script), replayed. What a file is comes from its first bytes, not its
name; a file that is none of these is one line naming it and what it is instead."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from controller.errors import ConfigError

if TYPE_CHECKING:
    from controller.engine.records import HandRecord
    from controller.events import TableEvent
    from controller.history.export import Placed
    from controller.history.query import HandQuery
    from controller.session import SessionConfig, SessionSnapshot

Kind = Literal["store", "journal", "records", "events"]

SQLITE_HEADER = b"SQLite format 3\x00"
RECORD_STORE, TABLE_JOURNAL = 0x50540003, 0x50540001  # PRAGMA application_id (sqlite_store.py)

HANDS_ARE = "read its records (out/records.jsonl) or its journal (journal.db)"
PUBLIC_EVENTS = ("holds a table's public events (what it told the floor), "
                 f"which carry no hole card and no hand record; {HANDS_ARE}")
PUBLIC_STATE = ("holds a table's public state (its state.json: what the table shows now), "
                f"not its hands; {HANDS_ARE}")


def stored_hands(where: Path | str, query: HandQuery,
                 venue: str | None = None) -> Iterator[Placed]:
    """The recorder's store (a records.db, or a ``postgresql://`` URL), every hand ``query``
    matches (of ``venue`` only, if given), found by the store's own search and read a record at
    a time (a room's 100,000 hands as records at once would take gigabytes). Each hand comes
    with its venue when the store keeps more than one (a league's), else without. The store is
    opened now: a file that is not a record store, a server that does not answer, or a venue
    it does not keep, is said before any output."""
    from controller.history.export import Placed
    from controller.room.recorder import StoreUnavailable, open_record_store

    try:
        store = open_record_store(where, readonly=True)
        venues = store.venues()
    except StoreUnavailable as exc:
        raise ConfigError(str(exc)) from None
    if venue is not None and venue not in venues:
        store.close()
        kept = ", ".join(v or "''" for v in venues) or "no hand at all"
        raise ConfigError(f"{store.where}: no hand of venue {venue!r} (it keeps {kept})")
    named = len(venues) > 1

    def rows() -> Iterator[Placed]:
        try:
            for kept in store.stream(query, venue):
                yield Placed(kept.record, kept.venue if named else None)
        finally:
            store.close()

    return rows()


def kind_of(path: Path) -> Kind:
    """What ``path`` holds, from its first bytes (or its first line)."""
    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, not a file of hands")
    try:
        with path.open("rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if head.startswith(SQLITE_HEADER):
        application = int.from_bytes(head[68:72], "big")
        if application == RECORD_STORE:
            return "store"
        if application == TABLE_JOURNAL:
            return "journal"
        if application == 0:  # a store from before kinds were marked: its tables say
            return _older_store(path)
        from controller.storage.sqlite_store import KINDS

        other = KINDS.get(application, "SQLite file of another program")
        raise ConfigError(f"{path} is a {other}, not a record store or a table journal")
    if b"\x00" in head:
        raise ConfigError(f"{path}: not a text file; expected hand records, table events or a "
                          "store of them")
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                try:
                    return line_kind(line.decode("utf-8"), path)
                except UnicodeDecodeError:
                    raise ConfigError(f"{path}: not a text file; expected hand records, table "
                                      "events or a store of them") from None
    raise ConfigError(f"{path}: is empty: no hand in it")


def must_exist(path: Path) -> Path:
    if not path.exists():
        raise ConfigError(f"{path}: cannot read it (no such file)")
    return path


def _older_store(path: Path) -> Kind:
    from controller.storage.sqlite_store import connect_readonly

    db = connect_readonly(path)
    try:
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        db.close()
    if "snapshots" in tables:
        return "journal"
    if "records" in tables:
        return "store"
    raise ConfigError(f"{path} is an SQLite file that is neither a record store nor a table "
                      "journal")


def line_kind(line: str, path: Path | str) -> Kind:
    """What a stream of JSON lines holds, from its first line."""
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: line 1 is not a JSON object: not hand records, not table "
                          "events")
    if "actions" in data and "finishing_stacks" in data:
        return "records"
    if "type" in data or "session" in data:
        return "events"
    if "kind" in data and "text" in data:
        raise ConfigError(f"{path} {PUBLIC_EVENTS}")
    if {"stage", "seats", "waiting_for"} <= data.keys():
        raise ConfigError(f"{path} {PUBLIC_STATE}")
    raise ConfigError(f"{path}: line 1 is neither a hand record nor a table event")


def _lines(path: Path | None) -> Iterator[str]:
    if path is None:
        yield from sys.stdin
        return
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            yield from fh
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None


VENUE_FIELD = re.compile(r'\{\s*"venue"\s*:\s*("(?:[^"\\]|\\.)*")')


def record_lines(lines: Iterable[str], where: str) -> Iterator[Placed]:
    """JSON lines of records, each with the venue an export gave it (a ``venue`` field first:
    `controller.history.export.placed_json`); a line that is none (a line cut by a power cut) is
    said on stderr and skipped."""
    from pydantic import ValidationError

    from controller.engine.records import HandRecord
    from controller.errors import first_error
    from controller.history.export import Placed

    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = HandRecord.model_validate_json(line)
        except ValidationError as exc:
            print(f"{where} line {number}: not a hand record, skipped "
                  f"({first_error(exc, 'record')})", file=sys.stderr)
            continue
        venue = VENUE_FIELD.match(line)
        yield Placed(record, None if venue is None else str(json.loads(venue.group(1))))


def journal_start(path: Path, configured: bool = False
                  ) -> tuple[dict[str, Any], SessionSnapshot | None, list[tuple[int, TableEvent]]]:
    """What a journal says of its session (the table's id and size, as its records name them:
    fields for `SessionConfig`), its replay's checkpoint and its events.
    Without its table's configuration (``configured``), an Omaha table's journal is refused:
    the default rule profile would replay it as hold'em."""
    from controller.table.journal import Journal

    journal = Journal(path, readonly=True)
    try:
        snapshot, events = journal.kept()
        kept = journal.records()
    finally:
        journal.close()
    table = kept[-1].table if kept else None
    if table is None and snapshot is not None and snapshot.pending_record is not None:
        table = snapshot.pending_record.table
    if not configured and any(r.game != "NT" for r in kept):
        raise ConfigError(f"{path}: its table plays pot-limit Omaha: give --config table.toml "
                          "(the table's configuration names its rule profile)")
    session: dict[str, Any] = {"table_id": table or "1"}
    seat_count = next((r.seat_count for r in reversed(kept) if r.seat_count is not None), None)
    if seat_count is not None:
        session["seats"] = seat_count
    return session, snapshot, events


def event_stream(lines: Iterable[str], where: str, config: SessionConfig | None,
                 errors: bool = False, give_profile: str = "--config table.toml (the "
                 "table's configuration names its rule profile)") -> Iterator[HandRecord]:
    """A table-event stream replayed, from its head's session and checkpoint if it has one;
    ``config`` (given options) overrides the head's session. ``errors``: a line that is not a
    table event (a script's typo, an export cut mid-line) and an event the session refuses are
    said on stderr, as `replay-events` says them; the replay goes on without them."""
    from controller.errors import PokertableError
    from controller.history.replay_events import parsed, read_head, replay_table_events

    it = iter(lines)
    first = next((line for line in it if line.strip()), None)
    if first is None:
        return iter(())
    try:
        head = read_head(first)  # now: a bad head is a mistake before any output
    except PokertableError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    rest: Iterable[str] = it if head is not None else chain([first], it)
    session = config or (head.session if head is not None else None)
    snapshot = head.snapshot if head is not None else None
    stderr = sys.stderr if errors else None
    return replay_table_events(parsed(rest, stderr, first=2 if head else 1, where=where),
                               session, snapshot, stderr, where=where,
                               give_profile=give_profile)


def read_hands(source: str, query: HandQuery, config: SessionConfig | None = None,
               venue: str | None = None) -> Iterator[Placed]:
    """Every hand of ``source`` (a path, or - for JSON lines on stdin) that ``query`` matches
    (and of ``venue``, if given: a store's or an export's), up to its limit. ``config``: the
    session of a journal or an event stream (a table's configuration), else the journal's own
    table id and the defaults. What the source is, and whether it can be read, is decided now
    (a mistake before any output is written); the hands come as they are iterated."""
    from controller.history.replay_events import replay_table_events
    from controller.session import SessionConfig

    hands: Iterable[Placed]
    if source.startswith(("postgresql://", "postgres://")):  # a league's shared store
        return _matching(stored_hands(source, query, venue), query)
    if source == "-":
        first = sys.stdin.readline()
        kind: Kind = line_kind(first, "stdin") if first.strip() else "records"
        lines: Iterable[str] = chain([first], sys.stdin)
        path: Path | None = None
    else:
        path = must_exist(Path(source))
        kind = kind_of(path)
        lines = _lines(path)
        if kind == "store":
            return _matching(stored_hands(path, query, venue), query)
    where = "stdin" if path is None else str(path)
    if kind == "records":
        return _matching(record_lines(lines, where), query, venue)
    if venue is not None:
        what = "a table's journal" if kind == "journal" else "a stream of table events"
        raise ConfigError(f"--venue: {where} is {what}, whose hands name no venue; --venue "
                          "picks a venue's hands from the recorder's store or its JSON export")
    if kind == "journal" and path is not None:
        inferred, snapshot, events = journal_start(path, configured=config is not None)
        session = config or SessionConfig(**inferred)
        hands = _unplaced(replay_table_events(events, session, snapshot))
    else:
        hands = _unplaced(event_stream(lines, where, config, errors=True))
    return _matching(hands, query)


def _unplaced(records: Iterable[HandRecord]) -> Iterator[Placed]:
    from controller.history.export import Placed

    return (Placed(record) for record in records)


def _matching(hands: Iterable[Placed], query: HandQuery,
              venue: str | None = None) -> Iterator[Placed]:
    count = 0
    for hand in hands:
        if not query.matches(hand.record) or (venue is not None and hand.venue != venue):
            continue
        yield hand
        count += 1
        if query.limit is not None and count >= query.limit:
            return


def parse_time(text: str, option: str) -> float:
    """Seconds since 1970 from ``2026-11-25``, ``2026-11-25T14:30`` (this machine's time zone
    unless the text gives one) or a number of seconds."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise ConfigError(f"{option} {text!r} is not a time: give 2026-11-25, 2026-11-25T14:30 "
                          "or seconds since 1970") from None


__all__ = ["event_stream", "journal_start", "kind_of", "line_kind", "must_exist", "parse_time",
           "read_hands", "record_lines", "stored_hands"]
