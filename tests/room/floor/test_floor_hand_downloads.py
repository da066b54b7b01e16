"""The floor's hand downloads over HTTP (a real server on the test broker): PHH and tracker text
from the same code as `pokertable hands export`, public (no hole card nobody tabled), and a void
hand or a misdeal refused in words, not as a file that no tool can read."""

from __future__ import annotations

import io
import json
from pathlib import Path

from controller.engine.records import HandRecord
from controller.history.export import write_export
from controller.history.phh_export import record_phh
from controller.history.replay_events import replay_events
from controller.mqtt.local_broker import LocalBroker
from tests.room.floor.floor_helpers import floor_server, get

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "two-hands.jsonl"


def test_a_hand_downloads_as_tracker_text_and_phh(broker: LocalBroker, tmp_path: Path) -> None:
    (record,) = replay_events(EXAMPLE.read_text().splitlines())
    public = record.public()  # what the floor keeps: cem's 7d 2c went to the muck unseen
    misdeal = public.model_copy(update={"hand": 2, "status": "misdeal", "started": 1.9e9})
    with floor_server(broker, tmp_path / "floor") as server:
        server.store.add_hand("1:1:a", public)
        server.store.add_hand("1:2:b", misdeal)
        code, body, headers = get(f"{server.url}/api/hands/1:1:a/stars")
        assert code == 200
        assert headers["content-disposition"] == 'attachment; filename="table-1-hand-1.txt"'
        expected = io.StringIO()
        write_export([public], expected, "stars")
        text = body.decode()
        assert text == expected.getvalue()
        assert text.startswith("PokerStars Hand #")
        assert "ben: shows [As Ad] (a pair of Aces)" in text
        assert "7d" not in text and "2c 7d" not in text and "Dealt to" not in text
        code, body, _ = get(f"{server.url}/api/hands/1:1:a/phh")
        assert code == 200 and body.decode() == record_phh(public)
        for kind in ("stars", "phh"):
            code, body, _ = get(f"{server.url}/api/hands/1:2:b/{kind}")
            assert code == 409, kind
            assert "hand 2 is a misdeal" in json.loads(body)["reason"]
            code, _, _ = get(f"{server.url}/api/hands/9:9:9/{kind}")
            assert code == 404


def test_the_example_hand_is_what_the_download_test_thinks() -> None:
    (record,) = replay_events(EXAMPLE.read_text().splitlines())
    assert isinstance(record, HandRecord) and record.hole_cards[3] == "7d2c"
    assert 3 not in record.tabled()
