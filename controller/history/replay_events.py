"""`pokertable replay-events`: a table-event stream (a journal, a script) in, hand records out.

The stream runs through the same `TableSession` as a live table, so a journal replays to the same
records bit for bit. Lines that are not table events are reported on stderr and skipped, as a live
table would reject them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from typing import TextIO

from controller.engine.records import HandRecord
from controller.events import BadEvent, parse_event
from controller.session import SessionConfig, TableSession

log = logging.getLogger(__name__)


def replay_events(
    lines: Iterable[str], config: SessionConfig | None = None, errors: TextIO | None = None
) -> Iterator[HandRecord]:
    """Every finished hand's record, in order: sealed at the next shuffle (RULES H3), the last
    one when the stream ends."""
    session = TableSession(config)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = parse_event(line)
        except BadEvent as exc:
            if errors is not None:
                errors.write(f"line {number}: {exc}\n")
            continue
        step = session.handle(event)
        if not step.accepted and errors is not None:
            for refusal in step.events:
                errors.write(f"line {number}: refused: {refusal.text} ({refusal.rule})\n")
        yield from step.sealed
    if session.settle_as_read() and session.pending_record is not None:
        yield session.pending_record


def record_json(record: HandRecord) -> str:
    return json.dumps(record.model_dump(mode="json"), separators=(",", ":"))
