"""The shot clock on a player's own page (docs/shot-clock.md, docs/players.md): his own turn's
time, moved onto the room clock's time as the floor's table view moves it, and his extensions
left; another seat's turn shows him nothing of that seat's time. Built by the pure page model
from the table's public state (player_view.py); and on the phone, in the real Chromium at
360 px from a real table service over the test broker and a floor served over HTTPS: his time
counted down on the phone, his extension, the time up, the next break, and the times in the
sealed hand's record on the floor's hands screen."""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.demo.script import chips, deal, declare, seat
from controller.demo.script import shuffle as press_shuffle
from controller.engine.table_play import Level
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, encode
from controller.mqtt.topics import Topics
from controller.room.floor.model import TableView
from controller.room.floor.player_view import player_page
from controller.room.floor.store import HandQuery
from controller.session import SessionConfig, TableSession
from controller.session.outputs import SeatView, ShotClockView
from controller.session.shot_settings import ShotClockConfig
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import log_in
from tests.room.floor.player_page_helpers import (
    NO_SIDEWAYS_SCROLL,
    PHONE,
    floor_with_records,
    issued_link,
    phone,
)
from tests.venue import VenueClient
from tests.waiting import wait_until

# The shortest clock the settings allow (5 s and one extension of 5 s): real time, as the
# table service runs it
CLOCK = SessionConfig(table_id="1", level=Level(sb=50, bb=100),
                      shot_clock=ShotClockConfig(seconds=5, extensions=1, extension_seconds=5))


def view(shot: ShotClockView | None) -> dict[str, TableView]:
    state = TableSession(SessionConfig(table_id="1")).state().model_copy(update={
        "seats": {1: SeatView(player="anna", stack=5000, in_hand=True),
                  4: SeatView(player="ben", stack=7000, in_hand=True)},
        "shot_clock": shot})
    return {"1": TableView(table="1", state=state, clock_offset=2.5)}


def page_of(player: str, shot: ShotClockView | None):  # type: ignore[no-untyped-def]
    return player_page(player, tournament=None, tables=view(shot), clock=None,
                       clock_online=None, hands=[], own_cards=False)


def test_his_own_turn_counts_down_on_the_room_clock_with_his_extensions() -> None:
    shot = ShotClockView(seat=1, started=100.0, since=110.0, remaining=20.0, running=True,
                         seconds=30, extension_seconds=20, extensions={1: 2, 4: 0})
    mine = page_of("anna", shot).shot_clock
    assert mine is not None and mine.his_turn and mine.running
    assert (mine.remaining, mine.since, mine.extensions) == (20.0, 112.5, 2)


def test_another_seats_turn_shows_only_his_own_extensions() -> None:
    shot = ShotClockView(seat=4, started=100.0, since=110.0, remaining=7.0, running=True,
                         extension=True, extensions_used=1, seconds=30, extension_seconds=20,
                         extensions={1: 2, 4: 0})
    mine = page_of("anna", shot).shot_clock
    assert mine is not None and not mine.his_turn
    assert (mine.remaining, mine.since, mine.running, mine.extension, mine.extensions) == (
        0, None, False, False, 2)
    out = page_of("ben", shot.model_copy(update={"out": True, "running": False})).shot_clock
    assert out is not None and out.his_turn and out.out and out.extensions == 0


def test_a_table_without_a_shot_clock_says_nothing_of_one() -> None:
    assert page_of("anna", None).shot_clock is None
    assert "shot_clock" not in page_of("anna", None).model_dump(exclude_none=True)


def seconds_of(text: str) -> int:
    found = re.match(r"(\d+) s", text)
    assert found is not None, text
    return int(found[1])


def test_his_time_on_the_shot_clock_and_the_next_break_on_his_phone(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    topic = Topics(broker.plan.venue).clock("state")
    with contextlib.ExitStack() as stack:
        clock = VenueClient(broker, "clock", ())
        stack.callback(clock.close)
        clock.publish(topic, encode(ClockState(
            level=1, sb=50, bb=100, status="running", ends_at=time.time() + 600,
            next_break_at=time.time() + 1800)), retain=True)
        stack.callback(lambda: clock.publish(topic, b"", retain=True))  # (the module's broker)
        table = stack.enter_context(linked_table(broker, tmp_path / "t1", "1", CLOCK))
        table.feed([seat(1, "ana"), seat(2, "ben"), seat(3, "cem")])
        table.settle()
        server = stack.enter_context(floor_with_records(broker, tmp_path / "floor", None,
                                                        tls=True))
        assert server.url.startswith("https://")
        desk = browser.new_context(viewport={"width": 1280, "height": 800},
                                   ignore_https_errors=True)
        stack.callback(desk.close)
        staff = desk.new_page()
        log_in(staff, server.url)

        # The link the floor gives is the floor's HTTPS address, as the phone opens it
        ana, ben = phone(browser, https=True), phone(browser, https=True)
        for page, name in ((ana, "ana"), (ben, "ben")):
            url = issued_link(staff, name)
            assert url.startswith(f"{server.url}/p/"), url
            page.goto(url)
        expect(ana.locator("#p-seat")).to_have_text("1")
        expect(ana.locator("#p-break")).to_have_text(re.compile(r"^in (2\d:[0-5]\d|30:00)$"))
        mine, his = ana.locator("#p-shot-left"), ben.locator("#p-shot-left")
        expect(mine).to_have_text("not your turn · 1 extension left")  # no hand yet

        # The cards are read: the action is on her (the button, three-handed)
        table.feed([press_shuffle(), chips("seat:2", 50), chips("seat:3", 100),
                    *deal({2: "AsAh", 3: "KdKh", 1: "7c2d"}, [2, 3, 1])])
        expect(mine).to_have_text(re.compile(r"^[1-5] s · 1 extension left$"))
        first = seconds_of(mine.inner_text())
        # Counted down on the phone between pushes (the table sends nothing each second)
        expect(mine).not_to_have_text(f"{first} s · 1 extension left", timeout=3000)
        later = mine.inner_text()  # (a slow start may find her last second gone already)
        assert seconds_of(later) < first or "(extension)" in later, (first, later)
        expect(his).to_have_text("not your turn · 1 extension left")  # nothing of her time
        expect(mine).to_have_text(re.compile(r"^[1-5] s \(extension\) · 0 extensions left$"),
                                  timeout=8000)
        expect(mine).to_have_text("time is up: the floor rules · 0 extensions left",
                                  timeout=8000)
        assert ana.evaluate(NO_SIDEWAYS_SCROLL) <= PHONE["width"]

        # She acts all the same (nothing was folded, RULES C1): her time ends, his begins
        table.feed([chips("seat:1", 100)])
        # (his 5 s may already have run into his extension on a slow machine)
        expect(his).to_have_text(re.compile(
            r"^[1-5] s( · 1 extension| \(extension\) · 0 extensions) left$"))
        expect(mine).to_have_text("not your turn · 0 extensions left")
        table.feed([declare(2, "fold"), declare(3, "fold")])
        table.feed([press_shuffle()])  # hand 1 sealed (RULES H3): its record reaches the floor

        # The sealed hand's record on the floor's hands screen says how long each took
        assert wait_until(lambda: len(server.store.find(HandQuery(table="1"))) == 1)
        staff.goto(f"{server.url}/hands")
        staff.locator("tr.hand-row").first.click()
        story = staff.locator("#hand .story")
        expect(story).to_contain_text(re.compile(
            r"seat 1 calls 100 \(after (1[0-9]|[2-9]\d)(\.\d)? s, 1 time extension\)"))
        expect(story).to_contain_text(re.compile(r"seat 2 folds \(after \d+(\.\d)? s\)"))
        assert ana.errors == [] and ben.errors == []  # type: ignore[attr-defined]
