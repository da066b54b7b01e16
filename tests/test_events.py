"""The table-event vocabulary (docs/events.md): every type parses, garbage is refused with a
reason."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.events import ZONES, BadEvent, CardEvent, ChipsEvent, dump_event, parse_event

GOOD = [
    {"type": "seat", "seat": 3, "player": "p-17", "stack": 20000},
    {"type": "seat", "seat": 3, "player": None},
    {"type": "shuffle", "ts": 12.5},
    {"type": "card", "zone": "seat:10", "card": "As", "uid": "04A1B2C3D4E5F6"},
    {"type": "card", "zone": "board", "card": "Td"},
    {"type": "chips", "zone": "seat:2", "chips": [1000, 500, 500]},
    {"type": "gone", "zone": "muck", "card": "7c"},
    {"type": "foreign", "zone": "seat:4", "uid": "DEADBEEF"},
    {"type": "key", "key": "confirm"},
    {"type": "declare", "seat": 5, "action": "raise", "amount": 1200},
    {"type": "level", "level": 4, "sb": 200, "bb": 400, "bb_ante": 400},
    {"type": "command", "name": "void_hand", "args": {"by": "floor-1"}},
    {"type": "tick", "now": 3600.0},
    {"type": "health", "device": "cards", "status": "reconnecting", "bad_per_minute": 3},
]


@pytest.mark.parametrize("raw", GOOD, ids=[str(g["type"]) for g in GOOD])
def test_every_event_type_round_trips(raw: dict[str, object]) -> None:
    event = parse_event(json.dumps(raw))
    assert event.type == raw["type"]
    assert parse_event(dump_event(event)) == event


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b'{"type": "card", "zone": "seat:11", "card": "As"}', "zone"),
        (b'{"type": "card", "zone": "board", "card": "1s"}', "card"),
        (b'{"type": "declare", "seat": 2, "action": "bet", "amount": -5}', "amount"),
        (b'{"type": "teleport"}', "type"),
        (b'{"type": "shuffle", "extra": 1}', "extra"),
        (b"\xff\xfe garbage", "event"),
        (b"[1, 2]", "event"),
    ],
)
def test_bad_lines_are_refused_with_a_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(BadEvent, match=reason):
        parse_event(raw)


@given(st.binary(max_size=200))
def test_no_line_raises_anything_but_bad_event(raw: bytes) -> None:
    with contextlib.suppress(BadEvent):
        parse_event(raw)


def test_dump_leaves_out_unset_fields() -> None:
    assert dump_event(CardEvent(zone="board", card="Ah")) == (
        '{"type":"card","zone":"board","card":"Ah"}'
    )


def test_the_listed_zones_are_the_events_zones() -> None:
    """A reader's configuration names its zones from ZONES: every one is a zone its events
    carry, and the events carry no other."""
    for zone in ("pott", "seat:0", "seat:11", "Board"):
        assert zone not in ZONES["cards"] and zone not in ZONES["chips"]
    for zone in {*ZONES["cards"], *ZONES["chips"], "seat:0", "seat:11", "pot", "board"}:
        try:
            CardEvent(zone=zone, card="Ah")
            card_zone = True
        except ValueError:
            card_zone = False
        try:
            ChipsEvent(zone=zone, chips=[100])
            chip_zone = True
        except ValueError:
            chip_zone = False
        assert card_zone == (zone in ZONES["cards"]), zone
        assert chip_zone == (zone in ZONES["chips"]), zone
