"""A tournament's room and a cash room on the floor display, in the real Chromium with the real
floor server (and the real cash floor) on the test broker: each page asks only for what the
room has (the room screen of a tournament asked for the cash floor every two seconds and got
404 each time; the tournament page of a cash room, for the tournament), and a cash room, which
has no clock, waits for none (its strip said "--:-- no clock yet" in the warning's colour all
evening, its TV clock "WAITING FOR THE CLOCK")."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from controller.demo.room_states import room_states
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import StateMessage
from controller.mqtt.topics import Topics
from tests.room.cash.cash_helpers import NLH, Room
from tests.room.floor.floor_helpers import (
    after_ticks,
    clear_tables,
    count_requests,
    floor_server,
    get,
    new_page,
    publish_tables,
    ticks_counted,
)
from tests.venue import VenueClient
from tests.waiting import wait_until


def nothing_retained(broker: LocalBroker) -> None:
    """No clock, tournament or cash floor left retained by an earlier test of the module."""
    topics = Topics(broker.plan.venue)
    for who, topic in (("clock", topics.clock("state")),
                       ("clock", topics.service("clock", "status")),
                       ("tournament", topics.service("tournament", "state")),
                       ("cash", topics.service("cash", "state")),
                       ("cash", topics.service("cash", "status"))):
        client = VenueClient(broker, who, topics=())
        try:
            assert not client.publish(topic, b"", retain=True).is_failure
        finally:
            client.close()


def watched(browser: Browser, path: str) -> tuple[Page, dict[str, int]]:
    page = new_page(browser)
    ticks_counted(page)
    return page, count_requests(page, path)


def test_a_tournament_rooms_screen_never_asks_for_a_cash_floor(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    nothing_retained(broker)
    states = [StateMessage(table=s.table, seq=1, sent=time.time(), state=s, clock_offset=0.0)
              for s in room_states(3)]
    assert not any(m.state.game for m in states)  # tournament tables
    publish_tables(broker, states)
    try:
        with floor_server(broker, tmp_path / "floor") as server:
            assert wait_until(lambda: len(server.hub.room.tables) == 3)
            for path in ("/?tv=1", "/"):
                page, asked = watched(browser, "/api/cash")
                page.goto(f"{server.url}{path}")
                expect(page.locator(".card")).to_have_count(3)
                after_ticks(page, 4)  # the page's two-second poll had three turns meanwhile
                assert asked == {"requests": 0, "failed": 0, "console errors": 0}, asked
                assert page.errors == []  # type: ignore[attr-defined]
    finally:
        clear_tables(broker, [m.table for m in states])


def test_a_room_dealing_cash_without_the_cash_floor_is_asked_and_answered_without_errors(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    # Its tables' own games are shown; the room screen asks for the cash floor all the while
    # (one may start) and is answered "none" (204): it was a 404, a console error, every 2 s
    nothing_retained(broker)
    states = [StateMessage(table=s.table, seq=1, sent=time.time(), clock_offset=0.0,
                           state=s.model_copy(update={"game": "NT"}))
              for s in room_states(2)]
    publish_tables(broker, states)
    try:
        with floor_server(broker, tmp_path / "floor") as server:
            assert wait_until(lambda: len(server.hub.room.tables) == 2)
            page, asked = watched(browser, "/api/cash")
            page.goto(f"{server.url}/")
            expect(page.locator(".card")).to_have_count(2)
            after_ticks(page, 3)
            assert asked["requests"] >= 2 and asked["failed"] == 0, asked
            assert asked["console errors"] == 0, asked
            assert page.errors == []  # type: ignore[attr-defined]
            status, body, headers = get(f"{server.url}/api/cash")
            assert (status, body) == (204, b""), (status, body)
            assert "pokertable cash" in headers["x-pokertable-none"], headers
    finally:
        clear_tables(broker, [m.table for m in states])


def test_a_cash_room_waits_for_no_clock_and_asks_for_no_tournament(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    nothing_retained(broker)
    room = Room(broker, tmp_path / "cash.db")
    try:
        with floor_server(broker, tmp_path / "floor") as server:
            assert server.send("cash", "open_table", {"table": "1", "game": NLH},
                               by="floor:anna").status == "ok"
            assert wait_until(lambda: server.hub.cash is not None)
            # The room screen: its strip says cash games, no clock is waited for; the cash
            # floor is asked for, and answers
            page, asked = watched(browser, "/api/cash")
            page.goto(f"{server.url}/")
            strip = page.locator("#clockstrip")
            expect(strip.locator(".level")).to_have_text("cash games")
            expect(strip.locator(".status")).to_have_text("")
            expect(strip.locator(".left")).to_have_text("")
            assert "no clock" not in strip.inner_text()
            after_ticks(page, 2)
            assert asked["requests"] >= 1 and asked["failed"] == 0, asked
            # The TV clock: cash games, nothing waited for, no time counted
            tv = new_page(browser)
            tv.goto(f"{server.url}/clock?tv=1")
            expect(tv.locator("#tv-level")).to_have_text("Cash games")
            expect(tv.locator("#tv-status")).to_have_text("")
            expect(tv.locator("#tv-left")).to_be_hidden()
            # The tournament page: none asked for, and no clock waited for either
            tournament, asked = watched(browser, "/api/tournament")
            tournament.goto(f"{server.url}/tournament")
            expect(tournament.locator("#t-none")).to_be_visible()
            expect(tournament.locator("#clockstrip .level")).to_have_text("cash games")
            after_ticks(tournament, 4)  # its two-second poll had three turns meanwhile
            assert asked == {"requests": 0, "failed": 0, "console errors": 0}, asked
            for each in (page, tv, tournament):
                assert each.errors == []  # type: ignore[attr-defined]
    finally:
        room.close()
