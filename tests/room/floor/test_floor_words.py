"""What the floor's pages say, the same on every page (real broker, real floor server, Debian's
headless Chromium): an alert whose cause has passed, the tournament over, players and entries,
the time of day, the chip leader, a broken table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from controller.demo.room_states import publish
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import (
    ClockState,
    ServiceStatus,
    StateMessage,
    StatusMessage,
    TournamentState,
    encode,
)
from controller.mqtt.topics import Topics
from controller.room.tournament.ledger import Alert as TournamentAlert
from controller.room.tournament.view import PublishedState, SeatLine, TableLine, chip_leader
from controller.session import SessionConfig, TableSession
from tests.room.floor.floor_helpers import (
    clear_tables,
    floor_server,
    log_in,
    new_page,
    publish_tables,
)
from tests.waiting import wait_until

AT = 1_770_000_000.0
TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$")  # the floor's 24-hour time of day


@pytest.fixture(autouse=True)
def _nothing_retained(broker: LocalBroker) -> Iterator[None]:
    """Each test starts on an empty broker (it is the module's): no table, clock or
    tournament a test before left retained."""
    yield
    clear_tables(broker, ["1", "2", "3"])
    topics = Topics(broker.plan.venue)
    publish(broker.address(), broker.login("clock"), [
        (topics.clock("state"), b""), (topics.service("clock", "status"), b"")])
    publish(broker.address(), broker.login("tournament"), [
        (topics.service("tournament", "state"), b"")])


def _table_status(broker: LocalBroker, table: str, status: str) -> None:
    publish(broker.address(), broker.login(f"table-{table}"), [
        (Topics(broker.plan.venue).table(table, "status"),
         encode(StatusMessage(table=table, status=status)))])  # type: ignore[arg-type]


def _clock_status(broker: LocalBroker, status: str) -> None:
    publish(broker.address(), broker.login("clock"), [
        (Topics(broker.plan.venue).service("clock", "status"),
         encode(ServiceStatus(service="clock", status=status)))])  # type: ignore[arg-type]


def _clock(broker: LocalBroker, clock: ClockState) -> None:
    publish(broker.address(), broker.login("clock"),
            [(Topics(broker.plan.venue).clock("state"), encode(clock))])


def _tournament(broker: LocalBroker, state: TournamentState) -> None:
    publish(broker.address(), broker.login("tournament"),
            [(Topics(broker.plan.venue).service("tournament", "state"), encode(state))])


def test_an_alert_whose_cause_has_passed_is_a_notice_on_the_alerts_page(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """An outside check saw "URGENT · the table is offline" and "the tournament clock is
    offline" on /alerts long after both were back, while the room screen's card said "was: ...":
    now /alerts says the same, a notice with the time it came back, until acknowledged; and so
    after the floor restarts."""
    state = TableSession(SessionConfig(table_id="3")).state()
    publish_tables(broker, [StateMessage(table="3", seq=1, sent=AT, state=state)])
    _clock_status(broker, "online")
    with floor_server(broker, tmp_path / "floor") as server:
        assert wait_until(lambda: server.hub.room.clock_online is True and
                          "3" in server.hub.room.tables)
        page = new_page(browser)
        page.goto(f"{server.url}/alerts")
        _table_status(broker, "3", "offline")
        _clock_status(broker, "offline")
        three, clock = page.locator("#alerts-3 li.alert"), page.locator("#alerts-clock li.alert")
        expect(three).to_have_class("alert offline urgent")
        expect(three.locator(".sev")).to_have_text("urgent")
        expect(three.locator(".text")).to_have_text("the table is offline")
        expect(clock).to_have_class("alert offline urgent")

        _table_status(broker, "3", "online")  # back: the alert waits only for a click
        _clock_status(broker, "online")
        for alert in (three, clock):
            expect(alert).to_have_class(re.compile(r"\bnotice passed$"))
            expect(alert.locator(".sev")).to_have_text("notice")
            expect(alert.locator(".text")).to_have_text(re.compile("^was: the "))
            expect(alert.locator(".back")).to_have_text(
                re.compile(r"^back at \d\d:\d\d:\d\d: acknowledge it$"))
            expect(alert.locator(".todo")).to_have_count(0)
        expect(three.locator(".text")).to_have_text("was: the table is offline")
        page.goto(f"{server.url}/")  # the room screen's card says it alike
        expect(page.locator("#need-3 .need")).to_have_class("need notice")
        expect(page.locator("#need-3")).to_contain_text("was: the table is offline")
        assert page.errors == []  # type: ignore[attr-defined]

    with floor_server(broker, tmp_path / "floor") as server:  # restarted: still passed
        page = new_page(browser)
        log_in(page, server.url)
        page.goto(f"{server.url}/alerts")
        three = page.locator("#alerts-3 li.alert")
        expect(three).to_have_class("alert offline notice passed")
        page.locator("#alerts-3 button.ack").click()
        expect(page.locator("#alerts-3")).to_have_count(0)
        expect(page.locator("#alerts-clock li.alert")).to_have_class(
            "alert offline notice passed")
        assert page.errors == []  # type: ignore[attr-defined]


def test_after_the_winner_the_strip_says_the_tournament_is_over_not_the_round(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """An outside check saw "hand-for-hand, round 13" above the room screen after the winner:
    the strip on every page now names the winner; no time left counts, no "go on without it"."""
    state = TableSession(SessionConfig(table_id="2")).state()
    publish_tables(broker, [StateMessage(table="2", seq=1, sent=AT, state=state)])
    final = ClockState(level=14, sb=2000, bb=4000, status="running", ends_at=AT + 10**6,
                       remaining=600, hand_for_hand=True, round=13, playing=["2"],
                       waiting=["2"])
    with floor_server(broker, tmp_path / "floor") as server:
        _clock(broker, final)
        _tournament(broker, PublishedState(name="Cup", entries=24, players_left=2,
                                           status="running"))
        page = new_page(browser)
        page.clock.install()  # the page's timers the test's to run on (they run meanwhile)
        log_in(page, server.url)
        strip = page.locator("#clockstrip")
        expect(strip.locator(".h4h")).to_have_text("hand-for-hand, round 13 · waiting for 2")
        expect(page.locator("#need-2 button.release")).to_have_count(1)
        _tournament(broker, PublishedState(name="Cup", entries=24, players_left=1,
                                           status="finished", winner="Hanna Lindqvist"))
        for path in ("/", "/alerts", "/table/2", "/tournament"):
            if path != "/":
                page.goto(f"{server.url}{path}")
            expect(strip.locator(".level")).to_have_text("the tournament is over")
            expect(strip.locator(".blinds")).to_have_text("winner: Hanna Lindqvist")
            expect(strip).not_to_contain_text("hand-for-hand")
            expect(strip).not_to_contain_text("round 13")
            page.clock.run_for(500)  # the page's ticks (every 250 ms): the time left stays away
            expect(strip.locator("#strip-left")).to_be_hidden()
            if path == "/":
                expect(page.locator("button.release")).to_have_count(0)
        assert page.errors == []  # type: ignore[attr-defined]


def test_the_chip_leader_is_nobody_while_the_top_stack_is_shared() -> None:
    """Before the first hand the chip leader was "Anna 3,000", the first name alphabetically
    of everyone with the starting stack."""
    start = [SeatLine(player=p, table="1", seat=k + 1, stack=3000)
             for k, p in enumerate(["Carl", "Anna", "Bert"])]
    assert chip_leader(start) is None
    assert chip_leader([]) is None and chip_leader([SeatLine(player="Anna")]) is None
    later = [*start[:2], start[2].model_copy(update={"stack": 3100, "table": "2"})]
    leader = chip_leader(later)
    assert leader is not None and (leader.player, leader.stack, leader.table) == (
        "Bert", 3100, "2")
    assert chip_leader(start[:1]) is not None  # one player: he leads


def test_the_tv_and_the_tournament_page_say_players_and_the_chip_leader_alike(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """The TV said "Players 1 / 24" (entries) and /tournament "1 / 23" (registered) after a
    re-entry: both now say players left of the entries, labelled so, and the players registered
    only on /tournament; a shared top stack is no chip leader on either ("—")."""
    seats = [SeatLine(player=p, table="1", seat=k + 1, stack=20_000)
             for k, p in enumerate(["Anna", "Bert"])]
    state = PublishedState(name="Cup", entries=24, players=23, players_left=2,
                           status="running", seats=seats, chip_leader=chip_leader(seats))
    with floor_server(broker, tmp_path / "floor") as server:
        _tournament(broker, state)
        tv = new_page(browser)
        tv.goto(f"{server.url}/clock?tv=1")
        expect(tv.locator("#tv-players")).to_have_text("2")
        expect(tv.locator("#tv-entries")).to_have_text("of 24 entries")
        expect(tv.locator("#tv-stats")).to_contain_text("Players left")
        expect(tv.locator("#tv-leader")).to_have_text("—")
        expect(tv.locator("#tv-leader-stack")).to_have_text("")
        page = new_page(browser)
        page.goto(f"{server.url}/tournament")
        summary = page.locator("#t-summary")
        expect(summary).to_contain_text("players left 2 of 24 entries")
        expect(summary).to_contain_text("registered 23 players")
        expect(summary).to_contain_text("chip leader —")
        ahead = [seats[0], seats[1].model_copy(update={"stack": 25_000})]
        _tournament(broker, state.model_copy(update={"seats": ahead,
                                                     "chip_leader": chip_leader(ahead)}))
        expect(tv.locator("#tv-leader")).to_have_text("Bert")
        expect(tv.locator("#tv-leader-stack")).to_have_text("25,000")
        expect(summary).to_contain_text("chip leader Bert 25,000")
        assert tv.errors == [] and page.errors == []  # type: ignore[attr-defined]


def test_an_alerts_time_of_day_reads_the_same_on_every_page(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """/tournament said "9:40:00 PM" of the alert /alerts said "21:40:00" of, in a browser
    whose locale writes 12-hour times: one function, the floor's 24-hour time, everywhere."""
    evening = AT + 18 * 3600  # 21:40 in Berlin
    alert = TournamentAlert(id=1, at=evening, rule="PVB 13", table="2",
                            text="table 2, seat 3: Ghost is not in the tournament")
    with floor_server(broker, tmp_path / "floor") as server:
        _tournament(broker, PublishedState(name="Cup", entries=2, players_left=2,
                                           status="running", alerts=[alert]))
        context = browser.new_context(locale="en-US", timezone_id="Europe/Berlin")
        page = context.new_page()
        page.goto(f"{server.url}/alerts")
        on_alerts = page.locator("#alerts-2 li.alert .at")
        expect(on_alerts).to_have_text("21:40:00")
        page.goto(f"{server.url}/tournament")
        on_tournament = page.locator("#t-alerts li[data-alert='1']")
        expect(on_tournament).to_contain_text("21:40:00 · table 2, seat 3")
        assert "PM" not in on_tournament.inner_text()
        page.goto(f"{server.url}/hands")
        assert TIME.match(page.evaluate(f"window.floorApp.when({evening})"))
        context.close()


def test_a_broken_table_looks_out_of_play_on_the_room_screen(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """An outside check saw tables the tournament broke as idle cards, "shuffle" and hands per
    hour: now greyed, "broken", no rate, and switched off no reason in the attention strip."""
    empty = TableSession(SessionConfig(table_id="1")).state()
    with floor_server(broker, tmp_path / "floor") as server:
        for hand in (1, 2, 3, 4):  # three hands begun after the first: a rate on its card
            publish_tables(broker, [StateMessage(table="1", seq=hand, sent=AT + hand,
                                                 state=empty.model_copy(update={"hand": hand}))])
        publish_tables(broker, [StateMessage(table="2", seq=1, sent=AT, state=TableSession(
            SessionConfig(table_id="2")).state())])
        page = new_page(browser)
        page.goto(f"{server.url}/")
        four, five = page.locator("#table-1"), page.locator("#table-2")
        expect(four.locator(".rate")).to_have_text(re.compile(r"^\d+/h$"))
        expect(four.locator(".act")).to_have_text("shuffle")
        lines = [TableLine(table="1", seats=10, players=0, status="broken"),
                 TableLine(table="2", seats=10, players=0, status="open", online=True)]
        _tournament(broker, PublishedState(name="Cup", entries=9, players_left=9,
                                           status="running", tables=lines))
        expect(four).to_have_class(re.compile(r"\bout\b"))
        expect(four.locator(".act")).to_have_text("broken")
        expect(four.locator(".rate")).to_have_text("")
        expect(four.locator(".street")).to_have_text("")
        # its empty seats are none to fill: not in the free-seat green
        expect(four.locator(".seats")).not_to_have_class(re.compile(r"\bfree\b"))
        expect(five).not_to_have_class(re.compile(r"\bout\b"))
        expect(five.locator(".act")).to_have_text("shuffle")
        assert page.evaluate("getComputedStyle(document.getElementById('table-1')).opacity") \
            == "0.5"
        _table_status(broker, "1", "offline")  # switched off: nothing for the floor
        assert wait_until(lambda: server.hub.room.tables["1"].online is False)
        expect(four.locator(".act")).to_have_text("broken")
        expect(page.locator("#attention")).to_have_text(
            "every table plays: nothing needs the floor")
        _table_status(broker, "2", "offline")  # one in play: the urgent alert it always was
        expect(page.locator("#need-2 .need")).to_have_class("need urgent")
        expect(page.locator("#need-1")).to_have_count(0)
        assert page.errors == []  # type: ignore[attr-defined]
