"""`pokertable replay-events`: a table-event stream (a journal, a script) in, hand records out.

The stream runs through the same `TableSession` as a live table, so a journal replays to the same
records bit for bit. Lines that are not table events are reported on stderr and skipped, as a live
table would reject them.

A stream that `pokertable journal export` wrote begins with a head line (`StreamHead`): the
session the table ran (its id, rule profile, seats) and, when the journal had already let older
hands go, the checkpoint the table stored at the first shuffle it still keeps. The stream then
replays from that checkpoint, as a restarted table does.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from typing import TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from controller.engine.hand import HOLE_CARDS
from controller.engine.records import HandRecord
from controller.errors import first_error
from controller.events import BadEvent, TableEvent, parse_event
from controller.session import SessionConfig, SessionSnapshot, TableSession
from controller.session.outputs import PublicEvent

log = logging.getLogger(__name__)


class StreamHead(BaseModel):
    """The first line of an exported journal: ``{"session": {...}, "snapshot": {...}}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session: SessionConfig
    snapshot: SessionSnapshot | None = None


def read_head(line: str) -> StreamHead | None:
    """The head, if ``line`` is one (a JSON object with a ``session`` key); a head that does not
    validate is a `BadEvent` naming the field."""
    if '"session"' not in line:
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or "session" not in data:
        return None
    try:
        return StreamHead.model_validate(data)
    except ValidationError as exc:
        raise BadEvent(f"the stream's head line: {first_error(exc, 'head')}") from None


def replay_table_events(
    events: Iterable[tuple[int, TableEvent]], config: SessionConfig | None = None,
    snapshot: SessionSnapshot | None = None, errors: TextIO | None = None,
    where: str = "", give_profile: str = "its rule profile",
) -> Iterator[HandRecord]:
    """Every finished hand's record, in order: sealed at the next shuffle (RULES H3), the last
    one when the events end. ``events`` are (line or journal number, event); a refused one is
    said on ``errors`` ("line 6: refused: ...", after ``where``, the file, when given). So is,
    once, a hold'em replay of a stream that deals a seat more hole cards: an Omaha table's
    events replayed without its rule profile (``give_profile`` says how to give it)."""
    session = TableSession(config, snapshot)
    at = f"{where} line" if where else "line"
    cards_said = False
    for number, event in events:
        step = session.handle(event)
        if errors is not None:
            if not step.accepted:
                for refusal in step.events:
                    errors.write(f"{at} {number}: refused: {refusal.text} ({refusal.rule})\n")
            elif not cards_said and session.profile.game == "NT":
                extra = next((e for e in step.events if e.kind == "alert"
                              and e.rule == "PVB 30(6)" and e.seat is not None), None)
                if extra is not None:
                    cards_said = True
                    errors.write(_more_hole_cards(extra, session, where, give_profile) + "\n")
        yield from step.sealed
    if session.settle_as_read() and session.pending_record is not None:
        yield session.pending_record


def _more_hole_cards(alert: PublicEvent, session: TableSession, where: str,
                     give_profile: str) -> str:
    """The one line that says a hold'em replay met a seat with more hole cards (PVB 30(6)):
    most likely a pot-limit Omaha table's events replayed without its rule profile."""
    wanted = HOLE_CARDS[session.profile.game]
    return (f"{where + ': ' if where else ''}hand {alert.hand}: seat {alert.seat} was dealt "
            f"more than {wanted} hole cards, and the rule profile {session.profile.name} plays "
            f"no-limit hold'em: are these a pot-limit Omaha table's events? Give {give_profile}; "
            f"replayed as hold'em, each record keeps {wanted} hole cards of a seat")


def parsed(lines: Iterable[str], errors: TextIO | None = None,
           first: int = 1, where: str = "") -> Iterator[tuple[int, TableEvent]]:
    """The table events of ``lines`` with their line numbers; others reported on ``errors``
    ("line 9: not a table event: ...", after ``where`` when given) and skipped."""
    at = f"{where} line" if where else "line"
    for number, line in enumerate(lines, start=first):
        if not line.strip():
            continue
        try:
            yield number, parse_event(line)
        except BadEvent as exc:
            if errors is not None:
                errors.write(f"{at} {number}: {exc}\n")


def replay_events(
    lines: Iterable[str], config: SessionConfig | None = None, errors: TextIO | None = None,
    snapshot: SessionSnapshot | None = None,
) -> Iterator[HandRecord]:
    """The records of a stream of JSON lines (see `replay_table_events`)."""
    return replay_table_events(parsed(lines, errors), config, snapshot, errors)


def record_json(record: HandRecord) -> str:
    """One record as one line of compact JSON (UTF-8 as it is: names are not escaped)."""
    return record.model_dump_json()


__all__ = ["StreamHead", "parsed", "read_head", "record_json", "replay_events",
           "replay_table_events"]
