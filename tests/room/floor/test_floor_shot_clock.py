"""The table's shot clock on the floor's screens (docs/shot-clock.md), in a real browser (Debian's
headless Chromium) from a real table service publishing over the test broker: the seat to act
counts down on the table screen and on the room screen's card (the TV), each seat shows its
time extensions, an extension shows, and when the time is gone the floor is told and the seat
is not folded (RULES C1: the floor rules on time). Real time: the shortest clock (5 s, one
extension of 5 s)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.demo.script import chips, deal, seat
from controller.demo.script import shuffle as press_shuffle
from controller.engine.table_play import Level
from controller.mqtt.local_broker import LocalBroker
from controller.session import SessionConfig
from controller.session.shot_settings import ShotClockConfig
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import floor_server, new_page

CONFIG = SessionConfig(table_id="1", level=Level(sb=50, bb=100),
                       shot_clock=ShotClockConfig(seconds=5, extensions=1, extension_seconds=5))


def seconds_of(text: str) -> int:
    found = re.search(r"(\d+) s", text)
    assert found is not None, text
    return int(found[1])


def test_the_seat_to_act_counts_down_on_the_table_and_room_screens(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "t1", "1", CONFIG) as table:
        page, room = new_page(browser), new_page(browser)
        page.goto(f"{server.url}/table/1")
        room.goto(f"{server.url}/")
        table.feed([seat(1, "ana"), seat(2, "ben"), seat(3, "cem"), press_shuffle(),
                    chips("seat:2", 50), chips("seat:3", 100),
                    *deal({2: "AsAh", 3: "KdKh", 1: "7c2d"}, [2, 3, 1])])
        shot = page.locator("#shot-1")
        expect(shot).to_contain_text("time ")
        expect(shot).to_contain_text("1 ext.")
        expect(page.locator("#seat-2 .shot")).to_have_text("1 ext.")  # not his turn
        first = seconds_of(shot.inner_text())
        assert 1 <= first <= 5  # the table's 5-second clock, started as the action reached him
        # Counted down in the page between pushes (the table sends nothing per second)
        expect(shot).not_to_have_text(re.compile(rf"time {first} s"), timeout=3000)
        assert seconds_of(shot.inner_text()) < first
        card = room.locator("#table-1 .act")
        expect(card).to_contain_text(re.compile(r"S1 \d s"))
        # Then his extension, then the floor is told; the seat is not folded
        expect(shot).to_contain_text("(extension 1)", timeout=8000)
        expect(shot).to_contain_text("0 ext.")
        expect(shot).to_contain_text("time is up: the floor rules", timeout=8000)
        expect(card).to_have_text("S1 time up")
        expect(room.locator("#attention")).to_contain_text("seat 1: the shot clock ran out")
        expect(page.locator("#seat-1")).not_to_have_class(re.compile(r"\bfolded\b"))
        expect(page.locator("#story")).to_contain_text("the shot clock ran out")
        assert page.errors == [] and room.errors == []  # type: ignore[attr-defined]
