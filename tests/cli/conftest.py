"""The table the hands commands' tests read (tests/cli/test_hands_cli.py, test_hands_views.py):
made once for the package, as it was once for their module when they were one."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine.records import HandRecord
from controller.events import CommandEvent, ShuffleEvent, TableEvent
from controller.session import SessionConfig
from controller.sim import soak as soak_module
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import MemorySink


@pytest.fixture(scope="package")
def table(tmp_path_factory: pytest.TempPathFactory,
          monkeypatch_module: pytest.MonkeyPatch) -> tuple[Path, list[HandRecord]]:
    """A table's journal.db after 30 soak hands on one table and one the floor voids: the
    events went through the table service (journal written ahead, a checkpoint at every
    shuffle, older hands let go), and the records it sealed."""
    events: list[TableEvent] = []
    configs: list[SessionConfig] = []
    feed, start = soak_module.DirectHands.feed, soak_module.DirectHands.__init__

    def keep_config(self: soak_module.DirectHands, session: object, *args: object) -> None:
        start(self, session, *args)  # type: ignore[arg-type]
        configs.append(self.session.config)

    def keep_event(self: soak_module.DirectHands, event: TableEvent) -> None:
        events.append(event)
        feed(self, event)

    monkeypatch_module.setattr(soak_module.DirectHands, "__init__", keep_config)
    monkeypatch_module.setattr(soak_module.DirectHands, "feed", keep_event)
    soak_module.soak(1, 30, seed=11)
    monkeypatch_module.undo()
    directory = tmp_path_factory.mktemp("table")
    journal = Journal(directory / "journal.db")
    sink = MemorySink()
    clock = iter(range(10**9))
    service = TableService(configs[0], journal, sink, clock=lambda: 1.8e9 + next(clock))
    last = events[-1].ts or 0.0
    # After the soak's hands, the floor voids one more (PVB 30); the next press seals it.
    for event in [*events, ShuffleEvent(ts=last + 60),
                  CommandEvent(name="void", args={"reason": "test"}, by="floor:ana"),
                  ShuffleEvent(ts=last + 120)]:
        assert service.process(event).error is None
    journal.close()
    assert sum(r.status == "void" for r in sink.records) == 1
    records = list(sink.records)
    (directory / "records.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    return directory, records


@pytest.fixture(scope="package")
def monkeypatch_module() -> pytest.MonkeyPatch:
    return pytest.MonkeyPatch()
