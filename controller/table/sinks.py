"""Local sinks: where a table's output goes until MQTT carries it.

`FileSink` writes a directory a floor screen or a person can read: ``state.json`` (replaced
atomically), ``events.jsonl`` (public events) and ``records.jsonl`` (sealed full records: the
recorder's file, never for a display). ``events.jsonl`` grows by some 160 KB in five minutes of
play, so it is rotated by size: ``events.jsonl.1`` is the newest older file, ``.N`` the oldest
kept; a rotation happens between two lines, never inside one. `MemorySink` keeps everything
in lists, for tests and the simulator, and lets a thread wait for a state.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TextIO

from controller.engine.records import HandRecord
from controller.session.outputs import PublicEvent, TableState
from controller.storage.private_files import private_dir, private_file, write_private

EVENTS_MAX_BYTES = 10_000_000
EVENTS_KEEP = 5


class FileSink:
    def __init__(self, directory: str | Path, echo: TextIO | None = None, *,
                 events_max_bytes: int = EVENTS_MAX_BYTES, events_keep: int = EVENTS_KEEP
                 ) -> None:
        self.directory = private_dir(Path(directory), 0o750)
        # Public events and the state may be read by the group (a screen's user); the records
        # hold every hole card: the owner's alone.
        self._events_path = self.directory / "events.jsonl"
        self._events_max = events_max_bytes
        self._events_keep = events_keep
        self._events, self._events_size = self._open_events()
        records = private_file(self.directory / "records.jsonl", 0o600)
        self._records = records.open("a", encoding="utf-8")
        self._echo = echo

    def _open_events(self) -> tuple[BinaryIO, int]:
        events = private_file(self._events_path, 0o640).open("ab")
        size = events.tell()
        if size:
            with self._events_path.open("rb") as fh:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":  # a line cut by a power cut: the next one starts anew
                    events.write(b"\n")
                    size += 1
        return events, size

    def _rotate_events(self) -> None:
        """events.jsonl -> .1 -> .2 ... ; the oldest beyond ``events_keep`` goes."""
        self._events.close()
        base = str(self._events_path)
        Path(f"{base}.{self._events_keep}").unlink(missing_ok=True)
        for k in range(self._events_keep - 1, 0, -1):
            if Path(f"{base}.{k}").exists():
                os.replace(f"{base}.{k}", f"{base}.{k + 1}")
        os.replace(base, f"{base}.1")
        self._events, self._events_size = self._open_events()

    def state(self, state: TableState) -> None:
        # (whole or not at all for a reader: write_private renames it into place)
        write_private(self.directory / "state.json", state.model_dump_json().encode(), 0o640)

    def event(self, event: PublicEvent) -> None:
        line = (event.model_dump_json() + "\n").encode()
        if self._events_size and self._events_size + len(line) > self._events_max:
            self._rotate_events()  # whole lines only: a line never spans two files
        self._events.write(line)
        self._events.flush()
        self._events_size += len(line)
        if self._echo is not None:
            rule = f" ({event.rule})" if event.rule else ""
            self._echo.write(f"hand {event.hand}: {event.text}{rule}\n")
            self._echo.flush()

    def record(self, record: HandRecord) -> None:
        self._records.write(record.model_dump_json() + "\n")
        self._records.flush()

    def recovered(self, events: list[PublicEvent]) -> None:
        """A file is no floor: the journal keeps the story, nothing to re-offer here."""

    def close(self) -> None:
        self._events.close()
        self._records.close()


class MemorySink:
    """Everything the table published, in order; `wait_state` blocks until a state matches."""

    def __init__(self) -> None:
        self.states: list[TableState] = []
        self.events: list[PublicEvent] = []
        self.records: list[HandRecord] = []
        self.recovered_events: list[PublicEvent] = []
        self._changed = threading.Condition()

    def state(self, state: TableState) -> None:
        with self._changed:
            self.states.append(state)
            self._changed.notify_all()

    def event(self, event: PublicEvent) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def record(self, record: HandRecord) -> None:
        with self._changed:
            self.records.append(record)
            self._changed.notify_all()

    def recovered(self, events: list[PublicEvent]) -> None:
        with self._changed:
            self.recovered_events.extend(events)

    def wait_state(self, test: Callable[[TableState], bool], timeout: float = 5.0) -> TableState:
        with self._changed:
            ok = self._changed.wait_for(lambda: bool(self.states) and test(self.states[-1]),
                                        timeout)
            if not ok:
                last = self.states[-1].waiting_for if self.states else "no state"
                raise TimeoutError(f"the table did not reach the expected state (last: {last})")
            return self.states[-1]

    @property
    def last(self) -> TableState:
        with self._changed:
            return self.states[-1]
