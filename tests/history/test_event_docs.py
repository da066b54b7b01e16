"""docs/events.md stays true: every event type is documented, and its example stream is the file
in docs/examples, parses line by line and replays to the hand the page describes."""

from __future__ import annotations

import io
import typing
from pathlib import Path

from controller.events import TableEvent, parse_event
from controller.history.replay_events import replay_events

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
EXAMPLE = ROOT / "docs" / "examples" / "two-hands.jsonl"


def test_every_event_type_is_documented() -> None:
    union = typing.get_args(typing.get_args(TableEvent)[0])
    types = {model.model_fields["type"].default for model in union}
    assert len(types) == 12
    for name in types:
        assert f"| `{name}` |" in DOC, name


def test_the_example_on_the_page_is_the_example_file_and_every_line_parses() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    block = DOC.split("```json\n", 1)[1].split("```", 1)[0].splitlines()
    assert block == lines
    for line in lines:
        parse_event(line)


def test_the_example_replays_to_the_hand_the_page_describes() -> None:
    errors = io.StringIO()
    records = list(replay_events(EXAMPLE.read_text().splitlines(), errors=errors))
    assert errors.getvalue() == ""
    (record,) = records
    assert (record.hand, record.button, record.sb, record.bb) == (1, 1, 2, 3)
    assert [(p.amount, p.winners) for p in record.pots] == [(1500, [2])]
    assert record.finishing_stacks == {1: 9300, 2: 10800, 3: 9900}
